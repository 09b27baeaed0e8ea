import assert from 'node:assert/strict';
import { test } from 'node:test';

import { columnsOf, fmtDuration } from '../../frontend_static/runstable.js';

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
