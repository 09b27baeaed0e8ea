import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ROW_PX, matchesQuery, orderWriters, rowWindow, stateCounts } from '../../frontend_static/jobtable.js';

/** `n` trainers' files: rank r on host h(r % 4); every 10th killed and restarted, rank 3 raised. */
function writers(n) {
  const out = [];
  for (let rank = 0; rank < n; rank++) {
    const restarted = rank % 10 === 7;
    const base = { role: 'trainer', rank, host: `h${rank % 4}`, pid: 1000 + rank, points: 100 + rank, first_step: 0, start_time: 100 + rank };
    if (restarted) out.push({ ...base, attempt: 0, state: 'killed', file: `f${rank}a`, last_step: 50, end_time: 150 });
    out.push({ ...base, attempt: restarted ? 1 : 0, state: rank === 3 ? 'raised' : 'closed', file: `f${rank}`, last_step: 99, end_time: 200 + rank });
  }
  return out;
}

test('orderWriters: by default the files that did not end cleanly first, then by rank', () => {
  const rows = orderWriters(writers(30));
  assert.equal(rows.length, 33);
  assert.deepEqual(rows.slice(0, 4).map((w) => [w.rank, w.state]), [[3, 'raised'], [7, 'killed'], [17, 'killed'], [27, 'killed']]);
  assert.deepEqual(rows.slice(4, 7).map((w) => [w.rank, w.attempt]), [[0, 0], [1, 0], [2, 0]]);
});

test('orderWriters: by a column, either way, ties by rank and attempt', () => {
  const byRank = orderWriters(writers(30), { sort: 'rank', desc: true });
  assert.deepEqual(byRank.slice(0, 2).map((w) => w.rank), [29, 28]);
  const byPoints = orderWriters(writers(30), { sort: 'points' });
  assert.deepEqual(byPoints.slice(0, 3).map((w) => w.rank), [0, 1, 2]);
  const byHost = orderWriters(writers(30), { sort: 'host' });
  assert.deepEqual(byHost.slice(0, 3).map((w) => w.rank), [0, 4, 8]); // h0, by pid
  const restarted = orderWriters(writers(30), { sort: 'rank' }).filter((w) => w.rank === 7);
  assert.deepEqual(restarted.map((w) => w.attempt), [0, 1]);
});

test('orderWriters: filtered by state and by a search', () => {
  assert.deepEqual(orderWriters(writers(30), { state: 'killed' }).map((w) => w.rank), [7, 17, 27]);
  assert.deepEqual(orderWriters(writers(30), { state: 'unclean' }).map((w) => w.state), ['raised', 'killed', 'killed', 'killed']);
  assert.deepEqual(orderWriters(writers(30), { query: 'trainer 17' }).map((w) => [w.rank, w.attempt]), [[17, 0], [17, 1]]);
  assert.deepEqual(orderWriters(writers(30), { query: '  H2 ', sort: 'rank' }).map((w) => w.rank).slice(0, 3), [2, 6, 10]);
  assert.equal(orderWriters(writers(30), { query: 'pserver' }).length, 0);
  assert.equal(matchesQuery(writers(30)[5], ['1005']), true); // a pid
});

test('stateCounts: every state counted, the unclean ones first', () => {
  assert.deepEqual(stateCounts(writers(30)), [['raised', 1], ['killed', 3], ['closed', 29]]);
});

test('rowWindow: the rows in view and a few beyond, never past the ends', () => {
  assert.deepEqual(rowWindow(0, 16 * ROW_PX, 10000), { first: 0, end: 24 });
  assert.deepEqual(rowWindow(5000 * ROW_PX, 16 * ROW_PX, 10000), { first: 4992, end: 5024 });
  assert.deepEqual(rowWindow(10000 * ROW_PX, 16 * ROW_PX, 10000), { first: 9992, end: 10000 });
  assert.deepEqual(rowWindow(0, 400, 5), { first: 0, end: 5 });
  assert.deepEqual(rowWindow(0, 400, 0), { first: 0, end: 0 });
});
