// Pure functions from an /api/scalars response to a plotly figure: x in the chosen
// axis, raw (faint) and smoothed (solid) lines, markers for non-finite values, the
// "ignore outliers" y range; and back from a zoomed x range to a step range.

import { countedSteps, edgeRanksOf, holdersSummary } from './bandoutliers.js';
import { BAND_TEXT, QUANTILE_NAMES, bandTraces, broken, quantilesOf } from './bandtraces.js';
import { assignColors, lighten, withAlpha } from './colors.js';
import { escPlotly, fmtValue, localMs, parseAxisDate } from './format.js';
import { smooth } from './smoothing.js';
import { wrongTraces } from './wrongmarks.js';

/** How lines are drawn; the notebook draws them alike (both pinned by tests/data/figure_style.json). */
export const STYLE = {
  raw_alpha: 0.3,
  raw_width: 1.2,
  smoothed_width: 1.8,
  band_alpha: 0.18,
  nonfinite: {
    nan: { label: 'NaN', y: 0.97, symbol: 'x' },
    inf: { label: '+Inf', y: 0.97, symbol: 'triangle-up' },
    '-inf': { label: '-Inf', y: 0.03, symbol: 'triangle-down' },
  },
};
const NONFINITE = STYLE.nonfinite;

export const AXIS_TITLES = { step: 'step', relative: 'relative time', wall: 'wall time' };

/** The unit of a relative time axis spanning ``span`` seconds: seconds, minutes or hours. */
export function relativeUnit(span) {
  if (!(span >= 120)) return { seconds: 1, name: 'seconds' };
  if (span < 2 * 3600) return { seconds: 60, name: 'minutes' };
  return { seconds: 3600, name: 'hours' };
}

/** A series' x values in the axis' units (``unit``: of a relative axis). */
function xValues(series, xAxis, start, unit) {
  // A wall time a file could not say (null: non-finite in the file) has no place on a time axis.
  if (xAxis === 'relative') return series.wall_times.map((w) => (w === null ? null : (w - start) / unit.seconds));
  if (xAxis === 'wall') return series.wall_times.map((w) => (w === null ? null : localMs(w)));
  return series.steps;
}

/** A series' first and last wall times that are numbers (null wall times are skipped). */
function wallSpan(series) {
  const known = series.wall_times.filter((w) => w !== null);
  return known.length ? [known[0], known[known.length - 1]] : [undefined, undefined];
}

