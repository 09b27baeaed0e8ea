import assert from 'node:assert/strict';
import { test } from 'node:test';

import { smooth } from '../../frontend_static/smoothing.js';
import { decode, golden } from './golden.mjs';

const vectors = golden('smoothing.json');

test('smooth matches every golden vector', () => {
  const tolerance = vectors.relative_tolerance;
  assert.ok(vectors.cases.length >= 40);
  for (const { series, weight, expected, exact } of vectors.cases) {
    const where = `${series} at weight ${weight}`;
    const got = smooth(vectors.series[series].map(decode), decode(weight));
    assert.equal(got.length, expected.length, where);
    expected.forEach((want, i) => {
      if (want === null) assert.equal(got[i], null, `${where}: a gap at ${i}`);
      else if (exact) assert.equal(got[i], want, `${where}: the input itself at ${i}`);
      else {
        assert.equal(typeof got[i], 'number', `${where}: a number at ${i}`);
        assert.ok(Math.abs(got[i] - want) <= tolerance * Math.abs(want), `${where} at ${i}: ${got[i]} != ${want}`);
      }
    });
  }
});

test('smooth by hand: w = 0.5 over [1, 2, NaN, 4] is [1, 5/3, gap, 3]', () => {
  // last = 0.5, 1.25, -, 2.625 divided by 1 - 0.5^k = 0.5, 0.75, -, 0.875.
  const got = smooth([1, 2, NaN, 4], 0.5);
  assert.equal(got[0], 1);
  assert.ok(Math.abs(got[1] - 5 / 3) < 1e-15);
  assert.equal(got[2], null);
  assert.equal(got[3], 3);
});

test('smooth leaves its input alone and keeps the first point', () => {
  const values = [3, null, 1, Infinity, 2];
  const copy = values.slice();
  const got = smooth(values, 0.9);
  assert.deepEqual(values, copy);
  assert.equal(got[0], 3); // debiased: the first point is not pulled towards 0
  assert.deepEqual(got.map((v) => v === null), [false, true, false, true, false]);
  assert.ok(got[2] > 1 && got[2] < 3 && got[4] > 1 && got[4] < 3);
});

test('smooth clips the weight to 0..0.999', () => {
  const values = vectors.series.loss.map(decode);
  assert.deepEqual(smooth(values, 5), smooth(values, 0.999));
  assert.deepEqual(smooth(values, -1), values);
  assert.deepEqual(smooth(values, undefined), values);
});
