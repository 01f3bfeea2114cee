// Boundaries of the argument guards of npm/src/tensor (products, sorting, splitting, rearranging,
// statistics, pointwise, ops, inplace, keywords, call, args): each disjunct alone, each bound
// from both sides, the message pinned. Oracle: PyTorch 1.13 (which calls it accepts/refuses:
// torch.tensordot dims in [0, min(ndim)], torch.logit eps in [0, 0.5], torch.quantile q in [0, 1],
// torch.cdist p >= 0, torch.repeat_interleave repeats >= 0, torch.searchsorted side/right,
// torch.take_along_dim broadcasting) and the source's messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith, scoped } from './helpers.mjs';

const vals = (t) => Array.from(t.dataSync(), Number);

test('tensordot integer dims: 0 and min(ndim) taken, -1 and one past either ndim refused', scoped(() => {
  const a = sg.ones([2, 3]), b = sg.ones([3]);
  assert.deepEqual(sg.tensordot(a, b, 0).shape, [2, 3, 3]);
  assert.deepEqual(vals(sg.tensordot(a, b, 1)), [3, 3]);
  throwsWith(() => sg.tensordot(a, b, -1), "tensordot: expected 'dims' to be an integer in [0, 1], got -1");
  throwsWith(() => sg.tensordot(a, b, 2), "tensordot: expected 'dims' to be an integer in [0, 1], got 2");   // > b.ndim only
  throwsWith(() => sg.tensordot(b, a, 2), "tensordot: expected 'dims' to be an integer in [0, 1], got 2");   // > a.ndim only
  assert.deepEqual(vals(sg.tensordot(a, sg.ones([2, 3]), [[0, 1], [0, 1]])), [6]);
  throwsWith(() => sg.tensordot(a, b, [[1]]), /^tensordot: expected 'dims' to be an integer or two lists of dims, got/);
  throwsWith(() => sg.tensordot(a, b, 'ab'), /^tensordot: expected 'dims' to be an integer or two lists of dims, got/);
}));

test('cross dim: undefined and null both pick the first size-3 dim', scoped(() => {
  const a = sg.tensor([[1, 0], [0, 1], [0, 0]]), b = sg.tensor([[0, 0], [1, 0], [0, 1]]);
  const want = vals(sg.cross(a, b, 0));
  assert.deepEqual(vals(sg.cross(a, b)), want);
  assert.deepEqual(vals(sg.cross(a, b, null)), want);
}));

test('cdist p: 0 and Infinity taken, just below 0 refused', scoped(() => {
  const x = sg.tensor([[0, 0], [1, 1]]), y = sg.tensor([[1, 0]]);
  assert.deepEqual(vals(sg.cdist(x, y, { p: 0 })), [1, 1]);
  assert.deepEqual(vals(sg.cdist(x, y, { p: Infinity })), [1, 1]);
  throwsWith(() => sg.cdist(x, y, { p: -1e-9 }), "cdist: expected 'p' to be a number >= 0, got -1e-9");
}));

test('logit eps: 0, 0.5, null taken; a string refused', scoped(() => {
  const x = sg.tensor([0.25]);
  assert.ok(Math.abs(vals(sg.logit(x, 0))[0] - Math.log(1 / 3)) < 1e-6);
  assert.ok(Math.abs(vals(sg.logit(x, 0.5))[0]) < 1e-6);  // clamped to 0.5
  assert.ok(Math.abs(vals(sg.logit(x, null))[0] - Math.log(1 / 3)) < 1e-6);
  assert.ok(Math.abs(vals(sg.logit(x, { eps: 0.5 }))[0]) < 1e-6);  // by name (keywords: index 0)
  throwsWith(() => sg.logit(x, '0.1'), /^logit: expected 'eps' to be a number in \[0, 0.5\] or nothing, got/);
  throwsWith(() => sg.logit(x, 0.1, { eps: 0.1 }), "logit: got multiple values for argument 'eps' (positionally and in the options object)");
}));

test('quantile q: 0 and 1 taken, just outside and a string refused', scoped(() => {
  const x = sg.tensor([1, 2, 3]);
  assert.deepEqual(vals(sg.quantile(x, 0)), [1]);
  assert.deepEqual(vals(sg.quantile(x, 1)), [3]);
  throwsWith(() => sg.quantile(x, -1e-9), /^quantile: expected 'q' in \[0, 1\] .*got -1e-9/);
  throwsWith(() => sg.quantile(x, 1.0001), /^quantile: expected 'q' in \[0, 1\] .*got 1.0001/);
  throwsWith(() => sg.quantile(x, ['0.5']), /^quantile: expected 'q' in \[0, 1\]/);
}));

