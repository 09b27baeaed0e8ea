import assert from 'node:assert/strict';
import { test } from 'node:test';

import { colorOf, lighten, withAlpha } from '../../frontend_static/colors.js';
import { localMs } from '../../frontend_static/format.js';
import {
  GAP_FACTOR, GROUP_ABOVE, STYLE, buildFigure, effectiveWeight, expandJobs, gapsOf, outlierRange, toCSV, toJSON, toStepRange,
} from '../../frontend_static/scalarfigure.js';
import { smooth } from '../../frontend_static/smoothing.js';
import { golden } from './golden.mjs';

process.env.TZ = 'Asia/Kolkata'; // local time is UTC+5:30 (the wall axis is in local time)

const T0 = 1_700_000_000;

/** A run as /api/scalars gives it: non-finite values are null and listed in `nonfinite`. */
function series(run, values, { kinds = {}, step0 = 0, steps = null } = {}) {
  return {
    run,
    steps: steps ?? values.map((_, i) => step0 + 10 * i),
    wall_times: values.map((_, i) => T0 + 60 * i),
    values,
    nonfinite: Object.entries(kinds).map(([i, kind]) => [Number(i), kind]),
  };
}

const OPT = {
  smoothing: 0.6, xAxis: 'step', logY: false, ignoreOutliers: false, colorOf,
  runStart: () => undefined, zoomX: null, zoomY: null, uirevision: 7,
};

const kind = (fig, k) => fig.data.filter((t) => t.meta.kind === k);

test('a run with NaN and +-Inf: raw and smoothed lines with gaps, markers at the edges', () => {
  const s = series('alpha', [1, 0.5, null, 0.25, null, 0.2, null], { kinds: { 2: 'nan', 4: 'inf', 6: '-inf' } });
  const fig = buildFigure([s], OPT);
  assert.deepEqual(fig.data.map((t) => t.meta.kind), ['raw', 'smoothed', 'nonfinite']);
  const [raw, smoothed, marks] = fig.data;
  const color = colorOf('alpha');
  assert.deepEqual(raw.x, [0, 10, 20, 30, 40, 50, 60]);
  assert.deepEqual(raw.y, s.values);
  assert.deepEqual(smoothed.y, smooth(s.values, 0.6)); // TensorBoard's weight, whatever the length
  assert.deepEqual(smoothed.y.map((v) => v === null), [false, false, true, false, true, false, true]);
  assert.equal(smoothed.y[0], 1);
  assert.ok(smoothed.y[1] > 0.5 && smoothed.y[1] < 1);
  // Smoothing on: the raw line is faint, the smoothed one solid in the run's colour.
  assert.equal(raw.line.color, withAlpha(color, 0.3));
  assert.equal(raw.marker.color, lighten(color, 0.6));
  assert.equal(smoothed.line.color, color);
  assert.equal(raw.mode, 'lines+markers');
  assert.equal(raw.hoverinfo, 'skip');
  assert.deepEqual(smoothed.customdata.map((c) => c[1]), ['1', '0.5', 'NaN', '0.25', '+Inf', '0.2', '-Inf']);
  assert.deepEqual(smoothed.customdata[3], [30, '0.25', 'alpha']);
  // The markers: on the overlaid 0..1 axis, NaN and +Inf on top, -Inf at the bottom.
  assert.equal(marks.yaxis, 'y2');
  assert.deepEqual(marks.x, [20, 40, 60]);
  assert.deepEqual(marks.y, [0.97, 0.97, 0.03]);
  assert.deepEqual(marks.text, ['NaN', '+Inf', '-Inf']);
  assert.deepEqual(marks.marker.symbol, ['x', 'triangle-up', 'triangle-down']);
  assert.deepEqual(marks.marker.color, [color, color, color]);
  assert.deepEqual(fig.layout.yaxis2.range, [0, 1]);
  assert.equal(fig.layout.uirevision, 7);
});

