import assert from 'node:assert/strict';
import { test } from 'node:test';

import { groupQuery, membersQuery } from '../../frontend_static/groupmembers.js';

test('a group key as the query that selects it: numbers bare, texts quoted, fields ANDed', () => {
  assert.equal(groupQuery({ lr: 0.1, opt: 'ad"am' }), 'lr == 0.1 and opt == "ad\\"am"');
  assert.equal(groupQuery({ 'packages.torch': '2.4.0' }), 'packages.torch == "2.4.0"');
  assert.equal(groupQuery({ lr: null }), null); // runs without the field: no equality says it
  assert.equal(groupQuery({ name: 'lr0.1' }), null); // a regex capture of the name
  assert.equal(groupQuery({ 'odd field': 1 }), null);
  assert.equal(groupQuery({}), null);
});

test('a group the key cannot select is selected by its members\' names, up to a length', () => {
  const group = { key: { name: 'x' }, members: ['x/1', 'x/"2"'] };
  assert.equal(membersQuery(group), 'name in ["x/1", "x/\\"2\\""]');
  assert.equal(membersQuery({ key: { lr: 1 }, members: ['a'] }), 'lr == 1');
  assert.equal(membersQuery({ key: { name: 'x' }, members: ['a'.repeat(100)] }, 50), null);
});
