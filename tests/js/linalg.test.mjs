// sg.linalg (inv, det, slogdet, solve, cholesky) and the top-level inverse/det/logdet/slogdet/
// cholesky against PyTorch 1.13 (tests/data/linalg_ref.json, from gen_linalg.py): values and
// gradients of batched, broadcast and 1x1 inputs; central differences (first and second
// derivatives); det's gradient at singular matrices; empty batches and 0x0 matrices; the errors
// and that a failed call leaves nothing behind; sg.compile; every backend.
//
// Tolerance: |got − torch| ≤ 1e-6 + rtol·(|torch| + max|torch|) per tensor, rtol 1e-6 for values
// and 1e-5 for gradients (the largest seen: 8.9e-8 and 4.0e-7). The kernels compute in double and
// round once; PyTorch's float32 LAPACK rounds at every step, an error of about cond(A)·n·6e-8
// relative to the matrix's scale (hence max|torch| beside |torch|: a small entry of an inverse
// carries the error of the large ones). The matrices have condition numbers of a few. Gradients
// chain two or three float32 matrix products on both sides. The 1e-6 is for all-zero results
// (det's gradient at a rank-1 matrix, which PyTorch's SVD formula gives as ±1e-15).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';
import { makeRef as make, nearRef } from './ref_cases.mjs';
import { forEachBackend, values } from './backends.mjs';
import { gradcheck, readRef } from './gradcheck_helpers.mjs';

const REF = readRef('linalg_ref.json');

// The JS call of each case id's first word (slogdet's tuple is an array of two tensors).
const CALLS = {
  inv: (a) => sg.linalg.inv(a),
  det: (a) => sg.linalg.det(a),
  slogdet: (a) => sg.linalg.slogdet(a),
  logdet: (a) => a.logdet(),
  solve: (a, b) => sg.linalg.solve(a, b),
  cholesky: (a, id) => sg.linalg.cholesky(a, { upper: id.includes('upper') }),
};

const near = (t, e, rtol, what, atol = 1e-6) => nearRef(t, e, rtol, what, atol);

test('linalg values and gradients equal PyTorch 1.13 (batched, broadcast, vectors, 1x1, singular det)', () => {
  const live = sg.memory().tensors;
  for (const c of REF.cases) {
    const kind = c.id.split(' ')[0];
    sg.tidy(() => {
      const ins = c.inputs.map((e) => make(e, e.grad));
      const res = kind === 'cholesky' ? CALLS.cholesky(ins[0], c.id) : CALLS[kind](...ins);
      const outs = Array.isArray(res) ? res : [res];
      assert.equal(outs.length, c.outputs.length, `${c.id}: outputs`);
      outs.forEach((o, k) => near(o, c.outputs[k], 1e-6, `${c.id} output ${k}`));
      if (!c.grads) return;
      // Only differentiable outputs join the loss (slogdet's sign has no gradient).
      outs.map((o, k) => (o.requiresGrad ? o.mul(make(c.upstream[k])).sum() : null)).filter(Boolean)
        .reduce((s, l) => s.add(l)).backward();
      c.inputs.filter((e) => e.grad).forEach((e, j) => {
        const x = ins[c.inputs.indexOf(e)];
        assert.ok(x.grad, `${c.id}: input ${j} got no gradient`);
        near(x.grad, c.grads[j], 1e-5, `${c.id} grad ${j}`);
      });
    });
  }
  assert.equal(sg.memory().tensors, live, 'no tensor left behind');
});

// Deterministic matrices: random-looking entries plus a multiple of I (well-conditioned).
function matrix(n, seed, shift = n, batch = []) {
  let s = seed >>> 0;
  const count = batch.reduce((a, b) => a * b, 1);
  const data = new Float32Array(count * n * n);
  for (let i = 0; i < data.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const [r, c] = [Math.floor((i % (n * n)) / n), i % n];
    data[i] = (s / 2 ** 32) * 2 - 1 + (r === c ? shift : 0);
  }
  return { shape: [...batch, n, n], data };
}

