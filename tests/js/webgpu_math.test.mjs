// The WGSL kernels of the rounding, trigonometric and hyperbolic ops (floor … cosh, atan2) against
// the CPU's (evaluated in double, rounded once): a dense sweep within 1e-6 relative, and the
// special values (±0, ±∞, NaN, halves for round, |x| > 1 for asin/acos, atan2 of zeros and
// infinities) exactly as the CPU gives them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gpu, why } from './webgpu_env.mjs';
import { init } from '../../npm/dist/index.mjs';

const same = (a, b, tol) => Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b)) || Math.abs(a - b) <= tol * Math.abs(a);

test('rounding, trigonometric and hyperbolic ops on webgpu equal the CPU (sweep and special values)', { skip: gpu ? false : why }, async () => {
  const sg = await init({ backend: 'webgpu', gpu });
  const n = 4001;
  const wide = Float32Array.from({ length: n }, (_, i) => -10 + (20 * i) / (n - 1));
  const unit = Float32Array.from({ length: n }, (_, i) => -1 + (2 * i) / (n - 1));
  const specials = [NaN, Infinity, -Infinity, 0, -0, 0.5, 1.5, 2.5, -2.5, -0.5, 1, -1, 2, 100, 1e-7, -3e-6];
  for (const op of ['floor', 'ceil', 'round', 'trunc', 'tan', 'atan', 'asin', 'acos', 'sinh', 'cosh']) {
    const sweep = op === 'asin' || op === 'acos' ? unit : wide;
    for (const values of [Array.from(sweep), specials]) {
      const g = sg.tensor(values);
      assert.equal(g.device, 'webgpu');
      const got = await g[op]().data();
      const want = sg.tensor(values, { device: 'cpu' })[op]().dataSync();
      values.forEach((v, i) => assert.ok(same(want[i], got[i], 1e-6), `${op}(${v}): cpu ${want[i]}, webgpu ${got[i]}`));
    }
  }
  const ys = [0, -0, 0, -0, 1, -1, Infinity, -Infinity, Infinity, NaN, 1, -1, 3, -2];
  const xs = [0, 0, -0, -0, Infinity, Infinity, Infinity, -Infinity, 2, 1, -Infinity, 0, -4, 0.5];
  const got = await sg.atan2(sg.tensor(ys), sg.tensor(xs)).data();
  const want = sg.atan2(sg.tensor(ys, { device: 'cpu' }), sg.tensor(xs, { device: 'cpu' })).dataSync();
  ys.forEach((y, i) => assert.ok(same(want[i], got[i], 1e-6), `atan2(${y}, ${xs[i]}): cpu ${want[i]}, webgpu ${got[i]}`));
  assert.ok(sg.webgpuCoverage().withKernel.includes('atan2'));
  process.exitCode = 0;
});
