// nn paths that only a GPU device takes, on Dawn's WebGPU over SwiftShader (webgpu_env.mjs; skipped
// without it): ctcLoss refuses concatenated (1-D) targets on 'webgpu' (splitting them reads them
// on the CPU) and takes them padded; BatchNorm with momentum null (a cumulative average) refuses
// to train on 'webgpu' (it reads num_batches_tracked every step) and trains with a momentum;
// clipGradValue_ clamps gradients held on the GPU (PyTorch's clip_grad_value_: into
// [-clipValue, clipValue]). Values hand-computed.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { gpu, why } from './webgpu_env.mjs';
import { init } from '../../npm/dist/index.mjs';

const skip = gpu ? false : why;
const sg = gpu ? await init({ backend: 'webgpu', gpu }) : await init();
after(() => {
  sg.setBackend('wasm');
  if (gpu) setTimeout(() => process.exit(process.exitCode ?? 0), 100); // Dawn keeps Node alive otherwise
});

function throwsWith(fn, re) {
  let caught;
  try { fn(); } catch (e) { caught = e; }
  assert.ok(caught instanceof Error, `expected an Error matching ${re}`);
  assert.match(caught.message, re);
}

test('ctcLoss on webgpu: concatenated targets are an Error naming the device; padded ones work', { skip }, async () => {
  const lp = sg.full([5, 2, 3], Math.log(1 / 3));
  assert.equal(lp.device, 'webgpu');
  const flat = sg.tensor([1, 2], { dtype: 'int32' });
  throwsWith(() => sg.F.ctcLoss(lp, flat, [5, 5], [1, 1]), /^ctcLoss: concatenated \(1-D\) targets are split on the CPU; on 'webgpu' give them padded, as \[N, S\]$/);
  const loss = sg.F.ctcLoss(lp, sg.tensor([[1], [2]], { dtype: 'int32' }), [5, 5], [1, 1], { reduction: 'sum' });
  // Each sample: -log(15 / 3^5) (15 frame strings collapse to a one-label target).
  const v = await loss.data();
  assert.ok(Math.abs(v[0] - 2 * Math.log(243 / 15)) < 1e-4, `${v[0]}`);
});

test('BatchNorm with momentum null cannot train on webgpu; with a momentum it does', { skip }, async () => {
  const x = sg.tensor([[1, 2], [3, 6]]);
  const bn = new sg.nn.BatchNorm1d(2, { momentum: null });
  assert.equal(bn.num_batches_tracked.device, 'webgpu');
  throwsWith(() => bn.forward(x), /^BatchNorm1d: momentum null \(a cumulative average\) reads num_batches_tracked every step, which a GPU cannot answer synchronously; give a momentum, or keep the module on the cpu$/);
  bn.eval();
  assert.deepEqual(bn.forward(x).shape, [2, 2]);
  const ok = new sg.nn.BatchNorm1d(2);
  ok.forward(x);
  // running_mean = 0.9·0 + 0.1·batch mean [2, 4]
  const rm = await ok.running_mean.data();
  assert.ok(Math.abs(rm[0] - 0.2) < 1e-6 && Math.abs(rm[1] - 0.4) < 1e-6, `${Array.from(rm)}`);
});

test('clipGradValue_ clamps gradients on webgpu', { skip }, async () => {
  const w = sg.tensor([1, 2, 3]).requiresGrad_();
  assert.equal(w.device, 'webgpu');
  w.mul(sg.tensor([-5, 0.5, 4])).sum().backward();
  sg.nn.utils.clipGradValue_([w], 1);
  assert.deepEqual(Array.from(await w.grad.data()), [-1, 0.5, 1]);
});

test('PackedSequence: batchSizes as an int32 tensor on webgpu is an Error naming the device', { skip }, () => {
  const sizes = sg.tensor([2, 1], { dtype: 'int32' });
  assert.equal(sizes.device, 'webgpu');
  throwsWith(() => new sg.nn.utils.rnn.PackedSequence(sg.zeros([3, 1]), sizes),
    /^PackedSequence: expected 'batchSizes' as an array of integers or a 1-D int32 Tensor on the CPU \(it is read synchronously\), got a 1-D int32 Tensor on 'webgpu'$/);
});
