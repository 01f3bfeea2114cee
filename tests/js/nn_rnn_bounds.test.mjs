// Each part of the guards of nn/rnn.ts (a live floating Tensor argument, state shapes of the
// right rank and sizes, LSTM/LSTMCell's [h, c] pair, a cell's 1-D or 2-D input) decides a test.
// Oracle: PyTorch 1.13 (RNNCell takes 1-D or 2-D input; LSTM's hx is a pair or None; h0 of
// shape [L·D, B, H]); messages are the library's own.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sg, throwsWith } from './helpers.mjs';

const nn = sg.nn;

test('a disposed Tensor or a non-Tensor input is refused by name', () => {
  const cell = new nn.RNNCell(2, 3);
  const gone = sg.zeros([1, 2]);
  gone.dispose();
  throwsWith(() => cell.forward(gone), /^RNNCell: expected 'input' to be a Tensor, got /);
  throwsWith(() => cell.forward([[1, 2]]), /^RNNCell: expected 'input' to be a Tensor, got \[\[1, 2\]\]$/);
  const rnn = new nn.RNN(2, 3);
  const gone3 = sg.zeros([1, 1, 2]);
  gone3.dispose();
  throwsWith(() => rnn.forward(gone3), /^RNN: expected 'input' to be a Tensor, got /);
  assert.deepEqual(cell.forward(sg.zeros([1, 2])).shape, [1, 3]);
});

test('cell states: the expected rank and sizes (a shorter prefix shape and a wrong size both refused)', () => {
  const cell = new nn.RNNCell(2, 3);
  const x = sg.zeros([2, 2]);
  throwsWith(() => cell.forward(x, sg.zeros([2])), /^RNNCell: expected hx of shape \[2, 3\], got \[2\]$/);
  throwsWith(() => cell.forward(x, sg.zeros([2, 4])), /^RNNCell: expected hx of shape \[2, 3\], got \[2, 4\]$/);
  throwsWith(() => cell.forward(x, sg.zeros([2, 3, 1])), /^RNNCell: expected hx of shape \[2, 3\], got \[2, 3, 1\]$/);
  assert.deepEqual(cell.forward(x, sg.zeros([2, 3])).shape, [2, 3]);
  throwsWith(() => cell.forward(sg.zeros([2]), sg.zeros([])), /^RNNCell: expected hx of shape \[3\], got \[\]$/);
  assert.deepEqual(cell.forward(sg.zeros([2]), sg.zeros([3])).shape, [3]);
});

test('RNN h0: [numLayers·D, B, H] (a prefix shape and a wrong size refused)', () => {
  const rnn = new nn.RNN(2, 3, { numLayers: 2 });
  const x = sg.zeros([4, 5, 2]);
  throwsWith(() => rnn.forward(x, sg.zeros([2, 5])), /^RNN: for batched 3-D input, h0 should be 3-D, got shape \[2, 5\]$/);
  throwsWith(() => rnn.forward(x, sg.zeros([2, 5, 4])), /^RNN: expected h0 of shape \[2, 5, 3\], got \[2, 5, 4\]$/);
  throwsWith(() => rnn.forward(x, sg.zeros([1, 5, 3])), /^RNN: expected h0 of shape \[2, 5, 3\], got \[1, 5, 3\]$/);
  const [out, h] = rnn.forward(x, sg.zeros([2, 5, 3]));
  assert.deepEqual([out.shape, h.shape], [[4, 5, 3], [2, 5, 3]]);
});

test('a cell takes 1-D or 2-D input only', () => {
  for (const cell of [new nn.RNNCell(2, 3), new nn.GRUCell(2, 3)]) {
    const name = cell.constructor.name;
    throwsWith(() => cell.forward(sg.zeros([])), new RegExp(`^${name}: expected input to be 1-D or 2-D, got 0-D \\(shape \\[\\]\\)$`));
    throwsWith(() => cell.forward(sg.zeros([1, 1, 2])), new RegExp(`^${name}: expected input to be 1-D or 2-D, got 3-D \\(shape \\[1, 1, 2\\]\\)$`));
    assert.deepEqual(cell.forward(sg.zeros([2])).shape, [3]);
    assert.deepEqual(cell.forward(sg.zeros([4, 2])).shape, [4, 3]);
  }
});

test('LSTM and LSTMCell hx: undefined, null or a pair; anything else refused', () => {
  const lstm = new nn.LSTM(2, 3);
  const x = sg.zeros([4, 1, 2]);
  const h0 = sg.zeros([1, 1, 3]);
  for (const hx of [undefined, null, [h0, h0]]) {
    const [out, [h, c]] = lstm.forward(x, hx);
    assert.deepEqual([out.shape, h.shape, c.shape], [[4, 1, 3], [1, 1, 3], [1, 1, 3]]);
  }
  throwsWith(() => lstm.forward(x, [h0]), /^LSTM: expected hx to be \[h0, c0\] \(two Tensors\) or null, got /);
  throwsWith(() => lstm.forward(x, [h0, h0, h0]), /^LSTM: expected hx to be \[h0, c0\] \(two Tensors\) or null, got /);
  throwsWith(() => lstm.forward(x, h0), /^LSTM: expected hx to be \[h0, c0\] \(two Tensors\) or null, got /);
  throwsWith(() => lstm.forward(x, { 0: h0, 1: h0, length: 2 }), /^LSTM: expected hx to be \[h0, c0\] \(two Tensors\) or null, got /);
  const cell = new nn.LSTMCell(2, 3);
  const xc = sg.zeros([1, 2]);
  const hc = sg.zeros([1, 3]);
  for (const hx of [undefined, null, [hc, hc]]) {
    const [h, c] = cell.forward(xc, hx);
    assert.deepEqual([h.shape, c.shape], [[1, 3], [1, 3]]);
  }
  throwsWith(() => cell.forward(xc, [hc]), /^LSTMCell: expected hx to be \[hx, cx\] \(two Tensors\) or null, got /);
  throwsWith(() => cell.forward(xc, hc), /^LSTMCell: expected hx to be \[hx, cx\] \(two Tensors\) or null, got /);
  throwsWith(() => cell.forward(xc, { 0: hc, 1: hc, length: 2 }), /^LSTMCell: expected hx to be \[hx, cx\] \(two Tensors\) or null, got /);
  throwsWith(() => cell.forward(xc, 0), /^LSTMCell: expected hx to be \[hx, cx\] \(two Tensors\) or null, got 0$/);
});
