import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ALL_UP_TO, CAP, timelinePlaces } from '../../frontend_static/jobtimeline.js';

/** `n` trainers' files in the API's order; the ranks of `killed` restarted, those of `raised` raised. */
function writers(n, { killed = [], raised = [] } = {}) {
  const out = [];
  for (let rank = 0; rank < n; rank++) {
    const base = { role: 'trainer', rank, host: 'h', pid: rank, points: 10, first_step: 0, last_step: 9, start_time: 0 };
    if (killed.includes(rank)) out.push({ ...base, attempt: 0, state: 'killed', file: `a${rank}`, end_time: 1000 - rank });
    out.push({ ...base, attempt: killed.includes(rank) ? 1 : 0, state: raised.includes(rank) ? 'raised' : 'closed',
      file: `b${rank}`, end_time: raised.includes(rank) ? 500 + rank : 2000 });
  }
  return out;
}

test('timelinePlaces: every file while there are few places', () => {
  const all = writers(ALL_UP_TO, { killed: [3] });
  const chosen = timelinePlaces(all);
  assert.equal(chosen.files, all);
  assert.equal(chosen.note, '');
});

test('timelinePlaces: beyond, only the places that restarted or did not end cleanly, with a note', () => {
  const chosen = timelinePlaces(writers(10000, { killed: [7, 9000], raised: [42] }));
  assert.deepEqual(chosen.files.map((w) => [w.rank, w.attempt]), [[7, 0], [7, 1], [42, 0], [9000, 0], [9000, 1]]);
  assert.equal(chosen.places, 10000);
  assert.equal(chosen.shown, 3);
  assert.equal(chosen.note, '3 of 10,000 places drawn, those that restarted or did not end cleanly; 9,997 left out (closed cleanly or running).');
});

test('timelinePlaces: capped, the first to end first', () => {
  const killed = Array.from({ length: 300 }, (_, i) => 10 * i); // rank r killed at 1000 - r: the highest first
  const chosen = timelinePlaces(writers(5000, { killed }));
  assert.equal(chosen.shown, CAP);
  const ranks = [...new Set(chosen.files.map((w) => w.rank))];
  assert.equal(ranks.length, CAP);
  assert.deepEqual([ranks[0], ranks[ranks.length - 1]], [2000, 2990]); // in rank order, the last 100 killed
  assert.match(chosen.note, /^100 of the 300 places that restarted or did not end cleanly drawn \(the first to end first\); 4,900 of 5,000 places left out\.$/);
});

test('timelinePlaces: none to draw says so', () => {
  const chosen = timelinePlaces(writers(500));
  assert.deepEqual(chosen.files, []);
  assert.equal(chosen.note, 'None of the 500 places restarted or ended uncleanly: no bar drawn.');
});
