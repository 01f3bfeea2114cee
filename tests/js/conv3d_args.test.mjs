// F.conv3d and F.convTranspose3d (nn/conv3d.ts) name themselves and the tensor argument they refuse:
// a non-Tensor is "<fn>: expected '<arg>' to be a Tensor, got <what>" ("a Tensor or null" for bias), a disposed one
// "<fn>: Tensor is disposed (argument '<arg>')", for input and weight (bias: its type only) (API.md: bad input gives
// an Error saying expected vs got). The texts are written here, not read from the code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';

test('conv3d / convTranspose3d: a non-Tensor or disposed input, weight or bias is named with the function', () => {
  const x = sg.ones([1, 2, 3, 3, 3]), w = sg.ones([2, 2, 1, 1, 1]), b = sg.ones([2]);
  const gone = sg.ones([2]);
  gone.dispose();
  for (const fn of ['conv3d', 'convTranspose3d']) {
    const f = sg.F[fn];
    const calls = { input: (v) => f(v, w, b), weight: (v) => f(x, v, b), bias: (v) => f(x, w, v) };
    for (const [arg, call] of Object.entries(calls)) {
      // bias is optional: PyTorch's None, sg's null.
      const notTensor = `${fn}: expected '${arg}' to be a Tensor${arg === 'bias' ? ' or null' : ''}, got 'x'`;
      assert.throws(() => call('x'), (e) => e instanceof Error && e.message === notTensor, notTensor);
      if (arg === 'bias') continue;
      const disposed = `${fn}: Tensor is disposed (argument '${arg}')`;
      assert.throws(() => call(gone), (e) => e instanceof Error && e.message === disposed, disposed);
    }
    const ok = f(x, w, b);
    assert.deepEqual(ok.shape, [1, 2, 3, 3, 3]);
    ok.dispose();
  }
  sg.dispose([x, w, b]);
});
