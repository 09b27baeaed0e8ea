import assert from 'node:assert/strict';
import { test } from 'node:test';

import { PALETTE, colorOf, hash, lighten, withAlpha } from '../../frontend_static/colors.js';
import { golden } from './golden.mjs';

const vectors = golden('colors.json');

test('the palette is the golden one (the notebook uses it too)', () => {
  assert.deepEqual(PALETTE, vectors.palette);
  assert.equal(new Set(PALETTE).size, PALETTE.length);
});

test('colorOf gives every golden name its colour, hashing UTF-16 code units', () => {
  for (const { name, code_units: units, hash: h, color } of vectors.cases) {
    const where = JSON.stringify(name);
    assert.deepEqual(Array.from({ length: name.length }, (_, i) => name.charCodeAt(i)), units, where);
    assert.equal(hash(name), h, where);
    assert.equal(colorOf(name), color, where);
  }
  // The names cover astral-plane ones (a surrogate pair) and a lone surrogate.
  assert.ok(vectors.cases.some(({ name }) => /[\ud800-\udbff][\udc00-\udfff]/.test(name)));
  assert.ok(vectors.cases.some(({ name }) => /^[\ud800-\udbff]$/.test(name)));
  assert.ok(new Set(vectors.cases.map((c) => c.color)).size >= 8);
});

test('hash is FNV-1a 32: the published vectors and one step by hand', () => {
  assert.equal(hash(''), 0x811c9dc5);
  assert.equal(hash('a'), 0xe40c292c);
  assert.equal(hash('foobar'), 0xbf9cf968);
  // One code unit, computed with BigInt: (offset basis ^ unit) * prime mod 2^32.
  const byHand = Number(((0x811c9dc5n ^ 0xd83dn) * 0x01000193n) % 2n ** 32n);
  assert.equal(hash('\ud83d'), byHand);
  assert.equal(hash('🚀'), hash('\ud83d\ude80'));
});

test('a run keeps its colour whatever other runs there are', () => {
  const names = ['train', 'eval', 'run-1', 'run-2'];
  const alone = names.map((n) => colorOf(n));
  const crowd = [...names, ...Array.from({ length: 100 }, (_, i) => `other-${i}`)].map((n) => colorOf(n));
  assert.deepEqual(crowd.slice(0, names.length), alone);
  assert.ok(crowd.every((c) => PALETTE.includes(c)));
});

test('withAlpha and lighten', () => {
  assert.equal(withAlpha('#1f77b4', 0.3), 'rgba(31,119,180,0.3)');
  assert.equal(withAlpha('#ff7f0e', 1), 'rgba(255,127,14,1)');
  assert.equal(lighten('#1f77b4', 0), 'rgb(31,119,180)');
  assert.equal(lighten('#1f77b4', 1), 'rgb(255,255,255)');
  assert.equal(lighten('#000000', 0.5), 'rgb(128,128,128)');
  assert.equal(lighten('#1f77b4', 0.6), 'rgb(165,201,225)');
});
