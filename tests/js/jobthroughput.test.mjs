import assert from 'node:assert/strict';
import { test } from 'node:test';

import { BARS_UP_TO, throughputFigure } from '../../frontend_static/jobthroughput.js';

/** A job answer's throughput of `n` trainers and 2 pservers; every 97th trainer a straggler. */
function job(n) {
  const entry = (rank, slow) => ({ rank, steps_per_second: slow ? 1 : 2, recent_steps_per_second: slow ? 1.4 : 2,
    last_step: 99, straggler: slow, recovering: false });
  return {
    throughput: { trainer: Array.from({ length: n }, (_, r) => entry(r, r % 97 === 96)), pserver: [entry(0, false), entry(1, false)] },
    median_recent_steps_per_second: { trainer: 2, pserver: 2 },
  };
}

test('throughputFigure: a bar per place while there are few, stragglers red', () => {
  const { data, layout } = throughputFigure(job(BARS_UP_TO - 2), ['trainer', 'pserver']);
  assert.equal(layout.xaxis.type, 'category');
  assert.deepEqual(data.map((t) => [t.type, t.x.length]), [['bar', BARS_UP_TO - 2], ['bar', 2]]);
  assert.equal(data[0].marker.color[96], '#c62828');
  assert.notEqual(data[0].marker.color[95], '#c62828');
});

test('throughputFigure: beyond, a line per role and the stragglers as red spikes, a constant count of traces', () => {
  for (const n of [1000, 10000]) {
    const { data } = throughputFigure(job(n), ['trainer', 'pserver']);
    assert.deepEqual(data.map((t) => t.meta.kind), ['rate', 'threshold', 'rate', 'threshold', 'stragglers']);
    assert.equal(data[0].x.length, n);
    assert.equal(data[0].y[5], 2);
    assert.deepEqual(data[1].y, [1.6, 1.6]);
    const spikes = data[4];
    const slow = Math.floor(n / 97);
    assert.equal(spikes.name, `stragglers (${slow.toLocaleString()})`);
    assert.deepEqual(spikes.x.slice(0, 6), [96, 96, null, 193, 193, null]);
    assert.deepEqual(spikes.y.slice(0, 3), [0, 1.4, null]);
    assert.equal(spikes.line.color, '#c62828');
  }
});
