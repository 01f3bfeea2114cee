// sg.linalg's decompositions and matrix functions (svd, svdvals, eigh, eigvalsh, qr,
// solveTriangular, luFactor, matrixExp, pinv, lstsq, vectorNorm, matrixNorm, norm, matrixRank,
// matrixPower, cross) against PyTorch 1.13 (tests/data/linalg_decomp_ref.json, from
// gen_linalg_decomp.py: PyTorch in float64 on the float32 inputs, rounded to float32): values
// and gradients of batched, tall, wide and broadcast inputs; singular and eigen vectors through
// sign-independent quantities (see the generator) and, here, orthogonality and reconstruction
// after sign normalisation; central differences; the errors; nothing leaks.
//
// Tolerance: |got − torch| ≤ 1e-5 + rtol·(|torch| + max|torch|), rtol 2e-6 for values (the
// kernels compute in double and round once, so only the float32 rounding of the input's own
// products remains) and 2e-5 for gradients (the backward formulas are float32 ops: a few
// chained products and solves with condition numbers of at most 5).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';
import { makeRef as make, nearRef } from './ref_cases.mjs';
import { gradcheck, readRef } from './gradcheck_helpers.mjs';

const REF = readRef('linalg_decomp_ref.json');
const L = () => sg.linalg;

function svdInvariants(full) {
  return (a, w) => {
    const [U, S, Vh] = L().svd(a, { fullMatrices: full });
    const k = S.shape[S.ndim - 1];
    const u = U.narrow(-1, 0, k), vh = Vh.narrow(-2, 0, k);
    return [S, u.mul(w.unsqueeze(-2)).matmul(vh), u.abs(), vh.abs()];
  };
}
function eighInvariants(UPLO) {
  return (a, w) => {
    const { eigenvalues, eigenvectors: V } = L().eigh(a, { UPLO });
    return [eigenvalues, V.mul(w.unsqueeze(-2)).matmul(V.transpose(-2, -1)), V.abs()];
  };
}
const INF = Infinity;

// The JS call of every case id (the generator's lambda, in JS).
const CALLS = {
  'svd square': svdInvariants(false), 'svd tall': svdInvariants(false), 'svd wide': svdInvariants(false),
  'svd tall full': svdInvariants(true), 'svd wide full': svdInvariants(true), 'svd batched': svdInvariants(false),
  'svdvals tall': (a) => L().svdvals(a), 'svdvals batched': (a) => L().svdvals(a), 'svdvals identity': (a) => L().svdvals(a),
  'eigh 4x4': eighInvariants('L'), 'eigh upper': eighInvariants('U'), 'eigh batched': eighInvariants('L'),
  'eigvalsh 5x5': (a) => L().eigvalsh(a), 'eigvalsh lower': (a) => L().eigvalsh(a),
  'qr tall': (a) => L().qr(a), 'qr square batched': (a) => L().qr(a), 'qr wide': (a) => L().qr(a),
  'qr complete wide': (a) => L().qr(a, { mode: 'complete' }), 'qr complete tall': (a) => L().qr(a, { mode: 'complete' }),
  'qr r': (a) => L().qr(a, { mode: 'r' }).R,
  'solveTriangular upper': (a, b) => L().solveTriangular(a, b, { upper: true }),
  'solveTriangular lower': (a, b) => L().solveTriangular(a, b, { upper: false }),
  'solveTriangular right': (a, b) => L().solveTriangular(a, b, { upper: true, left: false }),
  'solveTriangular unitriangular': (a, b) => L().solveTriangular(a, b, { upper: false, unitriangular: true }),
  'solveTriangular broadcast': (a, b) => L().solveTriangular(a, b, { upper: true }),
  'luFactor 4x4': (a) => L().luFactor(a), 'luFactor batched': (a) => L().luFactor(a),
  'luFactor tall': (a) => L().luFactor(a), 'luFactor wide': (a) => L().luFactor(a),
  'matrixExp 3x3': (a) => L().matrixExp(a), 'matrixExp large norm': (a) => L().matrixExp(a), 'matrixExp batched': (a) => L().matrixExp(a),
  'pinv tall': (a) => L().pinv(a), 'pinv wide batched': (a) => L().pinv(a), 'pinv rank-deficient': (a) => L().pinv(a),
  'lstsq tall': (a, b) => L().lstsq(a, b).solution, 'lstsq vector': (a, b) => L().lstsq(a, b).solution,
  'vectorNorm 2': (x) => L().vectorNorm(x), 'vectorNorm 1 dim': (x) => L().vectorNorm(x, 1, 1),
  'vectorNorm inf keepdim': (x) => L().vectorNorm(x, { ord: INF, dim: 0, keepdim: true }),
  'vectorNorm 3 dims': (x) => L().vectorNorm(x, 3, [0, 1]), 'vectorNorm -1': (x) => L().vectorNorm(x, { ord: -1, dim: 1 }),
  'vectorNorm zero': (x) => L().vectorNorm(x),
  'matrixNorm fro': (a) => L().matrixNorm(a), 'matrixNorm nuc': (a) => L().matrixNorm(a, 'nuc'),
  'matrixNorm 2': (a) => L().matrixNorm(a, { ord: 2 }), 'matrixNorm -2': (a) => L().matrixNorm(a, -2),
  'matrixNorm 1': (a) => L().matrixNorm(a, 1), 'matrixNorm -1': (a) => L().matrixNorm(a, -1),
  'matrixNorm inf': (a) => L().matrixNorm(a, INF), 'matrixNorm -inf': (a) => L().matrixNorm(a, -INF),
  'matrixNorm nuc dims keepdim': (a) => L().matrixNorm(a, { ord: 'nuc', dim: [0, 2], keepdim: true }),
  'norm flat': (a) => L().norm(a), 'norm matrix 2': (a) => L().norm(a, 2), 'norm vector 1': (a) => L().norm(a, 1),
  'norm dim': (a) => L().norm(a, { dim: 1 }),
  'matrixRank': (a) => L().matrixRank(a), 'matrixRank hermitian': (a) => L().matrixRank(a, { hermitian: true }),
  'matrixPower 3': (a) => L().matrixPower(a, 3), 'matrixPower -2': (a) => L().matrixPower(a, -2), 'matrixPower 0': (a) => L().matrixPower(a, 0),
  'cross': (a, b) => L().cross(a, b), 'cross broadcast dim': (a, b) => L().cross(a, b, { dim: 0 }),
};

