import assert from 'node:assert/strict';
import { test } from 'node:test';

import { lighten, withAlpha } from '../../frontend_static/colors.js';
import { STEP_SCALE, distributionFigure, nonfiniteNote, offsetFigure, overlayFigure, stepTicks } from '../../frontend_static/histfigure.js';

const COLOR = '#1f77b4';
const close = (a, b) => a.length === b.length && a.every((v, i) => Math.abs(v - b[i]) < 1e-12);

// Three steps of a histogram with buckets of unequal width ([0, 1), [1, 2), [2, 4)).
const ENTRIES = [
  { step: 0, edges: [0, 1, 2, 4], counts: [2, 4, 2] },
  { step: 10, edges: [0, 1, 2, 4], counts: [1, 8, 1] },
  { step: 20, edges: [0, 1, 2, 4], counts: [0, 2, 6] },
];

test('offset: a filled outline per step, hanging from its step by count / largest count', () => {
  const fig = offsetFigure(ENTRIES, COLOR);
  assert.equal(fig.data.length, 3);
  // Height of the largest count: 3 step gaps, (20 - 0) / 2 * 3 = 30.
  const [first, middle, last] = fig.data;
  assert.deepEqual(middle.x, [0, 0.5, 1.5, 3, 4]);
  assert.ok(close(middle.y, [10, 10 - 30 / 8, 10 - 30, 10 - 30 / 8, 10]), String(middle.y));
  assert.ok(close(first.y, [0, -7.5, -15, -7.5, 0]), String(first.y));
  assert.deepEqual(last.y, [20, 20, 20 - 7.5, 20 - 22.5, 20]);
  assert.deepEqual(middle.text, ['0', '1', '8', '1', '0']);
  assert.deepEqual(fig.data.map((t) => t.fill), ['toself', 'toself', 'toself']);
  assert.deepEqual(fig.data.map((t) => t.meta.step), [0, 10, 20]);
  // Newest step in full colour and drawn last (in front), older ones lighter.
  assert.equal(last.line.color, lighten(COLOR, 0));
  assert.equal(first.line.color, lighten(COLOR, 0.75));
  assert.equal(middle.line.color, lighten(COLOR, 0.375));
  assert.equal(fig.layout.yaxis.autorange, 'reversed');
});

test('offset: re-binned counts, fractions, are shown to six digits', () => {
  const [one] = offsetFigure([{ step: 0, edges: [0, 1, 2], counts: [3333.4666666666667, 1e-7] }], COLOR).data;
  assert.deepEqual(one.text, ['0', '3333.47', '1.0000e-7', '0']);
});

test('offset: one entry, and entries that are all empty', () => {
  const [one] = offsetFigure([ENTRIES[1]], COLOR).data;
  assert.deepEqual(one.y, [10, 10 - 3 / 8, 10 - 3, 10 - 3 / 8, 10]);
  assert.equal(one.line.color, lighten(COLOR, 0));
  const empty = offsetFigure([{ step: 5, edges: [0, 1], counts: [0] }, { step: 5, edges: [0, 1], counts: [0] }], COLOR);
  for (const t of empty.data) assert.deepEqual(t.y, [5, 5, 5]);
});

test('overlay: step outlines of the probability density, so unequal buckets and counts compare', () => {
  const fig = overlayFigure(ENTRIES, COLOR);
  assert.equal(fig.data.length, 3);
  const [first] = fig.data;
  assert.deepEqual(first.x, [0, 1, 1, 2, 2, 4]);
  assert.deepEqual(first.y, [0.25, 0.25, 0.5, 0.5, 0.125, 0.125]); // 2 of 8 per unit; the last bucket is 2 wide
  assert.equal(first.name, 'step 0');
  assert.equal(fig.layout.showlegend, true);
  // A zero-width bucket (all values equal) gets its share rather than dividing by 0.
  const [point] = overlayFigure([{ step: 1, edges: [3, 3], counts: [7] }], COLOR).data;
  assert.deepEqual(point.y, [1, 1]);
  // Steps on a sequential scale, the oldest first; a legend names them.
  assert.deepEqual(fig.data.map((t) => t.line.color), [STEP_SCALE[0], STEP_SCALE[5], STEP_SCALE[9]]);
  assert.equal(fig.layout.yaxis.title.text, 'probability density');
  assert.equal(overlayFigure([ENTRIES[0]], COLOR).layout.showlegend, false);
});

