// The decomposition kernels at the sizes and spectra that exercise their blocking (rotations
// applied to strips of 8 rows and flushed every 16384 rotations; see
// src/kernels/reference/linalg_decomp.cpp) against PyTorch 1.13: tests/data/linalg_decomp_sizes_ref.json
// from gen_linalg_decomp_sizes.py (PyTorch in float64 on the float32 inputs, rounded to float32).
// 1×1, odd sizes past one strip, tall and wide, rank-deficient, repeated, clustered and zero
// spectra, and an svd (160×150) and eigh (200×200) large enough to flush mid-run, whose matrix
// both sides build from a formula. Vectors through sign-independent quantities (the generator's
// docstring), and here orthonormality and reconstruction of the large ones.
//
// Tolerance as linalg_decomp.test.mjs: |got − torch| ≤ 1e-5 + 2e-6·(|torch| + max|torch|) (the
// kernels compute in double and round once); float64 cases to 1e-13 of their scale.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';
import { makeRef as make, nearRef } from './ref_cases.mjs';
import { readRef } from './gradcheck_helpers.mjs';

const REF = readRef('linalg_decomp_sizes_ref.json');
const L = () => sg.linalg;

const svdW = (a, w) => {
  const [U, S, Vh] = L().svd(a, { fullMatrices: false });
  return [S, U.mul(w.unsqueeze(-2)).matmul(Vh), U.abs(), Vh.abs()];
};
const svdSmooth = (a) => {
  const [U, S, Vh] = L().svd(a, { fullMatrices: false });
  return [S, U.mul(S.pow(3).unsqueeze(-2)).matmul(Vh)];
};
const eighW = (UPLO) => (a, w) => {
  const { eigenvalues, eigenvectors: V } = L().eigh(a, { UPLO });
  return [eigenvalues, V.mul(w.unsqueeze(-2)).matmul(V.T), V.abs()];
};
const eighSmooth = (a) => {
  const { eigenvalues, eigenvectors: V } = L().eigh(a);
  return [eigenvalues, V.mul(eigenvalues.pow(3).unsqueeze(-2)).matmul(V.T)];
};

const CALLS = {
  'svd 1x1': svdW, 'svd 9x9': svdW, 'svd 17x11': svdW, 'svd 11x17': svdW, 'svd 33x33': svdW,
  'svd rank-deficient 24x20': svdSmooth, 'svd repeated 12x12': svdSmooth, 'svd clustered 10x10': svdSmooth,
  'svd zero 5x4': svdSmooth, 'svdvals 19x19': (a) => L().svdvals(a),
  'eigh 1x1': eighW('L'), 'eigh 9x9': eighW('L'), 'eigh 17x17 upper': eighW('U'), 'eigh repeated 12x12': eighSmooth,
  'eigh clustered 11x11': eighW('L'), 'eigh diagonal 6x6': eighSmooth, 'eigh zero 4x4': eighSmooth,
  'eigvalsh 25x25': (a) => L().eigvalsh(a),
};

// The generator's formula_matrix / formula_vector (exact in double; the matrix rounded to float32).
function formulaMatrix(m, n, sym) {
  const a = new Float32Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      const [p, q] = sym ? [Math.max(i, j), Math.min(i, j)] : [i, j];
      a[i * n + j] = ((37 * p + 91 * q + 13 * p * q) % 1009) / 504 - 1;
    }
  }
  return a;
}
const formulaVector = (k, mod) => Array.from({ length: k }, (_, i) => (i % mod) / mod - 0.5);

// max |X − Y| of two row-major r×c arrays.
const maxDiff = (x, y) => x.reduce((m, v, i) => Math.max(m, Math.abs(v - y[i])), 0);
// Xᵀ·Y (X r×p, Y r×q, row-major), in double.
function tmul(x, y, r, p, q) {
  const out = new Float64Array(p * q);
  for (let k = 0; k < r; k++) for (let i = 0; i < p; i++) for (let j = 0; j < q; j++) out[i * q + j] += x[k * p + i] * y[k * q + j];
  return out;
}
const eye = (n) => Float64Array.from({ length: n * n }, (_, i) => (i % (n + 1) === 0 ? 1 : 0));