test('repeatInterleave repeats: 0 taken (empty), -1 and 1.5 refused', scoped(() => {
  const x = sg.tensor([1, 2]);
  assert.deepEqual(sg.repeatInterleave(x, 0).shape, [0]);
  assert.deepEqual(vals(sg.repeatInterleave(x, 1)), [1, 2]);
  throwsWith(() => sg.repeatInterleave(x, -1), /^repeatInterleave: expected 'repeats' to be an integer >= 0 .*got -1$/);
  throwsWith(() => sg.repeatInterleave(x, 1.5), /^repeatInterleave: expected 'repeats' to be an integer >= 0 .*got 1.5$/);
}));

test('rot90 dims: two dims taken, one, three or a 2-char string refused; dimArg bounds [-2, 1]', scoped(() => {
  const x = sg.tensor([[1, 2], [3, 4]]);
  assert.deepEqual(vals(sg.rot90(x, 1, [0, 1])), [2, 4, 1, 3]);
  assert.deepEqual(vals(sg.rot90(x, 1, [-2, -1])), [2, 4, 1, 3]);
  throwsWith(() => sg.rot90(x, 1, [0]), "rot90: expected 'dims' to be two dims, got [0]");
  throwsWith(() => sg.rot90(x, 1, [0, 1, 0]), /^rot90: expected 'dims' to be two dims, got/);
  throwsWith(() => sg.rot90(x, 1, '01'), /^rot90: expected 'dims' to be two dims, got/);
  throwsWith(() => sg.rot90(x, 1, [0, 2]), "rot90: expected 'dims[1]' to be an integer in [-2, 1], got 2");
  throwsWith(() => sg.rot90(x, 1, [-3, 1]), "rot90: expected 'dims[0]' to be an integer in [-2, 1], got -3");
  throwsWith(() => sg.rot90(x, 1, [0.5, 1]), "rot90: expected 'dims[0]' to be an integer in [-2, 1], got 0.5");
}));

test('roll shifts/dims: an integer or integer array taken, a non-integer entry refused', scoped(() => {
  const x = sg.tensor([1, 2, 3]);
  assert.deepEqual(vals(sg.roll(x, [1], [0])), [3, 1, 2]);
  throwsWith(() => sg.roll(x, [1.5], [0]), /^roll: expected 'shifts' to be an integer or an array of integers, got/);
  throwsWith(() => sg.roll(x, 'a', [0]), /^roll: expected 'shifts' to be an integer or an array of integers, got/);
}));

test('hsplit sections: a divisor or an index list taken; a non-divisor and 0 refused with their own messages', scoped(() => {
  const x = sg.arange(0, 6);
  assert.deepEqual(sg.hsplit(x, 3).map((t) => t.shape[0]), [2, 2, 2]);
  assert.deepEqual(sg.hsplit(x, [4]).map((t) => t.shape[0]), [4, 2]);
  throwsWith(() => sg.hsplit(x, 4), 'hsplit: the size 6 of dim 0 is not divisible by the number of sections 4');
  throwsWith(() => sg.hsplit(x, 0), 'hsplit: expected a number of sections >= 1, got 0');
  throwsWith(() => sg.tensorSplit(x, [1, 1.5]), /^tensorSplit: expected an integer number of sections or a list of indices, got/);
  throwsWith(() => sg.tensorSplit(x, 'ab'), /^tensorSplit: expected an integer number of sections or a list of indices, got/);
}));

test("searchsorted side/right: equal settings and side 'right' with right false taken (side wins), side 'left' with right true refused", scoped(() => {
  const s = sg.tensor([1, 2, 3]), v = sg.tensor([2]);
  assert.deepEqual(vals(sg.searchsorted(s, v, { side: 'right', right: true })), [2]);
  assert.deepEqual(vals(sg.searchsorted(s, v, { side: 'left', right: false })), [1]);
  assert.deepEqual(vals(sg.searchsorted(s, v, { side: 'right' })), [2]);
  assert.deepEqual(vals(sg.searchsorted(s, v, { right: true })), [2]);
  assert.deepEqual(vals(sg.searchsorted(s, v, { side: 'right', right: false })), [2]);
  assert.deepEqual(vals(sg.searchsorted(s, v, { side: 'left' })), [1]);
  assert.deepEqual(vals(sg.searchsorted(s, v, { right: false })), [1]);
  throwsWith(() => sg.searchsorted(s, v, { side: 'left', right: true }), "searchsorted: side and right can't be set to opposites, got side 'left' and right true");
}));

