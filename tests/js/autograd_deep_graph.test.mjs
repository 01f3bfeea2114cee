// A graph as deep as a long recurrent sequence, driven from JavaScript: 100,000 recorded ops
// run backward and are freed by tidy with the module still usable and sg.memory() back where
// it was (nodes used to free their inputs recursively and overflowed the wasm stack at ~24,000).
// The length-1,000 LSTM training with flat memory is in nn_rnn.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';

const kChain = 100000;

test('autograd: a 100,000-op chain runs backward and tidy frees it, memory flat', () => {
  const a = sg.tensor([0.5, -2], { requiresGrad: true });
  const before = sg.memory();
  for (const retainGraph of [false, true]) {
    sg.tidy(() => {
      let h = a;
      for (let i = 0; i < kChain; i++) h = i % 2 ? h.add(0) : h.mul(1);
      h.sum().backward({ retainGraph });
    });
  }
  const grad = a.grad;
  assert.deepEqual(grad.toArray(), [2, 2]); // 1 per backward, accumulated twice
  sg.dispose(grad);
  a.zeroGrad();
  const after = sg.memory();
  assert.equal(after.tensors, before.tensors, 'tensors alive after the chains');
  // Without backward: the chain's last handle goes and the whole graph with it.
  sg.tidy(() => {
    let h = a;
    for (let i = 0; i < kChain; i++) h = h.mul(1);
  });
  assert.deepEqual(sg.tensor([1, 2]).add(1).toArray(), [2, 3]); // the module is still usable
  sg.dispose(a);
});