test('a wall time the file could not say (null) is a gap on time axes, not 1970', () => {
  const s = { ...series('gamma', [1, 2, 3, 4]), wall_times: [null, T0, null, T0 + 180] };
  const rel = buildFigure([s], { ...OPT, xAxis: 'relative' }).data[0];
  assert.deepEqual(rel.x, [null, 0, null, 3]); // minutes: the span is 180 s
  const wall = buildFigure([s], { ...OPT, xAxis: 'wall' }).data[0];
  assert.deepEqual(wall.x, [null, localMs(T0), null, localMs(T0 + 180)]);
  const none = { ...series('delta', [1]), wall_times: [null] };
  assert.deepEqual(buildFigure([none], { ...OPT, xAxis: 'relative' }).data[0].x, [null]);
});

test('smoothing 0: the raw line in full colour, the "smoothed" one equal to it', () => {
  const s = series('beta', [3, 1, 2]);
  const [raw, smoothed] = buildFigure([s], { ...OPT, smoothing: 0 }).data;
  assert.equal(raw.line.color, colorOf('beta'));
  assert.deepEqual(smoothed.y, [3, 1, 2]);
});

test('names from the logs are escaped for plotly, the meta keeps them as they are', () => {
  const fig = buildFigure([series('<b>x</b> & y', [1, null], { kinds: { 1: 'nan' } })], OPT);
  for (const t of fig.data) {
    assert.equal(t.name, '&lt;b&gt;x&lt;/b&gt; &amp; y');
    assert.equal(t.meta.run, '<b>x</b> & y');
  }
  assert.equal(kind(fig, 'smoothed')[0].customdata[0][2], '&lt;b&gt;x&lt;/b&gt; &amp; y');
});

test('x axes: step, relative time since the run started in a unit fit for its span, local wall time', () => {
  const s = series('alpha', [1, 2, 3]); // a point a minute
  const relative = buildFigure([s], { ...OPT, xAxis: 'relative', runStart: () => T0 - 1800 });
  assert.deepEqual(kind(relative, 'raw')[0].x, [30, 31, 32]); // 32 minutes: in minutes
  assert.equal(relative.layout.xaxis.type, 'linear');
  assert.equal(relative.layout.xaxis.title.text, 'relative time (minutes)');
  const long = buildFigure([s], { ...OPT, xAxis: 'relative', runStart: () => T0 - 3 * 3600 });
  assert.deepEqual(kind(long, 'raw')[0].x, [3, 3 + 1 / 60, 3 + 2 / 60]);
  assert.equal(long.layout.xaxis.title.text, 'relative time (hours)');
  // An 8-second job is in seconds, not 0.002 hours.
  const quick = { ...s, wall_times: [T0, T0 + 4, T0 + 8] };
  const short = buildFigure([quick], { ...OPT, xAxis: 'relative' });
  assert.deepEqual(kind(short, 'raw')[0].x, [0, 4, 8]);
  assert.equal(short.layout.xaxis.title.text, 'relative time (seconds)');
  // No start known: the run's first point.
  assert.deepEqual(kind(buildFigure([s], { ...OPT, xAxis: 'relative' }), 'raw')[0].x, [0, 1, 2]);
  const wall = buildFigure([s], { ...OPT, xAxis: 'wall' });
  assert.equal(wall.layout.xaxis.type, 'date');
  assert.deepEqual(kind(wall, 'raw')[0].x, s.wall_times.map(localMs));
  assert.equal(kind(wall, 'raw')[0].x[0], (T0 + 5.5 * 3600) * 1000);
});

test('log y axis; the outlier range in log10 units, ignoring values <= 0', () => {
  const s = series('alpha', [1, 10, 100, 0, -5, null], { kinds: { 5: 'nan' } });
  const plain = buildFigure([s], { ...OPT, logY: true });
  assert.equal(plain.layout.yaxis.type, 'log');
  assert.equal(plain.layout.yaxis.autorange, true);
  const fig = buildFigure([s], { ...OPT, logY: true, ignoreOutliers: true });
  // log10: [0, 1, 2]; 5th/95th percentiles 0.1 and 1.9, padded by 10% of their span.
  const [lo, hi] = fig.layout.yaxis.range;
  assert.ok(Math.abs(lo - -0.08) < 1e-12 && Math.abs(hi - 2.08) < 1e-12, `${lo} ${hi}`);
  assert.equal(fig.layout.yaxis.autorange, false);
  // A zoom the user made wins over the outlier range.
  assert.deepEqual(buildFigure([s], { ...OPT, ignoreOutliers: true, zoomY: [3, 4] }).layout.yaxis.range, [3, 4]);
});

