// linalg.luFactor's gradient for rectangular matrices (tall, wide, batched) and square, float64,
// against PyTorch 1.13's lu_factor_ex_backward: tests/data/linalg_lu_factor_rect_ref.json from
// gen_linalg_lu_factor_rect.py (the packed LU, pivots, and dA of Σ LU·upstream), and against
// central differences of our own forward. Tolerance 1e-10 of the values' scale.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';
import { readRef } from './gradcheck_helpers.mjs';

const REF = readRef('linalg_lu_factor_rect_ref.json');
const make = (e, requiresGrad = false) =>
  sg.tensor(e.dtype === 'int32' ? Int32Array.from(e.data) : Float64Array.from(e.data), { shape: e.shape, dtype: e.dtype, requiresGrad });

function close(got, want, rtol, what) {
  const scale = Math.max(1, ...want.map(Math.abs));
  want.forEach((w, i) => assert.ok(Math.abs(got[i] - w) <= rtol * scale, `${what}[${i}]: PyTorch ${w}, got ${got[i]}`));
}

test('luFactor of tall, wide and batched matrices: LU, pivots and the gradient equal PyTorch 1.13', () => {
  const live = sg.memory().tensors;
  assert.equal(REF.cases.length, 7);
  for (const c of REF.cases) {
    sg.tidy(() => {
      const A = make(c.A, true);
      const [LU, pivots] = sg.linalg.luFactor(A);
      assert.deepEqual(LU.shape, c.LU.shape, `${c.id}: LU shape`);
      close(Array.from(LU.dataSync(), Number), c.LU.data, 1e-12, `${c.id} LU`);
      assert.deepEqual(Array.from(pivots.dataSync(), Number), c.pivots.data, `${c.id} pivots`);
      LU.mul(make(c.upstream)).sum().backward();
      close(Array.from(A.grad.dataSync(), Number), c.grad.data, 1e-10, `${c.id} dA`);
    });
  }
  assert.equal(sg.memory().tensors, live, 'no tensor left behind');
});

test('luFactor gradient of a tall and a wide matrix equals central differences', () => {
  for (const c of REF.cases.filter((x) => x.id === 'tall 5x3' || x.id === 'wide 3x5')) {
    sg.tidy(() => {
      const a = Float64Array.from(c.A.data);
      const up = make(c.upstream);
      const f = (x) => sg.tidy(() => sg.linalg.luFactor(sg.tensor(x, { shape: c.A.shape, dtype: 'float64' }))[0].mul(up).sum().item());
      const A = sg.tensor(a, { shape: c.A.shape, dtype: 'float64', requiresGrad: true });
      sg.linalg.luFactor(A)[0].mul(up).sum().backward();
      const g = Array.from(A.grad.dataSync(), Number);
      const h = 1e-6;
      a.forEach((v, i) => {
        const p = Float64Array.from(a), q = Float64Array.from(a);
        p[i] = v + h;
        q[i] = v - h;
        const fd = (f(p) - f(q)) / (2 * h);
        assert.ok(Math.abs(fd - g[i]) <= 1e-6 * Math.max(1, Math.abs(fd)), `${c.id} dA[${i}]: central difference ${fd}, got ${g[i]}`);
      });
    });
  }
});
