// sg.linalg.lstsq's four outputs (solution, residuals, rank, singularValues) and drivers against
// PyTorch 1.13: tests/data/linalg_lstsq_ref.json from gen_linalg_lstsq.py. Rank-deficient tall and
// wide matrices (the minimum-norm solution, the rank), full-rank ones (residuals where PyTorch
// gives them), rcond cutting singular values, a batch, float32, and gradients of the solution
// (float64, PyTorch's linalg_lstsq_backward through pinv) including one at a rank-deficient A.
// Tolerances: float64 1e-10 of the values' scale (SVD-based both sides, different algorithms),
// float32 2e-5; ranks exactly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';
import { readRef } from './gradcheck_helpers.mjs';

const REF = readRef('linalg_lstsq_ref.json');

const make = (e, requiresGrad = false) =>
  sg.tensor(e.dtype === 'float64' ? Float64Array.from(e.data) : Float32Array.from(e.data), { shape: e.shape, dtype: e.dtype, requiresGrad });

function close(t, e, rtol, what) {
  assert.deepEqual(t.shape, e.shape, `${what}: shape`);
  const got = Array.from(t.dataSync(), Number);
  const scale = Math.max(1, ...e.data.map(Math.abs));
  e.data.forEach((w, i) => assert.ok(Math.abs(got[i] - w) <= rtol * scale, `${what}[${i}]: PyTorch ${w}, got ${got[i]}`));
}

test('lstsq equals PyTorch 1.13: solution, residuals, rank and singular values per driver, rank-deficient included', () => {
  const live = sg.memory().tensors;
  assert.equal(REF.cases.length, 16);
  for (const c of REF.cases) {
    sg.tidy(() => {
      const [A, B] = c.inputs.map((e) => make(e, Boolean(c.gradA)));
      const r = sg.linalg.lstsq(A, B, c.options);
      const rtol = c.dtype === 'float64' ? 1e-10 : 2e-5;
      assert.deepEqual(r.map((t) => t.shape), [r.solution, r.residuals, r.rank, r.singularValues].map((t) => t.shape), `${c.id}: named fields`);
      close(r.solution, c.solution, rtol, `${c.id} solution`);
      close(r.residuals, c.residuals, rtol, `${c.id} residuals`);
      assert.deepEqual(r.rank.shape, c.rank.shape, `${c.id} rank shape`);
      assert.deepEqual(Array.from(r.rank.dataSync(), Number), c.rank.data, `${c.id} rank`);
      if (c.rank.data.length) assert.equal(r.rank.dtype, 'int32');
      close(r.singularValues, c.singularValues, rtol, `${c.id} singularValues`);
      if (c.gradA) {
        r.solution.mul(make(c.upstream)).sum().backward();
        close(A.grad, c.gradA, 1e-9, `${c.id} dA`);
        close(B.grad, c.gradB, 1e-9, `${c.id} dB`);
      }
    });
  }
  assert.equal(sg.memory().tensors, live, 'no tensor left behind');
});

test('lstsq: gels refuses a rank-deficient matrix as PyTorch does; bad options are Errors naming them', () => {
  const c = REF.cases.find((x) => x.id === 'tall rank 2 gelsd');
  sg.tidy(() => {
    const [A, B] = c.inputs.map((e) => make(e));
    assert.throws(() => sg.linalg.lstsq(A, B, { driver: 'gels' }), /linalg\.lstsq: The least squares solution could not be computed because the input matrix does not have full rank/);
    assert.throws(() => sg.linalg.lstsq(A, B, { driver: 'gelsx' }), /linalg\.lstsq: parameter `driver` should be one of \(gels, gelsy, gelsd, gelss\), got 'gelsx'/);
    assert.throws(() => sg.linalg.lstsq(A, B, { rcond: 'big' }), /linalg\.lstsq/);
    assert.throws(() => sg.linalg.lstsq(A, B, { tol: 1 }), /linalg\.lstsq.*tol/);
    // The wasm instance stays usable after the Errors.
    assert.equal(sg.linalg.lstsq(A, B, { driver: 'gelsd' }).rank.item(), 2);
  });
});
