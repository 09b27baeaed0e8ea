// The bands of a job's or a group's line over its ranks or member runs, as plotly traces:
// min-max, p5-p95 and p25-p75 fills, the dashed median, or mean ± 1 sd; each edge's hover
// names the rank or run at it (pure; scalarfigure.js places them under the lines).

import { holderText } from './bandoutliers.js';
import { withAlpha } from './colors.js';
import { escPlotly, fmtValue } from './format.js';

export const QUANTILE_NAMES = ['p5', 'p25', 'median', 'p75', 'p95'];

/** Who holds a band's edge: "rank 7" of a job, the member run's name of a group (escaped when drawn). */
function holderName(band) {
  return band.names ? (i) => escPlotly(band.names[i] ?? `#${i}`) : (i) => `rank ${i}`;
}

/** The quantiles over ranks of a job role's answer, by name (null from a server that sends none). */
export function quantilesOf(role) {
  if (!role.median) return null;
  return Object.fromEntries(QUANTILE_NAMES.map((name) => [name, role[name]]));
}

/**
 * The bands of a job's mean line: min-max, then p5-p95, then p25-p75, each a fill of the
 * same faint alpha over the last, so the middle half of the ranks is the darkest and the
 * extremes the faintest; the hover of min/max names the rank at each extreme. The median
 * is a dashed line of its own.
 */
export function bandTraces(s, kind = 'quantiles', style) {
  if (kind === 'none') return [];
  if (kind === 'sd') return sdTraces(s, style);
  const band = { ...s.band, min: broken(s.band.min, s.breaks), max: broken(s.band.max, s.breaks) };
  s = { ...s, xs: broken(s.xs, s.breaks), steps: broken(s.steps, s.breaks) };
  const minRank = broken(band.minRank, s.breaks);
  const maxRank = broken(band.maxRank, s.breaks);
  const count = broken(band.count, s.breaks);
  const who = holderName(band);
  const text = (values, ranks, what) => values.map((v, i) => `${what} ${v === null ? '–' : fmtValue(v)} (${who(ranks[i])})`);
  const custom = s.steps.map((step, i) => [step, count[i], band.ranks, escPlotly(s.run)]);
  // Per edge: who holds it over which steps (from the answer's ranges), and the rank a click pins.
  const held = (name, ranks) => s.steps.map((step, i) => [...custom[i],
    step === null ? '' : escPlotly(holderText(band.extremes?.[name]?.ranges, step, band.names ? (r) => band.names[r] : undefined)),
    ranks[i]]);
  const common = { type: 'scatter', mode: 'lines', x: s.xs, showlegend: false, customdata: custom, connectgaps: false,
    legendgroup: s.run };
  const meta = { run: s.run, job: s.job ?? s.run, role: band.role, ...(band.names ? { names: band.names } : {}) };
  const noun = band.noun ?? 'rank';
  const quantiles = quantileTraces(s, band, common, held, meta, kind, style);
  if (kind === 'p5-p95' || kind === 'p25-p75') return quantiles;
  return [
    {
      ...common, y: band.min, line: { width: 0, color: s.color }, text: text(band.min, minRank, 'min'),
      customdata: held('min', minRank),
      hovertemplate: `<b>%{customdata[3]}</b> · step %{customdata[0]} · %{text} · %{customdata[1]} of %{customdata[2]} ${noun}s · %{customdata[4]}<extra></extra>`,
      meta: { ...meta, kind: 'band-min' },
    },
    {
      ...common, y: band.max, line: { width: 0, color: s.color }, fill: 'tonexty', fillcolor: withAlpha(s.color, style.band_alpha),
      text: text(band.max, maxRank, 'max'), customdata: held('max', maxRank),
      hovertemplate: '<b>%{customdata[3]}</b> · step %{customdata[0]} · %{text} · %{customdata[4]}<extra></extra>',
      meta: { ...meta, kind: 'band-max' },
    },
    ...quantiles,
  ];
}

