import assert from 'node:assert/strict';
import { test } from 'node:test';

import { countedSteps, edgeRanksOf, holderText, holdersSummary, rangeAt } from '../../frontend_static/bandoutliers.js';
import { edgeAt } from '../../frontend_static/rankpins.js';
import { buildFigure, expandJobs } from '../../frontend_static/scalarfigure.js';
import { colorOf } from '../../frontend_static/colors.js';

const RANGES = [[0, 99, 1, 100, 100], [100, 239, 4, 140, 140], [240, 299, 1, 60, 60], [300, 300, 5, 1, 1], [310, 400, 2, 30, 91]];

test('rangeAt finds the range holding a step, none between ranges', () => {
  assert.deepEqual(rangeAt(RANGES, 0), RANGES[0]);
  assert.deepEqual(rangeAt(RANGES, 150), RANGES[1]);
  assert.deepEqual(rangeAt(RANGES, 300), RANGES[3]);
  assert.equal(rangeAt(RANGES, 305), null);
  assert.equal(rangeAt(RANGES, 401), null);
  assert.equal(rangeAt([], 3), null);
});

test('holderText says the range, or that a window names only its most frequent holder', () => {
  assert.equal(holderText(RANGES, 120), 'rank 4 over steps 100–239');
  assert.equal(holderText(RANGES, 300), 'rank 5 over step 300');
  assert.equal(holderText(RANGES, 320), 'most often rank 2: 30 of 91 steps 310–400');
  assert.equal(holderText(undefined, 3), '');
});

test('holdersSummary names the most frequent holders with their share', () => {
  const extremes = { max: { ranges: RANGES, top: [[1, 160], [4, 140], [2, 30], [5, 1]] }, min: { ranges: [], top: [[2, 392]] } };
  assert.equal(countedSteps(extremes), 392);
  assert.equal(holdersSummary(extremes, 'trainer', 392), 'max: trainer 1 (41%), 4 (36%), 2 (8%) · min: trainer 2 (100%)');
  assert.equal(holdersSummary(null, 'trainer', 3), '');
});

test('a job chart: the band hover says who holds the edge, the annotation the frequent holders', () => {
  const role = {
    role: 'trainer', ranks: [0, 1, 2], steps: [0, 150, 320], wall_times: [1, 2, 3], values: [1, 2, 3], nonfinite: [],
    range_points: 3, min: [0, 1, 2], max: [5, 6, 7], min_rank: [0, 0, 0], max_rank: [1, 4, 2], count: [3, 3, 3],
    extremes: { max: { ranges: RANGES, top: [[1, 160], [4, 140]] }, min: { ranges: [[0, 400, 0, 392, 392]], top: [[0, 392]] } },
  };
  const shown = expandJobs([{ run: 'job', job: [role], steps: [], values: [] }], false);
  const fig = buildFigure(shown, { smoothing: 0, xAxis: 'step', logY: false, ignoreOutliers: false, colorOf,
    runStart: () => undefined, zoomX: null, zoomY: null, uirevision: 1 });
  const high = fig.data.find((t) => t.meta.kind === 'band-max');
  assert.deepEqual(high.customdata.map((c) => c[4]), ['rank 1 over steps 0–99', 'rank 4 over steps 100–239',
    'most often rank 2: 30 of 91 steps 310–400']);
  assert.deepEqual(high.customdata.map((c) => c[5]), [1, 4, 2]);
  assert.deepEqual(high.meta, { run: 'job', job: 'job', role: 'trainer', kind: 'band-max' });
  assert.deepEqual(fig.layout.annotations.map((a) => a.text), ['most often at max: trainer 1 (41%), 4 (36%) · min: trainer 0 (100%)']);
  assert.equal(fig.layout.margin.t, 24);
});

/** A role with quantiles and the rank at each edge, as /api/scalars gives it. */
function quantileRole() {
  return {
    role: 'trainer', ranks: [0, 1, 2, 3], steps: [0, 150, 320], wall_times: [1, 2, 3], values: [1, 2, 3], nonfinite: [],
    range_points: 3, min: [0, 1, 2], max: [5, 6, 7], min_rank: [0, 0, 0], max_rank: [1, 1, 1], count: [4, 4, 4],
    p5: [0.5, 1.5, 2.5], p25: [1, 2, 3], median: [2, 3, 4], p75: [3, 4, 5], p95: [4.5, 5.5, 6.5],
    p5_rank: [0, 0, 2], p25_rank: [3, 3, 3], median_rank: [2, 2, 0], p75_rank: [1, 2, 1], p95_rank: [3, 2, 3],
    extremes: {
      max: { ranges: [[0, 400, 1, 392, 392]], top: [[1, 392]] }, min: { ranges: [[0, 400, 0, 392, 392]], top: [[0, 392]] },
      p95: { ranges: [[0, 99, 3, 100, 100], [100, 239, 2, 140, 140], [310, 400, 3, 30, 91]], top: [[3, 130], [2, 140]] },
    },
  };
}