test('outlierRange: the 5th to 95th percentile of all runs, padded', () => {
  const values = Array.from({ length: 101 }, (_, i) => i);
  values[50] = 1e9; // one spike
  const [lo, hi] = outlierRange([values, [null, NaN]], false);
  assert.ok(hi < 200 && lo < 5 && lo > -20, `${lo} ${hi}`);
  assert.deepEqual(outlierRange([[5, 5, 5]], false), [4.5, 5.5]);
  assert.deepEqual(outlierRange([[0, 0]], false), [-1, 1]);
  assert.equal(outlierRange([[null], []], false), null);
  assert.equal(outlierRange([[-1, 0]], true), null);
});

test('a job: its mean line with a min/max band whose hover names the ranks', () => {
  const role = (name, offset) => ({
    role: name, ranks: [0, 1, 2], steps: [0, 1, 2], wall_times: [T0, T0 + 1, T0 + 2],
    values: [offset + 1, offset + 2, null], nonfinite: [[2, 'nan']], range_points: 3,
    min: [offset, offset + 1, null], max: [offset + 2, offset + 3, offset + 4],
    min_rank: [0, 2, 1], max_rank: [1, 1, 0], count: [3, 3, 2],
  });
  const entry = { run: 'job', job: [role('trainer', 0), role('pserver', 10)], steps: [], values: [] };
  const expanded = expandJobs([entry, series('solo', [1, 2])], false);
  assert.deepEqual(expanded.map((s) => s.run), ['job · trainer', 'job · pserver', 'solo']);
  assert.deepEqual(expanded.map((s) => s.colorKey), ['job · trainer', 'job · pserver', undefined]);
  assert.deepEqual(expanded[0].band.min, [0, 1, null]);

  const starts = [];
  const fig = buildFigure(expanded, { ...OPT, runStart: (run) => starts.push(run) && undefined });
  assert.deepEqual(starts, ['job', 'job', 'solo']); // a job's roles share the job's start
  assert.deepEqual(fig.data.map((t) => `${t.meta.run}:${t.meta.kind}`), [
    'job · trainer:band-min', 'job · trainer:band-max', 'job · pserver:band-min', 'job · pserver:band-max',
    'job · trainer:raw', 'job · trainer:smoothed', 'job · pserver:raw', 'job · pserver:smoothed',
    'solo:raw', 'solo:smoothed', 'job · trainer:nonfinite', 'job · pserver:nonfinite',
  ]);
  const [low, high] = fig.data;
  const color = colorOf('job · trainer');
  assert.deepEqual(low.y, [0, 1, null]);
  assert.deepEqual(high.y, [2, 3, 4]);
  assert.equal(low.fill, undefined);
  assert.equal(high.fill, 'tonexty');
  assert.equal(high.fillcolor, withAlpha(color, 0.18));
  assert.equal(low.line.width, 0);
  assert.equal(low.connectgaps, false);
  assert.deepEqual(low.text, ['min 0 (rank 0)', 'min 1 (rank 2)', 'min – (rank 1)']);
  assert.deepEqual(high.text, ['max 2 (rank 1)', 'max 3 (rank 1)', 'max 4 (rank 0)']);
  // step, ranks reporting, ranks, run; who holds the edge over which steps (no ranges sent: none); the rank a click pins
  assert.deepEqual(low.customdata[2], [2, 2, 3, 'job · trainer', '', 1]);
  assert.deepEqual(fig.layout.annotations, []);
  assert.equal(kind(fig, 'smoothed')[0].line.color, color);

  // One role: the job's own name. Per-rank lines: one series per rank, no band.
  assert.deepEqual(expandJobs([{ ...entry, job: [role('trainer', 0)] }], false).map((s) => s.run), ['job']);
  const perRank = expandJobs([{ ...entry, per_rank: [
    { role: 'trainer', rank: 0, ...series('x', [1, 2]) }, { role: 'trainer', rank: 1, ...series('x', [3, 4]) },
  ] }], true);
  assert.deepEqual(perRank.map((s) => [s.run, s.job, s.band ?? null]), [
    ['job · trainer 0', 'job', null], ['job · trainer 1', 'job', null],
  ]);
});

