// relu at NaN and -0 through the public API on both backends: NaN stays NaN and the gradient
// passes there, as PyTorch 1.13 gives; -0 gives +0 (PyTorch keeps -0: a documented deviation).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';

for (const backend of ['reference', 'wasm']) {
  test(`relu keeps NaN, maps -0 to +0, and passes the gradient at NaN (${backend})`, () => {
    const before = sg.getBackend();
    sg.setBackend(backend);
    try {
      sg.tidy(() => {
        const x = sg.tensor([NaN, -1, -0, 0, 2, NaN, 3, -4, NaN], { requiresGrad: true });
        const y = sg.relu(x);
        const v = Array.from(y.dataSync());
        assert.ok(Number.isNaN(v[0]) && Number.isNaN(v[5]) && Number.isNaN(v[8]), `NaN kept: ${v}`);
        assert.ok(Object.is(v[2], 0), 'relu(-0) is +0');
        assert.deepEqual([v[1], v[3], v[4], v[6], v[7]], [0, 0, 2, 3, 0]);
        y.mul(sg.tensor([1, 2, 3, 4, 5, 6, 7, 8, 9])).sum().backward();
        assert.deepEqual(Array.from(x.grad.dataSync()), [1, 0, 0, 0, 5, 6, 7, 0, 9]);
      });
    } finally {
      sg.setBackend(before);
    }
  });
}
