// Tensor.backward(gradOutput) with a number or a bad value (npm/src/autograd/backward.ts): the
// number becomes a temporary scalar handle that is released after the backward, also when the
// backward throws; anything but a Tensor, a number, undefined or null is an Error naming it.
// Found by scripts/mutation.sh (Stryker on backward.ts:60-80): dropping the release, or the check
// of the value's type, left every other test passing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';

// The module's live tensor ids: a leaked temporary handle shows here, not in the tensor count.
const handles = () => sg.memory().handles;

test('backward(number) scales the gradient and leaves no handle behind', () => {
  const x = sg.tensor([1, -2, 3], { requiresGrad: true });
  const before = handles();
  for (let k = 0; k < 5; k++) {
    sg.tidy(() => x.square().sum().backward(2.5));
  }
  assert.equal(handles(), before, 'live handles after five backward(2.5) calls');
  // d/dx Σx² = 2x, five calls accumulate, each scaled by 2.5: 25x.
  assert.deepEqual(Array.from(x.grad.dataSync()), [25, -50, 75]);
  x.dispose();
});

test('backward(number) that throws still releases its temporary handle', () => {
  const x = sg.tensor([1, 2]);  // does not require grad: backward refuses it
  const before = handles();
  for (let k = 0; k < 3; k++) {
    throwsWith(() => sg.tidy(() => x.mul(2).sum().backward(1)), 'backward');
  }
  assert.equal(handles(), before, 'live handles after three failed backward(1) calls');
  x.dispose();
});

test('backward(gradOutput) of another type is an Error naming what it got; null and undefined mean none', () => {
  const x = sg.tensor([1, 2], { requiresGrad: true });
  sg.tidy(() => {
    const y = x.mul(3).sum();
    throwsWith(() => y.backward('1'), 'backward: expected gradOutput to be a Tensor, a number or undefined', /got .*string|got "1"|got '1'/);
    throwsWith(() => y.backward([1]), 'backward: expected gradOutput to be a Tensor, a number or undefined');
    assert.equal(x.grad, null, 'nothing was accumulated by the refused calls');
    y.backward(null, { retainGraph: true });
    y.backward(undefined);
  });
  assert.deepEqual(Array.from(x.grad.dataSync()), [6, 6]);
  x.dispose();
});
