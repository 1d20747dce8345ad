// The CommonJS build, loaded by require from a CommonJS file.
const assert = require('node:assert/strict');
const { test } = require('node:test');

const rsbloom = require('rsbloom');

test('require("rsbloom") gives the CommonJS build with its classes', () => {
  assert.equal(typeof rsbloom.ShardedBloom, 'function');
  assert.equal(typeof rsbloom.cbf, 'function');
  assert.equal(rsbloom.keySlot('foo'), 12182);
  assert.ok(require.resolve('rsbloom').endsWith('dist/cjs/index.js'));
  const err = new rsbloom.FilterFullError('x', [null], [], new Map([[0, new rsbloom.ShardFullError('full')]]));
  assert.ok(err instanceof rsbloom.BatchError && err instanceof Error);
});
