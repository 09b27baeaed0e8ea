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

test('columns chosen by the user: metadata extras hidden until chosen, any column hidden, kept as +/- keys', async () => {
  const { choicesOf, choicesText, columnsOf, hiddenOf } = await import('../../frontend_static/runstable.js');
  const extras = ['status', 'host', 'start_time', 'end_time', 'duration', 'writers', 'attempts', 'command', 'git_commit',
    'git_dirty', 'packages.torch'];
  const choices = choicesOf(['+git_commit', '-host', '+packages.torch', 'junk', '+', 3]);
  assert.deepEqual([...choices], [['git_commit', true], ['host', false], ['packages.torch', true]]);
  const hidden = hiddenOf(extras, choices);
  const columns = columnsOf(['lr'], [], { extras, hidden });
  assert.deepEqual(columns.map((c) => c.key), ['name', 'status', 'start_time', 'duration', 'writers', 'attempts',
    'git_commit', 'packages.torch', 'hparams.lr']);
  const row = { name: 'a', git_commit: '0123456789abcdef0123456789abcdef01234567', 'packages.torch': '2.4.1', hparams: { lr: 1 } };
  const byKey = Object.fromEntries(columns.map((c) => [c.key, c]));
  assert.equal(byKey.git_commit.text(row), '0123456789');
  assert.equal(byKey.git_commit.title(row), row.git_commit); // the whole commit on hover
  assert.equal(byKey['packages.torch'].label, 'torch');
  assert.equal(byKey['packages.torch'].text(row), '2.4.1');
  assert.deepEqual(choicesText(choices), ['+git_commit', '-host', '+packages.torch']);
  const dirty = columnsOf([], [], { extras, hidden: hiddenOf(extras, choicesOf(['+git_dirty'])) }).find((c) => c.key === 'git_dirty');
  assert.deepEqual([true, false, null].map((v) => dirty.text({ git_dirty: v })), ['dirty', 'clean', '']);
});

test('a comparison shows where the runs came from: command, commit, packages', () => {
  const base = { status: 'finished', host: 'a', start_time: 1, duration: 10, writers: 1, attempts: 1, hparams: {}, metrics: {} };
  const runs = [
    { ...base, name: 'r1', git_commit: 'aaa', git_dirty: false, 'packages.torch': '2.4.1', command: 'train.py --lr 0.1' },
    { ...base, name: 'r2', git_commit: 'bbb', git_dirty: true, 'packages.torch': '2.4.1', command: 'train.py --lr 0.3' },
  ];
  assert.deepEqual(diffRows(runs).map((r) => [r.field, r.values]), [
    ['command', ['train.py --lr 0.1', 'train.py --lr 0.3']], ['git commit', ['aaa', 'bbb']], ['git dirty', ['clean', 'dirty']],
  ]);
  assert.ok(diffRows(runs, { all: true }).some((r) => r.field === 'torch' && !r.differ));
});
