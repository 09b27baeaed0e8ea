import assert from 'node:assert/strict';
import { test } from 'node:test';

import { DEFAULT_PX, MIN_PX, clampWidth } from '../../frontend_static/sidebarwidth.js';

test('the sidebar is as wide as asked, between its minimum and what leaves the charts 360 px', () => {
  assert.equal(clampWidth(500, 1440), 500);
  assert.equal(clampWidth(50, 1440), MIN_PX);
  assert.equal(clampWidth(5000, 1440), 1440 - 360);
  assert.equal(clampWidth('junk', 1440), DEFAULT_PX);
  assert.equal(clampWidth(400, 300), MIN_PX); // a window too narrow for both: the minimum
  assert.equal(clampWidth(333.6, 1440), 334);
});
