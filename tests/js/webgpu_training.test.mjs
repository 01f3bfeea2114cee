// Training on WebGPU (Dawn on SwiftShader, webgpu_env.mjs) reaches wasm's held-out accuracy:
// the same MNIST MLP (and the demos' CNN: Conv2d + ReLU + MaxPool2d twice, fused by
// nn.Sequential, then Linear), seed, data order and schedule on both backends, within 1 point,
// with no op falling back to wasm (no console warning) and the loop's counts kept.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { gpu, why } from './webgpu_env.mjs';
import { init } from '../../npm/dist/index.mjs';

const warnings = [];
const realWarn = console.warn;
after(() => {
  if (gpu) setTimeout(() => process.exit(process.exitCode ?? 0), 100); // Dawn keeps Node alive otherwise
});

// Trains the model `build(nn)` on the digits with Adam, the same seed and data order on every
// backend, syncing once per epoch (as a loop that reports progress would) and once after
// `warmup` steps; returns the held-out accuracy and the webgpu counts (zeros on wasm).
async function train(sg, build, { data, batchSize, lr, epochs, warmup = 3 }) {
  sg.manualSeed(0);
  const digits = await sg.datasets.mnist(data); // on the default device
  const [trainSet, held] = [digits.train, digits.test].map(({ x, y }) => ({ x: sg.tidy(() => x.sub(0.1307).div(0.3081)), y }));
  sg.dispose([digits.train.x, digits.test.x]);
  const model = build(sg.nn);
  const loader = new sg.data.DataLoader(trainSet, { batchSize, shuffle: true, seed: 0 });
  const opt = new sg.optim.Adam(model.parameters(), { lr });
  const s0 = sg.webgpuStats();
  let steps = 0, warm = null;
  for (let e = 0; e < epochs; e++) {
    for (const b of loader) {
      sg.tidy(() => {
        opt.zeroGrad();
        sg.F.crossEntropy(model(b.x), b.y).backward();
        opt.step();
      });
      sg.dispose(b);
      if (++steps === warmup) {
        await sg.sync();
        warm = { stats: sg.webgpuStats(), memory: sg.memory() };
      }
    }
    await sg.sync();
  }
  const s1 = sg.webgpuStats();
  const m1 = sg.memory();
  model.eval();
  const correct = sg.tidy(() => sg.noGrad(() => model(held.x).argmax(1).eq(held.y).sum()));
  const accuracy = (await correct.data())[0] / held.y.shape[0];
  sg.dispose([correct, trainSet.x, trainSet.y, held.x, held.y]);
  model.dispose();
  opt.dispose();
  return {
    accuracy, steps, submits: s1.submits - s0.submits,
    buffersAfterWarmup: s1.buffersCreated - warm.stats.buffersCreated,
    gpuBytes: [warm.memory.gpuBytes, m1.gpuBytes], resident: [warm.stats.bytesResident, s1.bytesResident],
  };
}

// The same run on wasm, then on webgpu with console warnings caught; checks the accuracies
// (within 1 point), that nothing fell back, the submits per step and flat GPU memory after warm-up.
async function wasmThenWebgpu(t, build, run, minAccuracy) {
  const sg = await init(); // wasm first
  const wasm = await train(sg, build, run);
  await init({ backend: 'webgpu', gpu });
  warnings.length = 0;
  console.warn = (...a) => warnings.push(a.join(' '));
  const webgpu = await train(sg, build, run);
  console.warn = realWarn;
  t.diagnostic(`held-out accuracy: wasm ${wasm.accuracy}, webgpu ${webgpu.accuracy}; webgpu ${webgpu.submits} submits in ${webgpu.steps} steps, ` +
    `${webgpu.buffersAfterWarmup} buffers created after warm-up, GPU bytes ${webgpu.gpuBytes.join(' → ')}, resident ${webgpu.resident.join(' → ')}`);
  assert.ok(wasm.accuracy > minAccuracy, `wasm accuracy ${wasm.accuracy}`);
  assert.ok(Math.abs(webgpu.accuracy - wasm.accuracy) <= 0.01, `webgpu ${webgpu.accuracy} vs wasm ${wasm.accuracy}`);
  assert.deepEqual(warnings, []);
  assert.ok(webgpu.submits <= 2 * webgpu.steps + run.epochs + 2, `${webgpu.submits} submits for ${webgpu.steps} steps`);
  assert.equal(webgpu.buffersAfterWarmup, 0);
  assert.equal(webgpu.gpuBytes[1], webgpu.gpuBytes[0]);
  assert.equal(webgpu.resident[1], webgpu.resident[0]);
}

test('the MNIST MLP trains on webgpu to wasm held-out accuracy ± 1 point, without fallbacks', { skip: gpu ? false : why }, async (t) => {
  const mlp = (nn) => new nn.Sequential(new nn.Flatten(), new nn.Linear(784, 128), new nn.ReLU(), new nn.Linear(128, 10));
  // 4,096 training digits, 64 whole batches (the default 8,000 doubled the test's time on SwiftShader
  // for the same checks; a last, partial batch would need buffers of its own after the warm-up).
  await wasmThenWebgpu(t, mlp, { data: { trainSize: 4096, testSize: 2000 }, batchSize: 64, lr: 2e-3, epochs: 2 }, 0.9);
});

// The CNN of demos/node/train.mjs, narrower and on a slice of the digits, so that SwiftShader
// runs it in under a minute.
test('the MNIST CNN (fused Conv2d+ReLU+MaxPool2d) trains on webgpu to wasm held-out accuracy ± 1 point, without fallbacks, with flat GPU memory',
  { skip: gpu ? false : why }, async (t) => {
    const cnn = (nn) => new nn.Sequential(
      new nn.Conv2d(1, 4, 5, { padding: 2 }), new nn.ReLU(), new nn.MaxPool2d(2),
      new nn.Conv2d(4, 8, 3, { padding: 1 }), new nn.ReLU(), new nn.MaxPool2d(2),
      new nn.Flatten(), new nn.Linear(8 * 49, 10),
    );
    await wasmThenWebgpu(t, cnn, { data: { trainSize: 1024, testSize: 500 }, batchSize: 32, lr: 3e-3, epochs: 2 }, 0.8);
  });
