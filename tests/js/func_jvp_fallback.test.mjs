// sg.func.jvp through ops whose forward-mode rule declines (tanh-approximated gelu, a linear with
// the fused 'gelu_tanh' activation): jvp must fall back to the double-VJP and still give the
// exact tangent. The expected tangents are the hand derivative of PyTorch's
// gelu(approximate='tanh') = z/2 · (1 + tanh(√(2/π)(z + 0.044715 z³))), times the input tangent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';

/** d/dz of the tanh-approximated gelu. */
function dGeluTanh(z) {
  const k = Math.sqrt(2 / Math.PI), u = k * (z + 0.044715 * z ** 3), th = Math.tanh(u);
  return 0.5 * (1 + th) + 0.5 * z * (1 - th * th) * k * (1 + 3 * 0.044715 * z * z);
}

test("jvp of gelu(approximate 'tanh') and of linear with activation 'gelu_tanh' equal the hand derivative", () => {
  sg.tidy(() => {
    const xs = [-1.5, 0.3, 2], ts = [1, 2, -1];
    const x = sg.tensor(xs), t = sg.tensor(ts);
    const [y, ty] = sg.func.jvp((a) => sg.F.gelu(a, { approximate: 'tanh' }), [x], [t]);
    assert.deepEqual(y.shape, [3]);
    ty.toArray().forEach((v, i) => assert.ok(Math.abs(v - dGeluTanh(xs[i]) * ts[i]) < 1e-5, `gelu tanh: ${v}`));
    // linear: z = x·w + b = 0.5·(−1.5) − 0.3 + 4 + 0.1; its tangent 0.5·1 − 2 − 2
    const w = sg.tensor([[0.5, -1, 2]]), b = sg.tensor([0.1]);
    const [, tz] = sg.func.jvp((a) => sg.F.linear(a, w, b, { activation: 'gelu_tanh' }), [x], [t]);
    const z = 0.5 * -1.5 - 0.3 + 4 + 0.1;
    assert.ok(Math.abs(tz.item() - dGeluTanh(z) * (0.5 - 2 - 2)) < 1e-5, `linear gelu_tanh: ${tz.item()}`);
  });
});
