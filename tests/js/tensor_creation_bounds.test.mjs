// Boundaries of the creation functions' argument guards (npm/src/tensor/creation.ts), each
// disjunct alone and each bound from both sides. Oracle: PyTorch 1.13 (torch.eye(0) is a [0, 0]
// tensor, torch.eye(-1) raises; torch.full NaN into an int dtype raises; int arange with
// requires_grad raises) and the exact messages of the source.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';

test('tensor int64: |v| up to 2^53 - 1 is held, 2^53 and -2^53 and non-finite values are refused', () => {
  const max = Number.MAX_SAFE_INTEGER;
  const t = sg.tensor([max, -max], { dtype: 'int64' });
  assert.deepEqual(Array.from(t.dataSync()), [BigInt(max), BigInt(-max)]);
  t.dispose();
  throwsWith(() => sg.tensor([2 ** 53], { dtype: 'int64' }), /tensor: value 9007199254740992 is not an integer a JS number holds exactly/);
  throwsWith(() => sg.tensor([-(2 ** 53)], { dtype: 'int64' }), /value -9007199254740992 is not an integer/);
  throwsWith(() => sg.tensor([Infinity], { dtype: 'int64' }), /value Infinity is not an integer a JS number holds exactly/);
  throwsWith(() => sg.tensor([NaN], { dtype: 'int64' }), /^tensor: value NaN is not an integer a JS number holds exactly/);
});

test('tensor: a leaf that is neither number nor boolean is refused; numbers and booleans are taken', () => {
  throwsWith(() => sg.tensor([1, 'a']), /^tensor: expected numbers or booleans, got/);
  const a = sg.tensor([true, false]);
  assert.equal(a.dtype, 'bool');
  const b = sg.tensor([1, 2]);
  assert.deepEqual(Array.from(b.dataSync()), [1, 2]);
  a.dispose(); b.dispose();
});

test('full NaN: refused for integer dtypes only; float, bool and the default take it', () => {
  throwsWith(() => sg.full([2], NaN, { dtype: 'int32' }), "full: cannot store NaN in an int32 tensor (expected a number that fits int32)");
  const f = sg.full([2], NaN, { dtype: 'float64' });
  assert.ok(Array.from(f.dataSync()).every(Number.isNaN));
  const d = sg.full([2], NaN);
  assert.ok(Array.from(d.dataSync()).every(Number.isNaN));
  const b = sg.full([2], NaN, { dtype: 'bool' });
  assert.equal(b.dtype, 'bool');
  assert.deepEqual(Array.from(b.dataSync()), [1, 1]);
  f.dispose(); d.dispose(); b.dispose();
});

test('arange requiresGrad: refused for the int32 default, taken with a float dtype, int32 without grad fine', () => {
  throwsWith(() => sg.arange(0, 3, 1, { requiresGrad: true }), /arange: integer arguments give an int32 tensor .* cannot require gradients/);
  throwsWith(() => sg.arange(0, 3, 1, { requiresGrad: true, dtype: 'int32' }), /^arange: /);
  const f = sg.arange(0, 3, 1, { requiresGrad: true, dtype: 'float32' });
  assert.equal(f.requiresGrad, true);
  const i = sg.arange(0, 3, 1);
  assert.equal(i.dtype, 'int32');
  assert.equal(i.requiresGrad, false);
  f.dispose(); i.dispose();
});

test('eye n: 0 gives [0, 0], -1 and 1.5 are refused', () => {
  const e = sg.eye(0);
  assert.deepEqual(e.shape, [0, 0]);
  e.dispose();
  const one = sg.eye(1);
  assert.deepEqual(Array.from(one.dataSync()), [1]);
  one.dispose();
  throwsWith(() => sg.eye(-1), "eye: expected 'n' to be a non-negative integer, got -1");
  throwsWith(() => sg.eye(1.5), "eye: expected 'n' to be a non-negative integer, got 1.5");
});

test('logspace base: a number is taken, a string or NaN is refused', () => {
  const t = sg.logspace(0, 1, 2, { base: 2 });
  assert.deepEqual(Array.from(t.dataSync()), [1, 2]);
  t.dispose();
  throwsWith(() => sg.logspace(0, 1, 2, { base: '2' }), /^logspace: expected 'base' to be a number, got/);
  throwsWith(() => sg.logspace(0, 1, 2, { base: NaN }), /^logspace: expected 'base' to be a number, got NaN/);
});