test('central differences: inv, det, slogdet, logdet, solve (matrix, vector, broadcast), cholesky', () => {
  const a = matrix(3, 1), ab = matrix(3, 2, 3, [2]);
  gradcheck('linalg.inv', (x) => sg.linalg.inv(x), [a]);
  gradcheck('linalg.inv batched', (x) => sg.linalg.inv(x), [ab]);
  gradcheck('linalg.det', (x) => sg.linalg.det(x), [matrix(4, 3, 1)]);
  gradcheck('linalg.slogdet logabsdet', (x) => sg.linalg.slogdet(x)[1], [ab]);
  gradcheck('logdet', (x) => sg.logdet(x), [a]);
  const b = { shape: [3, 2], data: Float32Array.of(0.5, -1, 2, 0.25, -0.75, 1.5) };
  gradcheck('linalg.solve', (x, y) => sg.linalg.solve(x, y), [a, b]);
  gradcheck('linalg.solve vector broadcast', (x, y) => sg.linalg.solve(x, y), [ab, { shape: [3], data: Float32Array.of(1, -2, 0.5) }]);
  // cholesky reads one triangle: differentiate through a symmetric input (X + Xᵀ)/2, whose
  // gradient is the symmetrized one PyTorch's formula gives.
  const spd = matrix(3, 5, 4);
  const sym = (x) => x.add(x.transpose(-2, -1)).mul(0.5);
  gradcheck('linalg.cholesky', (x) => sg.linalg.cholesky(sym(x)), [spd]);
  gradcheck('linalg.cholesky upper', (x) => sg.linalg.cholesky(sym(x), { upper: true }), [spd]);
});

test('second derivatives by central differences (gradgradcheck)', () => {
  const t = (m) => sg.tensor(m.data, { shape: m.shape, requiresGrad: true });
  const sym = (x) => x.add(x.transpose(-2, -1)).mul(0.5);
  const checks = [
    ['inv', (x) => sg.linalg.inv(x), [t(matrix(3, 7))]],
    ['det', (x) => sg.linalg.det(x), [t(matrix(3, 8, 1))]],
    ['slogdet', (x) => sg.linalg.slogdet(x)[1], [t(matrix(3, 9))]],
    ['solve', (x, y) => sg.linalg.solve(x, y), [t(matrix(3, 10)), t({ shape: [3, 1], data: Float32Array.of(1, 0.5, -1) })]],
    ['cholesky', (x) => sg.linalg.cholesky(sym(x)), [t(matrix(3, 11, 4))]],
  ];
  for (const [name, fn, inputs] of checks) {
    assert.equal(sg.autograd.gradgradcheck(fn, inputs), true, name);
    sg.dispose(inputs);
  }
});

test('det at singular matrices: 0, and the cofactor matrix as gradient (central differences agree)', () => {
  const rank2 = { shape: [3, 3], data: Float32Array.of(1, 2, 3, 2, 4, 6, 1, 0, 1) };
  gradcheck('det rank 2', (x) => sg.det(x), [rank2]);
  sg.tidy(() => {
    const x = sg.tensor(rank2.data, { shape: [3, 3], requiresGrad: true });
    const d = x.det();
    assert.equal(Math.abs(d.item()), 0);
    d.backward();
    // By hand: the cofactors of rows (1,2,3), (2,4,6), (1,0,1).
    assert.deepEqual(x.grad.toArray(), [[4, 4, -4], [-2, -2, 2], [0, 0, 0]]);
    const [sign, logabs] = sg.slogdet(x);
    assert.equal(Math.abs(sign.item()), 0);
    assert.equal(logabs.item(), -Infinity);
    assert.equal(sg.logdet(x).item(), -Infinity);
  });
});

