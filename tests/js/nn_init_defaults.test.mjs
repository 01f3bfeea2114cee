// nn.init defaults no test pinned, against PyTorch 1.13's documented ones: uniform_(t) is U(0, 1)
// (a = 0, b = 1), trunc_normal_(t) cuts N(0, 1) at a = -2, b = 2, and xavier_uniform_ with an
// options object lacking gain uses gain = 1 (bound √(6 / (fan_in + fan_out))). Checked on the
// range of many draws (the bounds are sharp: with 20,000 draws the extremes come within 1% of them).
import assert from 'node:assert/strict';
import test from 'node:test';
import { sg } from './helpers.mjs';

const { init } = sg.nn;
const range = (t) => {
  const v = Array.from(t.dataSync());
  return [Math.min(...v), Math.max(...v), v.reduce((a, b) => a + b, 0) / v.length];
};

test('uniform_(t) draws from U(0, 1)', () => {
  sg.manualSeed(7);
  const [lo, hi, mean] = range(init.uniform_(sg.empty([20000])));
  assert.ok(lo >= 0 && lo < 0.01, `min ${lo}`);
  assert.ok(hi < 1 && hi > 0.99, `max ${hi}`);
  assert.ok(Math.abs(mean - 0.5) < 0.01, `mean ${mean}`);
});

test('truncNormal_(t) draws N(0, 1) cut to [-2, 2]', () => {
  sg.manualSeed(8);
  const [lo, hi, mean] = range(init.truncNormal_(sg.empty([20000])));
  assert.ok(lo >= -2 && lo < -1.95, `min ${lo}`);
  assert.ok(hi <= 2 && hi > 1.95, `max ${hi}`);
  assert.ok(Math.abs(mean) < 0.03, `mean ${mean}`);
});

test('xavierUniform_(t, {}) uses gain 1: U(-b, b), b = sqrt(6 / (fanIn + fanOut))', () => {
  sg.manualSeed(9);
  const b = Math.sqrt(6 / (200 + 100));
  for (const gain of [{}, undefined]) {
    const [lo, hi] = range(init.xavierUniform_(sg.empty([100, 200]), gain));
    assert.ok(lo >= -b - 1e-6 && lo < -0.99 * b, `min ${lo} (b ${b})`);
    assert.ok(hi <= b + 1e-6 && hi > 0.99 * b, `max ${hi} (b ${b})`);
  }
});

test('init functions: a non-Tensor, a disposed Tensor and a strided view are Errors naming them', () => {
  const d = sg.zeros([2]);
  d.dispose();
  assert.throws(() => init.uniform_(d), /^Error: uniform_: expected a Tensor, got a disposed Tensor$/);
  assert.throws(() => init.uniform_([1, 2]), /^Error: uniform_: expected a Tensor, got \[1, 2\]$/);
  assert.throws(() => init.constant_(d, 1), /^Error: constant_: expected a Tensor, got a disposed Tensor$/);
  assert.throws(() => init.uniform_(sg.zeros([2, 3]).transpose(0, 1)), /^Error: uniform_: cannot write in place into a strided view of shape \[3, 2\] \(use a contiguous tensor\)$/);
  assert.deepEqual(Array.from(init.constant_(sg.zeros([2]), 1.5).dataSync()), [1.5, 1.5]);
});