const near = (t, e, rtol, what, atol = 1e-5) => nearRef(t, e, rtol, what, atol);

test('values and gradients equal PyTorch 1.13 (every case of linalg_decomp_ref.json)', () => {
  const live = sg.memory().tensors;
  assert.equal(REF.cases.length, Object.keys(CALLS).length, 'a JS call for every case');
  for (const c of REF.cases) {
    const call = CALLS[c.id];
    assert.ok(call, `no JS call for case '${c.id}'`);
    sg.tidy(() => {
      const ins = c.inputs.map((e) => make(e, e.grad));
      const res = call(...ins);
      const outs = Array.isArray(res) ? res : [res];
      assert.equal(outs.length, c.outputs.length, `${c.id}: outputs`);
      outs.forEach((o, k) => {
        assert.equal(o.dtype, c.outputs[k].dtype, `${c.id} output ${k}: dtype`);
        near(o, c.outputs[k], 2e-6, `${c.id} output ${k}`);
      });
      if (!c.grads) return;
      outs.map((o, k) => (o.requiresGrad && c.upstream[k] ? o.mul(make(c.upstream[k])).sum() : null)).filter(Boolean)
        .reduce((s, l) => s.add(l)).backward();
      c.inputs.filter((e) => e.grad).forEach((e, j) => {
        const x = ins[c.inputs.indexOf(e)];
        assert.ok(x.grad, `${c.id}: input ${j} got no gradient`);
        near(x.grad, c.grads[j], 2e-5, `${c.id} grad ${j}`);
      });
    });
  }
  assert.equal(sg.memory().tensors, live, 'no tensor left behind');
});

// max |X − Y| over all entries.
const maxDiff = (x, y) => sg.tidy(() => x.sub(y).abs().max().item());

