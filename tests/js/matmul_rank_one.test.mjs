// matmul with an inner dim of 1 (each product an outer product: ops/matmul.cpp computes it as one
// broadcast multiply, not through the GEMM): values with broadcast batch dims and transposed
// views, in float32 and float64, against products written out here, and the gradients that
// reach this path (the weight gradient of a one-row-per-sample product).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { close, sg } from './helpers.mjs';

function values(n, seed) {
  let s = seed;
  return Array.from({ length: n }, () => {
    s = (1103515245 * s + 12345) % 2147483648;
    return Math.round((s / 2147483648 - 0.5) * 2e4) / 1e4;
  });
}

/** a [..., M, 1] · b [..., 1, N] written out, batch dims broadcast (shapes given, row-major data). */
function outer(av, as, bv, bs) {
  const batchA = as.slice(0, -2), batchB = bs.slice(0, -2);
  const r = Math.max(batchA.length, batchB.length);
  const pa = [...Array(r - batchA.length).fill(1), ...batchA], pb = [...Array(r - batchB.length).fill(1), ...batchB];
  const batch = pa.map((x, i) => Math.max(x, pb[i]));
  const M = as.at(-2), N = bs.at(-1);
  const nb = batch.reduce((p, q) => p * q, 1);
  const out = [];
  for (let i = 0; i < nb; i++) {
    let rem = i, ia = 0, ib = 0, sa = 1, sb = 1;
    for (let d = r - 1; d >= 0; d--) {
      const k = rem % batch[d];
      rem = Math.floor(rem / batch[d]);
      ia += (pa[d] === 1 ? 0 : k) * sa;
      ib += (pb[d] === 1 ? 0 : k) * sb;
      sa *= pa[d];
      sb *= pb[d];
    }
    for (let m = 0; m < M; m++) for (let n = 0; n < N; n++) out.push(av[ia * M + m] * bv[ib * N + n]);
  }
  return { data: out, shape: [...batch, M, N] };
}

for (const dtype of ['float32', 'float64']) {
  test(`K = 1 products equal the outer products written out (${dtype})`, () => {
    const tol = dtype === 'float64' ? 1e-15 : 1e-6;
    for (const [as, bs] of [[[3, 1], [1, 4]], [[2, 3, 1], [1, 5]], [[2, 1, 3, 1], [4, 1, 2]], [[3, 1], [2, 1, 4]]]) {
      const av = values(as.reduce((p, q) => p * q, 1), 1), bv = values(bs.reduce((p, q) => p * q, 1), 2);
      const a = sg.tensor(av, { dtype }).reshape(as), b = sg.tensor(bv, { dtype }).reshape(bs);
      const want = outer(av, as, bv, bs);
      const got = a.matmul(b);
      assert.deepEqual(got.shape, want.shape);
      close(Array.from(got.dataSync()), want.data, tol, `[${as}]·[${bs}]`);
      // the same through transposed views ([1, M]ᵀ and [N, 1]ᵀ)
      const at = sg.tensor(av, { dtype }).reshape([...as.slice(0, -2), 1, as.at(-2)]).transpose(-1, -2);
      const bt = sg.tensor(bv, { dtype }).reshape([...bs.slice(0, -2), bs.at(-1), 1]).transpose(-1, -2);
      close(Array.from(at.matmul(bt).dataSync()), want.data, tol, `transposed [${as}]·[${bs}]`);
    }
  });
}

test('the weight gradient of one row per sample (a K = 1 product in backward) equals xᵀg per sample', () => {
  const B = 3, I = 4, O = 2;
  const xv = values(B * I, 3), wv = values(B * O * I, 4), gv = values(B * O, 5);
  const x = sg.tensor(xv).reshape([B, 1, I]);
  const w = sg.tensor(wv).reshape([B, O, I]);
  w.requiresGrad = true;
  const y = x.matmul(w.transpose(1, 2)); // [B, 1, O]
  y.backward(sg.tensor(gv).reshape([B, 1, O]));
  const want = [];
  for (let b = 0; b < B; b++) for (let o = 0; o < O; o++) for (let i = 0; i < I; i++) want.push(gv[b * O + o] * xv[b * I + i]);
  close(Array.from(w.grad.contiguous().dataSync()), want, 1e-6);
});
