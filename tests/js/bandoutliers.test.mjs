import assert from 'node:assert/strict';
import { test } from 'node:test';

import { countedSteps, holderText, holdersSummary, rangeAt } from '../../frontend_static/bandoutliers.js';
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