test(`above ${GROUP_ABOVE} runs, runs of one colour share a trace, split by nulls`, () => {
  const runs = Array.from({ length: GROUP_ABOVE + 8 }, (_, i) => series(`run-${i}`, [i, i + 1, null], { kinds: { 2: 'nan' } }));
  const fig = buildFigure(runs, OPT);
  const colors = new Set(runs.map((s) => colorOf(s.run)));
  const raw = kind(fig, 'raw');
  assert.equal(raw.length, colors.size);
  assert.ok(colors.size < runs.length);
  assert.deepEqual(raw.flatMap((t) => t.meta.runs).sort(), runs.map((s) => s.run).sort());
  for (const t of raw) {
    assert.equal(t.name, '');
    assert.ok(t.meta.runs.every((run) => t.line.color === withAlpha(colorOf(run), 0.3)));
    const members = t.meta.runs.length;
    assert.equal(t.x.length, 3 * members + members - 1);
    assert.deepEqual(t.x.map((x, i) => (x === null ? i : -1)).filter((i) => i >= 0), Array.from({ length: members - 1 }, (_, k) => 4 * k + 3));
  }
  const marks = kind(fig, 'nonfinite');
  assert.equal(marks.length, 1);
  assert.equal(marks[0].x.length, runs.length);
  assert.equal(fig.layout.hovermode, 'closest');
  assert.equal(buildFigure(runs.slice(0, 10), OPT).layout.hovermode, 'x unified');
  assert.equal(kind(buildFigure(runs.slice(0, GROUP_ABOVE), OPT), 'raw').length, GROUP_ABOVE);
});

test('long series are drawn as lines without markers', () => {
  const long = series('alpha', Array.from({ length: 61 }, (_, i) => i));
  assert.equal(kind(buildFigure([long], OPT), 'raw')[0].mode, 'lines');
});

test('toStepRange: the steps behind a zoomed x range', () => {
  const a = { xs: [0, 1, 2, 3, 4], steps: [0, 10, 20, 30, 40] };
  const b = { xs: [2.5, 3.5], steps: [100, 200] };
  assert.deepEqual(toStepRange([9.2, 30.5], [a], 'step', false), [9, 31]);
  // Time axes: widened to the neighbouring points, over every run.
  assert.deepEqual(toStepRange([1.5, 2.5], [a], 'relative', false), [10, 30]);
  assert.deepEqual(toStepRange([1.5, 3.1], [a, b], 'relative', false), [10, 200]);
  // Reaching the first or last point of a downsampled run leaves that end open.
  assert.deepEqual(toStepRange([-1, 2.5], [a], 'relative', true), [null, 30]);
  assert.deepEqual(toStepRange([-1, 9], [a], 'relative', true), [null, null]);
  assert.equal(toStepRange([5, 6], [a], 'relative', false), null);
  assert.equal(toStepRange(['x', 2], [a], 'relative', false), null);
  const wall = { xs: [1000, 2000, 3000], steps: [1, 2, 3] };
  assert.deepEqual(toStepRange([1500, '1970-01-01 00:00:02.5'], [wall], 'wall', false), [1, 3]);
});

