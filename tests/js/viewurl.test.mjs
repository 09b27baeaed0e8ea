import assert from 'node:assert/strict';
import { test } from 'node:test';

import { listParam, parseView, scalarSettingsOf, viewHash } from '../../frontend_static/viewurl.js';

test('a view survives its URL: what differs from the defaults is written, and read back the same', () => {
  const view = {
    tab: 'runs', runs: 'lr0\\.1/seed1\\d', tags: 'loss$', where: 'lr < 0.3 and name ~ "x"', sort: '-eval/loss.min',
    scalar: { smoothing: 0.85, xAxis: 'relative', logY: true, ignoreOutliers: false, perRank: false, groupBy: 'lr' },
  };
  const hash = viewHash(view);
  const { tab, params } = parseView(hash);
  assert.equal(tab, 'runs');
  assert.deepEqual(params, { runs: view.runs, tags: 'loss$', smoothing: '0.85', x: 'relative', logy: '1', group: 'lr',
    where: view.where, sort: '-eval/loss.min' });
  assert.deepEqual(scalarSettingsOf(params), { smoothing: 0.85, xAxis: 'relative', logY: true, groupBy: 'lr' });
});

test('the defaults leave the URL bare, and a bare or foreign hash parses', () => {
  assert.equal(viewHash({ tab: 'scalars', scalar: { smoothing: 0.6, xAxis: 'step', logY: false, groupBy: 'auto' } }), '#scalars');
  assert.deepEqual(parseView('#images'), { tab: 'images', params: {} });
  assert.deepEqual(parseView(''), { tab: '', params: {} });
});

test('values a URL cannot set are ignored, not trusted', () => {
  assert.deepEqual(scalarSettingsOf({ x: 'sideways', smoothing: '7', logy: 'yes' }), { smoothing: 0.999, logY: false });
});

test('the Runs tab\'s columns and metrics, the band and the line survive the URL exactly', () => {
  const cols = ['+git_commit', '-host'];
  const metrics = ['eval/loss', 'odd,tag "x"'];
  const hash = viewHash({ tab: 'runs', cols, metrics, scalar: { center: 'median', band: 'sd' } });
  const { tab, params } = parseView(hash);
  assert.equal(tab, 'runs');
  assert.deepEqual(listParam(params.cols), cols);
  assert.deepEqual(listParam(params.metrics), metrics);
  assert.deepEqual(scalarSettingsOf(params), { center: 'median', band: 'sd' });
  assert.equal(viewHash({ tab: 'scalars', scalar: { center: 'mean', band: 'quantiles' } }), '#scalars');
  assert.deepEqual(listParam('not json'), []);
  assert.deepEqual(listParam('{"a": 1}'), []);
  assert.deepEqual(listParam('["a", 2, null]'), ['a']);
  assert.deepEqual(scalarSettingsOf({ band: 'evil', center: 'mode' }), {});
});

test('zoomed charts survive the URL; a range that is not two numbers or dates is dropped', async () => {
  const { MAX_ZOOMS, zoomParam } = await import('../../frontend_static/viewurl.js');
  const zoom = new Map([['eval/loss', [10, 250.5]], ['lr', ['2026-11-26 08:00:00', '2026-11-26 09:00']]]);
  const { params } = parseView(viewHash({ tab: 'scalars', zoom }));
  assert.deepEqual([...zoomParam(params.zoom)], [...zoom]);
  assert.equal(viewHash({ tab: 'scalars', zoom: new Map() }), '#scalars');
  const bad = zoomParam(JSON.stringify({ a: [1], b: [1, 'x'.repeat(41)], c: [null, 2], d: 'no', e: [0, 5] }));
  assert.deepEqual([...bad], [['e', [0, 5]]]);
  assert.deepEqual([...zoomParam('[1, 2]')], []);
  assert.deepEqual([...zoomParam('{')], []);
  const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`t${i}`, [0, i + 1]]));
  assert.equal(zoomParam(JSON.stringify(many)).size, MAX_ZOOMS);
});
