// eigh past 32 rows, where the kernel computes the eigenvectors by divide and conquer
// (src/kernels/reference/linalg_tridiag_dc.cpp), against PyTorch 1.13: tests/data/linalg_eigh_dc_ref.json
// from gen_linalg_eigh_dc.py. Matrices from formulas evaluated on both sides (formulaMatrix is the
// generator's `formula`); the eigenvalues and y = V·diag(w)·Vᵀ·x compared, and V orthonormal and
// reconstructing A checked here in double.
//
// Spectra that take every path of a merge: distinct values (the secular equation), repeated ones
// and a diagonal (deflation of equal values and of zero z entries), glued Wilkinson matrices
// (pairs equal to 1e-14), a cluster, uneven splits (33, 65, 97), a batch, float64 at 1e±160, and
// a float64 gradient through eigh.
//
// Tolerances: float32 as linalg_decomp_sizes.test.mjs (|got − torch| ≤ 1e-5 + 2e-6·(|torch| +
// max|torch|), one rounding of a double computation), the residuals within 1e-6 or PyTorch's own
// float32 ones (the generator's torch32); float64 1e-12 of the values' scale.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';
import { nearRef } from './ref_cases.mjs';
import { readRef } from './gradcheck_helpers.mjs';

const REF = readRef('linalg_eigh_dc_ref.json');

// The generator's formula(n, kind), row-major, in double.
function formulaMatrix(n, kind) {
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let v;
      if (kind === 'mod') v = ((37 * i + 91 * j + 13 * i * j) % 1009) / 504 - 1;
      else if (kind === 'diagonal') v = i === j ? (i % 3) - 1 : 0;
      else if (kind === 'wilkinson') v = i === j ? Math.abs(10 - (i % 21)) : i === j + 1 ? (i % 21 === 0 ? 1e-8 : 1) : 0;
      else if (kind === 'repeated') v = (i === j ? 2 : 0) + (i % 3 === 0 && j % 3 === 0 ? 1 : 0);
      else if (kind === 'cluster') v = i === j ? (i < Math.floor(n / 2) ? 1 + 1e-7 * i : i) : i === j + 1 ? 1e-9 : 0;
      else throw new Error(`unknown formula ${kind}`);
      a[i * n + j] = v;
      a[j * n + i] = v;
    }
  }
  return a;
}
const formulaVector = (n, mod) => Float64Array.from({ length: n }, (_, i) => (i % mod) / mod - 0.5);

// V·diag(w)·Vᵀ·x for row-major V (n×n), in double.
function sandwich(V, w, x, n) {
  const t = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += V[i * n + j] * x[i];
    t[j] = w[j] * s;
  }
  return Float64Array.from({ length: n }, (_, i) => {
    let s = 0;
    for (let j = 0; j < n; j++) s += V[i * n + j] * t[j];
    return s;
  });
}

// max |VᵀV − I| and max |V·diag(λ)·Vᵀ − A| / max|A|, in double.
function invariants(V, lam, a, n) {
  let orth = 0, rec = 0, amax = 0;
  for (const v of a) amax = Math.max(amax, Math.abs(v));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let o = 0, r = 0;
      for (let k = 0; k < n; k++) {
        o += V[k * n + i] * V[k * n + j];
        r += V[i * n + k] * lam[k] * V[j * n + k];
      }
      orth = Math.max(orth, Math.abs(o - (i === j ? 1 : 0)));
      rec = Math.max(rec, Math.abs(r - a[i * n + j]));
    }
  }
  return { orth, rec: amax > 0 ? rec / amax : rec };
}

// got (array-like) within atol + rtol·(|want| + max|want|) of want.
function near(got, want, rtol, atol, what) {
  const scale = Math.max(...Array.from(want, Math.abs));
  Array.from(want).forEach((w, i) => {
    assert.ok(Math.abs(got[i] - w) <= atol + rtol * (Math.abs(w) + scale), `${what}[${i}]: PyTorch ${w}, got ${got[i]}`);
  });
}