test('toCSV and toJSON: the shown series, non-finite values named', () => {
  const s = series('a "quoted", run', [1, null, 3], { kinds: { 1: 'inf' } });
  const { shown } = buildFigure([s], OPT);
  const lines = toCSV(shown).trimEnd().split('\n');
  assert.equal(lines[0], 'run,step,wall_time,value,value_is,smoothed,min,max,min_rank,max_rank,ranks_reporting,p5,p25,median,p75,p95');
  assert.equal(lines.length, 4);
  assert.equal(lines[1], `"a ""quoted"", run",0,${T0},1,logged,1,,,,,,,,,,`);
  assert.equal(lines[2], `"a ""quoted"", run",10,${T0 + 60},+Infinity,logged,,,,,,,,,,,`);
  assert.ok(lines[3].startsWith(`"a ""quoted"", run",20,${T0 + 120},3,logged,${shown[0].smoothed[2]},`));
  const body = JSON.parse(toJSON('loss', shown, 0.6));
  assert.equal(body.tag, 'loss');
  assert.equal(body.smoothing, 0.6);
  assert.deepEqual(body.runs[0].values, [1, null, 3]);
  assert.deepEqual(body.runs[0].nonfinite, [[1, 'inf']]);
  assert.deepEqual(body.runs[0].smoothed, smooth([1, null, 3], 0.6));
  assert.equal(body.runs[0].mean_over_ranks, undefined);
});

test('lines are drawn as tests/data/figure_style.json says (the notebook too)', async () => {
  const { golden } = await import('./golden.mjs');
  const { STYLE } = await import('../../frontend_static/scalarfigure.js');
  const { comment, ...want } = golden('figure_style.json');
  assert.ok(comment);
  assert.deepEqual(STYLE, want);
});

test('a job with quantiles: a dashed median, p25-p75 and p5-p95 bands over the faint min-max', () => {
  const entry = jobEntry({ steps: [0, 1, 2, 3, 40, 41] });
  const [role] = entry.job;
  Object.assign(role, {
    p5: [0.1, 1.1, 2.1, 3.1, 40.1, 41.1], p25: [0.5, 1.5, 2.5, null, 40.5, 41.5], median: [1, 2, 3, 4, 41, 42],
    p75: [1.5, 2.5, 3.5, 4.5, 41.5, 42.5], p95: [1.9, 2.9, 3.9, 4.9, 41.9, 42.9],
  });
  const fig = buildFigure(expandJobs([entry], false), OPT);
  assert.deepEqual(fig.data.map((t) => t.meta.kind), [
    'band-min', 'band-max', 'band-p5', 'band-p95', 'band-p25', 'band-p75', 'median', 'raw', 'smoothed',
  ]);
  const [p5, p95, p25, p75, median] = ['band-p5', 'band-p95', 'band-p25', 'band-p75', 'median'].map((k) => kind(fig, k)[0]);
  const color = colorOf('job');
  // Each upper edge fills down to its lower edge; the min-max band stays the faintest layer.
  assert.deepEqual([p5.fill, p95.fill, p25.fill, p75.fill, median.fill], [undefined, 'tonexty', undefined, 'tonexty', undefined]);
  for (const t of [p95, p75]) assert.equal(t.fillcolor, withAlpha(color, STYLE.band_alpha));
  assert.equal(kind(fig, 'band-max')[0].fillcolor, withAlpha(color, STYLE.band_alpha));
  assert.deepEqual([p5.line.width, p25.line.width], [0, 0]);
  assert.deepEqual(median.line, { width: STYLE.raw_width, color, dash: 'dash' });
  // A gap in the steps breaks every band and the median alike; a null (non-finite) stays a hole.
  assert.deepEqual(median.y, [1, 2, 3, 4, null, 41, 42]);
  assert.deepEqual(p25.y, [0.5, 1.5, 2.5, null, null, 40.5, 41.5]);
  assert.equal(median.text[0], 'median 1');
  assert.equal(p25.text[3], 'p25 –');
  const [line] = fig.data.filter((t) => t.showlegend);
  assert.match(line.name, /^job · mean of 3 ranks, dashed median, bands p25–p75, p5–p95, min–max$/);
});

/** A job of one role of three ranks, as /api/scalars gives it, at ``steps``. */
function jobEntry({ steps = [0, 1, 2] } = {}) {
  const n = steps.length;
  const role = {
    role: 'trainer', ranks: [0, 1, 2], steps, wall_times: steps.map((s) => T0 + s), values: steps.map((s) => s + 1),
    nonfinite: [], range_points: n, min: steps.map((s) => s), max: steps.map((s) => s + 2),
    min_rank: steps.map(() => 0), max_rank: steps.map(() => 2), count: steps.map(() => 3),
  };
  return { run: 'job', job: [role], steps: [], values: [] };
}

