import assert from 'node:assert/strict';
import { test } from 'node:test';

import { fmtDuration } from '../../frontend_static/format.js';
import { diffRows } from '../../frontend_static/rundiff.js';
import { columnsOf } from '../../frontend_static/runstable.js';

test('fmtDuration picks a unit a person reads', () => {
  assert.equal(fmtDuration(null), '');
  assert.equal(fmtDuration(42.123), '42.1 s');
  assert.equal(fmtDuration(600), '10 min');
  assert.equal(fmtDuration(9000), '2.5 h');
});

test('columns: the fixed ones, each hparam, each metric three times, keyed as the server sorts', () => {
  const columns = columnsOf(['lr', 'opt'], ['eval/loss']);
  assert.deepEqual(columns.map((c) => c.key), ['name', 'status', 'host', 'start_time', 'duration', 'writers', 'attempts',
    'hparams.lr', 'hparams.opt', 'eval/loss.last', 'eval/loss.min', 'eval/loss.max']);
  const row = { name: 'a', status: 'live', host: null, start_time: null, duration: null, writers: 1, attempts: 1,
    hparams: { lr: 0.001, opt: 'adam' }, metrics: { 'eval/loss': { last: 'nan', min: 0.5 } } };
  assert.deepEqual(columns.slice(7).map((c) => c.text(row)), ['0.001', 'adam', 'nan', '0.5', '']);
});

test('a comparison shows the fields that differ, all of them when asked', () => {
  const base = { status: 'finished', host: 'a', start_time: 1, duration: 10, writers: 1, attempts: 1 };
  const runs = [
    { ...base, name: 'r1', hparams: { lr: 0.1, opt: 'adam' }, metrics: { loss: { last: 1, min: 0.5, max: 2 } } },
    { ...base, name: 'r2', hparams: { lr: 0.3, opt: 'adam', warmup: 5 }, metrics: { loss: { last: 1, min: 0.4, max: 2 } } },
  ];
  assert.deepEqual(diffRows(runs).map((r) => [r.field, r.values]), [
    ['lr', ['0.1', '0.3']], ['warmup', ['–', '5']], ['loss min', ['0.5', '0.4']],
  ]);
  const all = diffRows(runs, { all: true });
  assert.ok(all.some((r) => r.field === 'opt' && !r.differ) && all.some((r) => r.field === 'status'));
});

test('a run written twice into one directory, or a rank restarted, counts its attempts', async () => {
  const { attemptsOf } = await import('../../frontend_static/sidebar.js');
  const w = (rank, role = '') => ({ rank, role });
  assert.equal(attemptsOf([w(-1)]), 1);
  assert.equal(attemptsOf([w(-1), w(-1)]), 2); // a script run twice
  assert.equal(attemptsOf([w(0, 'trainer'), w(1, 'trainer')]), 1); // two ranks, once each
  assert.equal(attemptsOf([w(0, 'trainer'), w(1, 'trainer'), w(1, 'trainer'), w(1, 'trainer')]), 3);
  assert.equal(attemptsOf([]), 1);
});