test('svd and eigh: orthonormal factors that reconstruct A, vectors equal after sign normalisation', () => {
  sg.tidy(() => {
    sg.manualSeed(7);
    for (const [m, n] of [[6, 4], [4, 6], [5, 5]]) {
      const a = sg.randn([2, m, n]);
      for (const full of [true, false]) {
        const [U, S, Vh] = sg.linalg.svd(a, { fullMatrices: full });
        const k = Math.min(m, n);
        assert.deepEqual([U.shape, S.shape, Vh.shape], [[2, m, full ? m : k], [2, k], [2, full ? n : k, n]]);
        const eyeU = sg.eye(U.shape[2]).expand(2, -1, -1);
        assert.ok(maxDiff(U.transpose(-2, -1).matmul(U), eyeU) < 1e-5, `UᵀU = I (${m}x${n} full ${full})`);
        assert.ok(maxDiff(Vh.matmul(Vh.transpose(-2, -1)), sg.eye(Vh.shape[1]).expand(2, -1, -1)) < 1e-5, 'Vh·Vhᵀ = I');
        const rec = U.narrow(-1, 0, k).mul(S.unsqueeze(-2)).matmul(Vh.narrow(-2, 0, k));
        assert.ok(maxDiff(rec, a) < 1e-5, `U·S·Vh = A (${m}x${n})`);
        // Descending, non-negative.
        const s = Array.from(S.dataSync());
        for (let b = 0; b < 2; b++) for (let i = 1; i < k; i++) assert.ok(s[b * k + i - 1] >= s[b * k + i] && s[b * k + i] >= 0);
      }
      // The singular vectors equal the eigenvectors of AᵀA (sign-normalised: largest entry positive).
      const { eigenvalues, eigenvectors } = sg.linalg.eigh(a.transpose(-2, -1).matmul(a));
      const [, S, Vh] = sg.linalg.svd(a, { fullMatrices: false });
      const k = Math.min(m, n);
      const normalise = (v) => v.mul(v.gather(-2, v.abs().argmax(-2, true)).sign());  // columns
      const fromEigh = normalise(eigenvectors.flip(-1).narrow(-1, 0, k));
      assert.ok(maxDiff(fromEigh, normalise(Vh.transpose(-2, -1))) < 1e-4, `V from svd = V from eigh (${m}x${n})`);
      assert.ok(maxDiff(eigenvalues.flip(-1).narrow(-1, 0, k).sqrt(), S) < 1e-4, 'σ² = λ(AᵀA)');
    }
    const A = sg.randn([3, 5, 5]);
    const sym = A.add(A.transpose(-2, -1));
    const { eigenvalues: lam, eigenvectors: V } = sg.linalg.eigh(sym);
    assert.ok(maxDiff(V.mul(lam.unsqueeze(-2)).matmul(V.transpose(-2, -1)), sym) < 1e-5, 'V·Λ·Vᵀ = A');
    assert.ok(maxDiff(V.transpose(-2, -1).matmul(V), sg.eye(5).expand(3, -1, -1)) < 1e-5, 'VᵀV = I');
    assert.ok(maxDiff(sg.linalg.eigvalsh(sym), lam) === 0, 'eigvalsh = eigh().eigenvalues');
    assert.ok(maxDiff(sg.linalg.svdvals(A), sg.linalg.svd(A).S) === 0, 'svdvals = svd().S');
    // Named tuples: arrays with PyTorch's field names.
    const r = sg.linalg.svd(A);
    assert.ok(Array.isArray(r) && r.U === r[0] && r.S === r[1] && r.Vh === r[2]);
    const q = sg.linalg.qr(A);
    assert.ok(q.Q === q[0] && q.R === q[1]);
    const lu = sg.linalg.luFactor(A);
    assert.ok(lu.LU === lu[0] && lu.pivots === lu[1] && lu.pivots.dtype === 'int32');
  });
});

// Deterministic inputs for central differences.
function mat(shape, seed, diag = 0) {
  let s = seed >>> 0;
  const n = shape[shape.length - 1];
  const data = Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, i) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const r = Math.floor(i / n) % shape[shape.length - 2];
    return (s / 2 ** 32) * 2 - 1 + (r === i % n ? diag : 0);
  });
  return { shape, data };
}

