// Boundaries of sg.linalg's argument guards (npm/src/linalg/decompositions.ts, norms.ts): each
// disjunct alone, each bound from both sides, messages pinned. Oracle: PyTorch 1.13
// (solve_triangular's keyword-only 'upper' is required; lstsq needs A of >= 2 dims and, with
// driver 'gels', a full-rank A; linalg.norm with dim of two entries is a matrix norm, of one a
// vector norm; matrix_power needs square matrices) and the source's messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith, scoped, close } from './helpers.mjs';

const vals = (t) => Array.from(t.dataSync(), Number);

test("solveTriangular: 'upper' required, whether options are missing, null, not an object or lack it", scoped(() => {
  const A = sg.tensor([[2, 0], [1, 1]]), B = sg.tensor([[2], [3]]);
  close(sg.linalg.solveTriangular(A, B, { upper: false }).toArray(), [[1], [2]]);
  const fnWithUpper = Object.assign(() => {}, { upper: true });  // not an options object, though it has 'upper'
  for (const bad of [undefined, null, 'upper', fnWithUpper, {}, { left: true }]) {
    throwsWith(() => sg.linalg.solveTriangular(A, B, bad), "linalg.solveTriangular: missing the keyword argument 'upper' (pass { upper: true } or { upper: false })");
  }
}));

test('lstsq A: 2-D taken; 1-D and a non-Tensor refused', scoped(() => {
  const A = sg.tensor([[1, 0], [0, 1], [0, 0]]), B = sg.tensor([[1], [2], [3]]);
  close(sg.linalg.lstsq(A, B).solution.toArray(), [[1], [2]]);
  throwsWith(() => sg.linalg.lstsq(sg.tensor([1, 2, 3]), B), 'linalg.lstsq: expected A to be a Tensor of at least 2 dims [..., m, n], got shape [3]');
  throwsWith(() => sg.linalg.lstsq([[1, 0]], B), 'linalg.lstsq: expected A to be a Tensor of at least 2 dims [..., m, n], got object');
}));

test("lstsq driver 'gels': full rank taken, rank-deficient refused; other drivers take rank-deficient A", scoped(() => {
  const full = sg.tensor([[1, 0], [0, 1], [0, 0]]), B = sg.tensor([[1], [2], [3]]);
  close(sg.linalg.lstsq(full, B, { driver: 'gels' }).solution.toArray(), [[1], [2]]);
  const deficient = sg.tensor([[1, 0], [0, 0], [0, 0]]);  // torch 1.13 gels: 'does not have full rank (error code: 2)'
  throwsWith(() => sg.linalg.lstsq(deficient, B, { driver: 'gels' }), /^linalg.lstsq: The least squares solution could not be computed because the input matrix does not have full rank \(driver gels/);
  close(sg.linalg.lstsq(deficient, B, { driver: 'gelsd' }).solution.toArray(), [[1], [0]], 1e-5);  // torch: [[1], [0]]
}));

test('linalg.norm dim: two dims a matrix norm, one a vector norm, none flattened, three refused', scoped(() => {
  const x = sg.tensor([[3, 0], [0, 4]]);
  close(vals(sg.linalg.norm(x, null, [0, 1])), [5]);
  close(vals(sg.linalg.norm(x, 1, [0, 1])), [4]);        // matrix 1-norm: max column sum
  close(vals(sg.linalg.norm(x, 1, [0])), [3, 4]);        // vector 1-norms of the columns
  close(vals(sg.linalg.norm(x)), [5]);
  throwsWith(() => sg.linalg.norm(sg.ones([2, 2, 2]), null, [0, 1, 2]), 'linalg.norm: expected \'dim\' to be one dim or two, got [0, 1, 2]');
}));

test('matrixPower: square and batched square taken; 1-D and non-square refused', scoped(() => {
  close(sg.linalg.matrixPower(sg.tensor([[1, 1], [0, 1]]), 2).toArray(), [[1, 2], [0, 1]]);
  assert.deepEqual(sg.linalg.matrixPower(sg.ones([3, 2, 2]), 0).shape, [3, 2, 2]);
  throwsWith(() => sg.linalg.matrixPower(sg.tensor(2), 2), 'linalg.matrixPower: expected A to be batches of square matrices [..., n, n], got shape []');
  throwsWith(() => sg.linalg.matrixPower(sg.ones([2]), 2), 'linalg.matrixPower: expected A to be batches of square matrices [..., n, n], got shape [2]');
  throwsWith(() => sg.linalg.matrixPower(sg.ones([2, 3]), 2), 'linalg.matrixPower: expected A to be batches of square matrices [..., n, n], got shape [2, 3]');
}));
