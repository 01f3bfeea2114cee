// sg.scatterReduce / x.scatterReduce (PyTorch 1.13's scatter_reduce) against PyTorch
// (tests/data/scatter_reduce_ref.json, from gen_scatter_reduce.py: every reduce × includeSelf,
// 1-D/2-D/3-D, dims 0, 1 and negative, index shorter than src and input, repeated indices,
// ties, prod's zeros, int32, NaN, an empty index, 0-d): values and gradients of input and src on
// every backend; central differences (first and second derivatives); sg.compile; the errors,
// with nothing left behind.
//
// Tolerance: sameValues' 2e-6·(1 + |PyTorch|) for values and gradients. The kernel combines
// values in PyTorch's order (row-major over src) in float32 and the gradients are PyTorch's
// formulas, so only the last bit of a division or product can differ (measured: at most 2.4e-9
// relative, the 9 digits the JSON keeps).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';
import { forEachBackend, values } from './backends.mjs';
import { gradcheck, lcg, readRef } from './gradcheck_helpers.mjs';
import { assertCompiledEqualsEager, assertCompiledStepEqualsEager, checkRefCases, checkRefCasesAsync } from './ref_cases.mjs';

const REF = readRef('scatter_reduce_ref.json');
// Each case's call: its dim, reduce and include_self, alternating the function and the method.
const CALLS = Object.fromEntries(REF.cases.map((c, k) => [c.id, (x, i, s) => (k % 2
  ? sg.scatterReduce(x, c.dim, i, s, c.reduce, { includeSelf: c.includeSelf })
  : x.scatterReduce(c.dim, i, s, c.reduce, { includeSelf: c.includeSelf }))]));
const REDUCES = ['sum', 'prod', 'mean', 'amax', 'amin'];

test('the reference covers every reduce × includeSelf, float32 with gradients and int32', () => {
  for (const reduce of REDUCES) {
    for (const includeSelf of [true, false]) {
      const mine = REF.cases.filter((c) => c.reduce === reduce && c.includeSelf === includeSelf);
      assert.ok(mine.filter((c) => c.grads).length >= 7, `${reduce} ${includeSelf}: differentiated cases`);
      assert.ok(mine.filter((c) => c.inputs[0].dtype === 'int32').length >= 2, `${reduce} ${includeSelf}: int32 cases`);
      assert.deepEqual([...new Set(mine.map((c) => c.dim))].sort((a, b) => a - b), [-2, -1, 0, 1]);
    }
  }
  assert.ok(REF.cases.length >= 100);
});

test('values and gradients equal PyTorch 1.13 (function and method forms)', () => {
  checkRefCases(REF, CALLS);
});

forEachBackend('values and gradients equal PyTorch 1.13 on every backend', async () => {
  await checkRefCasesAsync(REF, CALLS);
});

test('by hand: includeSelf defaults to true; int32 mean rounds down; positions no index reaches keep the input', () => {
  sg.tidy(() => {
    const x = sg.tensor([5, -7, 3, 0], { dtype: 'int32' });
    const s = sg.tensor([2, 4, -4, 1, 9], { dtype: 'int32' });
    const i = [0, 0, 1, 1, 2];
    assert.deepEqual(x.scatterReduce(0, i, s, 'mean').toArray(), [3, -4, 6, 0]);  // 11/3, -10/3, 12/2
    assert.deepEqual(x.scatterReduce(0, i, s, 'mean', { includeSelf: false }).toArray(), [3, -2, 9, 0]);  // 6/2, -3/2
    assert.deepEqual(sg.scatterReduce(x, 0, i, s, 'amin', { includeSelf: false }).toArray(), [2, -4, 9, 0]);
    assert.deepEqual(sg.scatterReduce(x, 0, i, s, 'prod').toArray(), [40, 28, 27, 0]);
    const f = sg.tensor([[1, 2], [3, 4]]);
    assert.deepEqual(f.scatterReduce(1, [[1, 1]], sg.tensor([[10, 20]]), 'sum').toArray(), [[1, 32], [3, 4]]);
    assert.deepEqual(f.scatterReduce(1, [[1, 1]], sg.tensor([[10, 20]]), 'amax', { includeSelf: false }).toArray(), [[1, 20], [3, 4]]);
  });
});

test('amax/amin split the gradient evenly among ties, the input included (lost without includeSelf, as PyTorch)', () => {
  sg.tidy(() => {
    const x = sg.tensor([3, 1, 2], { requiresGrad: true });
    const s = sg.tensor([3, 3, 0.5], { requiresGrad: true });
    x.scatterReduce(0, [0, 0, 2], s, 'amax').mul(sg.tensor([3, 2, 1])).sum().backward();
    assert.deepEqual(Array.from(x.grad.dataSync()), [1, 2, 1]);
    assert.deepEqual(Array.from(s.grad.dataSync()), [1, 1, 0]);
    x.grad = null;
    s.grad = null;
    x.scatterReduce(0, [0, 0, 2], s, 'amax', { includeSelf: false }).mul(sg.tensor([3, 2, 1])).sum().backward();
    assert.deepEqual(Array.from(x.grad.dataSync()), [0, 2, 0]);
    assert.deepEqual(Array.from(s.grad.dataSync()), [1, 1, 1]);
  });
});