test('searchsorted N-D sequence: values must share the leading dims', scoped(() => {
  const s = sg.tensor([[1, 2, 3], [1, 2, 3]]);
  assert.deepEqual(vals(sg.searchsorted(s, sg.tensor([[2], [3]]))), [1, 2]);
  assert.deepEqual(vals(sg.searchsorted(sg.tensor([1, 2, 3]), sg.tensor([[2], [3]]))), [1, 2]);
  throwsWith(() => sg.searchsorted(s, sg.tensor([2, 3])), 'searchsorted: expected sortedSequence to be 1-D or to share all but the last dim with values, got shapes [2, 3] and [2]');
  throwsWith(() => sg.searchsorted(s, sg.tensor([[2], [3], [1]])), /got shapes \[2, 3\] and \[3, 1\]/);
}));

test('takeAlongDim: dims of equal size or of size 1 broadcast, others refused', scoped(() => {
  const x = sg.tensor([[1, 2, 3], [4, 5, 6]]);
  assert.deepEqual(vals(sg.takeAlongDim(x, sg.tensor([[0], [2]], { dtype: 'int32' }), 1)), [1, 6]);
  assert.deepEqual(vals(sg.takeAlongDim(x, sg.tensor([[2]], { dtype: 'int32' }), 1)), [3, 6]);
  assert.deepEqual(vals(sg.takeAlongDim(sg.tensor([[1, 2, 3]]), sg.tensor([[0], [1]], { dtype: 'int32' }), 1)), [1, 2]);
  throwsWith(() => sg.takeAlongDim(x, sg.tensor([[0], [1], [2]], { dtype: 'int32' }), 1), 'takeAlongDim: shapes [2, 3] and [3, 1] do not broadcast in dim 0 (2 and 3)');
}));

test('index operands made from arrays: non-integers and ragged nesting refused', scoped(() => {
  const x = sg.tensor([[1, 2], [3, 4]]);
  assert.deepEqual(vals(sg.gather(x, 1, [[1], [0]])), [2, 3]);
  throwsWith(() => sg.gather(x, 1, [[0.5], [0]]), /^gather: expected 'index' to be an int32 Tensor or a rectangular array of integers, got/);
  throwsWith(() => sg.gather(x, 1, [[0], [0, 1]]), /^gather: expected 'index' to be an int32 Tensor or a rectangular array of integers, got/);
  assert.deepEqual(vals(sg.maskedFill(x, [[true, false], [false, true]], 0)), [0, 2, 3, 0]);
  throwsWith(() => sg.maskedFill(x, [[true, 1], [false, true]], 0), /^maskedFill: expected 'mask' to be a bool Tensor or a rectangular array of booleans, got/);
  throwsWith(() => sg.maskedFill(x, [[true], [false, true]], 0), /^maskedFill: expected 'mask' to be a bool Tensor or a rectangular array of booleans, got/);
}));

test('clamp bounds: null taken, NaN and a string refused', scoped(() => {
  const x = sg.tensor([-2, 0, 2]);
  assert.deepEqual(vals(sg.clamp(x, null, 1)), [-2, 0, 1]);
  assert.deepEqual(vals(sg.clamp(x, -1, undefined)), [-1, 0, 2]);
  throwsWith(() => sg.clamp(x, NaN, 1), "clamp: expected 'min' to be a number, a Tensor or null, got NaN");
  throwsWith(() => sg.clamp(x, 'a', 1), /^clamp: expected 'min' to be a number, a Tensor or null, got/);
}));

test('maskedFill_ mask: a bool Tensor taken; an array or an int Tensor refused', scoped(() => {
  const x = sg.tensor([1, 2]);
  x.maskedFill_(sg.tensor([true, false]), 0);
  assert.deepEqual(vals(x), [0, 2]);
  throwsWith(() => x.maskedFill_([true, false], 0), /^maskedFill_: expected 'mask' to be a bool Tensor, got \[/);
  throwsWith(() => x.maskedFill_(sg.tensor([1, 0], { dtype: 'int32' }), 0), "maskedFill_: expected 'mask' to be a bool Tensor, got int32");
  throwsWith(() => x.maskedFill_(sg.tensor([true, false])), "maskedFill_: expected 'value' to be a number, got undefined");  // no default value
}));

test('uniform_/normal_ defaults: omitted bounds fall back, an explicit NaN is refused', scoped(() => {
  const x = sg.zeros([64]);
  x.uniform_();
  assert.ok(vals(x).every((v) => v >= 0 && v <= 1));
  x.uniform_(undefined, 0.5);
  assert.ok(vals(x).every((v) => v >= 0 && v <= 0.5));
  throwsWith(() => x.uniform_(NaN), "uniform_: expected 'from' to be a number, got NaN");
}));

test('operands: a number or boolean taken, a string refused', scoped(() => {
  const x = sg.tensor([1, 2]);
  assert.deepEqual(vals(sg.add(x, 2)), [3, 4]);
  assert.deepEqual(vals(sg.add(x, true)), [2, 3]);
  throwsWith(() => sg.add(x, 'a'), /^add: expected 'other' to be a Tensor or a number, got/);
}));
