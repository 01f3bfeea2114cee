// Bitwise ops and gcd/lcm (npm/src/tensor/bitwise.ts, src/ops/bitwise.cpp) against PyTorch 1.13
// (tests/data/bitwise_ref.json, from gen_bitwise.py): int32 edge values, bool and mixed operands,
// broadcasting, scalars; the shifts outside [0, 32) that PyTorch 1.13 leaves to the hardware,
// pinned to PyTorch ≥ 2.1's definition; errors; inside sg.compile; on every backend (WebGPU with
// SG_TEST_WEBGPU=1: the WGSL int32 kernels).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';
import { readRef } from './gradcheck_helpers.mjs';
import { assertCompiledEqualsEager, checkRefCases, checkRefCasesAsync } from './ref_cases.mjs';
import { forEachBackend } from './backends.mjs';

const REF = readRef('bitwise_ref.json');

// Each case id as the JS call (function and method forms alternate).
const CALLS = {};
for (const op of ['and', 'or', 'xor']) {
  const name = `bitwise${op[0].toUpperCase()}${op.slice(1)}`;
  CALLS[`${op} int32`] = (a, b) => sg[name](a, b);
  CALLS[`${op} random broadcast`] = (a, b) => a[name](b);
  CALLS[`${op} bool`] = (a, b) => sg[name](a, b);
  CALLS[`${op} bool int32`] = (a, b) => a[name](b);
  CALLS[`${op} scalar`] = (a) => sg[name](a, 6);
}
Object.assign(CALLS, {
  'not int32': (x) => sg.bitwiseNot(x),
  'not bool': (x) => x.bitwiseNot(),
  'not 2d': (x) => x.bitwiseNot(),
  'left shift': (a, b) => sg.bitwiseLeftShift(a, b),
  'right shift': (a, b) => a.bitwiseRightShift(b),
  'left shift broadcast': (a, b) => a.bitwiseLeftShift(b),
  'right shift broadcast': (a, b) => sg.bitwiseRightShift(a, b),
  'left shift scalar': (a) => a.bitwiseLeftShift(3),
  'right shift bool amount': (a, b) => sg.bitwiseRightShift(a, b),
  'gcd edges': (a, b) => sg.gcd(a, b),
  'lcm edges': (a, b) => a.lcm(b),
  'lcm overflow': (a, b) => sg.lcm(a, b),
  'gcd random broadcast': (a, b) => a.gcd(b),
  'lcm random': (a, b) => sg.lcm(a, b),
  'gcd bool int32': (a, b) => sg.gcd(a, b),
});

test('bitwise ops, gcd and lcm equal PyTorch 1.13', () => {
  checkRefCases(REF, CALLS);
});

forEachBackend('bitwise ops, gcd and lcm equal PyTorch on the backend', async () => {
  await checkRefCasesAsync(REF, CALLS);
});

test('bitwise ops: the int32 identities hold on random values', () => {
  sg.tidy(() => {
    const a = sg.randint(-(2 ** 31), 2 ** 31 - 1, [257], { dtype: 'int32' });
    const b = sg.randint(-(2 ** 31), 2 ** 31 - 1, [257], { dtype: 'int32' });
    const av = Array.from(a.dataSync()), bv = Array.from(b.dataSync());
    // JS's own 32-bit operators are the closed form.
    assert.deepEqual(Array.from(sg.bitwiseAnd(a, b).dataSync()), av.map((x, i) => x & bv[i]));
    assert.deepEqual(Array.from(sg.bitwiseOr(a, b).dataSync()), av.map((x, i) => x | bv[i]));
    assert.deepEqual(Array.from(sg.bitwiseXor(a, b).dataSync()), av.map((x, i) => x ^ bv[i]));
    assert.deepEqual(Array.from(sg.bitwiseNot(a).dataSync()), av.map((x) => ~x));
    const s = sg.remainder(b, 32);
    const sv = Array.from(s.dataSync());
    assert.deepEqual(Array.from(sg.bitwiseLeftShift(a, s).dataSync()), av.map((x, i) => x << sv[i]));
    assert.deepEqual(Array.from(sg.bitwiseRightShift(a, s).dataSync()), av.map((x, i) => x >> sv[i]));
  });
});

