// Argument checks that disjunct mutants showed untested: F.interpolate's input check (a non-Tensor
// and a disposed Tensor) and its zero-size check (PyTorch 1.13: "Input and output sizes should be
// greater than 0, but got input (W: 2) and output (W: 0)" for scale_factor 0.4 on width 2), and
// PackedSequence's batchSizes (a 2-D or float tensor, or not an array), each message asserted.
import assert from 'node:assert/strict';
import test from 'node:test';
import { sg, throwsWith } from './helpers.mjs';

const F = sg.F;
const i32 = (a) => sg.tensor(a, { dtype: 'int32' });

test('interpolate: input not a live Tensor, and a zero input or output size, are Errors naming them', () => {
  throwsWith(() => F.interpolate([[1]], { size: 2 }), /^interpolate: expected 'input' to be a Tensor, got \[\[1\]\]$/);
  const d = sg.zeros([1, 1, 2]);
  d.dispose();
  throwsWith(() => F.interpolate(d, { size: 2 }), /^interpolate: expected 'input' to be a Tensor, got a disposed Tensor$/);
  throwsWith(() => F.interpolate(sg.zeros([1, 1, 2]), { scaleFactor: 0.4 }), /^interpolate: input and output sizes should be greater than 0, but got input \[2\] and output \[0\]$/);
  throwsWith(() => F.interpolate(sg.zeros([1, 1, 0]), { size: 2 }), 'interpolate: input and output sizes should be greater than 0, but got input [0] and output [2]');
  assert.deepEqual(F.interpolate(sg.zeros([1, 1, 2]), { scaleFactor: 0.5 }).shape, [1, 1, 1]);
});

test('PackedSequence: batchSizes that are not a 1-D int32 CPU tensor or an array are Errors naming them', () => {
  const PS = sg.nn.utils.rnn.PackedSequence;
  const data = sg.zeros([3, 1]);
  throwsWith(() => new PS(data, i32([[2, 1]])), /^PackedSequence: expected 'batchSizes' as an array of integers or a 1-D int32 Tensor on the CPU \(it is read synchronously\), got a 2-D int32 Tensor on 'cpu'$/);
  throwsWith(() => new PS(data, sg.tensor([2, 1])), "PackedSequence: expected 'batchSizes' as an array of integers or a 1-D int32 Tensor on the CPU (it is read synchronously), got a 1-D float32 Tensor on 'cpu'");
  throwsWith(() => new PS(data, 3), /^PackedSequence: expected 'batchSizes' as an array of integers or a 1-D int32 Tensor on the CPU, got 3$/);
  assert.deepEqual(new PS(data, i32([2, 1])).batchSizes.toArray(), [2, 1]);
});

const gone = () => {
  const d = sg.zeros([3, 2]);
  d.dispose();
  return d;
};

test('PackedSequence / packPaddedSequence / padPackedSequence: data and input checks (non-Tensor, disposed, too few dims, empty batchSizes)', () => {
  const R = sg.nn.utils.rnn;
  const PS = R.PackedSequence;
  const dataErr = "PackedSequence: expected 'data' to be a Tensor with at least 1 dim, got ";
  throwsWith(() => new PS([1, 2], [1, 1]), `${dataErr}[1, 2]`);
  throwsWith(() => new PS(gone(), [2, 1]), `${dataErr}a disposed Tensor`);
  throwsWith(() => new PS(sg.tensor(1), [1]), `${dataErr}a Tensor of shape [] (float32)`);
  throwsWith(() => new PS(sg.zeros([0, 1]), []), /^PackedSequence: expected 'batchSizes' to be positive, non-increasing and to sum to data\.shape\[0\] = 0, got \[\]$/);
  const inErr = "packPaddedSequence: expected 'input' to be a Tensor with at least 2 dims, got ";
  throwsWith(() => R.packPaddedSequence([[1]], [1]), `${inErr}[[1]]`);
  throwsWith(() => R.packPaddedSequence(gone(), [1, 1]), `${inErr}a disposed Tensor`);
  throwsWith(() => R.packPaddedSequence(sg.zeros([3]), [1]), `${inErr}a Tensor of shape [3] (float32)`);
  const p = R.packPaddedSequence(sg.zeros([3, 2]), [3, 2]);
  p.dispose();
  throwsWith(() => R.padPackedSequence(p), /^padPackedSequence: expected a PackedSequence, got /);
  throwsWith(() => R.padPackedSequence(sg.zeros([2])), /^padPackedSequence: expected a PackedSequence, got a Tensor of shape \[2\] \(float32\)$/);
});

test('packSequence: the sequence list checks, each naming what it got', () => {
  const R = sg.nn.utils.rnn;
  throwsWith(() => R.packSequence([]), /^packSequence: expected a non-empty array of Tensors, got \[\]$/);
  throwsWith(() => R.packSequence(sg.zeros([2])), 'packSequence: expected a non-empty array of Tensors, got a Tensor of shape [2] (float32)');
  const seqErr = 'packSequence: expected sequences[1] to be a Tensor with at least 1 dim, got ';
  throwsWith(() => R.packSequence([sg.zeros([2]), 5]), `${seqErr}5`);
  throwsWith(() => R.packSequence([sg.zeros([2]), sg.tensor(1)]), `${seqErr}a Tensor of shape [] (float32)`);
  throwsWith(() => R.packSequence([sg.zeros([2]), gone()]), `${seqErr}a disposed Tensor`);
  throwsWith(() => R.packSequence([sg.zeros([2]), sg.zeros([1], { dtype: 'float64' })]), /^packSequence: expected every sequence to be float32 on 'cpu', got float64 on 'cpu' at 1$/);
  throwsWith(() => R.packSequence([sg.zeros([2, 3]), sg.zeros([1, 2])]), /^packSequence: expected every sequence to have the trailing dims \[3\], got \[1, 2\] at 1$/);
});

test('RNN layers: an input that is not a live floating Tensor is an Error naming it', () => {
  const lstm = new sg.nn.LSTM(2, 3);
  throwsWith(() => lstm.forward([[1, 2]]), /^LSTM: expected 'input' to be a Tensor, got \[\[1, 2\]\]$/);
  throwsWith(() => lstm.forward(gone()), /^LSTM: expected 'input' to be a Tensor, got a disposed Tensor$/);
  throwsWith(() => lstm.forward(sg.zeros([3, 2], { dtype: 'int32' })), /^LSTM: expected 'input' to be a floating tensor \(float32, float64, \.\.\.\), got int32$/);
  assert.deepEqual(lstm.forward(sg.zeros([3, 2]))[0].shape, [3, 3]);
});
