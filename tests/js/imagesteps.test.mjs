import assert from 'node:assert/strict';
import { test } from 'node:test';

import { gridColumns, stepGroups } from '../../frontend_static/imagesteps.js';

test('stepGroups: one group per step, with its first image and its count', () => {
  assert.deepEqual(stepGroups([]), { steps: [], starts: [], counts: [] });
  assert.deepEqual(stepGroups([0, 10, 20]), { steps: [0, 10, 20], starts: [0, 1, 2], counts: [1, 1, 1] });
  // Batches of 4, 4, 2 and 3 images: the count varies by step.
  const steps = [0, 0, 0, 0, 1, 1, 1, 1, 3, 3, 4, 4, 4];
  assert.deepEqual(stepGroups(steps), { steps: [0, 1, 3, 4], starts: [0, 4, 8, 10], counts: [4, 4, 2, 3] });
});

test('gridColumns: the images of a step side by side, four a row at most', () => {
  assert.deepEqual([0, 1, 2, 3, 4, 5, 16].map(gridColumns), [1, 1, 2, 3, 4, 4, 4]);
});