test('central differences: every reduce × includeSelf, index shorter than src, prod with zeros', () => {
  // Distinct values (no ties, where amax/amin are not differentiable) away from 0, the inputs
  // of a check cut from one LCG stream (streams of nearby seeds start almost alike).
  const distinct = (seed, ...shapes) => {
    const sizes = shapes.map((sh) => sh.reduce((a, b) => a * b, 1));
    const v = lcg(seed, sizes.reduce((a, b) => a + b), 0.5, 1.5).map((u, k) => (k % 3 ? u : -u));
    let at = 0;
    return shapes.map((shape, j) => ({ shape, data: v.slice(at, (at += sizes[j])) }));
  };
  const [x, src] = distinct(1, [3, 4], [3, 6]);
  const index = [[0, 3, 3, 1, 0], [2, 2, 0, 2, 1]];
  for (const reduce of REDUCES) {
    for (const includeSelf of [true, false]) {
      gradcheck(`${reduce} includeSelf=${includeSelf}`, (a, s) => a.scatterReduce(1, index, s, reduce, { includeSelf }), [x, src]);
      gradcheck(`${reduce} includeSelf=${includeSelf} 3-D dim -3`,
        (a, s) => sg.scatterReduce(a, -3, [[[1, 0]], [[1, 1]], [[0, 1]]], s, reduce, { includeSelf }),
        distinct(3, [2, 2, 2], [3, 1, 2]));
    }
  }
  // prod: one zero at position 0, two at position 1, one in the input at position 3.
  const zx = { shape: [4], data: Float32Array.of(1.5, -2, 3, 0) };
  const zs = { shape: [6], data: Float32Array.of(0, 2, 0, 0, 4, -3) };
  for (const includeSelf of [true, false]) {
    gradcheck(`prod zeros includeSelf=${includeSelf}`, (a, s) => a.scatterReduce(0, [0, 0, 1, 1, 1, 3], s, 'prod', { includeSelf }), [zx, zs]);
  }
});

test('second derivatives by central differences (gradgradcheck); prod with two zeros at a position refuses, as PyTorch', () => {
  const t = (data, shape) => sg.tensor(data, { shape, requiresGrad: true });
  for (const reduce of REDUCES) {
    for (const includeSelf of [true, false]) {
      const x = t([0.7, -1.3, 0.9, 1.1], [2, 2]), s = t([0.6, 1.4, 9, -0.8, 1.2, 9, 5, 5, 5], [3, 3]);
      const fn = (a, b) => a.scatterReduce(0, [[0, 1], [0, 0]], b, reduce, { includeSelf }).square();
      assert.equal(sg.autograd.gradgradcheck(fn, [x, s]), true, `${reduce} includeSelf=${includeSelf}`);
      sg.dispose([x, s]);
    }
  }
  const x = t([1.5, 0], [2]), oneZero = t([0, 2, 0.5, 3], [4]), twoZeros = t([0, 0, 0.5, 3], [4]);
  const fn = (a, b) => a.scatterReduce(0, [0, 0, 1, 1], b, 'prod').square();
  assert.equal(sg.autograd.gradgradcheck(fn, [x, oneZero]), true, 'prod, one zero');
  const before = sg.memory().tensors;
  throwsWith(() => sg.tidy(() => sg.autograd.grad(sg.autograd.grad(fn(x, twoZeros).sum(), [twoZeros], { createGraph: true })[0].sum(), [twoZeros])),
    "scatterReduce: double backward of 'prod' is unsupported for src when more than one zero of src is scattered to the same position");
  assert.equal(sg.memory().tensors, before);
  sg.dispose([x, oneZero, twoZeros]);
});

test('inside sg.compile the results and gradients equal the eager ones', () => {
  const x = sg.tensor(lcg(5, 12), { shape: [3, 4], requiresGrad: true });
  const s = sg.tensor(lcg(6, 15), { shape: [3, 5] });
  const index = sg.tensor([[0, 3, 3, 1, 0], [2, 2, 0, 2, 1]], { dtype: 'int32' });
  const all = (a) => REDUCES.map((r, k) => a.scatterReduce(1, index, s, r, { includeSelf: k % 2 === 0 }).mul(k + 1))
    .reduce((p, q) => p.add(q));
  assertCompiledEqualsEager(all, [x]);
  assertCompiledStepEqualsEager(() => {
    const loss = all(x).square().sum();
    loss.backward();
    return loss;
  }, x);
  const xi = sg.tensor([[1, -2, 3], [4, 5, -6]], { dtype: 'int32' });
  assertCompiledEqualsEager((a) => a.scatterReduce(0, [[1, 0, 1]], sg.tensor([[7, -3, 2]], { dtype: 'int32' }), 'mean'), [xi]);
  sg.dispose([x, s, index, xi]);
});

