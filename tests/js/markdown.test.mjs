import assert from 'node:assert/strict';
import { test } from 'node:test';

import { inline, parse } from '../../frontend_static/markdown.js';

test('inline: code, strong, emphasis, safe links only', () => {
  assert.deepEqual(inline('a **b** *c* `d*e*` _f_'), [
    { t: 'text', text: 'a ' }, { t: 'strong', children: [{ t: 'text', text: 'b' }] }, { t: 'text', text: ' ' },
    { t: 'em', children: [{ t: 'text', text: 'c' }] }, { t: 'text', text: ' ' }, { t: 'code', text: 'd*e*' },
    { t: 'text', text: ' ' }, { t: 'em', children: [{ t: 'text', text: 'f' }] },
  ]);
  assert.deepEqual(inline('[x](https://a.b/c)'), [{ t: 'link', href: 'https://a.b/c', children: [{ t: 'text', text: 'x' }] }]);
  assert.ok(inline('[x](javascript:alert(1))').every((n) => n.t === 'text'));
  assert.deepEqual(inline('snake_case_name'), [{ t: 'text', text: 'snake_case_name' }]);
  assert.deepEqual(inline('2 * 3 * 4'), [{ t: 'text', text: '2 * 3 * 4' }]);
});

test('blocks: headings, code, lists, quotes, tables, paragraphs', () => {
  const blocks = parse('# Title\n\nsome *text*\nnext line\n\n- a\n- b\n\n1. one\n2. two\n\n> quoted\n\n```py\nx = 1 < 2\n```\n\n| k | v |\n|---|---|\n| lr | 0.1 |');
  assert.deepEqual(blocks.map((b) => b.t), ['h', 'p', 'ul', 'ol', 'quote', 'code', 'table']);
  assert.equal(blocks[0].level, 1);
  assert.deepEqual(blocks[1].children.map((n) => n.t), ['text', 'em', 'br', 'text']);
  assert.equal(blocks[2].items.length, 2);
  assert.equal(blocks[5].text, 'x = 1 < 2');
  assert.deepEqual(blocks[6].rows, [[[{ t: 'text', text: 'lr' }], [{ t: 'text', text: '0.1' }]]]);
});

test('HTML stays text: a script tag is no element', () => {
  const [p] = parse('<script>alert(1)</script> <b>x</b>');
  assert.deepEqual(p, { t: 'p', children: [{ t: 'text', text: '<script>alert(1)</script> <b>x</b>' }] });
});

test('a text tensor as a table: escaped pipes stay in their cell, no header row drawn', () => {
  // What visualdl._formats.tfevents.values.markdown_table(['a|b', '', 'x\ny', 'c\\|d'], 2) writes
  // (tests/formats/test_tflogs.py checks the Python side).
  const [table] = parse('|  |  |\n| --- | --- |\n| a\\|b |  |\n| x y | c\\\\|d |');
  assert.equal(table.t, 'table');
  assert.deepEqual(table.head, [[], []]);
  const texts = table.rows.map((r) => r.map((c) => c.map((n) => n.text).join('')));
  assert.deepEqual(texts, [['a|b', ''], ['x y', 'c\\|d']]);
});