test('eigh by divide and conquer equals PyTorch 1.13: values, V·diag(w)·Vᵀ·x, orthonormal V reconstructing A', () => {
  const live = sg.memory().tensors;
  assert.equal(REF.cases.length, 10, 'the generator\'s ten cases');
  for (const c of REF.cases) {
    const { n, kind } = c;
    const f64 = c.dtype === 'float64';
    const a64 = formulaMatrix(n, kind).map((v) => v * c.scale);
    const a = f64 ? a64 : Float64Array.from(Float32Array.from(a64));
    sg.tidy(() => {
      const A = sg.tensor(f64 ? a : Float32Array.from(a), { shape: [n, n], dtype: c.dtype });
      const { eigenvalues, eigenvectors } = sg.linalg.eigh(A);
      const lam = Array.from(eigenvalues.dataSync(), Number);
      const V = Array.from(eigenvectors.dataSync(), Number);
      const w = c.smooth ? lam.map((l) => l ** 3) : formulaVector(n, 7);
      const y = sandwich(V, w, formulaVector(n, 5), n);
      const [lamRef, yRef] = c.outputs;
      if (f64) {
        near(lam, lamRef.data, 1e-12, 0, `${c.id} eigenvalues`);
        near(y, yRef.data, 1e-12, 0, `${c.id} y`);
      } else {
        nearRef(eigenvalues, lamRef, 2e-6, `${c.id} eigenvalues`, 1e-5);
        nearRef(sg.tensor(Float32Array.from(y), { shape: [n] }), yRef, 2e-6, `${c.id} y`, 1e-5);
      }
      for (let i = 1; i < n; i++) assert.ok(lam[i - 1] <= lam[i], `${c.id}: ascending`);
      const { orth, rec } = invariants(V, lam, a, n);
      // float32: within 1e-6 (one rounding of a double computation) or PyTorch's own float32
      // residual on this matrix (c.torch32): the kernel multiplies a float32 matrix's vectors in
      // float32, as LAPACK's ssyevd does.
      const tol = (what) => (f64 ? 1e-13 : Math.max(1e-6, 1.5 * c.torch32[what] + 1e-7));
      assert.ok(orth < tol('orth'), `${c.id}: VᵀV = I (max |diff| ${orth})`);
      assert.ok(rec < tol('rec'), `${c.id}: V·diag(λ)·Vᵀ = A (max |diff| ${rec} of max|A|)`);
    });
  }
  assert.equal(sg.memory().tensors, live, 'no tensor left behind');
});

test('eigh by divide and conquer on a batch: each matrix as PyTorch decomposes it alone', () => {
  const { kinds, n, outputs } = REF.batch;
  sg.tidy(() => {
    const data = new Float32Array(kinds.length * n * n);
    kinds.forEach((k, b) => data.set(Float32Array.from(formulaMatrix(n, k)), b * n * n));
    const { eigenvalues, eigenvectors } = sg.linalg.eigh(sg.tensor(data, { shape: [kinds.length, n, n] }));
    kinds.forEach((k, b) => {
      const lam = eigenvalues.select(0, b);
      const V = Array.from(eigenvectors.select(0, b).dataSync(), Number);
      const lamArr = Array.from(lam.dataSync(), Number);
      const y = sandwich(V, lamArr.map((l) => l ** 3), formulaVector(n, 5), n);
      nearRef(lam, outputs[b][0], 2e-6, `batch ${b} (${k}) eigenvalues`, 1e-5);
      nearRef(sg.tensor(Float32Array.from(y), { shape: [n] }), outputs[b][1], 2e-6, `batch ${b} (${k}) y`, 1e-5);
    });
  });
});

test('the gradient through eigh by divide and conquer (float64, 40×40) equals PyTorch 1.13\'s', () => {
  const { n, gx, loss: lossRef } = REF.grad;
  sg.tidy(() => {
    const s = sg.tensor(formulaMatrix(n, 'mod').map((v) => v / 2), { shape: [n, n], dtype: 'float64', requiresGrad: true });
    const vec = (mod) => sg.tensor(formulaVector(n, mod), { shape: [n], dtype: 'float64' });
    const { eigenvalues: lam, eigenvectors: V } = sg.linalg.eigh(s.add(s.transpose(0, 1)));
    const inner = V.mul(vec(7).unsqueeze(0)).matmul(V.transpose(0, 1).matmul(vec(11).unsqueeze(1))).squeeze(1);
    const loss = lam.mul(vec(3)).sum().add(vec(5).mul(inner).sum());
    assert.ok(Math.abs(loss.item() - lossRef) <= 1e-11 * Math.max(1, Math.abs(lossRef)), `loss: PyTorch ${lossRef}, got ${loss.item()}`);
    loss.backward();
    const got = Array.from(s.grad.matmul(vec(13).unsqueeze(1)).squeeze(1).dataSync(), Number);
    near(got, gx, 1e-10, 0, 'dL/dS·x');
  });
});