test('central differences (float32): qr, solveTriangular, luFactor, matrixExp, pinv, svd and eigh invariants', () => {
  gradcheck('linalg.qr tall', (x) => { const [Q, R] = sg.linalg.qr(x); return Q.sum().add(R.square().sum()); }, [mat([4, 3], 1, 2)]);
  gradcheck('linalg.qr wide', (x) => { const [Q, R] = sg.linalg.qr(x); return Q.sum().add(R.sum()); }, [mat([2, 3], 2, 2)]);
  gradcheck('linalg.solveTriangular', (a, b) => sg.linalg.solveTriangular(a, b, { upper: true }), [mat([3, 3], 3, 3), mat([3, 2], 4)]);
  gradcheck('linalg.luFactor', (a) => sg.linalg.luFactor(a).LU, [mat([3, 3], 5, 2)]);
  gradcheck('linalg.matrixExp', (a) => sg.linalg.matrixExp(a), [mat([3, 3], 6)]);
  gradcheck('linalg.pinv', (a) => sg.linalg.pinv(a), [mat([4, 3], 7, 2)]);
  gradcheck('linalg.svd', (a) => { const [U, S, Vh] = sg.linalg.svd(a, { fullMatrices: false }); return U.mul(S.unsqueeze(-2)).matmul(Vh).add(U.abs()).sum().add(S.square().sum()); }, [mat([4, 3], 8, 2)]);
  gradcheck('linalg.eigh', (a) => { const s = a.add(a.transpose(-2, -1)); const [l, V] = sg.linalg.eigh(s); return V.abs().sum().add(l.mul(sg.tensor([1, 2, 3])).sum()); }, [mat([3, 3], 9, 1)]);
});

test('second derivatives through svdvals, eigh, qr and matrixExp (gradgradcheck)', () => {
  const t = (m) => sg.tensor(m.data, { shape: m.shape, requiresGrad: true });
  const checks = [
    ['svdvals', (x) => sg.linalg.svdvals(x).mul(sg.tensor([1, 0.5, 0.25])).sum(), [t(mat([3, 3], 11, 2))]],
    ['eigvalsh', (x) => sg.linalg.eigvalsh(x.add(x.transpose(0, 1))).mul(sg.tensor([1, -1, 2])).sum(), [t(mat([3, 3], 12, 1))]],
    ['qr', (x) => sg.linalg.qr(x).R.square().sum(), [t(mat([3, 2], 13, 2))]],
    ['matrixExp', (x) => sg.linalg.matrixExp(x).sum(), [t(mat([2, 2], 14))]],
  ];
  for (const [name, fn, inputs] of checks) {
    assert.equal(sg.autograd.gradgradcheck(fn, inputs), true, name);
    sg.dispose(inputs);
  }
});

test('repeated singular values and eigenvalues: NaN/inf in the vector terms as PyTorch; svdvals/eigvalsh stay finite', () => {
  sg.tidy(() => {
    const x = sg.eye(3).requiresGrad_();
    sg.linalg.svdvals(x).sum().backward();
    assert.deepEqual(x.grad.toArray(), [[1, 0, 0], [0, 1, 0], [0, 0, 1]]);
    const y = sg.eye(3).requiresGrad_();
    const [U, , Vh] = sg.linalg.svd(y);
    U.sum().add(Vh.sum()).backward();
    assert.ok(Array.from(y.grad.dataSync()).some((v) => !Number.isFinite(v)), 'PyTorch 1.13 gives NaN here');
    const z = sg.eye(3).requiresGrad_();
    sg.linalg.eigh(z).eigenvectors.sum().backward();
    assert.ok(Array.from(z.grad.dataSync()).some((v) => !Number.isFinite(v)));
  });
});