function percentile(sorted, q) {
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

/** y range from the 5th to the 95th percentile of the shown values, padded; null if none. */
export function outlierRange(valueLists, logY) {
  let values = valueLists.flat().filter((v) => v !== null && Number.isFinite(v));
  if (logY) values = values.filter((v) => v > 0).map(Math.log10);
  if (!values.length) return null;
  values.sort((a, b) => a - b);
  const lo = percentile(values, 0.05);
  const hi = percentile(values, 0.95);
  const pad = (hi - lo) * 0.1 || Math.abs(hi) * 0.1 || 1;
  return [lo - pad, hi + pad];
}

/**
 * The smoothing weight for a series of ``n`` points. 'tensorboard' (the default): the
 * weight chosen, whatever the length, as TensorBoard smooths. 'adaptive': the weight for
 * 100 points or more; below, weight^(100 / n). The EMA's lag is about w / (1 - w) points
 * whatever the series' length: at 0.6 that is 1.5 points, 1.5% of a 100-point series but
 * 15% of an 11-point one, whose curve trails behind its points; adaptive smooths a short
 * series as much as 100 points would be over the same span (the notebook does the same).
 */
export function effectiveWeight(weight, n, mode = 'tensorboard') {
  const w = Math.min(Math.max(Number(weight) || 0, 0), 0.999);
  if (mode !== 'adaptive') return w;
  return n >= SHORT_SERIES || n <= 0 ? w : w ** (SHORT_SERIES / n);
}
export const SHORT_SERIES = 100;

/** Gaps in x wider than this many times the median spacing break a job's mean line. */
export const GAP_FACTOR = 5;

/**
 * The indices before which a job's mean line breaks: where the x spacing exceeds
 * GAP_FACTOR times its median (time in which no rank logged: a dead trainer, a restart).
 */
export function gapsOf(xs) {
  const d = [];
  for (let i = 1; i < xs.length; i++) d.push(xs[i] - xs[i - 1]);
  if (d.length < 3) return [];
  const sorted = d.filter((v) => v > 0).sort((a, b) => a - b);
  if (!sorted.length) return [];
  const median = sorted[Math.floor(sorted.length / 2)];
  const out = [];
  d.forEach((v, i) => { if (v > GAP_FACTOR * median) out.push(i + 1); });
  return out;
}

/** Above this many runs, runs sharing a colour share a trace (plotly's cost is per trace). */
export const GROUP_ABOVE = 16;

/**
 * series: the runs of the response to draw; opt: {smoothing, xAxis, logY, ignoreOutliers,
 * runColor(run) (the app's colour of a run, undefined for other lines) or colorOf(key) (a
 * colour for every line), runStart(run), zoomX, zoomY, uirevision}. Returns {data, layout, shown}: up to
 * GROUP_ABOVE runs get traces of their own (meta.run), more are merged by colour (meta.runs).
 */
export function buildFigure(series, opt) {
  const spans = series.map(wallSpan);
  const starts = series.map((s, i) => opt.runStart(s.job ?? s.run) ?? spans[i][0]);
  // A relative axis in seconds, minutes or hours, as its longest run's span asks.
  const span = Math.max(0, ...spans.map(([, last], i) => (last === undefined ? 0 : last - starts[i])));
  const unit = relativeUnit(span);
  // Runs keep the colour the app gave them; other lines (a job's roles or ranks) take free ones.
  const colors = assignColors(series.map((s) => s.colorKey ?? s.run), opt.runColor ?? opt.colorOf);
  const shown = series.map((s, i) => ({
    run: s.run, group: s.group, steps: s.steps, wallTimes: s.wall_times, values: s.values, nonfinite: s.nonfinite,
    xs: xValues(s, opt.xAxis, starts[i], unit), smoothed: smooth(s.values, effectiveWeight(opt.smoothing, s.values.length, opt.smoothingMode)),
    color: colors.get(s.colorKey ?? s.run), band: s.band ?? null, rank: s.rank, wrong: s.wrong, replaced: s.replaced,
  }));
  for (const s of shown) s.breaks = s.band ? gapsOf(s.xs) : [];
  opt = { ...opt, xTitle: opt.xAxis === 'relative' ? `${AXIS_TITLES.relative} (${unit.name})` : AXIS_TITLES[opt.xAxis] };
  const groups = shown.length > GROUP_ABOVE ? mergeByColor(shown) : shown.map((s) => ({ color: s.color, members: [s] }));
  const data = [];
  const bandKind = opt.band ?? 'quantiles';
  for (const s of shown) if (s.band) data.push(...bandTraces(s, bandKind, STYLE));
  const merged = groups.length < shown.length;
  for (const group of groups) data.push(...lineTraces(group, opt.smoothing, merged, bandKind));
  const marks = shown.filter((s) => s.nonfinite.length);
  if (marks.length) data.push(...(groups.length < shown.length ? [markTrace(marks)] : marks.map((s) => markTrace([s]))));
  data.push(...wrongTraces(shown)); // a job's first rank to go wrong (wrongmarks.js)
  return { data, layout: layoutOf(shown, { ...opt, legend: !merged }), shown };
}

/**
 * A response's runs as the series to draw. A job (an entry with `job`) gives one series
 * per role: the mean over ranks, with its min/max band, its p5-p95 and p25-p75 bands and
 * its median (when the answer has them); with per-rank lines (the entry
 * has `per_rank`), one series per rank instead. Others are drawn as they are. `center`:
 * 'median' draws each job's or group's median as its line (its mean stays the band's centre
 * for ± 1 sd).
 */
export function expandJobs(runs, perRank, center = 'mean') {
  const out = [];
  for (const s of runs) {
    if (!s.job) {
      out.push(s);
      continue;
    }
    const several = s.job.length > 1;
    if (perRank && s.per_rank) {
      for (const r of s.per_rank) {
        out.push({ ...r, run: `${s.run} · ${r.role} ${r.rank}`, colorKey: `${s.run} · ${r.role} ${r.rank}`, job: s.run,
          range_points: r.range_points });
      }
      continue;
    }
    for (const role of s.job) {
      const median = center === 'median' && role.median ? { values: role.median, nonfinite: role.median_nonfinite ?? [] } : null;
      const line = median ?? { values: role.values, nonfinite: role.nonfinite };
      if (s.group) { // a group of runs: its band's ranks are positions in its members
        out.push({
          run: s.run, colorKey: `group ${s.run}`, steps: role.steps, values: line.values, wall_times: role.wall_times,
          nonfinite: line.nonfinite, range_points: role.range_points, group: s.group,
          band: { min: role.min, max: role.max, minRank: role.min_rank, maxRank: role.max_rank, count: role.count,
            mean: role.values, std: role.std ?? null, center: median ? 'median' : 'mean',
            ranks: s.group.members.length, role: role.role, quantiles: quantilesOf(role), extremes: role.extremes ?? null,
            edgeRanks: edgeRanksOf(role), names: s.group.members, noun: 'run' },
        });
        continue;
      }
      out.push({
        run: several ? `${s.run} · ${role.role}` : s.run, colorKey: several ? `${s.run} · ${role.role}` : s.run, job: s.run,
        steps: role.steps, values: line.values, wall_times: role.wall_times, nonfinite: line.nonfinite,
        range_points: role.range_points, wrong: (s.wrong ?? []).filter((m) => m.role === role.role),
        band: { min: role.min, max: role.max, minRank: role.min_rank, maxRank: role.max_rank, count: role.count,
          mean: role.values, std: role.std ?? null, center: median ? 'median' : 'mean',
          ranks: role.ranks.length, role: role.role, quantiles: quantilesOf(role), extremes: role.extremes ?? null,
          edgeRanks: edgeRanksOf(role) },
      });
    }
  }
  return out;
}

function mergeByColor(shown) {
  const byColor = new Map();
  for (const s of shown) {
    if (!byColor.has(s.color)) byColor.set(s.color, { color: s.color, members: [] });
    byColor.get(s.color).members.push(s);
  }
  return [...byColor.values()];
}

/** Concatenate the members' arrays, with a null between two runs and at each member's breaks. */
function joined(members, pick) {
  const out = [];
  members.forEach((m, k) => {
    if (k) out.push(null);
    out.push(...broken(pick(m), m.breaks));
  });
  return out;
}

/** The raw (faint) and smoothed (solid) traces of one run, or of a group of same-colour runs. */
function lineTraces({ color, members }, smoothing, merged, bandKind = 'quantiles') {
  const meta = merged ? { runs: members.map((m) => m.run) } : { run: members[0].run };
  const n = members.reduce((total, m) => total + m.values.length, 0);
  if (!merged && members[0].replaced) return [replacedTrace(members[0], color, meta)];
  const mode = n <= 60 ? 'lines+markers' : 'lines';
  const name = merged ? '' : escPlotly(members[0].run);
  // A job's line says what it is: the mean over its ranks, the band their min and max.
  const band = !merged && members[0].band;
  const kind = band?.quantiles || bandKind === 'none' || bandKind === 'sd' ? bandKind : 'minmax';
  const dashed = band?.quantiles && band.center !== 'median' && !['minmax', 'sd', 'none'].includes(kind) ? 'dashed median, ' : '';
  const bands = `${dashed}${BAND_TEXT[kind] ?? BAND_TEXT.quantiles}`;
  const noun = band?.noun ?? 'rank';
  const legendName = band ? `${name} · ${band.center ?? 'mean'} of ${band.ranks} ${noun}${band.ranks === 1 ? '' : 's'}, ${bands}` : name;
  const group = merged ? undefined : members[0].run;
  const x = joined(members, (m) => m.xs);
  const custom = joined(members, (m) => {
    const texts = m.values.map(fmtValue);
    for (const [index, kind] of m.nonfinite) texts[index] = NONFINITE[kind].label;
    return m.steps.map((step, i) => [step, texts[i], escPlotly(m.run)]);
  });
  return [
    {
      type: 'scatter', mode, name, x, y: joined(members, (m) => m.values),
      line: { color: smoothing > 0 ? withAlpha(color, STYLE.raw_alpha) : color, width: STYLE.raw_width },
      marker: { size: 3, color: smoothing > 0 ? lighten(color, 0.6) : color },
      hoverinfo: 'skip', showlegend: false, legendgroup: group, meta: { ...meta, kind: 'raw' },
    },
    {
      type: 'scatter', mode, name: legendName, x, y: joined(members, (m) => m.smoothed),
      line: { color, width: STYLE.smoothed_width }, marker: { size: 4, color }, customdata: custom,
      hovertemplate: '<b>%{customdata[2]}</b> · step %{customdata[0]} · value %{customdata[1]} · smoothed %{y:.6g}<extra></extra>',
      showlegend: !merged, legendgroup: group, meta: { ...meta, kind: 'smoothed' },
    },
  ];
}

/** The points a later writer replaced (replacedpoints.js): crosses of the run's colour, no line. */
function replacedTrace(m, color, meta) {
  return {
    type: 'scatter', mode: 'markers', name: escPlotly(m.run), x: m.xs, y: m.values,
    marker: { symbol: 'x-thin', size: 7, color, line: { color, width: 1.5 } },
    customdata: m.steps.map((step) => [step, escPlotly(m.run)]),
    hovertemplate: '<b>%{customdata[1]}</b> · step %{customdata[0]} · value %{y:.6g} (replaced by a later writer)<extra></extra>',
    showlegend: true, meta: { ...meta, kind: 'replaced' },
  };
}

/** Markers for NaN and +-Inf at the top/bottom of the plot (an overlaid 0..1 axis). */
function markTrace(members) {
  const marks = members.flatMap((s) => s.nonfinite.map(([index, kind]) => ({ s, index, ...NONFINITE[kind] })));
  return {
    type: 'scatter', mode: 'markers', name: members.length === 1 ? escPlotly(members[0].run) : '',
    yaxis: 'y2', cliponaxis: false,
    x: marks.map((m) => m.s.xs[m.index]), y: marks.map((m) => m.y), text: marks.map((m) => m.label),
    customdata: marks.map((m) => [m.s.steps[m.index], escPlotly(m.s.run)]),
    marker: { symbol: marks.map((m) => m.symbol), size: 10, color: marks.map((m) => m.s.color), line: { color: '#b3261e', width: 1.5 } },
    hovertemplate: '<b>%{customdata[1]}</b> · %{text} at step %{customdata[0]}<extra></extra>',
    showlegend: false, meta: members.length === 1 ? { run: members[0].run, kind: 'nonfinite' } : { runs: members.map((m) => m.run), kind: 'nonfinite' },
  };
}

/** Rows a horizontal legend of these lines takes in a card about 560 px wide (plotly wraps it). */
function legendRows(shown) {
  let rows = 1;
  let width = 0;
  for (const s of shown) {
    const label = s.band ? s.run.length + (s.band.quantiles ? 75 : 30) : s.run.length;
    const w = 40 + 6 * Math.min(label, 80);
    if (width && width + w > 540) {
      rows += 1;
      width = 0;
    }
    width += w;
  }
  return rows;
}

/** Tick labels: SI prefixes on linear axes (10k, 2.5M, 300µ), decades only labelled on log axes. */
const LINEAR_TICKS = { exponentformat: 'SI', separatethousands: false };
const LOG_TICKS = { exponentformat: 'power', minorloglabels: 'none' };

/** One line per job role: the ranks most often at its maximum and minimum, above the plot. */
function holdersNotes(shown) {
  const notes = [];
  for (const s of shown) {
    if (s.band?.names) continue; // a group's members are named on hover, not above the plot
    const text = holdersSummary(s.band?.extremes, s.band?.role, countedSteps(s.band?.extremes));
    if (text) notes.push(shown.filter((o) => o.band).length > 1 ? `${s.run} · most often at ${text}` : `most often at ${text}`);
  }
  return notes;
}

function layoutOf(shown, opt) {
  const yRange = opt.zoomY ?? (opt.ignoreOutliers ? outlierRange(shown.map((s) => s.values), opt.logY) : null);
  const legend = opt.legend && shown.length > 0;
  const rows = legend ? legendRows(shown) : 0;
  const notes = holdersNotes(shown);
  return {
    uirevision: opt.uirevision,
    height: 270 + 18 * rows + 14 * notes.length,
    margin: { l: 58, r: 14, t: 10 + 14 * notes.length, b: 42 },
    annotations: notes.map((text, i) => ({
      text: escPlotly(text), xref: 'paper', yref: 'paper', x: 0, xanchor: 'left', y: 1, yanchor: 'bottom',
      yshift: 14 * (notes.length - 1 - i), showarrow: false, font: { size: 10, color: '#555' },
      name: 'extreme-holders',
    })),
    showlegend: legend,
    legend: { orientation: 'h', x: 0, xanchor: 'left', y: -0.18, yanchor: 'top', font: { size: 10 },
      itemclick: 'toggle', itemdoubleclick: 'toggleothers', bgcolor: 'rgba(255,255,255,0)' },
    font: { family: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif', size: 11, color: '#333' },
    paper_bgcolor: '#fff',
    plot_bgcolor: '#fff',
    hovermode: shown.length <= 10 ? 'x unified' : 'closest',
    hoverlabel: { namelength: -1 },
    xaxis: {
      type: opt.xAxis === 'wall' ? 'date' : 'linear',
      title: { text: opt.xTitle ?? AXIS_TITLES[opt.xAxis], standoff: 6 },
      autorange: !opt.zoomX, range: opt.zoomX ?? undefined,
      gridcolor: '#eee', zeroline: false, automargin: true, ...(opt.xAxis === 'wall' ? {} : LINEAR_TICKS),
    },
    yaxis: {
      type: opt.logY ? 'log' : 'linear',
      autorange: !yRange, range: yRange ?? undefined,
      gridcolor: '#eee', zeroline: false, automargin: true, ...(opt.logY ? LOG_TICKS : LINEAR_TICKS),
    },
    yaxis2: { overlaying: 'y', range: [0, 1], fixedrange: true, visible: false },
  };
}

/**
 * The step range [lo, hi] behind an x range of the axis, for a full-resolution fetch;
 * null ends are open. On time axes the steps come from the shown points' wall times,
 * widened to the neighbouring points so no point in the range is missed.
 */
export function toStepRange(range, shown, xAxis, limited) {
  if (xAxis === 'step') return [Math.floor(Number(range[0])), Math.ceil(Number(range[1]))];
  const [a, b] = xAxis === 'wall' ? range.map(parseAxisDate) : range.map(Number);
  if (!Number.isFinite(a) || !Number.isFinite(b)) return null;
  let lo = Infinity;
  let hi = -Infinity;
  let openLo = false;
  let openHi = false;
  for (const { xs, steps } of shown) {
    if (!xs.length) continue;
    const first = xs.findIndex((x) => x >= a);
    let last = -1;
    for (let i = xs.length - 1; i >= 0; i--) if (xs[i] <= b) { last = i; break; }
    if (first === -1 || last === -1) continue; // this run has nothing in the range
    if (first === 0 && limited) openLo = true;
    if (last === xs.length - 1 && limited) openHi = true;
    lo = Math.min(lo, steps[Math.max(first - 1, 0)]);
    hi = Math.max(hi, steps[Math.min(last + 1, xs.length - 1)]);
  }
  if (lo > hi) return null;
  return [openLo ? null : lo, openHi ? null : hi];
}

/**
 * The shown series as CSV rows: run, step, wall_time, value, smoothed, and for a job's line
 * the band and the quantiles over ranks (empty where non-finite or not sent); `value_is`
 * says what the value is: "logged", or "mean of N ranks" for a job.
 */
export function toCSV(shown) {
  const quote = (s) => `"${String(s).replace(/"/g, '""')}"`;
  const rows = [`run,step,wall_time,value,value_is,smoothed,min,max,min_rank,max_rank,ranks_reporting,${QUANTILE_NAMES.join(',')}`];
  for (const s of shown) {
    const bad = new Map(s.nonfinite.map(([i, kind]) => [i, NONFINITE[kind].label.replace('Inf', 'Infinity')]));
    const b = s.band;
    s.steps.forEach((step, i) => {
      const value = bad.get(i) ?? s.values[i];
      const band = b ? [b.min[i] ?? '', b.max[i] ?? '', b.minRank[i], b.maxRank[i], b.count[i]] : ['', '', '', '', ''];
      const quantiles = QUANTILE_NAMES.map((name) => b?.quantiles?.[name][i] ?? '');
      const what = b ? `mean of ${b.count[i]} of ${b.ranks} ranks` : 'logged';
      rows.push([quote(s.run), step, s.wallTimes[i], value, what, s.smoothed[i] ?? '', ...band, ...quantiles].join(','));
    });
  }
  return `${rows.join('\n')}\n`;
}

export function toJSON(tag, shown, smoothing) {
  const runs = shown.map((s) => ({
    run: s.run, steps: s.steps, wall_times: s.wallTimes, values: s.values, nonfinite: s.nonfinite, smoothed: s.smoothed,
    ...(s.band ? { mean_over_ranks: true, min: s.band.min, max: s.band.max, min_rank: s.band.minRank,
      max_rank: s.band.maxRank, ranks_reporting: s.band.count, ...(s.band.quantiles ?? {}) } : {}),
  }));
  return JSON.stringify({ tag, smoothing, runs });
}

/**
 * The data table under a chart: per shown line, its point at `x` (axis units) or the last
 * one before it: {run, step, value, smoothed, relative (seconds since the line's first
 * point)}, a line without a point at or before `x` left out; NaN and infinities as text.
 */
export function valuesAt(shown, x) {
  const rows = [];
  for (const s of shown) {
    const xs = s.xs;
    let lo = 0;
    let hi = xs.length - 1;
    let at = -1;
    while (lo <= hi) { // the last point with x <= the cursor's
      const mid = (lo + hi) >> 1;
      if (xs[mid] <= x) {
        at = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    if (at < 0) continue;
    const nonfinite = s.nonfinite.find(([index]) => index === at);
    rows.push({
      run: s.run, step: s.steps[at], value: nonfinite ? NONFINITE[nonfinite[1]].label : s.values[at],
      smoothed: s.smoothed[at], relative: s.wallTimes[at] - s.wallTimes[0],
    });
  }
  return rows;
}
