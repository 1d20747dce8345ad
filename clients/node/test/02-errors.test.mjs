// BatchError's kinds and precedence (issue 44, section 3), and the package loading both ways.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';

import * as esm from 'rsbloom';

const { AmbiguousWriteError, BatchError, FilterFullError, RsbloomError, ShardFullError } = esm;

test('require and import give the same API', () => {
  const cjs = createRequire(import.meta.url)('rsbloom');
  assert.deepEqual(Object.keys(cjs).sort(), Object.keys(esm).sort());
  assert.equal(cjs.keySlot('foo'), esm.keySlot('foo'));
  assert.equal(cjs.VERSION, '0.1.0');
  assert.notEqual(cjs.ShardedBloom, esm.ShardedBloom); // two builds, not one shim
});

test('precedence: unknown, then all full, then failed', () => {
  const full = new ShardFullError('ERR non scaling filter is full');
  const other = new Error('ERR something else');
  const a = BatchError.of('add', [true, null, null], [2], new Map([[1, full]]));
  assert.ok(a instanceof AmbiguousWriteError && a instanceof BatchError && a instanceof RsbloomError && a instanceof Error);
  assert.deepEqual(a.unknown, [2]);
  assert.deepEqual([...a.failed.keys()], [1]);
  const f = BatchError.of('add', [null, true, null], [], new Map([[2, full], [0, full]]));
  assert.ok(f instanceof FilterFullError && !(f instanceof AmbiguousWriteError));
  assert.deepEqual([...f.failed.keys()], [0, 2]); // sorted by position
  assert.deepEqual(f.results, [null, true, null]);
  const b = BatchError.of('add', [null, null], [], new Map([[0, full], [1, other]]));
  assert.ok(!(b instanceof FilterFullError) && !(b instanceof AmbiguousWriteError) && b instanceof BatchError);
  assert.equal(b.name, 'BatchError');
  assert.equal(f.name, 'FilterFullError');
  assert.match(b.message, /something else/);
});