test('smoothing modes: TensorBoard\'s weight as given (the default), adaptive smooths short series less', () => {
  const { modes, relative_tolerance: tolerance } = golden('smoothing.json');
  assert.ok(modes.length >= 6);
  for (const { weight, n, tensorboard, adaptive } of modes) {
    assert.equal(effectiveWeight(weight, n), tensorboard, `default at ${weight}, ${n} points`);
    assert.equal(effectiveWeight(weight, n, 'tensorboard'), tensorboard);
    assert.ok(Math.abs(effectiveWeight(weight, n, 'adaptive') - adaptive) <= tolerance * Math.abs(adaptive), `${weight}, ${n}`);
  }
  // 8 points at 0.6 are smoothed as TensorBoard smooths them (they were drawn almost raw).
  const values = [0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.77];
  const smoothedOf = (opt) => buildFigure([series('val', values)], { ...OPT, ...opt }).data.find((t) => t.meta.kind === 'smoothed').y;
  assert.deepEqual(smoothedOf({}), smooth(values, 0.6));
  assert.ok(Math.abs(smoothedOf({})[7] - 0.77) > 0.1);
  // The adaptive choice: its smoothed end stays near its last points.
  assert.ok(Math.abs(smoothedOf({ smoothingMode: 'adaptive' })[7] - 0.77) < 0.01);
});

test('every line of a chart has a legend entry; a job\'s says it is a mean with a band', () => {
  const fig = buildFigure([series('train', [1, 2, 3]), series('eval', [3, 2, 1])], OPT);
  const entries = fig.data.filter((t) => t.showlegend);
  assert.deepEqual(entries.map((t) => t.name), ['train', 'eval']);
  assert.ok(fig.layout.showlegend && fig.layout.legend.orientation === 'h');
  // Raw and smoothed lines (and a job's band) toggle together.
  assert.deepEqual(fig.data.map((t) => t.legendgroup), ['train', 'train', 'eval', 'eval']);
  const job = expandJobs([jobEntry()], false);
  const jobFig = buildFigure(job, OPT);
  const [line] = jobFig.data.filter((t) => t.showlegend);
  assert.match(line.name, /^job · mean of 3 ranks, band min–max$/);
  // Many runs merged by colour: no legend (the sidebar lists them).
  const many = Array.from({ length: GROUP_ABOVE + 1 }, (_, i) => series(`r${i}`, [1, 2]));
  assert.equal(buildFigure(many, OPT).layout.showlegend, false);
});

test('ticks: SI prefixes on linear axes, only decades labelled on log axes', () => {
  const fig = buildFigure([series('a', [1, 2, 3])], OPT);
  assert.equal(fig.layout.xaxis.exponentformat, 'SI');
  assert.equal(fig.layout.yaxis.exponentformat, 'SI');
  const log = buildFigure([series('a', [1, 2, 3])], { ...OPT, logY: true });
  assert.equal(log.layout.yaxis.minorloglabels, 'none');
  const wall = buildFigure([series('a', [1, 2, 3])], { ...OPT, xAxis: 'wall' });
  assert.equal(wall.layout.xaxis.exponentformat, undefined); // dates
});

test('a job\'s mean line breaks where no rank logged for a while', () => {
  assert.deepEqual(gapsOf([0, 1, 2, 3, 4, 20, 21, 22]), [5]);
  assert.deepEqual(gapsOf([0, 1, 2, 3]), []);
  assert.deepEqual(gapsOf([0, 1, 2, 3 + GAP_FACTOR - 1]), []);
  const entry = jobEntry({ steps: [0, 1, 2, 3, 40, 41, 42] });
  const fig = buildFigure(expandJobs([entry], false), { ...OPT, smoothing: 0 });
  const line = fig.data.find((t) => t.meta.kind === 'raw');
  assert.deepEqual(line.x, [0, 1, 2, 3, null, 40, 41, 42]);
  assert.equal(line.y[4], null);
  const [lo, hi] = fig.data.filter((t) => t.meta.kind?.startsWith('band'));
  assert.deepEqual([lo.x[4], lo.y[4], hi.y[4]], [null, null, null]);
  // A run that is no job is drawn as logged, however sparse.
  const sparse = buildFigure([series('a', [1, 2, 3, 4, 5], { steps: [0, 1, 2, 3, 100] })], OPT);
  assert.ok(!sparse.data[0].x.includes(null));
});

