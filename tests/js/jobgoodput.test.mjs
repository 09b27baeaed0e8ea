import assert from 'node:assert/strict';
import { test } from 'node:test';

import { fmtRatio, fmtSeconds, pickRows, summaryText } from '../../frontend_static/jobgoodput.js';

/** A goodput answer of `n` trainers: every 100th restarted, rank r's goodput 1 - r / (10 n). */
function answer(n) {
  const rank = Array.from({ length: n }, (_, r) => r);
  const restarts = rank.map((r) => (r % 100 === 7 ? 1 : 0));
  return {
    goodput: 0.931, wall_seconds: 3725, lost_seconds: 252, restarts: restarts.reduce((a, b) => a + b, 0),
    steps_done_twice: 310, recovering: 0, roles: { trainer: { goodput: 0.931 } },
    ranks: {
      trainer: {
        rank, restarts, goodput: rank.map((r) => 1 - r / (10 * n)), wall_seconds: rank.map(() => 3725),
        productive_seconds: rank.map(() => 3000), lost_seconds: rank.map((r) => r / 10), steps_done_twice: restarts,
        recovering: rank.map(() => false),
      },
    },
  };
}

test('fmtSeconds and fmtRatio: as --inspect says them', () => {
  assert.equal(fmtSeconds(0.42), '0.4s');
  assert.equal(fmtSeconds(38), '38s');
  assert.equal(fmtSeconds(252), '4m12s');
  assert.equal(fmtSeconds(3725), '1h02m');
  assert.equal(fmtSeconds(null), '–');
  assert.equal(fmtRatio(0.931), '93.1%');
  assert.equal(fmtRatio(null), '–');
});

test('summaryText: ratio, wall, lost time, restarts, steps done twice', () => {
  assert.equal(summaryText(answer(1000)),
    'goodput 93.1% · wall 1h02m · lost 4m12s to 10 restarts · 310 steps done twice');
  assert.equal(summaryText({ ...answer(3), restarts: 0 }), 'goodput 93.1% · wall 1h02m · no restart');
});

test('pickRows: restarted ranks first, then the lowest goodput, never more than the limit', () => {
  const g = answer(10000);
  const rows = pickRows(g);
  assert.equal(rows.length, 25);
  assert.deepEqual(rows.slice(0, 3).map((r) => r.rank), [9907, 9807, 9707]); // 100 restarted: the first 25 of them
  const fewer = pickRows(answer(300));
  assert.deepEqual(fewer.slice(0, 3).map((r) => r.rank), [207, 107, 7]); // most time lost first
  assert.deepEqual(fewer.slice(3, 5).map((r) => r.rank), [299, 298]); // then the lowest goodput
  assert.deepEqual(pickRows(g, { query: '4242' }).map((r) => r.rank), [4242]);
  assert.deepEqual(pickRows(g, { query: 'trainer 17' }).map((r) => r.rank), [17]);
  assert.deepEqual(pickRows(g, { query: 'pserver 17' }), []);
});
