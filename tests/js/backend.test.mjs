// Backends: 'reference' (scalar loops) and 'wasm' (SIMD) agree within tolerance on the
// same computations, forward and backward; 'webgpu' without a started GPU is refused with a clear Error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, close, throwsWith } from './helpers.mjs';

function workload() {
  return sg.tidy(() => {
    sg.manualSeed(11);
    const a = sg.randn([37, 29]);
    const b = sg.randn([29, 13]);
    const x = sg.randn([5, 13], { requiresGrad: true });
    const h = a.matmul(b); // [37, 13]
    const y = h.matmul(x.T).tanh().softmax(1); // [37, 5]
    const loss = y.log().mul(y).sum().add(x.sigmoid().logsumexp(1).mean()).add(h.relu().var().sqrt());
    loss.backward();
    return {
      h: h.toArray(),
      y: y.toArray(),
      loss: loss.item(),
      grad: x.grad.toArray(),
      gelu: h.gelu().exp().mean(0).toArray(),
      norm: h.norm(2, 0).toArray(),
      bmm: sg.randn([3, 4, 6]).matmul(sg.randn([6, 5])).toArray(),
    };
  });
}

test("setBackend('reference') gives the same results as 'wasm' within tolerance", () => {
  assert.equal(sg.getBackend(), 'wasm');
  const fast = workload();
  try {
    sg.setBackend('reference');
    assert.equal(sg.getBackend(), 'reference');
    const ref = workload();
    close(fast.h, ref.h, 1e-4);
    close(fast.y, ref.y, 1e-4);
    close(fast.loss, ref.loss, 1e-4);
    close(fast.grad, ref.grad, 1e-3);
    close(fast.gelu, ref.gelu, 1e-4);
    close(fast.norm, ref.norm, 1e-4);
    close(fast.bmm, ref.bmm, 1e-4);
  } finally {
    sg.setBackend('wasm');
  }
  assert.equal(sg.getBackend(), 'wasm');
});

test("setBackend('webgpu') before init started a GPU is refused clearly and changes nothing", () => {
  throwsWith(() => sg.setBackend('webgpu'), "setBackend: backend 'webgpu' is not running", "await init({ backend: 'webgpu' })");
  throwsWith(() => sg.setBackend('gpu'), 'setBackend', "'gpu'", "'wasm'");
  assert.equal(sg.getBackend(), 'wasm');
});