test('shapes: batches, 1x1, empty batches and 0x0 matrices (det of 0x0 is 1, as PyTorch)', () => {
  sg.tidy(() => {
    const empty = sg.zeros([0, 3, 3]);
    assert.deepEqual(sg.linalg.inv(empty).shape, [0, 3, 3]);
    assert.deepEqual(sg.linalg.det(empty).shape, [0]);
    assert.deepEqual(sg.linalg.slogdet(empty).map((t) => t.shape), [[0], [0]]);
    assert.deepEqual(sg.linalg.solve(empty, sg.zeros([0, 3, 2])).shape, [0, 3, 2]);
    assert.deepEqual(sg.linalg.cholesky(empty).shape, [0, 3, 3]);
    assert.equal(sg.linalg.det(sg.zeros([0, 0])).item(), 1);
    assert.deepEqual(sg.linalg.inv(sg.zeros([2, 0, 0])).shape, [2, 0, 0]);
    assert.deepEqual(sg.inverse(sg.tensor([[4]])).toArray(), [[0.25]]);
    assert.deepEqual(sg.cholesky(sg.tensor([[4]])).toArray(), [[2]]);
    // A [4, 2, 3, 3] with B [2, 3]: B is a matrix there (its shape is not A's without the last dim).
    throwsWith(() => sg.linalg.solve(sg.eye(3).expand(4, 2, 3, 3), sg.ones([2, 3])), 'linalg.solve: Incompatible shapes', 'got [2, 3]');
    assert.deepEqual(sg.linalg.solve(sg.eye(3).expand(4, 2, 3, 3), sg.ones([4, 2, 3])).shape, [4, 2, 3]);
  });
});

test('bad input is an Error saying what was expected and what was got; nothing leaks; the module stays usable', () => {
  const singular = sg.tensor([[1, 2, 3], [2, 4, 6], [1, 0, 1]]);
  const notPd = sg.tensor([[1, 2], [2, 1]]);
  sg.tidy(() => sg.linalg.inv(sg.eye(3)));  // the first call's one-time allocations, before counting
  const before = sg.memory();
  // Inputs made inside the tidy: whatever the failed op allocated must be gone with them.
  const fails = (fn, ...patterns) => throwsWith(() => sg.tidy(fn), ...patterns);
  fails(() => sg.linalg.inv(singular), 'linalg.inv: The diagonal element 2 is zero, the inversion could not be completed because the input matrix is singular.');
  fails(() => sg.inverse(sg.stack([sg.eye(3), singular])), 'linalg.inv: (Batch element 1): The diagonal element 2 is zero');
  fails(() => sg.linalg.solve(singular, sg.ones([3])), 'linalg.solve: The solver failed because the input matrix is singular.');
  fails(() => sg.linalg.cholesky(notPd), 'linalg.cholesky: The factorization could not be completed because the input is not positive-definite (the leading minor of order 2 is not positive-definite).');
  fails(() => sg.cholesky(sg.stack([sg.eye(2), notPd])), 'linalg.cholesky: (Batch element 1): The factorization');
  fails(() => sg.linalg.inv(sg.zeros([2, 3])), 'linalg.inv: expected A to be batches of square matrices, got 2 by 3 matrices (shape [2, 3])');
  fails(() => sg.det(sg.zeros([3])), 'linalg.det: expected A to have at least 2 dimensions', 'got shape [3]');
  fails(() => sg.linalg.slogdet(sg.zeros([3, 3], { dtype: 'int32' })), 'linalg.slogdet: expected A to be a float32 tensor, got int32');
  fails(() => sg.logdet(sg.zeros([2, 2, 3])), 'logdet: expected A to be batches of square matrices');
  fails(() => sg.linalg.solve(sg.eye(3), sg.ones([4])), 'linalg.solve: Incompatible shapes of A and B', 'expected B of shape [..., 3, k] or [3]', 'got [4]');
  fails(() => sg.linalg.solve(sg.eye(3).expand(3, 3, 3), sg.ones([2, 3, 1])), 'linalg.solve (the batch dims of A and B)', '[3]', '[2]');
  fails(() => sg.linalg.solve(sg.eye(3), sg.ones([3], { dtype: 'int32' })), 'linalg.solve: expected B to be a float32 tensor, got int32');
  fails(() => sg.linalg.cholesky(sg.eye(2), { lower: true }), "linalg.cholesky: unknown option 'lower'");
  fails(() => sg.linalg.inv(sg.eye(2), { foo: 1 }), 'linalg.inv: takes no options');
  fails(() => sg.linalg.inv('A'), 'linalg.inv', "'A'");
  // A singular A in the backward of slogdet (log|det| is −inf there: no finite gradient).
  const x = sg.tensor([[1, 2], [2, 4]], { requiresGrad: true });
  throwsWith(() => sg.tidy(() => sg.linalg.slogdet(x)[1].backward()), 'linalg.slogdet (backward): The diagonal element 2 is zero');
  x.dispose();
  const after = sg.memory();
  assert.equal(after.tensors, before.tensors, 'tensors after the failed calls');
  assert.equal(after.bytes, before.bytes, 'bytes after the failed calls');
  // Still usable.
  assert.deepEqual(sg.linalg.inv(sg.tensor([[2, 0], [0, 4]])).toArray(), [[0.5, 0], [0, 0.25]]);
  sg.dispose([singular, notPd]);
});

