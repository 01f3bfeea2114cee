// sg.autograd.Function (func/custom_function.ts): a forward that returns something other than a
// Tensor or an array of Tensors is an Error naming the Function's class and what it got, with the
// position in the array for an array result, with or without gradients recorded. The texts are
// written from that rule (API.md: bad input gives an Error saying expected vs got).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';

class Bad extends sg.autograd.Function {
  static forward(ctx, x, what) {
    return what === 'array' ? [x.mul(2), 3] : what === 'null' ? null : 'x';
  }
  static backward(ctx, g) {
    return g;
  }
}

test('a forward returning a non-Tensor: "<Class>.forward must return a Tensor or an array of Tensors, got <what>[ at <i>]"', () => {
  const x = sg.ones([2]);
  const w = sg.ones([2], { requiresGrad: true });
  for (const t of [x, w]) {
    assert.throws(() => Bad.apply(t, 'string'), { message: "Bad.forward must return a Tensor or an array of Tensors, got 'x'" });
    assert.throws(() => Bad.apply(t, 'null'), { message: 'Bad.forward must return a Tensor or an array of Tensors, got null' });
    assert.throws(() => Bad.apply(t, 'array'), { message: 'Bad.forward must return a Tensor or an array of Tensors, got 3 at 1' });
  }
  sg.dispose([x, w]);
});