test('edgeRanksOf gives the rank at each quantile edge, none from a server without them', () => {
  const ranks = edgeRanksOf(quantileRole());
  assert.deepEqual(ranks, { p5: [0, 0, 2], p25: [3, 3, 3], median: [2, 2, 0], p75: [1, 2, 1], p95: [3, 2, 3] });
  const { p95_rank: _, ...old } = quantileRole();
  assert.equal(edgeRanksOf(old), null);
});

test('a job chart: each quantile edge names its rank in the hover and carries it for a click', () => {
  const fig = buildFigure(expandJobs([{ run: 'job', job: [quantileRole()], steps: [], values: [] }], false), {
    smoothing: 0, xAxis: 'step', logY: false, ignoreOutliers: false, colorOf, runStart: () => undefined, zoomX: null,
    zoomY: null, uirevision: 1,
  });
  const p95 = fig.data.find((t) => t.meta.kind === 'band-p95');
  assert.deepEqual(p95.meta, { run: 'job', job: 'job', role: 'trainer', kind: 'band-p95' });
  assert.deepEqual(p95.customdata.map((c) => c[5]), [3, 2, 3]);
  assert.deepEqual(p95.customdata.map((c) => c[4]), ['rank 3 over steps 0–99', 'rank 2 over steps 100–239',
    'most often rank 3: 30 of 91 steps 310–400']);
  assert.deepEqual(p95.text, ['p95 4.5 (rank 3)', 'p95 5.5 (rank 2)', 'p95 6.5 (rank 3)']);
  assert.match(p95.hovertemplate, /%\{customdata\[4\]\}/);
  assert.equal(p95.fill, 'tonexty'); // still the upper edge of the p5-p95 band
  const median = fig.data.find((t) => t.meta.kind === 'median');
  assert.deepEqual(median.customdata.map((c) => c[5]), [2, 2, 0]);
  assert.equal(median.line.dash, 'dash');
  for (const name of ['p5', 'p25', 'p75']) {
    const edge = fig.data.find((t) => t.meta.kind === `band-${name}`);
    assert.deepEqual(edge.customdata.map((c) => c[5]), edgeRanksOf(quantileRole())[name], name);
  }
});

test('a job chart from a server without edge ranks: the quantiles name no rank', () => {
  const { p95_rank: _, ...role } = quantileRole();
  const fig = buildFigure(expandJobs([{ run: 'job', job: [role], steps: [], values: [] }], false), {
    smoothing: 0, xAxis: 'step', logY: false, ignoreOutliers: false, colorOf, runStart: () => undefined, zoomX: null,
    zoomY: null, uirevision: 1,
  });
  const p95 = fig.data.find((t) => t.meta.kind === 'band-p95');
  assert.deepEqual(p95.text, ['p95 4.5', 'p95 5.5', 'p95 6.5']);
  assert.equal(p95.customdata[0][5], undefined);
  assert.equal(edgeAt([{ data: p95, customdata: p95.customdata[0], yPixel: 10 }], 10), null);
});

test('edgeAt: a click nearest the p95 edge pins its rank, not the max nor the mean', () => {
  const meta = { job: 'job', role: 'trainer' };
  const points = [
    { data: { meta: { ...meta, kind: 'band-max' } }, customdata: [0, 4, 4, 'job', '', 1], yPixel: 10 },
    { data: { meta: { ...meta, kind: 'band-p95' } }, customdata: [0, 4, 4, 'job', '', 3], yPixel: 30 },
    { data: { meta: { ...meta, kind: 'band-p75' } }, customdata: [0, 4, 4, 'job', '', 2], yPixel: 60 },
    { data: { meta: { run: 'job', kind: 'raw' } }, customdata: [0, 4, 4, 'job', '', 0], yPixel: 33 },
  ];
  assert.deepEqual(edgeAt(points, 34), { job: 'job', role: 'trainer', rank: 3 });
  assert.deepEqual(edgeAt(points, 12), { job: 'job', role: 'trainer', rank: 1 });
  assert.deepEqual(edgeAt(points, 55), { job: 'job', role: 'trainer', rank: 2 });
  points[1].customdata[5] = -1; // no value at that step: nothing to pin there
  assert.deepEqual(edgeAt(points, 34), { job: 'job', role: 'trainer', rank: 1 });
});
