// The C++ ops of PyTorch breadth (rounding, trigonometry, modulo, logical ops, scans, sorting,
// scatter, triangles, rearranging, select/index, sampling, einsum: npm/src/tensor/pointwise.ts,
// reductions.ts, sorting.ts, scatter_gather.ts, matrices.ts, rearranging.ts, indexing.ts,
// sampling.ts, products.ts) through the public API, on every backend: PyTorch 1.13's values
// and gradients (tests/data/ops_families_ref.json, from gen_ops_families.py) reached through each op's
// JS signature, gradients against central differences of the op's own forward, the argument
// forms (methods and functions, spread or array lists, index items), arange's dtype inference,
// hardtanh/relu6 at their bounds, seeded sampling, and no memory left behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { sg, close, throwsWith } from './helpers.mjs';
import { forEachBackend, values } from './backends.mjs';

const REF = JSON.parse(readFileSync(new URL('../data/ops_families_ref.json', import.meta.url), 'utf8'));

const num = (v) => (v === 'nan' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : v);

/** A reference tensor as a simdgrad tensor (bool data are 0/1). */
function fromRef(j, requiresGrad = false) {
  const data = j.data.map(num);
  if (j.dtype === 'bool') return sg.tensor(Uint8Array.from(data), { shape: j.shape, dtype: 'bool' });
  if (j.dtype === 'int32') return sg.tensor(Int32Array.from(data), { shape: j.shape });
  return sg.tensor(Float32Array.from(data), { shape: j.shape, requiresGrad });
}

/** The JS call of each op for a reference case's inputs and callOp attrs. */
const CALLS = {
  hardtanh: ([x], a) => sg.F.hardtanh(x, { minVal: a.minVal, maxVal: a.maxVal }),
  any: ([x], a) => sg.any(x, a.dim, a.keepdim),
  all: ([x], a) => x.all(a.dim, a.keepdim),
  cumsum: ([x], a) => x.cumsum(a.dim),
  cumprod: ([x], a) => sg.cumprod(x, a.dim),
  sort: ([x], a) => x.sort(a.dim, { descending: a.descending }),
  argsort: ([x], a) => sg.argsort(x, a.dim, { descending: a.descending }),
  topk: ([x], a) => x.topk(a.k, a.dim, { largest: a.largest }),
  scatter: ([x, i, s], a) => x.scatter(a.dim, i, s),
  scatterAdd: ([x, i, s], a) => sg.scatterAdd(x, a.dim, i, s),
  tril: ([x], a) => x.tril(a.diagonal),
  triu: ([x], a) => sg.triu(x, a.diagonal),
  diag: ([x], a) => x.diag(a.diagonal),
  einsum: (ins, a) => sg.einsum(a.equation, ...ins),
  flip: ([x], a) => x.flip(a.dims),
  roll: ([x], a) => x.roll(a.shifts.length === 1 ? a.shifts[0] : a.shifts, a.dims),
  repeat: ([x], a) => x.repeat(...a.repeats),
  tile: ([x], a) => sg.tile(x, a.repeats),
  select: ([x], a) => x.select(a.dim, a.index),
  // The reference encodes x[...] as callOp's [kind, a, b, step] groups; here they become JS items.
  index: ([x], a) => {
    const items = [];
    for (let k = 0; k < a.items.length; k += 4) {
      const [kind, p, q, step] = a.items.slice(k, k + 4);
      items.push(kind === 0 ? null : kind === 1 ? p : kind === 3 ? '...' : [p, q >= 2 ** 53 - 1 ? null : q, step]);
    }
    return x.index(...items);
  },
};
const call = (c, ins) => (CALLS[c.op] ?? ((xs) => (xs.length === 1 ? xs[0][c.op]() : sg[c.op](...xs))))(ins, c.attrs);

/** Values `got` (flat) within `tol` of the largest magnitude of `want` (float), equal otherwise. */
function near(got, want, tol, what) {
  const w = want.data.map(num);
  assert.equal(got.length, w.length, `${what}: number of elements`);
  const isFloat = want.dtype === 'float32';
  const scale = Math.max(1, ...w.filter(Number.isFinite).map(Math.abs));
  got.forEach((g, i) => {
    const e = w[i];
    const ok = Number.isNaN(e) ? Number.isNaN(g) : !isFloat || !Number.isFinite(e) ? g === e : Math.abs(g - e) <= tol * scale;
    assert.ok(ok, `${what}[${i}]: got ${g}, PyTorch ${e}`);
  });
}

async function flatValues(t) {
  return { shape: t.shape, data: Array.from(await t.data(), Number), dtype: t.dtype };
}