test("a job's CSV says its value is a mean over the ranks reporting", () => {
  const { shown } = buildFigure(expandJobs([jobEntry()], false), OPT);
  const [, first] = toCSV(shown).trimEnd().split('\n');
  assert.equal(first, `"job",0,${T0},1,mean of 3 of 3 ranks,1,0,2,0,2,3,,,,,`);
  // With the quantiles over ranks: their columns in the CSV, their arrays in the JSON.
  const entry = jobEntry();
  Object.assign(entry.job[0], { p5: [0.1, 1, 2], p25: [0.5, 1, 2], median: [1, 2, 3], p75: [1.5, 3, 4], p95: [null, 3, 4] });
  const withQuantiles = buildFigure(expandJobs([entry], false), OPT).shown;
  const [, row] = toCSV(withQuantiles).trimEnd().split('\n');
  assert.equal(row, `"job",0,${T0},1,mean of 3 of 3 ranks,1,0,2,0,2,3,0.1,0.5,1,1.5,`);
  const [run] = JSON.parse(toJSON('loss', withQuantiles, 0)).runs;
  assert.deepEqual([run.p5, run.median, run.p95], [[0.1, 1, 2], [1, 2, 3], [null, 3, 4]]);
});

test('a group drawn as its median with a chosen band: min-max, a quantile pair, ± 1 sd or none', () => {
  const entry = jobEntry({ steps: [0, 1, 2] });
  entry.group = { key: { lr: 0.1 }, members: ['a', 'b', 'c'] };
  entry.run = 'lr=0.1';
  const [role] = entry.job;
  Object.assign(role, {
    p5: [0, 1, 2], p25: [0.5, 1.5, 2.5], median: [7, 8, 9], median_nonfinite: [], p75: [1.5, 2.5, 3.5], p95: [2, 3, 4],
    std: [0.5, null, 2],
  });
  const kinds = (band, center) => buildFigure(expandJobs([entry], false, center), { ...OPT, band }).data.map((t) => t.meta.kind);
  assert.deepEqual(kinds('minmax', 'mean'), ['band-min', 'band-max', 'raw', 'smoothed']);
  assert.deepEqual(kinds('p25-p75', 'mean'), ['band-p25', 'band-p75', 'median', 'raw', 'smoothed']);
  assert.deepEqual(kinds('p5-p95', 'median'), ['band-p5', 'band-p95', 'raw', 'smoothed']); // the line is the median
  assert.deepEqual(kinds('none', 'mean'), ['raw', 'smoothed']);
  const fig = buildFigure(expandJobs([entry], false, 'median'), { ...OPT, band: 'sd' });
  assert.deepEqual(fig.data.map((t) => t.meta.kind), ['band-sd-low', 'band-sd-high', 'raw', 'smoothed']);
  // The line is the median; the band is the mean (1, 2, 3) ± the sd, a hole where the sd is unknown.
  assert.deepEqual(kind(fig, 'raw')[0].y, [7, 8, 9]);
  assert.deepEqual(kind(fig, 'band-sd-low')[0].y, [0.5, null, 1]);
  assert.deepEqual(kind(fig, 'band-sd-high')[0].y, [1.5, null, 5]);
  assert.equal(kind(fig, 'band-sd-high')[0].fill, 'tonexty');
  const [line] = fig.data.filter((t) => t.showlegend);
  assert.equal(line.name, 'lr=0.1 · median of 3 runs, band ± 1 sd');
  assert.deepEqual(fig.shown[0].group.members, ['a', 'b', 'c']); // what a click on the line lists
});
