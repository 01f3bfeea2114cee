// Every sg.F function of nn/functional_layers.ts names itself and the tensor argument it refuses:
// a non-Tensor is "<fn>: expected '<arg>' to be a Tensor, got <what>", a disposed one
// "<fn>: Tensor is disposed (argument '<arg>')" (API.md: bad input gives an Error saying expected
// vs got). The function and argument names are PyTorch's (input, weight, input1, query, ...), in
// sg.F's spelling; they are written here, not read from the code, so a message that names another
// function, or none, fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';

const F = sg.F;

test('a non-Tensor or disposed tensor argument of an sg.F layer function is named with the function', () => {
  const x = sg.ones([1, 2, 4]), x4 = sg.ones([1, 2, 4, 4]), w = sg.ones([3, 2]), w3 = sg.ones([2, 2, 1]), w4 = sg.ones([2, 2, 1, 1]);
  const q = sg.ones([1, 2, 4]);
  const gone = sg.ones([2]);
  gone.dispose();
  // [fn name, argument name, call with the bad value v in that argument]
  const cases = [
    ['linear', 'input', (v) => F.linear(v, w)],
    ['linear', 'weight', (v) => F.linear(sg.ones([1, 2]), v)],
    ['bilinear', 'input1', (v) => F.bilinear(v, x, w3)],
    ['bilinear', 'input2', (v) => F.bilinear(x, v, w3)],
    ['bilinear', 'weight', (v) => F.bilinear(x, x, v)],
    ['conv1d', 'input', (v) => F.conv1d(v, w3)],
    ['conv1d', 'weight', (v) => F.conv1d(x, v)],
    ['conv2d', 'input', (v) => F.conv2d(v, w4)],
    ['conv2d', 'weight', (v) => F.conv2d(x4, v)],
    ['convTranspose2d', 'input', (v) => F.convTranspose2d(v, w4)],
    ['convTranspose1d', 'input', (v) => F.convTranspose1d(v, w3)],
    ['convTranspose1d', 'weight', (v) => F.convTranspose1d(x, v)],
    ['maxPool1d', 'input', (v) => F.maxPool1d(v, 2)],
    ['maxPool2d', 'input', (v) => F.maxPool2d(v, 2)],
    ['avgPool1d', 'input', (v) => F.avgPool1d(v, 2)],
    ['avgPool2d', 'input', (v) => F.avgPool2d(v, 2)],
    ['adaptiveAvgPool1d', 'input', (v) => F.adaptiveAvgPool1d(v, 2)],
    ['adaptiveAvgPool2d', 'input', (v) => F.adaptiveAvgPool2d(v, 2)],
    ['dropout', 'input', (v) => F.dropout(v, 0.5)],
    ['dropout2d', 'input', (v) => F.dropout2d(v, 0.5)],
    ['layerNorm', 'input', (v) => F.layerNorm(v, [4])],
    ['batchNorm', 'input', (v) => F.batchNorm(v, null, null, null, null, { training: true })],
    ['groupNorm', 'input', (v) => F.groupNorm(v, 1)],
    ['instanceNorm', 'input', (v) => F.instanceNorm(v)],
    ['embedding', 'weight', (v) => F.embedding(sg.tensor([0], { dtype: 'int32' }), v)],
    ['normalize', 'input', (v) => F.normalize(v)],
    ['glu', 'input', (v) => F.glu(v)],
    ['scaledDotProductAttention', 'query', (v) => F.scaledDotProductAttention(v, q, q)],
    ['scaledDotProductAttention', 'key', (v) => F.scaledDotProductAttention(q, v, q)],
    ['scaledDotProductAttention', 'value', (v) => F.scaledDotProductAttention(q, q, v)],
  ];
  for (const [fn, arg, call] of cases) {
    const notTensor = `${fn}: expected '${arg}' to be a Tensor, got 'x'`;
    assert.throws(() => call('x'), (e) => e instanceof Error && e.message === notTensor, notTensor);
    const disposed = `${fn}: Tensor is disposed (argument '${arg}')`;
    assert.throws(() => call(gone), (e) => e instanceof Error && e.message === disposed, disposed);
  }
  sg.dispose([x, x4, w, w3, w4, q]);
});
