import assert from 'node:assert/strict';
import { test } from 'node:test';

import { compileFilter } from '../../frontend_static/dom.js';
import { edgeAt } from '../../frontend_static/rankpins.js';
import { buildFigure, expandJobs } from '../../frontend_static/scalarfigure.js';
import { colorOf } from '../../frontend_static/colors.js';
import {
  GROUP_ABOVE_RUNS, MAX_UNGROUPED, NAMED_RUNS, groupingOf, quoted, runParams, selectionQuery,
} from '../../frontend_static/selection.js';

const names = (n) => Array.from({ length: n }, (_, i) => `lr0.1/seed${i}`);
const stateOf = (all, filter = '', off = []) => ({
  runs: all.map((name) => ({ name })), runFilter: compileFilter(filter), deselected: new Set(off),
});

test('quoted escapes only the quote, as the server grammar reads it', () => {
  assert.equal(quoted('a"b\\d'), '"a\\"b\\d"');
});

test('the sidebar selection as a query: its regex filter (case-insensitive) and the runs ticked off', () => {
  const all = names(5);
  assert.equal(selectionQuery(stateOf(all), all), undefined);
  assert.equal(selectionQuery(stateOf(all, 'seed[12]$'), all), 'name ~ "(?i)seed[12]$"');
  assert.equal(selectionQuery(stateOf(all, '', ['lr0.1/seed3', 'gone']), all), 'name not in ["lr0.1/seed3"]');
  assert.equal(selectionQuery(stateOf(all, 'a"b', ['lr0.1/seed0']), all), 'name ~ "(?i)a\\"b" and name not in ["lr0.1/seed0"]');
});

test('charts group above a few dozen runs unless told not to, and always above what the server draws alone', () => {
  assert.deepEqual(groupingOf('auto', GROUP_ABOVE_RUNS), {});
  assert.deepEqual(groupingOf('auto', GROUP_ABOVE_RUNS + 1), { group_by: ':auto' });
  assert.deepEqual(groupingOf(undefined, 3000), { group_by: ':auto' });
  assert.deepEqual(groupingOf('none', MAX_UNGROUPED), {});
  assert.deepEqual(groupingOf('none', MAX_UNGROUPED + 1), { group_by: ':auto' });
  assert.deepEqual(groupingOf('folder', 2), { group_regex: '^(.*)/[^/]*$' });
  assert.deepEqual(groupingOf('lr', 2), { group_by: 'lr' });
});

test('no request names more than a few hundred runs: a larger or grouped selection goes as a query', () => {
  const all = names(3000);
  const state = stateOf(all, 'seed1', ['lr0.1/seed1']);
  const few = all.slice(0, NAMED_RUNS);
  assert.deepEqual(runParams(state, few, {}), { run: few });
  const many = runParams(state, all.slice(0, NAMED_RUNS + 1), {});
  assert.deepEqual(Object.keys(many), ['where']);
  assert.equal(many.where, 'name ~ "(?i)seed1" and name not in ["lr0.1/seed1"]');
  assert.deepEqual(runParams(state, few.slice(0, 3), { group_by: 'lr' }),
    { where: many.where, group_by: 'lr' });
});

/** A group of /api/scalars: its line and bands over three member runs. */
function group() {
  return {
    run: 'lr=0.1', steps: [0, 1], values: [1, 2], wall_times: [1, 2], nonfinite: [], total_points: 6,
    group: { key: { lr: 0.1 }, members: ['lr0.1/seed0', 'lr0.1/seed1', 'lr0.1/seed2'] },
    job: [{
      role: '', ranks: [0, 1, 2], steps: [0, 1], wall_times: [1, 2], values: [1, 2], nonfinite: [], range_points: 2,
      min: [0, 1], max: [2, 3], min_rank: [0, 2], max_rank: [1, 1], count: [3, 3],
      p5: [0, 1], p25: [0.5, 1.5], median: [1, 2], p75: [1.5, 2.5], p95: [2, 3],
      p5_rank: [0, 2], p25_rank: [0, 2], median_rank: [2, 0], p75_rank: [1, 0], p95_rank: [1, 1],
      extremes: { max: { ranges: [[0, 1, 1, 2, 2]], top: [[1, 2]] }, min: { ranges: [[0, 0, 0, 1, 1], [1, 1, 2, 1, 1]], top: [[0, 1]] } },
    }],
  };
}

test('a group draws as a line with bands whose edges name member runs, and a click pins the run', () => {
  const shown = expandJobs([group()], false);
  assert.equal(shown.length, 1);
  assert.equal(shown[0].run, 'lr=0.1');
  const fig = buildFigure(shown, { smoothing: 0, xAxis: 'step', logY: false, ignoreOutliers: false, colorOf,
    runStart: () => undefined, zoomX: null, zoomY: null, uirevision: 1 });
  const low = fig.data.find((t) => t.meta.kind === 'band-min');
  assert.deepEqual(low.text, ['min 0 (lr0.1/seed0)', 'min 1 (lr0.1/seed2)']);
  assert.match(low.hovertemplate, /of %\{customdata\[2\]\} runs/);
  assert.deepEqual(low.customdata.map((c) => c[4]), ['lr0.1/seed0 over step 0', 'lr0.1/seed2 over step 1']);
  const legend = fig.data.find((t) => t.meta.kind === 'smoothed').name;
  assert.match(legend, /^lr=0\.1 · mean of 3 runs/);
  assert.deepEqual(fig.layout.annotations ?? [], []); // no "most often" notes over groups
  const high = fig.data.find((t) => t.meta.kind === 'band-max');
  const points = [{ data: high, customdata: high.customdata[1], yPixel: 10 }];
  assert.deepEqual(edgeAt(points, 10), { member: 'lr0.1/seed1' });
});

test('runs sort as the server sorts them: numbers as numbers, decimals too', async () => {
  const { runOrder } = await import('../../frontend_static/dom.js');
  const names = ['lr0.1/seed0', 'lr0.01/seed10', 'lr0.01/seed2', 'lr0.01/seed1', 'b', 'a10', 'a9', 'seed01', 'seed1'];
  assert.deepEqual([...names].sort(runOrder),
    ['a9', 'a10', 'b', 'lr0.01/seed1', 'lr0.01/seed2', 'lr0.01/seed10', 'lr0.1/seed0', 'seed01', 'seed1']);
});

test('the data table gives each line its point at the cursor or the last before it', async () => {
  const { valuesAt } = await import('../../frontend_static/scalarfigure.js');
  const line = (run, xs, values, walls) => ({ run, xs, steps: xs, values, smoothed: values.map((v) => v / 2),
    wallTimes: walls, nonfinite: [] });
  const shown = [line('a', [0, 10, 20], [1, 2, 3], [100, 105, 130]), line('b', [5, 15], [7, NaN], [0, 2])];
  shown[1].nonfinite = [[1, 'nan']];
  assert.deepEqual(valuesAt(shown, 12), [
    { run: 'a', step: 10, value: 2, smoothed: 1, relative: 5 },
    { run: 'b', step: 5, value: 7, smoothed: 3.5, relative: 0 },
  ]);
  assert.equal(valuesAt(shown, 15)[1].value, 'NaN');
  assert.deepEqual(valuesAt(shown, -1), []);
});