test('bad input is an Error saying what was expected and what was got; nothing leaks; the module stays usable', () => {
  const x = sg.tensor([[1, 2, 3], [4, 5, 6]]);
  const src = sg.tensor([[1, 1, 1], [1, 1, 1]]);
  sg.tidy(() => x.scatterReduce(0, [[0, 1, 0]], src, 'sum'));  // one-time allocations before counting
  const before = sg.memory();
  const fails = (fn, ...patterns) => throwsWith(() => sg.tidy(fn), ...patterns);
  fails(() => x.scatterReduce(0, [[0, 1, 0]], src, 'max'), "scatterReduce: expected reduce 'sum', 'prod', 'mean', 'amax' or 'amin', got 'max'");
  fails(() => x.scatterReduce(0, [[0, 1, 0]], src, 1), "scatterReduce: expected reduce 'sum', 'prod', 'mean', 'amax' or 'amin', got 1");
  fails(() => x.scatterReduce(0, [[0, 1, 0]], src, 'sum', { include_self: false }), 'scatterReduce', "'include_self'");
  fails(() => x.scatterReduce(0, [[0, 1, 0]], src, 'sum', { includeSelf: 1 }), 'scatterReduce', "'includeSelf'", 'boolean', 'got 1');
  fails(() => x.scatterReduce(0, sg.tensor([[0, 1, 0]]), src, 'sum'), 'scatterReduce', 'int', 'float32');
  fails(() => x.scatterReduce(0, [[0, 2, 0]], src, 'amax'), 'scatterReduce: index 2 is out of bounds for dim 0 with size 2');
  fails(() => x.scatterReduce(1, [[0, -1, 0]], src, 'amax'), 'scatterReduce: index -1 is out of bounds for dim 1 with size 3');
  fails(() => x.scatterReduce(0, [[0, 1, 0, 1]], src, 'sum'), 'scatterReduce: index shape [1, 4] is larger than input shape [2, 3] at dim 1 (4 > 3)');
  fails(() => x.scatterReduce(1, [[0, 1]], sg.ones([2, 1]), 'sum'), 'scatterReduce: index shape [1, 2] is larger than src shape [2, 1] at dim 1 (2 > 1)');
  fails(() => x.scatterReduce(0, [0, 1], src, 'sum'), 'scatterReduce: index must have as many dims as the input (2), got shape [2]');
  fails(() => x.scatterReduce(0, [[0, 1, 0]], sg.ones([3]), 'sum'), 'scatterReduce: src must have as many dims as the input (2), got shape [3]');
  fails(() => x.scatterReduce(0, [[0, 1, 0]], 1, 'sum'), 'scatterReduce: src must have as many dims as the input (2), got shape []');
  fails(() => x.scatterReduce(2, [[0, 1, 0]], src, 'sum'), 'scatterReduce', 'dim', '2');
  fails(() => x.scatterReduce(-3, [[0, 1, 0]], src, 'sum'), 'scatterReduce', 'dim', '-3');
  fails(() => x.scatterReduce(0.5, [[0, 1, 0]], src, 'sum'), 'scatterReduce', "'dim'", '0.5');
  fails(() => x.scatterReduce(0, [[0, 1, 0]], sg.ones([2, 3], { dtype: 'int32' }), 'sum'), "scatterReduce: expected src of the input's dtype (float32), got int32");
  fails(() => sg.tensor([true, false]).scatterReduce(0, [0], sg.tensor([true]), 'sum'), 'scatterReduce: expected a float32 or int32 input, got bool');
  const after = sg.memory();
  assert.equal(after.tensors, before.tensors, 'tensors after the failed calls');
  assert.equal(after.bytes, before.bytes, 'bytes after the failed calls');
  assert.deepEqual(sg.tidy(() => x.scatterReduce(0, [[1, 1, 0]], src, 'prod', { includeSelf: false }).toArray()), [[1, 2, 1], [1, 1, 6]]);
  sg.dispose([x, src]);
});

forEachBackend('an index out of range is an Error on every backend (on webgpu at the latest at the read)', async () => {
  const x = sg.tensor([1, 2, 3]);
  await assert.rejects(async () => {
    const r = x.scatterReduce(0, [0, 3], sg.tensor([1, 1]), 'amin');
    try {
      await r.data();
    } finally {
      r.dispose();
    }
  }, /scatterReduce: index 3 is out of bounds for dim 0 with size 3/);
  const ok = x.scatterReduce(0, [0, 0], sg.tensor([5, -1]), 'amin');
  assert.deepEqual(await values(ok), [-1, 2, 3]);
  sg.dispose([x, ok]);
});