forEachBackend('ops_families: PyTorch 1.13 values and gradients through the JS API', async () => {
  const before = sg.memory().tensors;
  for (const c of REF.cases) {
    // Everything but the results is freed by the tidy; the results are freed once read.
    const { outs, grads } = sg.tidy(() => {
      const ins = c.inputs.map((j) => fromRef(j, j.grad));
      const out = call(c, ins);
      const outs = out instanceof sg.Tensor ? [out] : [out.values, out.indices];
      if (!c.grads) return { outs, grads: [] };
      outs
        .map((o, k) => (c.grad_outputs[k] ? o.mul(fromRef(c.grad_outputs[k])).sum() : null))
        .filter(Boolean)
        .reduce((s, t) => s.add(t))
        .backward();
      return { outs, grads: ins.map((t, i) => (c.grads[i] ? t.grad ?? sg.zerosLike(t) : null)) };
    });
    assert.equal(outs.length, c.outputs.length, c.name);
    for (let k = 0; k < outs.length; k++) {
      const got = await flatValues(outs[k]);
      assert.equal(got.dtype, c.outputs[k].dtype, `${c.name}: dtype of output ${k}`);
      assert.deepEqual(got.shape, c.outputs[k].shape, `${c.name}: shape of output ${k}`);
      near(got.data, c.outputs[k], 1e-6, `${c.name} output ${k}`);
    }
    for (let i = 0; i < grads.length; i++)
      if (grads[i]) near((await flatValues(grads[i])).data, c.grads[i], 4e-6, `${c.name} gradient of input ${i}`);
    sg.dispose([outs, grads.filter(Boolean)]);
  }
  assert.equal(sg.memory().tensors, before);
});

/** Central differences of Σ w·f(x) with respect to x (float32 steps), against autograd. */
async function gradcheck(name, f, shape, { lo = -1, hi = 1, eps = 1e-2, tol = 2e-2 } = {}) {
  const n = shape.reduce((a, b) => a * b, 1);
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const x0 = Float32Array.from({ length: n }, () => lo + (hi - lo) * rnd());
  const outShape = sg.tidy(() => f(sg.tensor(x0, { shape })).shape);
  const w = sg.rand(outShape);
  const loss = async (data) => {
    const l = sg.tidy(() => f(sg.tensor(data, { shape })).mul(w).sum());
    const [v] = await l.data(); // read asynchronously: works on every device
    l.dispose();
    return v;
  };
  const x = sg.tensor(x0, { shape, requiresGrad: true });
  sg.tidy(() => f(x).mul(w).sum().backward());
  const analytic = Array.from(await x.grad.data());
  for (let j = 0; j < n; j++) {
    const up = x0.slice(), down = x0.slice();
    up[j] += eps;
    down[j] -= eps;
    const numeric = ((await loss(up)) - (await loss(down))) / (up[j] - down[j]);
    assert.ok(Math.abs(numeric - analytic[j]) <= tol * (1 + Math.abs(numeric)), `${name}: d/dx[${j}] autograd ${analytic[j]} vs ${numeric}`);
  }
  sg.dispose([x.grad, x, w]);
}

forEachBackend('ops_families: gradients against central differences (through the JS API)', async () => {
  await gradcheck('atan2', (x) => sg.atan2(x, 0.7), [2, 3]);
  await gradcheck('asin', (x) => x.asin(), [5], { lo: -0.8, hi: 0.8 });
  await gradcheck('cumprod', (x) => x.cumprod(1), [2, 4]);
  await gradcheck('cumsum', (x) => x.cumsum(0), [3, 2]);
  await gradcheck('sort values', (x) => x.sort(0, { descending: true }).values, [4, 2]);
  await gradcheck('topk values', (x) => x.topk(2).values, [2, 5]);
  await gradcheck('index', (x) => x.index(null, -1, [0, 2]), [2, 3, 4]);
  await gradcheck('einsum', (x) => sg.einsum('ij,jk->ik', x, x.T.contiguous()), [2, 3]);
  await gradcheck('scatter', (x) => sg.zeros([2, 5]).scatter(1, [[4, 0], [1, 2]], x), [2, 2]);
  await gradcheck('diag, tril, roll, repeat', (x) => x.diag(1).tril().roll([1, -1], [0, 1]).repeat(2, 1).diag(), [3]);
  await gradcheck('flip, tile, select, outer', (x) => sg.outer(x.reshape(1, 3).flip(1).tile(2, 1).select(0, 1), x), [3]);
  await gradcheck('hardtanh', (x) => sg.F.hardtanh(x, { minVal: -0.5, maxVal: 0.5 }), [6]);
});