test('bad input is an Error naming the function and the argument; nothing leaks; still usable', () => {
  sg.tidy(() => sg.linalg.svd(sg.eye(2)));
  const before = sg.memory();
  const fails = (fn, ...patterns) => throwsWith(() => sg.tidy(fn), ...patterns);
  fails(() => sg.linalg.eigh(sg.zeros([2, 3])), 'linalg.eigh: expected A to be batches of square matrices, got 2 by 3 matrices');
  fails(() => sg.linalg.eigvalsh(sg.eye(2), { UPLO: 'X' }), "linalg.eigvalsh: option 'UPLO' must be one of 'L', 'U', got 'X'");
  fails(() => sg.linalg.svd(sg.zeros([3])), 'linalg.svd: expected A to have at least 2 dimensions', 'got shape [3]');
  fails(() => sg.linalg.svd(sg.zeros([2, 2], { dtype: 'int32' })), 'linalg.svd: expected A to be a float32 or float64 tensor, got int32');
  fails(() => sg.linalg.svd(sg.eye(2), { full: true }), "linalg.svd: unknown option 'full'");
  fails(() => sg.linalg.svd(sg.tensor([[NaN, 1], [1, 1]])), 'linalg.svd: The algorithm failed to converge because the input matrix contained non-finite values.');
  fails(() => sg.linalg.svdvals(sg.stack([sg.eye(2), sg.tensor([[Infinity, 1], [1, 1]])])), 'linalg.svdvals: (Batch element 1): The algorithm failed to converge');
  fails(() => sg.linalg.qr(sg.eye(2), { mode: 'full' }), "linalg.qr: option 'mode' must be one of 'reduced', 'complete', 'r'");
  fails(() => sg.linalg.luFactor(sg.tensor([[1, 2], [2, 4]])), 'linalg.luFactor: U[2,2] is zero and using it on lu_solve would result in a division by zero');
  fails(() => sg.linalg.luFactor(sg.stack([sg.eye(2), sg.zeros([2, 2])])), 'linalg.luFactor: (Batch element 1): U[1,1] is zero');
  fails(() => sg.linalg.solveTriangular(sg.eye(3), sg.ones([3, 1])), "linalg.solveTriangular: missing the keyword argument 'upper'");
  fails(() => sg.linalg.solveTriangular(sg.eye(3), sg.ones([2, 1]), { upper: true }), 'linalg.solveTriangular: Incompatible shapes of A and B for the equation AX = B');
  fails(() => sg.linalg.matrixExp(sg.zeros([2, 3])), 'linalg.matrixExp: expected A to be batches of square matrices');
  fails(() => sg.linalg.matrixPower(sg.zeros([2, 3]), 2), 'linalg.matrixPower: expected A to be batches of square matrices');
  fails(() => sg.linalg.matrixPower(sg.eye(2), 1.5), "linalg.matrixPower: expected 'n' to be an integer, got 1.5");
  fails(() => sg.linalg.matrixPower(sg.tensor([[1, 2], [2, 4]]), -1), 'linalg.inv: The diagonal element 2 is zero');
  fails(() => sg.linalg.matrixNorm(sg.eye(2), 3), "linalg.matrixNorm: expected 'ord' to be 'fro', 'nuc', 2, -2, 1, -1, Infinity or -Infinity, got 3");
  fails(() => sg.linalg.norm(sg.zeros([2, 2, 2]), 2), "linalg.norm: with 'ord' and no 'dim', expected A to be 1-D or 2-D, got shape [2, 2, 2]");
  fails(() => sg.linalg.cross(sg.ones([4]), sg.ones([4])), 'linalg.cross: expected a to have size 3 along dim -1, got shape [4]');
  // Which operand, which option, and a whole shape (seed 20's survivors on norms.ts cross).
  fails(() => sg.linalg.cross(sg.ones([2, 4]), sg.ones([2, 3])), 'linalg.cross: expected a to have size 3 along dim -1, got shape [2, 4]');
  fails(() => sg.linalg.cross(sg.ones([3]), sg.ones([2, 3]), { dim: 0 }), 'linalg.cross: expected b to have size 3 along dim 0, got shape [2, 3]');
  fails(() => sg.linalg.cross(7, sg.ones([3])), "linalg.cross: expected 'a' to be a Tensor");
  fails(() => sg.linalg.cross(sg.ones([3]), 'x'), "linalg.cross: expected 'b' to be a Tensor");
  fails(() => sg.linalg.cross(sg.ones([3]), sg.ones([3]), { axis: 0 }), "linalg.cross: unknown option 'axis' (expected one of: dim)");
  fails(() => sg.linalg.lstsq(sg.eye(3), sg.ones([2, 1])), 'linalg.lstsq: expected B to have 3 rows');
  // PyTorch's backward errors for Q of mode 'r' and complete tall QR.
  const a = sg.randn([4, 2], { requiresGrad: true });
  throwsWith(() => sg.tidy(() => sg.linalg.qr(a, { mode: 'complete' }).Q.sum().backward()), 'linalg.qr: The QR decomposition is not differentiable when mode=\'complete\' and nrows > ncols.');
  throwsWith(() => sg.tidy(() => sg.linalg.qr(a, { mode: 'r' }).R.sum().backward()), "linalg.qr: The derivative of linalg.qr depends on Q, which is not computed when mode='r'");
  a.dispose();
  const after = sg.memory();
  assert.equal(after.tensors, before.tensors, 'tensors after the failed calls');
  assert.equal(after.bytes, before.bytes, 'bytes after the failed calls');
  assert.deepEqual(sg.tidy(() => sg.linalg.svdvals(sg.tensor([[3, 0], [0, -4]])).toArray()), [4, 3]);
});