/** The mean ± 1 sample standard deviation of a job's ranks or a group's runs, as one filled band. */
function sdTraces(s, style) {
  const { mean, std } = s.band;
  if (!std) return [];
  const lo = broken(mean.map((m, i) => (m === null || std[i] === null ? null : m - std[i])), s.breaks);
  const hi = broken(mean.map((m, i) => (m === null || std[i] === null ? null : m + std[i])), s.breaks);
  const steps = broken(s.steps, s.breaks);
  const sd = broken(std, s.breaks);
  const custom = steps.map((step, i) => [step, sd[i] === null ? '–' : fmtValue(sd[i]), escPlotly(s.run)]);
  const common = { type: 'scatter', mode: 'lines', x: broken(s.xs, s.breaks), showlegend: false, customdata: custom,
    connectgaps: false, legendgroup: s.run, line: { width: 0, color: s.color } };
  const meta = { run: s.run, job: s.job ?? s.run, role: s.band.role };
  return [
    { ...common, y: lo, hovertemplate: '<b>%{customdata[2]}</b> · step %{customdata[0]} · mean − 1 sd %{y:.6g} (sd %{customdata[1]})<extra></extra>',
      meta: { ...meta, kind: 'band-sd-low' } },
    { ...common, y: hi, fill: 'tonexty', fillcolor: withAlpha(s.color, 2 * style.band_alpha),
      hovertemplate: '<b>%{customdata[2]}</b> · step %{customdata[0]} · mean + 1 sd %{y:.6g} (sd %{customdata[1]})<extra></extra>',
      meta: { ...meta, kind: 'band-sd-high' } },
  ];
}

/** What a job's or a group's legend says its band is. */
export const BAND_TEXT = {
  quantiles: 'bands p25–p75, p5–p95, min–max', minmax: 'band min–max', 'p5-p95': 'band p5–p95',
  'p25-p75': 'band p25–p75', sd: 'band ± 1 sd', none: 'no band',
};

/**
 * The p5-p95 and p25-p75 bands and the dashed median of a job's line (none without quantiles);
 * like min/max, each names the rank at it and the steps it holds it over (when the answer
 * has `p5_rank`...), and a click on it pins that rank (rankpins.js).
 */
function quantileTraces(s, band, common, held, meta, kind, style) {
  if (!band.quantiles || kind === 'minmax') return [];
  const q = Object.fromEntries(QUANTILE_NAMES.map((name) => [name, broken(band.quantiles[name], s.breaks)]));
  const trace = (name) => {
    const ranks = band.edgeRanks ? broken(band.edgeRanks[name], s.breaks) : null;
    const who = holderName(band);
    const text = q[name].map((v, i) => `${name} ${v === null ? '–' : fmtValue(v)}${ranks?.[i] >= 0 && ranks[i] !== null ? ` (${who(ranks[i])})` : ''}`);
    return {
      ...common, y: q[name], text, ...(ranks ? { customdata: held(name, ranks) } : {}),
      hovertemplate: `<b>%{customdata[3]}</b> · step %{customdata[0]} · %{text}${ranks ? ' · %{customdata[4]}' : ''}<extra></extra>`,
      meta: { ...meta, kind: name === 'median' ? 'median' : `band-${name}` },
    };
  };
  const edge = (name, filled) => ({
    ...trace(name), line: { width: 0, color: s.color },
    ...(filled ? { fill: 'tonexty', fillcolor: withAlpha(s.color, style.band_alpha) } : {}),
  });
  const median = band.center === 'median' ? [] // the line itself
    : [{ ...trace('median'), line: { width: style.raw_width, color: s.color, dash: 'dash' } }];
  if (kind === 'p5-p95') return [edge('p5', false), edge('p95', true), ...median];
  if (kind === 'p25-p75') return [edge('p25', false), edge('p75', true), ...median];
  return [edge('p5', false), edge('p95', true), edge('p25', false), edge('p75', true), ...median];
}

/** ``values`` with a null inserted before each index of ``breaks`` (a break in the line). */
export function broken(values, breaks) {
  if (!breaks?.length) return values;
  const out = [];
  let next = 0;
  values.forEach((v, i) => {
    if (i === breaks[next]) {
      out.push(null);
      next += 1;
    }
    out.push(v);
  });
  return out;
}
