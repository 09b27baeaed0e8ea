// Pure functions from histogram data to plotly figures: offset (ridgeline), overlay,
// and distribution (percentile bands over steps).

import { lighten, withAlpha } from './colors.js';
import { fmtValue } from './format.js';

const FONT = { family: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif', size: 11, color: '#333' };

function baseLayout(extra) {
  return {
    height: 300, margin: { l: 58, r: 14, t: 10, b: 42 }, font: FONT,
    paper_bgcolor: '#fff', plot_bgcolor: '#fff', showlegend: false, hovermode: 'closest', ...extra,
  };
}

/**
 * The probability density in each bucket (its share of the entry's values per unit of x),
 * so entries with different counts and bucket widths compare; a zero-width bucket (all
 * values equal) gets its share.
 */
function densities(entry) {
  const total = entry.counts.reduce((a, b) => a + b, 0) || 1;
  return entry.counts.map((c, i) => {
    const width = entry.edges[i + 1] - entry.edges[i];
    return width > 0 ? c / total / width : c / total;
  });
}

/** The outline of a histogram as a step line: x at edges, y per bucket. */
function outline(entry, ys) {
  const x = [];
  const y = [];
  entry.counts.forEach((_, i) => {
    x.push(entry.edges[i], entry.edges[i + 1]);
    y.push(ys[i], ys[i]);
  });
  return { x, y };
}

/** Older steps lighter, newer ones darker: t in [0, 1] from oldest to newest. */
const stepColor = (color, t) => lighten(color, 0.75 * (1 - t));

/**
 * Ridgeline: one filled outline per step at height `step`, newer steps lower and in
 * front (drawn last), heights as counts scaled by the largest count of all entries.
 */
export function offsetFigure(entries, color) {
  const top = Math.max(1, ...entries.flatMap((e) => e.counts));
  const steps = entries.map((e) => e.step);
  const span = steps.length > 1 ? steps[steps.length - 1] - steps[0] : 1;
  const height = (span / Math.max(entries.length - 1, 1)) * 3 || 1;
  const data = entries.map((entry, k) => {
    const base = entry.step;
    const centers = entry.counts.map((_, i) => (entry.edges[i] + entry.edges[i + 1]) / 2);
    const ys = entry.counts.map((c) => base - (height * c) / top);
    const t = entries.length > 1 ? k / (entries.length - 1) : 1;
    return {
      type: 'scatter', mode: 'lines', fill: 'toself', hoveron: 'points',
      x: [entry.edges[0], ...centers, entry.edges[entry.edges.length - 1]], y: [base, ...ys, base],
      line: { color: stepColor(color, t), width: 1 }, fillcolor: lighten(color, 0.55 + 0.35 * (1 - t)),
      text: [0, ...entry.counts, 0].map(fmtValue), // re-binned counts have fractions
      hovertemplate: `step ${entry.step}<br>x %{x:.4g}<br>count %{text}<extra></extra>`,
      meta: { step: entry.step },
    };
  });
  return { data, layout: baseLayout({ xaxis: { title: { text: 'value' }, zeroline: false, gridcolor: '#eee' },
    yaxis: { title: { text: 'step' }, autorange: 'reversed', gridcolor: '#eee', zeroline: false,
      tickmode: 'array', tickvals: stepTicks(steps) } }) };
}

/** At most `most` of the steps drawn, spread evenly, first and last included: the offset
 * view's y axis is labelled at steps that exist, never between them or above the oldest
 * ridge (whose outline reaches above its own step). */
export function stepTicks(steps, most = 6) {
  const unique = [...new Set(steps)];
  if (unique.length <= most) return unique;
  const picked = new Set();
  for (let i = 0; i < most; i += 1) picked.add(unique[Math.round((i * (unique.length - 1)) / (most - 1))]);
  return [...picked];
}

// Viridis at ten stops: a sequential scale whose steps tell apart by hue and lightness.
export const STEP_SCALE = ['#440154', '#482878', '#3e4989', '#31688e', '#26828e', '#1f9e89', '#35b779', '#6ece58',
  '#b5de2b', '#fde725'];

/** The colour of step position t in [0, 1] (oldest to newest) on STEP_SCALE. */
export function stepScale(t) {
  return STEP_SCALE[Math.min(STEP_SCALE.length - 1, Math.round(t * (STEP_SCALE.length - 1)))];
}

/**
 * Overlay: up to `maxLines` steps' outlines of their probability density in one plot,
 * coloured by step on a sequential scale with a legend naming each (one hue, lighter and
 * darker, left 15 outlines apart by nothing). `color` (the run's) is not used here.
 */
export function overlayFigure(entries, color, maxLines = 10) {
  const pick = entries.length <= maxLines ? entries
    : Array.from({ length: maxLines }, (_, i) => entries[Math.round((i * (entries.length - 1)) / (maxLines - 1))]);
  const data = pick.map((entry, k) => {
    const { x, y } = outline(entry, densities(entry));
    const t = pick.length > 1 ? k / (pick.length - 1) : 1;
    return {
      type: 'scatter', mode: 'lines', name: `step ${entry.step}`, x, y,
      line: { color: stepScale(t), width: 1.5 },
      hovertemplate: `step ${entry.step}<br>x %{x:.4g}<br>density %{y:.4g}<extra></extra>`, meta: { step: entry.step },
    };
  });
  return { data, layout: baseLayout({ showlegend: pick.length > 1, legend: { font: { size: 10 }, title: { text: 'step' } },
    xaxis: { title: { text: 'value' }, zeroline: false, gridcolor: '#eee', exponentformat: 'SI' },
    yaxis: { title: { text: 'probability density' }, exponentformat: 'SI', gridcolor: '#eee', zeroline: false, rangemode: 'tozero' } }) };
}

/** Bands between symmetric percentile pairs (outer lighter), and the median line. */
export function distributionFigure(dist, color) {
  const p = dist.percentiles;
  const n = p.length;
  const column = (j) => dist.bands.map((row) => row[j]);
  const data = [];
  const pairs = Math.floor(n / 2);
  for (let j = 0; j < pairs; j++) {
    const label = `${fmtValue(p[j])}–${fmtValue(p[n - 1 - j])} %`;
    data.push({ type: 'scatter', mode: 'lines', x: dist.steps, y: column(j), line: { width: 0, color },
      hoverinfo: 'skip', meta: { band: j } });
    data.push({ type: 'scatter', mode: 'lines', x: dist.steps, y: column(n - 1 - j), fill: 'tonexty',
      fillcolor: withAlpha(color, 0.12 + 0.1 * j), line: { width: 0, color }, name: label,
      hovertemplate: `step %{x}<br>p${p[n - 1 - j]} %{y:.4g}<extra></extra>`, meta: { band: j } });
  }
  data.push({ type: 'scatter', mode: dist.steps.length <= 1 ? 'lines+markers' : 'lines', x: dist.steps,
    y: column(pairs), line: { color, width: 2 }, name: 'median',
    hovertemplate: 'step %{x}<br>median %{y:.4g}<extra></extra>', meta: { median: true } });
  return { data, layout: baseLayout({ xaxis: { title: { text: 'step' }, gridcolor: '#eee', zeroline: false },
    yaxis: { title: { text: 'value' }, gridcolor: '#eee', zeroline: false } }) };
}

/** "NaN: 3 · +Inf: 1" over the entries, or '' if every value was finite. */
export function nonfiniteNote(entries) {
  const sum = (key) => entries.reduce((total, e) => total + (e[key] || 0), 0);
  const parts = [['NaN', sum('nan_count')], ['+Inf', sum('pos_inf_count')], ['-Inf', sum('neg_inf_count')]]
    .filter(([, count]) => count > 0).map(([label, count]) => `${label}: ${count}`);
  return parts.length ? `Non-finite values (not in the buckets) over the shown steps: ${parts.join(' · ')}` : '';
}