test('empty inputs: batches of none and 0-sized matrices', () => {
  sg.tidy(() => {
    assert.deepEqual(sg.linalg.svd(sg.zeros([0, 3, 2])).map((t) => t.shape), [[0, 3, 3], [0, 2], [0, 2, 2]]);
    assert.deepEqual(sg.linalg.eigh(sg.zeros([0, 3, 3])).map((t) => t.shape), [[0, 3], [0, 3, 3]]);
    assert.deepEqual(sg.linalg.qr(sg.zeros([2, 0, 3])).map((t) => t.shape), [[2, 0, 0], [2, 0, 3]]);
    assert.deepEqual(sg.linalg.svd(sg.zeros([3, 0])).U.toArray(), [[1, 0, 0], [0, 1, 0], [0, 0, 1]]);
    // No reflectors: complete mode's Q is I (the kernel's, as LAPACK's orgqr with k = 0), R 3×0.
    const { Q, R } = sg.linalg.qr(sg.zeros([3, 0]), { mode: 'complete' });
    assert.deepEqual([Q.toArray(), R.shape], [[[1, 0, 0], [0, 1, 0], [0, 0, 1]], [3, 0]]);
    assert.deepEqual(sg.linalg.pinv(sg.zeros([0, 2])).shape, [2, 0]);
  });
});

test('float64: the kernels compute in double and keep it (svdvals, eigvalsh, qr, luFactor, matrixExp, solveTriangular)', () => {
  const F64 = {
    svdvals: (a) => [sg.linalg.svdvals(a)],
    eigvalsh: (a) => [sg.linalg.eigvalsh(a)],
    qr: (a) => sg.linalg.qr(a),
    luFactor: (a) => sg.linalg.luFactor(a),
    matrixExp: (a) => [sg.linalg.matrixExp(a)],
    solveTriangular: (a, b) => [sg.linalg.solveTriangular(a, b, { upper: false })],
  };
  assert.equal(REF.float64.length, Object.keys(F64).length);
  sg.tidy(() => {
    for (const c of REF.float64) {
      const outs = F64[c.id](...c.inputs.map((e) => sg.tensor(Float64Array.from(e.data), { shape: e.shape, dtype: 'float64' })));
      c.outputs.forEach((e, k) => {
        assert.equal(outs[k].dtype, e.dtype, `${c.id} output ${k}: dtype`);
        assert.deepEqual(outs[k].shape, e.shape);
        const got = Array.from(outs[k].dataSync(), Number);
        const scale = Math.max(...e.data.map(Math.abs));
        e.data.forEach((w, i) => assert.ok(Math.abs(got[i] - w) <= 1e-13 * (1 + scale), `${c.id} output ${k}[${i}]: PyTorch ${w}, got ${got[i]}`));
      });
    }
  });
});

test('nn.init.orthogonal_: (semi-)orthogonal rows or columns times gain, reproducible, PyTorch\'s sign rule', () => {
  sg.tidy(() => {
    for (const shape of [[6, 4], [4, 6], [5, 5], [4, 2, 3]]) {
      const w = sg.empty(shape);
      sg.manualSeed(3);
      sg.nn.init.orthogonal_(w, { gain: 2 });
      const m = w.reshape(shape[0], -1);
      const [r, c] = m.shape;
      const gram = r >= c ? m.T.matmul(m) : m.matmul(m.T);  // the smaller Gram matrix: 4·I
      assert.ok(maxDiff(gram, sg.eye(Math.min(r, c)).mul(4)) < 1e-5, `orthogonal_ ${shape}`);
      // PyTorch's algorithm on the same draws: Q of the (transposed when wide) N(0, 1) matrix,
      // columns signed by R's diagonal.
      sg.manualSeed(3);
      const a = sg.randn([r, c]);
      const [Q, R] = sg.linalg.qr(r < c ? a.T : a);
      const q = Q.mul(R.diagonal().sign().unsqueeze(0)).mul(2);
      assert.ok(maxDiff(r < c ? q.T : q, m) < 1e-6, `orthogonal_ ${shape} = sign-corrected Q`);
      assert.equal(w.requiresGrad, false);
    }
  });
  throwsWith(() => sg.nn.init.orthogonal_(sg.zeros([3])), 'orthogonal_: only tensors with 2 or more dimensions are supported');
});