test('ops_families: methods equal functions; lists spread or as one array', () => {
  sg.tidy(() => {
    const x = sg.tensor([[1, 2, 3], [4, 5, 6]]);
    close(x.flip(0, 1).toArray(), sg.flip(x, [0, 1]).toArray());
    close(x.repeat(2, 1).toArray(), x.repeat([2, 1]).toArray());
    close(x.tile(2).toArray(), [[1, 2, 3, 1, 2, 3], [4, 5, 6, 4, 5, 6]]);
    close(x.roll(1).toArray(), [[6, 1, 2], [3, 4, 5]]);
    close(x.roll([1, 1], [0, 1]).toArray(), [[6, 4, 5], [3, 1, 2]]);
    close(sg.einsum('ij->j', [x]).toArray(), [5, 7, 9]);
    close(sg.einsum('ij,kj', x, x).toArray(), [[14, 32], [32, 77]]);
    const { values: v, indices: i } = sg.sort(sg.tensor([3, 1, 2]));
    close(v.toArray(), [1, 2, 3]);
    assert.deepEqual(i.toArray(), [1, 2, 0]);
    assert.equal(i.dtype, 'int32');
    close(x.topk(1, 0, { largest: false }).values.toArray(), [[1, 2, 3]]);
    assert.deepEqual(sg.logicalAnd(x.gt(2), true).toArray(), [[false, false, true], [true, true, true]]);
    assert.deepEqual(x.any(1).toArray(), [true, true]);
    assert.deepEqual(sg.all(x.lt(5), [0, 1]).toArray(), false);
    close(sg.round(sg.tensor([0.5, 1.5, 2.5, -0.5])).toArray(), [0, 2, 2, -0]);
    close(x.scatterAdd(0, [[1, 1, 0]], 10).toArray(), [[1, 2, 13], [14, 15, 6]]);
  });
});

test('ops_families: index reads x[:, -1, :T]-style subscripts as views', () => {
  sg.tidy(() => {
    const x = sg.arange(24).reshape(2, 3, 4);
    assert.deepEqual(x.index(null, -1, [0, 2]).toArray(), [[8, 9], [20, 21]]);  // x[:, -1, :2]
    assert.deepEqual(x.index('...', [1, null, 2]).shape, [2, 3, 2]);              // x[..., 1::2]
    assert.deepEqual(x.index(1).toArray(), x.select(0, 1).toArray());            // x[1]
    assert.deepEqual(x.index([null, -1]).shape, [1, 3, 4]);                        // x[:-1]
    // undefined is an omitted bound as null is (a spread of optional bounds): x[:, :, 1:], x[:, :, ::3]
    assert.deepEqual(x.index(0, 0, [1, undefined]).toArray(), [1, 2, 3]);
    assert.deepEqual(x.index(0, 0, [undefined, undefined, 3]).toArray(), [0, 3]);
    assert.deepEqual(x.index(0, '...', -1).toArray(), [3, 7, 11]);                 // x[0, ..., -1]
    assert.deepEqual(x.index([-100, 100]).shape, [2, 3, 4]);                       // clamped, as Python
    assert.deepEqual(x.index().shape, [2, 3, 4]);
    // A view: a change to x shows through (x.add_ does not exist here; the grad shows the sharing).
    const w = sg.ones([2, 3, 4], { requiresGrad: true });
    w.index(null, 1).sum().backward();
    assert.deepEqual(w.grad.sum([0, 2]).toArray(), [0, 8, 0]);
  });
});

test('ops_families: arange infers int32 from integer arguments, as PyTorch; floats and explicit dtypes win', () => {
  sg.tidy(() => {
    assert.equal(sg.arange(5).dtype, 'int32');
    assert.equal(sg.arange(1, 7, 2).dtype, 'int32');
    assert.equal(sg.arange(0, 1, 0.25).dtype, 'float32');
    assert.equal(sg.arange(0.5, 3).dtype, 'float32');
    assert.equal(sg.arange(5, { dtype: 'float32' }).dtype, 'float32');
    assert.deepEqual(sg.arange(3).toArray(), [0, 1, 2]);
    // Embedding(arange(T)) works as in PyTorch.
    const emb = new sg.nn.Embedding(10, 4);
    assert.deepEqual(emb.forward(sg.arange(6)).shape, [6, 4]);
    emb.dispose();
    throwsWith(() => sg.arange(3, { requiresGrad: true }), 'arange: integer arguments give an int32 tensor', "{ dtype: 'float32' }");
    assert.equal(sg.arange(3, { dtype: 'float32', requiresGrad: true }).requiresGrad, true);
  });
});

