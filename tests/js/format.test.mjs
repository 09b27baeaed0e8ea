import assert from 'node:assert/strict';
import { test } from 'node:test';

import { escPlotly, fmtBytes, fmtClock, fmtValue, fmtWall, localMs, parseAxisDate } from '../../frontend_static/format.js';

// Local time in a zone with a half-hour offset and daylight saving (+10:30 in January,
// +9:30 in July), so that UTC mistaken for local time, or one offset for all dates, shows.
// Each test file runs in its own process: this does not leak into the others.
process.env.TZ = 'Australia/Adelaide';
const JAN = Date.UTC(2024, 0, 15, 0, 0, 0) / 1000; // 2024-01-15 10:30:00 in Adelaide
const JUL = Date.UTC(2024, 6, 15, 0, 0, 0) / 1000; // 2024-07-15 09:30:00 in Adelaide

test('fmtValue: six significant digits, exponent notation for the very large and small', () => {
  assert.equal(fmtValue(null), '–');
  assert.equal(fmtValue(undefined), '–');
  assert.equal(fmtValue(NaN), 'NaN');
  assert.equal(fmtValue(Infinity), 'Infinity');
  assert.equal(fmtValue(-Infinity), '-Infinity');
  assert.equal(fmtValue(0), '0');
  assert.equal(fmtValue(0.5), '0.5');
  assert.equal(fmtValue(0.1 + 0.2), '0.3');
  assert.equal(fmtValue(1 / 3), '0.333333');
  assert.equal(fmtValue(-2 / 3), '-0.666667');
  assert.equal(fmtValue(123456.7), '123457');
  assert.equal(fmtValue(0.0001), '0.0001');
  assert.equal(fmtValue(0.000123456789), '0.000123457');
  assert.equal(fmtValue(1e6), '1.0000e+6');
  assert.equal(fmtValue(-2.5e-5), '-2.5000e-5');
  assert.equal(fmtValue(6.02214076e23), '6.0221e+23');
});

test('fmtValue decides the notation on the digits it shows', () => {
  // Both round to a million / to 1e-4: shown alike with their neighbours.
  assert.equal(fmtValue(999999.7), '1.0000e+6');
  assert.equal(fmtValue(0.000099999996), '0.0001');
});

test('fmtWall: local date and time, the offset of that date', () => {
  assert.equal(fmtWall(JAN), '2024-01-15 10:30:00');
  assert.equal(fmtWall(JUL), '2024-07-15 09:30:00');
  assert.equal(fmtWall(JUL + 0.999), '2024-07-15 09:30:00');
  assert.equal(fmtWall(JAN + 86399), '2024-01-16 10:29:59');
  assert.equal(fmtWall(NaN), '–');
  assert.equal(fmtWall(null), '–');
});

test('fmtClock: the time alone today, with the date otherwise', () => {
  const now = Date.now() / 1000;
  assert.equal(fmtClock(now), fmtWall(now).slice(11));
  assert.match(fmtClock(now), /^\d\d:\d\d:\d\d$/);
  assert.equal(fmtClock(JAN), '2024-01-15 10:30:00');
  assert.equal(fmtClock(Infinity), '–');
});

test('fmtBytes: binary units', () => {
  assert.equal(fmtBytes(0), '0 B');
  assert.equal(fmtBytes(1023), '1023 B');
  assert.equal(fmtBytes(1024), '1.0 KiB');
  assert.equal(fmtBytes(1536), '1.5 KiB');
  assert.equal(fmtBytes(3.25 * 1024 ** 2), '3.3 MiB');
  assert.equal(fmtBytes(5 * 1024 ** 3), '5.00 GiB');
  assert.equal(fmtBytes(1536 * 1024 ** 3), '1536.00 GiB');
  assert.equal(fmtBytes(1048575), '1.0 MiB'); // rounds to 1024.0 KiB: the next unit
  assert.equal(fmtBytes(1048524), '1023.9 KiB');
  assert.equal(fmtBytes(1024 ** 3 - 1), '1.00 GiB');
});

test('escPlotly escapes what plotly would read as markup', () => {
  assert.equal(escPlotly('<b>loss</b> & acc'), '&lt;b&gt;loss&lt;/b&gt; &amp; acc');
  assert.equal(escPlotly('&lt;'), '&amp;lt;');
  assert.equal(escPlotly('<br>'), '&lt;br&gt;');
  assert.equal(escPlotly(42), '42');
  assert.equal(escPlotly('plain · ✓'), 'plain · ✓');
});

test('localMs shifts by the local offset of each instant', () => {
  assert.equal(localMs(JAN), JAN * 1000 + 10.5 * 3600e3);
  assert.equal(localMs(JUL), JUL * 1000 + 9.5 * 3600e3);
  // What plotly shows for localMs (it reads ms as UTC) is what fmtWall writes.
  assert.equal(new Date(localMs(JUL)).toISOString().slice(0, 19).replace('T', ' '), fmtWall(JUL));
});

test('parseAxisDate reads plotly date-axis values back into localMs units', () => {
  assert.equal(parseAxisDate('2024-07-15 09:30:00'), localMs(JUL));
  assert.equal(parseAxisDate('2024-01-15 10:30'), localMs(JAN));
  assert.equal(parseAxisDate('2024-01-15T10:30:00.25'), localMs(JAN) + 250);
  assert.equal(parseAxisDate('2024-03-05'), Date.UTC(2024, 2, 5));
  assert.equal(parseAxisDate(localMs(JUL)), localMs(JUL));
  assert.ok(Number.isNaN(parseAxisDate('yesterday')));
});