forEachBackend('shifts by amounts outside [0, 32): 0 to the left, the sign fill to the right (PyTorch ≥ 2.1)', async () => {
  const x = sg.tensor([1, -1, 7, -8, 2 ** 30, -(2 ** 31)], { dtype: 'int32' });
  const s = sg.tensor([32, 32, 33, -1, 100, -5], { dtype: 'int32' });
  const [l, r] = [sg.bitwiseLeftShift(x, s), sg.bitwiseRightShift(x, s)];
  assert.deepEqual(Array.from(await l.data()), [0, 0, 0, 0, 0, 0]);
  assert.deepEqual(Array.from(await r.data()), [0, -1, 0, -1, 0, -1]);
  sg.dispose([x, s, l, r]);
});

test('gcd and lcm: closed forms on random values', () => {
  const gcd = (p, q) => {
    p = Math.abs(p); q = Math.abs(q);
    while (q) [p, q] = [q, p % q];
    return p;
  };
  sg.tidy(() => {
    const a = sg.randint(-3000, 3000, [200], { dtype: 'int32' }), b = sg.randint(-3000, 3000, [200], { dtype: 'int32' });
    const av = Array.from(a.dataSync()), bv = Array.from(b.dataSync());
    assert.deepEqual(Array.from(sg.gcd(a, b).dataSync()), av.map((x, i) => gcd(x, bv[i])));
    assert.deepEqual(Array.from(sg.lcm(a, b).dataSync()), av.map((x, i) => (gcd(x, bv[i]) === 0 ? 0 : Math.abs((x / gcd(x, bv[i])) * bv[i]))));
  });
});

test('bitwise ops: bad operands are Errors naming the op and what was got; nothing leaks', () => {
  const f = sg.tensor([1.5, 2]), i = sg.tensor([1, 2], { dtype: 'int32' }), b = sg.tensor([true, false], { dtype: 'bool' });
  const live = sg.memory().tensors;
  throwsWith(() => sg.bitwiseAnd(f, i), 'bitwiseAnd: expected int32 or bool tensors, got float32 and int32');
  throwsWith(() => i.bitwiseXor(2.5), 'bitwiseXor: expected int32 or bool tensors, got int32 and float32');
  throwsWith(() => sg.bitwiseNot(f), 'bitwiseNot: expected an int32 or bool tensor, got float32');
  throwsWith(() => sg.bitwiseLeftShift(b, b), 'bitwiseLeftShift: expected int32 tensors, got bool and bool');
  throwsWith(() => sg.gcd(b, b), 'gcd: expected int32 tensors, got bool and bool');
  throwsWith(() => sg.lcm(f, i), 'lcm: expected int32 tensors, got float32 and int32');
  throwsWith(() => sg.tidy(() => sg.bitwiseOr(i, sg.tensor([1, 2, 3], { dtype: 'int32' }))), 'bitwiseOr: shapes [2] and [3] cannot be broadcast');
  throwsWith(() => sg.tidy(() => sg.bitwiseAnd(b, sg.tensor([true, true, false], { dtype: 'bool' }))), 'bitwiseAnd: shapes [2] and [3] cannot be broadcast');
  throwsWith(() => sg.gcd(i), 'gcd', 'other');
  throwsWith(() => sg.bitwiseNot(i, { x: 1 }), 'bitwiseNot: takes no options');
  assert.equal(sg.memory().tensors, live);
  assert.deepEqual(Array.from(sg.tidy(() => i.bitwiseAnd(3).dataSync())), [1, 2], 'the module stays usable');
  sg.dispose([f, i, b]);
});

test('bitwise ops inside sg.compile equal the eager ones', () => {
  const a = sg.tensor([12, -7, 255, 1 << 20], { dtype: 'int32' }), b = sg.tensor([10, 3, 4, 6], { dtype: 'int32' });
  const fn = (p, q) => sg.bitwiseAnd(p, q).add(p.bitwiseOr(q)).add(sg.bitwiseXor(p, 5)).add(p.bitwiseNot())
    .add(sg.bitwiseLeftShift(q, 2)).add(p.bitwiseRightShift(q)).add(sg.gcd(p, q)).add(sg.lcm(p, q));
  assertCompiledEqualsEager(fn, [a, b]);
  sg.dispose([a, b]);
});