test('overlay: at most maxLines steps, spread evenly, the first and the last included', () => {
  const many = Array.from({ length: 25 }, (_, i) => ({ step: i * 100, edges: [0, 1], counts: [i] }));
  const steps = overlayFigure(many, COLOR).data.map((t) => t.meta.step);
  assert.equal(steps.length, 10);
  assert.equal(steps[0], 0);
  assert.equal(steps[9], 2400);
  assert.ok(steps.every((s, i) => i === 0 || s > steps[i - 1]));
  assert.deepEqual(overlayFigure(many, COLOR, 3).data.map((t) => t.meta.step), [0, 1200, 2400]);
});

test('distribution: bands between symmetric percentiles, outer ones lighter, and the median', () => {
  const percentiles = [0, 6.68, 15.87, 30.85, 50, 69.15, 84.13, 93.32, 100];
  const dist = { percentiles, steps: [0, 10], bands: [[0, 1, 2, 3, 4, 5, 6, 7, 8], [10, 11, 12, 13, 14, 15, 16, 17, 18]] };
  const fig = distributionFigure(dist, COLOR);
  assert.equal(fig.data.length, 9);
  const median = fig.data[8];
  assert.equal(median.name, 'median');
  assert.deepEqual(median.y, [4, 14]);
  assert.equal(median.mode, 'lines');
  for (let j = 0; j < 4; j++) {
    const [lower, upper] = [fig.data[2 * j], fig.data[2 * j + 1]];
    assert.deepEqual(lower.y, [j, 10 + j]);
    assert.deepEqual(upper.y, [8 - j, 18 - j]);
    assert.equal(upper.fill, 'tonexty');
    assert.equal(upper.fillcolor, withAlpha(COLOR, 0.12 + 0.1 * j));
    assert.deepEqual(upper.x, [0, 10]);
  }
  assert.deepEqual(fig.data.filter((t) => t.fill).map((t) => t.name), ['0–100 %', '6.68–93.32 %', '15.87–84.13 %', '30.85–69.15 %']);
  const one = distributionFigure({ percentiles, steps: [3], bands: [[0, 1, 2, 3, 4, 5, 6, 7, 8]] }, COLOR);
  assert.equal(one.data.at(-1).mode, 'lines+markers');
});

test('nonfiniteNote sums the non-finite counts of the shown entries', () => {
  assert.equal(nonfiniteNote(ENTRIES), '');
  assert.equal(
    nonfiniteNote([{ nan_count: 2, pos_inf_count: 0 }, { nan_count: 1, neg_inf_count: 4 }]),
    'Non-finite values (not in the buckets) over the shown steps: NaN: 3 · -Inf: 4',
  );
});

test('the offset view labels its y axis at steps that exist only', () => {
  assert.deepEqual(stepTicks([0, 1, 2, 3, 4]), [0, 1, 2, 3, 4]);
  assert.deepEqual(stepTicks([0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]), [0, 20, 40, 60, 80, 100]);
  assert.deepEqual(stepTicks([5, 5, 7]), [5, 7]);
  assert.deepEqual(stepTicks([0, 1, 2, 3, 4, 5, 6, 7]), [0, 1, 3, 4, 6, 7]);
  const fig = offsetFigure(ENTRIES, COLOR);
  assert.deepEqual(fig.layout.yaxis.tickvals, ENTRIES.map((e) => e.step));
});