test('penalties.orthogonality spectral: svdvals by default equals the converged power iteration', () => {
  sg.tidy(() => {
    const w = sg.tensor([[1.1, 0.3, -0.2], [0.4, 0.2, 0.9]], { requiresGrad: true });
    const bySvd = sg.penalties.orthogonality(w, { mode: 'spectral', lambda: 0.5 });
    const byPower = sg.penalties.orthogonality(w, { mode: 'spectral', spectralMethod: 'power', powerIterations: 200, lambda: 0.5 });
    assert.ok(Math.abs(bySvd.item() - byPower.item()) < 1e-6);
    const s = sg.linalg.svdvals(w.detach()).max().item();
    assert.ok(Math.abs(bySvd.item() - 0.5 * (s - 1) ** 2) < 1e-6);
    const [g1] = sg.autograd.grad(bySvd, [w]);
    const [g2] = sg.autograd.grad(byPower, [w]);
    assert.ok(maxDiff(g1, g2) < 1e-5);
  });
  throwsWith(() => sg.penalties.orthogonality(sg.eye(2), { mode: 'spectral', spectralMethod: 'svdvals', powerIterations: 3 }),
    "penalties.orthogonality: option 'powerIterations' applies to spectralMethod 'power' only");
});

// float64 gradients need float64 kernels in the ops the backward formulas use (matmul, div, tril,
// ...): run where they exist (the dtypes work lands them op by op), skipped with the reason otherwise.
function float64Autograd() {
  try {
    sg.tidy(() => {
      const x = sg.eye(2, { dtype: 'float64' }).requiresGrad_();
      sg.linalg.svd(x.add(x.T)).S.sum().backward();
      sg.linalg.qr(x.add(1)).R.sum().backward();
    });
    return null;
  } catch (e) {
    return `float64 autograd through the ops the formulas use is not available yet (${e.message.split('\n')[0]})`;
  }
}

test('float64 gradcheck with PyTorch\'s defaults (eps 1e-6, atol 1e-5, rtol 1e-3)', (t) => {
  const why = float64Autograd();
  if (why) return t.skip(why);
  const d = (m) => sg.tensor(Float64Array.from(m.data), { shape: m.shape, dtype: 'float64', requiresGrad: true });
  const checks = [
    ['svd', (a) => { const [U, S, Vh] = sg.linalg.svd(a, { fullMatrices: false }); return [S, U.mul(S.unsqueeze(-2)).matmul(Vh), U.abs(), Vh.abs()]; }, [d(mat([4, 3], 21, 2))]],
    ['svd wide full', (a) => { const [U, S, Vh] = sg.linalg.svd(a); return [S, U.abs(), Vh.narrow(-2, 0, 2).abs()]; }, [d(mat([2, 4], 22, 2))]],
    ['svdvals batched', (a) => sg.linalg.svdvals(a), [d(mat([2, 3, 3], 23, 2))]],
    ['eigh', (a) => { const s = a.add(a.transpose(-2, -1)); const [l, V] = sg.linalg.eigh(s); return [l, V.abs()]; }, [d(mat([3, 3], 24, 1))]],
    // eigh reads one triangle but its gradient (PyTorch's) is symmetric: check through A + Aᵀ.
    ['eigvalsh upper', (a) => sg.linalg.eigvalsh(a.add(a.transpose(-2, -1)), { UPLO: 'U' }), [d(mat([3, 3], 25, 1))]],
    ['qr tall', (a) => sg.linalg.qr(a), [d(mat([4, 3], 26, 2))]],
    ['qr wide', (a) => sg.linalg.qr(a), [d(mat([2, 4], 27, 2))]],
    ['solveTriangular', (a, b) => sg.linalg.solveTriangular(a, b, { upper: false, left: false }), [d(mat([3, 3], 28, 3)), d(mat([2, 3], 29))]],
    ['luFactor', (a) => sg.linalg.luFactor(a).LU, [d(mat([3, 3], 30))]],
    ['matrixExp', (a) => sg.linalg.matrixExp(a), [d(mat([3, 3], 31))]],
    ['pinv', (a) => sg.linalg.pinv(a), [d(mat([3, 4], 32, 2))]],
    ['lstsq', (a, b) => sg.linalg.lstsq(a, b).solution, [d(mat([4, 3], 33, 2)), d(mat([4, 2], 34))]],
    ['matrixNorm nuc', (a) => sg.linalg.matrixNorm(a, 'nuc'), [d(mat([3, 4], 35))]],
  ];
  for (const [name, fn, inputs] of checks) {
    assert.doesNotThrow(() => sg.autograd.gradcheck(fn, inputs), name);
    sg.dispose(inputs);
  }
});