// The large formula cases: values and y = left·diag(w)·rightᵀ·x against PyTorch, and the factors
// orthonormal and reconstructing A (computed here in double from the float32 factors).
function checkFormula(c) {
  const { kind, m, n } = c.formula;
  const k = Math.min(m, n);
  const a = formulaMatrix(m, n, kind === 'eigh');
  const w = formulaVector(k, 7), x = formulaVector(n, 5);
  sg.tidy(() => {
    const A = sg.tensor(a, { shape: [m, n] });
    let vals, left, right;  // left m×k, right n×k (row-major)
    if (kind === 'svd') {
      const [U, S, Vh] = L().svd(A, { fullMatrices: false });
      [vals, left, right] = [S, U.dataSync(), Vh.T.contiguous().dataSync()];
    } else {
      const { eigenvalues, eigenvectors } = L().eigh(A);
      [vals, left, right] = [eigenvalues, eigenvectors.dataSync(), eigenvectors.dataSync()];
    }
    nearRef(vals, c.outputs[0], 2e-6, `${c.id} values`, 1e-5);
    // y = left · (w ⊙ (rightᵀ·x)), in double.
    const t = w.map((wi, j) => wi * x.reduce((s, xv, i) => s + right[i * k + j] * xv, 0));
    const y = Float32Array.from({ length: m }, (_, i) => t.reduce((s, tj, j) => s + left[i * k + j] * tj, 0));
    nearRef(sg.tensor(y, { shape: [m] }), c.outputs[1], 2e-6, `${c.id} y`, 1e-5);
    assert.ok(maxDiff(tmul(left, left, m, k, k), eye(k)) < 1e-5, `${c.id}: leftᵀ·left = I`);
    assert.ok(maxDiff(tmul(right, right, n, k, k), eye(k)) < 1e-5, `${c.id}: rightᵀ·right = I`);
    const s = vals.dataSync();
    let rec = 0;
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < n; j++) {
        let v = 0;
        for (let l = 0; l < k; l++) v += left[i * k + l] * s[l] * right[j * k + l];
        rec = Math.max(rec, Math.abs(v - a[i * n + j]));
      }
    }
    assert.ok(rec < 1e-4, `${c.id}: factors reconstruct A (max |diff| ${rec})`);
  });
}

test('svd, svdvals, eigh, eigvalsh equal PyTorch 1.13 at the sizes and spectra of linalg_decomp_sizes_ref.json', () => {
  const live = sg.memory().tensors;
  const ids = REF.cases.map((c) => c.id);
  assert.deepEqual(ids.filter((id) => !CALLS[id] && !REF.cases.find((c) => c.id === id).formula), [], 'a JS call for every case');
  assert.equal(REF.cases.filter((c) => c.formula).length, 2, 'the two formula cases');
  for (const c of REF.cases) {
    if (c.formula) {
      checkFormula(c);
      continue;
    }
    sg.tidy(() => {
      const outs = CALLS[c.id](...c.inputs.map((e) => make(e)));
      const list = Array.isArray(outs) ? outs : [outs];
      assert.equal(list.length, c.outputs.length, `${c.id}: outputs`);
      list.forEach((o, k) => nearRef(o, c.outputs[k], 2e-6, `${c.id} output ${k}`, 1e-5));
    });
  }
  assert.equal(sg.memory().tensors, live, 'no tensor left behind');
});

test('float64 svdvals and eigvalsh at 1e±160: sums of squares out of range take the scaled path', () => {
  const F64 = { 'svdvals huge': (a) => L().svdvals(a), 'svdvals tiny': (a) => L().svdvals(a),
    'eigvalsh huge': (a) => L().eigvalsh(a), 'eigvalsh tiny': (a) => L().eigvalsh(a) };
  assert.deepEqual(REF.float64.map((c) => c.id), Object.keys(F64));
  sg.tidy(() => {
    for (const c of REF.float64) {
      const e = c.inputs[0];
      const out = F64[c.id](sg.tensor(Float64Array.from(e.data), { shape: e.shape, dtype: 'float64' }));
      const want = c.outputs[0].data;
      const got = Array.from(out.dataSync(), Number);
      const scale = Math.max(...want.map(Math.abs));
      assert.ok(scale > 0 && Number.isFinite(scale), `${c.id}: finite reference`);
      want.forEach((w, i) => assert.ok(Math.abs(got[i] - w) <= 1e-13 * scale, `${c.id}[${i}]: PyTorch ${w}, got ${got[i]}`));
    }
  });
});
