// float32 svd and eigh as accurate as PyTorch 1.13's float32 (LAPACK sgesdd / ssyevd) on the same
// inputs: tests/data/linalg_f32_accuracy_ref.json from gen_linalg_f32_accuracy.py holds PyTorch's
// float32 residuals and the float64 values. simdgrad's float32 eigh (past 32 rows) and svd with
// vectors (past 32 columns) run their reductions, their divide-and-conquer merges and their
// back-transformations in float32 (for speed, as LAPACK does), so their residuals are float32's,
// not one rounding of a double computation: this test bounds them by PyTorch's (the odd-sized
// svd cases split unevenly in divide and conquer). Measured here in double from the float32
// outputs, as the generator measures PyTorch's: max |UᵀU − I|, |Vh·Vhᵀ − I| (|VᵀV − I|),
// |U·diag(S)·Vh − A| / max|A| and |values − float64 values| / max|value|. Bound: 1.5 × PyTorch's + 1e-7 (a float32 ulp at 1 is
// 1.2e-7): the same order as LAPACK's float32, not a copy of our own figures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';
import { readRef } from './gradcheck_helpers.mjs';

const REF = readRef('linalg_f32_accuracy_ref.json');

// The generator's formula(m, n, grade, symmetric), row-major, exact in float32.
function formula(m, n, grade, symmetric) {
  const a = new Float32Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      const [r, c] = !symmetric || i >= j ? [i, j] : [j, i];
      let v = ((127 * r + 311 * c + 17 * r * c) % 997) / 498 - 1;
      if (grade > 0) v *= 2 ** -Math.floor(j / grade) * (symmetric ? 2 ** -Math.floor(i / grade) : 1);
      a[i * n + j] = v;
    }
  }
  return a;
}

const maxAbs = (xs) => xs.reduce((m, x) => Math.max(m, Math.abs(x)), 0);

// max |XᵀX − I| for row-major X (rows × k): its columns' Gram matrix, in double.
function columnOrth(x, rows, k) {
  const g = new Float64Array(k * k);
  for (let r = 0; r < rows; r++) {
    const o = r * k;
    for (let i = 0; i < k; i++) {
      const xi = x[o + i];
      for (let j = i; j < k; j++) g[i * k + j] += xi * x[o + j];
    }
  }
  let worst = 0;
  for (let i = 0; i < k; i++) for (let j = i; j < k; j++) worst = Math.max(worst, Math.abs(g[i * k + j] - (i === j ? 1 : 0)));
  return worst;
}

// max |X·Xᵀ − I| for row-major X (k × cols): its rows' Gram matrix, in double.
function rowOrth(x, k, cols) {
  let worst = 0;
  for (let i = 0; i < k; i++) {
    for (let j = i; j < k; j++) {
      let s = 0;
      for (let c = 0; c < cols; c++) s += x[i * cols + c] * x[j * cols + c];
      worst = Math.max(worst, Math.abs(s - (i === j ? 1 : 0)));
    }
  }
  return worst;
}

// max |L·diag(w)·R − A| / max|A| for row-major L (m×k), R (k×n), A (m×n), in double.
function reconstruction(l, w, r, a, m, k, n) {
  let worst = 0;
  const row = new Float64Array(n);
  for (let i = 0; i < m; i++) {
    row.fill(0);
    for (let p = 0; p < k; p++) {
      const t = l[i * k + p] * w[p];
      if (t === 0) continue;
      for (let j = 0; j < n; j++) row[j] += t * r[p * n + j];
    }
    for (let j = 0; j < n; j++) worst = Math.max(worst, Math.abs(row[j] - a[i * n + j]));
  }
  return worst / maxAbs(a);
}

function valuesError(got, ref) {
  const order = [...ref].sort((x, y) => x - y);
  const ours = [...got].sort((x, y) => x - y);
  return maxAbs(ours.map((v, i) => v - order[i])) / maxAbs(ref);
}

function residuals(c) {
  const { m, n, grade } = c;
  const a = formula(m, n, grade, c.op === 'eigh');
  return sg.tidy(() => {
    const A = sg.tensor(a, { shape: [m, n] });
    if (c.op === 'svd') {
      const k = Math.min(m, n);
      const { U, S, Vh } = sg.linalg.svd(A, { fullMatrices: false });
      const u = U.dataSync(), s = S.dataSync(), vh = Vh.dataSync();
      return {
        orthU: columnOrth(u, m, k),
        orthV: rowOrth(vh, k, n),
        rec: reconstruction(u, s, vh, a, m, k, n),
        values: valuesError(s, c.values64),
      };
    }
    const { eigenvalues, eigenvectors } = sg.linalg.eigh(A);
    const v = eigenvectors.dataSync(), lam = eigenvalues.dataSync();
    const vt = new Float32Array(n * n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) vt[j * n + i] = v[i * n + j];
    return {
      orthV: columnOrth(v, n, n),
      rec: reconstruction(v, lam, vt, a, n, n, n),
      values: valuesError(lam, c.values64),
    };
  });
}

test('float32 svd and eigh: orthogonality, reconstruction and values as accurate as PyTorch 1.13\'s float32', () => {
  assert.equal(REF.cases.length, 8, 'the generator\'s eight cases');
  const live = sg.memory().tensors;
  for (const c of REF.cases) {
    const ours = residuals(c);
    for (const [what, theirs] of Object.entries(c.torch)) {
      const got = ours[what];
      assert.ok(Number.isFinite(got), `${c.id} ${what}: ${got}`);
      assert.ok(got <= 1.5 * theirs + 1e-7, `${c.id} ${what}: ours ${got.toExponential(2)}, PyTorch's ${theirs.toExponential(2)}`);
    }
  }
  assert.equal(sg.memory().tensors, live, 'no tensor left behind');
});