test('inside sg.compile the results and gradients equal the eager ones', () => {
  const a = sg.tensor(matrix(3, 21, 3, [2]).data, { shape: [2, 3, 3], requiresGrad: true });
  const b = sg.tensor([1, -1, 2], { requiresGrad: true });
  const spd = sg.tensor(matrix(3, 22, 5).data, { shape: [3, 3] });
  const fn = (p, q) => sg.linalg.inv(p).sum().add(sg.det(p).sum()).add(sg.linalg.slogdet(p)[1].sum())
    .add(sg.linalg.solve(p, q).square().sum()).add(sg.linalg.cholesky(spd.add(spd.transpose(0, 1))).mul(p.sum()).sum());
  const compiled = sg.compile(fn);
  const run = (f) => {
    a.grad = null;
    b.grad = null;
    const y = f(a, b);
    y.backward();
    const out = [y.item(), Array.from(a.grad.dataSync()), Array.from(b.grad.dataSync())];
    y.dispose();
    return out;
  };
  const eager = run(fn);
  run(compiled);  // traces
  assert.deepEqual(run(compiled), eager);
  compiled.clear();
  a.grad = null;
  b.grad = null;
  sg.dispose([a, b, spd]);
});

forEachBackend('linalg ops give the same values and gradients on every backend', async (backend) => {
  const tol = 1e-5;
  const a = sg.tensor(matrix(3, 31, 3, [2]).data, { shape: [2, 3, 3], requiresGrad: true });
  const inv = sg.linalg.inv(a), det = sg.det(a), [sign, logabs] = sg.slogdet(a);
  const x = sg.linalg.solve(a, sg.tensor([1, 2, 3]));
  const l = sg.linalg.cholesky(a.matmul(a.transpose(1, 2)));
  inv.sum().add(det.sum()).add(logabs.sum()).add(x.sum()).add(l.sum()).backward();
  // The reference: the same calls on the CPU's reference backend.
  const cpu = sg.tensor(matrix(3, 31, 3, [2]).data, { shape: [2, 3, 3], requiresGrad: true, device: 'cpu' });
  const prev = sg.getBackend();
  sg.setBackend('reference');
  const want = [sg.linalg.inv(cpu), sg.det(cpu), ...sg.slogdet(cpu), sg.linalg.solve(cpu, sg.tensor([1, 2, 3])),
    sg.linalg.cholesky(cpu.matmul(cpu.transpose(1, 2)))];
  want[0].sum().add(want[1].sum()).add(want[3].sum()).add(want[4].sum()).add(want[5].sum()).backward();
  sg.setBackend(prev);
  const got = [inv, det, sign, logabs, x, l, a.grad];
  const expected = [...want, cpu.grad];
  for (let k = 0; k < got.length; k++) {
    const g = (await got[k].data()), w = await expected[k].data();
    assert.equal(g.length, w.length);
    g.forEach((v, i) => assert.ok(Math.abs(v - w[i]) <= tol * (1 + Math.abs(w[i])), `${backend} result ${k}[${i}]: ${v} vs ${w[i]}`));
  }
  assert.ok((await values(det)).every(Number.isFinite));
  sg.dispose([a, cpu, inv, det, sign, logabs, x, l, ...want]);
});

forEachBackend('a singular matrix is PyTorch\'s Error on every backend (on webgpu at the read)', async () => {
  const s = sg.tensor([[1, 2], [2, 4]]);
  await assert.rejects(async () => {
    const r = sg.linalg.inv(s);
    try {
      await r.data();
    } finally {
      r.dispose();
    }
  }, /linalg\.inv: The diagonal element 2 is zero, the inversion could not be completed/);
  s.dispose();
  // Still usable afterwards.
  const ok = sg.linalg.inv(sg.tensor([[2, 0], [0, 4]]));
  assert.deepEqual(await values(ok), [[0.5, 0], [0, 0.25]]);
  ok.dispose();
});
