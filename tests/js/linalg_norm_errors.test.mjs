// sg.linalg norm argument checks no other test asserted (a dim out of range, matrixPower's third
// argument), with the call working after, and vectorNorm's keepdim without dim (every dim kept
// as size 1, as torch.linalg.vector_norm). Values are hand-computed: ‖[3, 4]‖₂ = 5,
// ‖[1, 2]‖₋₁ = (1 + 1/2)⁻¹ = 2/3, ‖[[1, 2], [3, 4]]‖_F = √30.
import assert from 'node:assert/strict';
import test from 'node:test';
import { close, sg, throwsWith } from './helpers.mjs';

test('matrixNorm / norm: a dim outside [-ndim, ndim - 1] or not an integer is an Error naming the range and the dim', () => {
  const A = sg.tensor([[[1, 2], [3, 4]]]);
  throwsWith(() => sg.linalg.matrixNorm(A, 'fro', [0, 3]), /^linalg\.matrixNorm: expected dims in \[-3, 2\], got 3$/);
  throwsWith(() => sg.linalg.matrixNorm(A, 'fro', [-4, 1]), 'linalg.matrixNorm: expected dims in [-3, 2], got -4');
  throwsWith(() => sg.linalg.matrixNorm(A, { dim: [1, 1.5] }), 'linalg.matrixNorm: expected dims in [-3, 2], got 1.5');
  throwsWith(() => sg.linalg.norm(A, 'fro', [2, 7]), 'linalg.norm: expected dims in [-3, 2], got 7');
  // The edges of the range are accepted.
  close(sg.linalg.matrixNorm(A, 'fro', [-3, 2]).toArray(), [Math.sqrt(5), Math.sqrt(25)]);
  close(sg.linalg.matrixNorm(A).toArray(), [Math.sqrt(30)]);
});

test('matrixPower takes (A, n): a third argument is an Error naming it', () => {
  const A = sg.tensor([[1, 1], [0, 1]]);
  throwsWith(() => sg.linalg.matrixPower(A, 2, 3), /^linalg\.matrixPower: takes \(A, n\), got a third argument 3$/);
  throwsWith(() => sg.linalg.matrixPower(A, 2, { dim: 0 }), 'linalg.matrixPower: takes (A, n), got a third argument');
  // [[1, 1], [0, 1]]³ = [[1, 3], [0, 1]]
  close(sg.linalg.matrixPower(A, 3).toArray(), [[1, 3], [0, 1]]);
});

test('vectorNorm with keepdim and no dim keeps every dim as 1 (ord 2 by default, and a negative ord)', () => {
  const x = sg.tensor([[3, 4]]);
  const n = sg.linalg.vectorNorm(x, { keepdim: true });
  assert.deepEqual(n.shape, [1, 1]);
  close(n.toArray(), [[5]]);
  assert.deepEqual(sg.linalg.vectorNorm(x).shape, []);
  const m = sg.linalg.vectorNorm(sg.tensor([[1, 2]]), -1, null, true);
  assert.deepEqual(m.shape, [1, 1]);
  close(m.toArray(), [[2 / 3]]);
});

// Defaults the decomposition tests left unpinned (torch 1.13 values: torch.linalg.norm(A, dim=(0, 1))
// = 5.4772 = √30 (Frobenius), matrix_rank(diag(1, 1e-3), atol=1e-4) = 2 (rtol 0 once atol is
// given), matrix_rank(diag(1, 1e-10).double()) = 2 but 1 in float32 (rtol = max(m, n)·eps of the
// dtype), linalg.cross over the last dim by default).
test('linalg.norm with two dims and no ord is the Frobenius norm', () => {
  const A = sg.tensor([[1, 2], [3, 4]]);
  close(sg.linalg.norm(A, { dim: [0, 1] }).item(), Math.sqrt(30), 1e-6);
  close(sg.linalg.norm(A, null, [0, 1]).item(), Math.sqrt(30), 1e-6);
});

test('matrixRank: rtol is 0 when only atol is given; the default rtol uses the dtype\'s eps', () => {
  assert.equal(sg.linalg.matrixRank(sg.tensor([[1, 0], [0, 1e-3]]), { atol: 1e-4 }).item(), 2);
  assert.equal(sg.linalg.matrixRank(sg.tensor([[1, 0], [0, 1e-10]], { dtype: 'float64' })).item(), 2);
  assert.equal(sg.linalg.matrixRank(sg.tensor([[1, 0], [0, 1e-10]])).item(), 1);
});

test('linalg.cross is over the last dim by default', () => {
  close(sg.linalg.cross(sg.tensor([[1, 0, 0], [0, 1, 0]]), sg.tensor([[0, 1, 0], [0, 0, 1]])).toArray(), [[0, 0, 1], [1, 0, 0]]);
});

test('linalg.lstsq: A and B that are not Tensors of enough dims, and vectorNorm\'s ord, are Errors naming them', () => {
  throwsWith(() => sg.linalg.lstsq(sg.zeros([3]), sg.zeros([3])), /^linalg\.lstsq: expected A to be a Tensor of at least 2 dims \[\.\.\., m, n\], got shape \[3\]$/);
  throwsWith(() => sg.linalg.lstsq([[1]], sg.zeros([1])), /^linalg\.lstsq: expected A to be a Tensor of at least 2 dims \[\.\.\., m, n\], got object$/);
  throwsWith(() => sg.linalg.lstsq(sg.zeros([3, 2]), [1, 2, 3]), /^linalg\.lstsq: expected B to be a Tensor \[\.\.\., m, k\] or \[m\], got object$/);
  throwsWith(() => sg.linalg.lstsq(sg.zeros([3, 2]), sg.tensor(1)), /^linalg\.lstsq: expected B to be a Tensor \[\.\.\., m, k\] or \[m\], got a 0-d Tensor$/);
  throwsWith(() => sg.linalg.lstsq(sg.zeros([3, 2]), sg.zeros([2])), /^linalg\.lstsq: expected B to have 3 rows \(A is \[3, 2\]\), got shape \[2\]$/);
  throwsWith(() => sg.linalg.vectorNorm(sg.zeros([3]), 'fro'), /^linalg\.vectorNorm: expected 'ord' to be a number \(Infinity and -Infinity included\), got 'fro'$/);
  throwsWith(() => sg.linalg.vectorNorm(sg.zeros([3]), NaN), "linalg.vectorNorm: expected 'ord' to be a number (Infinity and -Infinity included), got NaN");
  // x = [1, 2] solves [[1, 0], [0, 1], [1, 1]] x = [1, 2, 3] exactly.
  close(sg.linalg.lstsq(sg.tensor([[1, 0], [0, 1], [1, 1]]), sg.tensor([1, 2, 3])).solution.toArray(), [1, 2], 1e-5);
  close(sg.linalg.vectorNorm(sg.tensor([3, -4]), Infinity).item(), 4);
});