test('ops_families: hardtanh, relu6 and hardsigmoid have gradient 0 exactly at their bounds (PyTorch)', () => {
  sg.tidy(() => {
    const x = sg.tensor([-1, -0.5, 0, 1, 2], { requiresGrad: true });
    sg.F.hardtanh(x).sum().backward();
    assert.deepEqual(x.grad.toArray(), [0, 1, 1, 0, 0]);
    const y = sg.tensor([-1, 0, 3, 6, 7], { requiresGrad: true });
    new sg.nn.ReLU6().forward(y).sum().backward();
    assert.deepEqual(y.grad.toArray(), [0, 0, 1, 0, 0]);
    const z = sg.tensor([-3, 0, 3], { requiresGrad: true });
    sg.F.hardsigmoid(z).sum().backward();
    close(z.grad.toArray(), [0, 1 / 6, 0]);
    close(sg.F.relu6(sg.tensor([-2, 3, 9])).toArray(), [0, 3, 6]);
  });
});

test('ops_families: bernoulli and multinomial follow sg.manualSeed', () => {
  sg.tidy(() => {
    const p = sg.full([1000], 0.5);
    sg.manualSeed(3);
    const a = sg.bernoulli(p).toArray();
    const m = sg.multinomial(sg.tensor([1, 2, 3, 4]), 50, { replacement: true }).toArray();
    sg.manualSeed(3);
    assert.deepEqual(sg.bernoulli(p).toArray(), a);
    assert.deepEqual(sg.multinomial(sg.tensor([1, 2, 3, 4]), 50, { replacement: true }).toArray(), m);
    const ones = a.reduce((s, v) => s + v, 0);
    assert.ok(Math.abs(ones - 500) < 5 * 15.8, `${ones} ones of 1000`);
    assert.deepEqual(sg.bernoulli(sg.zeros([3]), 1).toArray(), [1, 1, 1]);
    assert.deepEqual(p.bernoulli({ p: 0 }).toArray().slice(0, 3), [0, 0, 0]);
    const draw = sg.multinomial(sg.tensor([[0, 1, 1], [5, 0, 2]]), 2).toArray();
    assert.deepEqual(draw[0].slice().sort(), [1, 2]);
    assert.deepEqual(draw[1].slice().sort(), [0, 2]);
    throwsWith(() => sg.multinomial(sg.tensor([[5, 0, 0]]), 2), 'multinomial: cannot draw 2 samples without replacement');
  });
});

test('ops_families: nn.Conv2d and friends reject zero and negative sizes, naming the argument', () => {
  throwsWith(() => new sg.nn.Conv2d(3, 4, 0), 'Conv2d', "'kernelSize'", 'integer >= 1', 'got 0');
  throwsWith(() => new sg.nn.Conv2d(3, 4, [3, -1]), 'Conv2d', "'kernelSize'", 'got [3, -1]');
  throwsWith(() => new sg.nn.Conv1d(3, 4, 3, { stride: 0 }), 'Conv1d', "'stride'");
  throwsWith(() => new sg.nn.Conv2d(3, 4, 3, { dilation: 0 }), 'Conv2d', "'dilation'");
  throwsWith(() => new sg.nn.Conv2d(3, 4, 3, { padding: -1 }), 'Conv2d', "'padding'", 'integer >= 0');
  throwsWith(() => new sg.nn.ConvTranspose2d(3, 4, 0), 'ConvTranspose2d', "'kernelSize'");
  throwsWith(() => new sg.nn.ConvTranspose2d(3, 4, 2, { outputPadding: -1 }), 'ConvTranspose2d', "'outputPadding'");
  sg.tidy(() => {
    throwsWith(() => sg.F.conv2d(sg.zeros([1, 3, 5, 5]), sg.zeros([4, 3, 0, 0])), 'conv2d: expected a weight with positive kernel sizes [kH, kW], got shape [4, 3, 0, 0]');
    const conv = new sg.nn.Conv2d(3, 4, 3);
    assert.deepEqual(conv.forward(sg.zeros([1, 3, 5, 5])).shape, [1, 4, 3, 3]);
    conv.dispose();
  });
});

test('ops_families: no tensor is left behind by sort, topk, index, einsum and their gradients', () => {
  const before = sg.memory();
  for (let i = 0; i < 20; i++) {
    sg.tidy(() => {
      const x = sg.randn([4, 5], { requiresGrad: true });
      const s = x.sort(1).values.add(x.topk(2, 0).values.sum()).index(null, [1, 4]);
      sg.einsum('ij,ij->', s, s).add(x.cumprod(1).sum()).backward();
    });
  }
  const after = sg.memory();
  assert.equal(after.tensors, before.tensors);
  assert.equal(after.bytes, before.bytes);
});
