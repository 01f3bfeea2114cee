// nn.RNN / LSTM / GRU on WebGPU (Dawn on SwiftShader, webgpu_env.mjs): the recurrent layer's
// gate math runs as one WGSL kernel a step (web/webgpu/kernels/rnn.ts through
// Backend::rnn_step_f32 / rnn_step_backward_f32, src/nn/rnn.cpp), not on wasm. Checked: every
// layer case of tests/data/rnn_ref.json (PyTorch 1.13, gen_rnn.py: layers, bidirectional,
// batchFirst, projSize, dropout between layers, unbatched, no bias) — outputs, states and the
// gradients of input, states and every parameter — against PyTorch and against the same case on
// wasm; dispatches a time step counted (forward and backward, from the difference between two
// sequence lengths) and no buffer created after warm-up in a training loop; the op is no longer
// in the fallback list.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { gpu, why } from './webgpu_env.mjs';
import { init } from '../../npm/dist/index.mjs';
import { readRef } from './gradcheck_helpers.mjs';
import { settleFinalizers } from './gc_settle.mjs';

const skip = gpu ? false : why;
const sg = gpu ? await init({ backend: 'webgpu', gpu }) : null;
after(() => {
  if (gpu) setTimeout(() => process.exit(process.exitCode ?? 0), 100); // Dawn keeps Node alive otherwise
});

const ref = readRef('rnn_ref.json');
// PyTorch's BLAS and SwiftShader's exp sum and round differently from wasm (7e-7 seen on wasm).
const TOL = 1e-5;

/** Largest |a − b| / (1 + |b|) over two flat arrays of one length (Infinity when they differ in length). */
function worst(a, b) {
  if (a.length !== b.length) return Infinity;
  let w = 0;
  for (let i = 0; i < a.length; i++) w = Math.max(w, Math.abs(a[i] - b[i]) / (1 + Math.abs(b[i])));
  return Number.isNaN(w) ? Infinity : w;
}

/** One reference case on `device`: results, input gradients and parameter gradients as flat arrays. */
async function runCase(c, device) {
  const module = new sg.nn[c.cls](c.inputSize, c.hiddenSize, c.opts);
  const t = (e, opts = {}) => sg.tensor(Float32Array.from(e.data), { shape: e.shape, device, ...opts });
  module.loadStateDict(Object.fromEntries(Object.entries(c.state).map(([k, v]) => [k, t(v)])));
  module.to(device);
  if (c.mode === 'train') module.train();
  else module.eval();
  const inputs = c.inputs.map((e) => t(e, { requiresGrad: true }));
  const [x, ...states] = inputs;
  let results;
  if (c.cls === 'LSTM') {
    const [out, [h, cc]] = module.forward(x, states.length ? states : undefined);
    results = [out, h, cc];
  } else results = module.forward(x, states[0]);
  const loss = results.map((r, i) => r.mul(t(c.weights[i])).sum()).reduce((p, q) => p.add(q));
  loss.backward();
  const got = {
    results: await Promise.all(results.map((r) => r.data())),
    inputGrads: await Promise.all(inputs.map((v) => v.grad.data())),
    paramGrads: Object.fromEntries(await Promise.all(module.namedParameters().map(async ([n, p]) => [n, await p.grad.data()]))),
    devices: [...results, ...module.parameters().map((p) => p.grad)].map((r) => r.device),
  };
  sg.dispose([...inputs, ...results, loss]);
  module.dispose();
  return got;
}

const layerCases = ref.cases.filter((c) => !c.cls.endsWith('Cell'));

test('rnnLayer has a WGSL kernel: it is not in the WebGPU fallback list', { skip }, () => {
  const cov = sg.webgpuCoverage();
  assert.ok(cov.withKernel.includes('rnnLayer'));
  assert.ok(!cov.withoutKernel.some((e) => e.op === 'rnnLayer'));
});

test('every recurrent layer case on webgpu: results and gradients equal PyTorch 1.13 and the wasm path', { skip }, async () => {
  const failures = [];
  for (const c of layerCases) {
    sg.setBackend('wasm');
    const cpu = await runCase(c, 'cpu');
    sg.setBackend('webgpu');
    const dev = await runCase(c, 'webgpu');
    sg.setBackend('wasm');
    if (!dev.devices.every((d) => d === 'webgpu')) failures.push(`${c.name}: results on ${dev.devices.join(',')}`);
    const check = (what, got, wasm, torch) => {
      const e1 = worst(got, torch.data), e2 = worst(got, wasm);
      if (!(e1 <= TOL) || !(e2 <= TOL)) failures.push(`${c.name} ${what}: ${e1} from PyTorch, ${e2} from wasm`);
    };
    c.results.forEach((r, i) => check(`result ${i}`, dev.results[i], cpu.results[i], r));
    c.inputGrads.forEach((r, i) => check(`gradient of input ${i}`, dev.inputGrads[i], cpu.inputGrads[i], r));
    for (const [n, r] of Object.entries(c.paramGrads)) check(`gradient of ${n}`, dev.paramGrads[n], cpu.paramGrads[n], r);
  }
  assert.deepEqual(failures, []);
});

/** Dispatches of one forward (no grad) and of one backward of a one-layer `cls` over T steps. */
async function countSteps(make, T) {
  sg.manualSeed(5);
  const m = make();
  m.to('webgpu');
  const x = sg.randn([T, 3, 4], { device: 'webgpu' });
  await sg.sync();
  let s0 = sg.webgpuStats().dispatches;
  sg.noGrad(() => sg.tidy(() => { m.forward(x); }));
  await sg.sync();
  const forward = sg.webgpuStats().dispatches - s0;
  const loss = sg.tidy(() => m.forward(x)[0].sum());
  await sg.sync();
  s0 = sg.webgpuStats().dispatches;
  loss.backward();
  await sg.sync();
  const backward = sg.webgpuStats().dispatches - s0;
  sg.dispose([x, loss]);
  m.zeroGrad();
  m.dispose();
  return { forward, backward };
}

test('dispatches per time step: 2 forward and 2 backward (LSTM with projection 3 and 3), whatever the length', { skip }, async (t) => {
  sg.setBackend('webgpu');
  // A step: the product h·W_hhᵀ + b_hh and the cell kernel; backward the cell kernel and dA·W_hh.
  // With a projection, one product more each way, and backward the sum g_out + dh that the
  // projection's gradient starts from, which the runtime fuses into the previous step's product
  // (gemm.ts: an elementwise op on a held product's output goes into its write-back).
  const kinds = [
    ['LSTM', () => new sg.nn.LSTM(4, 6), 2, 2],
    ['LSTM projSize 3', () => new sg.nn.LSTM(4, 6, { projSize: 3 }), 3, 3],
    ['GRU', () => new sg.nn.GRU(4, 6), 2, 2],
    ['RNN tanh', () => new sg.nn.RNN(4, 6), 2, 2],
    ['RNN relu', () => new sg.nn.RNN(4, 6, { nonlinearity: 'relu' }), 2, 2],
  ];
  const seen = [];
  for (const [name, make, fwd, bwd] of kinds) {
    const a = await countSteps(make, 5), b = await countSteps(make, 13);
    const perStep = { forward: (b.forward - a.forward) / 8, backward: (b.backward - a.backward) / 8 };
    seen.push(`${name}: ${perStep.forward} forward, ${perStep.backward} backward a step (T 5: ${a.forward} + ${a.backward})`);
    assert.deepEqual(perStep, { forward: fwd, backward: bwd }, name);
  }
  sg.setBackend('wasm');
  t.diagnostic(seen.join('; '));
});

test('training a two-layer bidirectional LSTM and GRU on webgpu: no buffer created after warm-up, memory flat, loss falls', { skip }, async (t) => {
  sg.setBackend('webgpu');
  sg.manualSeed(9);
  const lstm = new sg.nn.LSTM(3, 8, { numLayers: 2, bidirectional: true, batchFirst: true, dropout: 0.25 });
  const gru = new sg.nn.GRU(16, 4, { numLayers: 2 });
  const head = new sg.nn.Linear(4, 1);
  const params = [...lstm.parameters(), ...gru.parameters(), ...head.parameters()];
  const opt = new sg.optim.Adam(params, { lr: 1e-2 });
  const x = sg.randn([4, 12, 3]);
  const y = x.narrow(2, 0, 1).mul(0.5).tanh();
  const step = () => sg.tidy(() => {
    opt.zeroGrad();
    const [a] = lstm.forward(x);
    const [b] = gru.forward(a.transpose(0, 1));
    const loss = sg.F.mseLoss(head.forward(b.transpose(0, 1)), y);
    loss.backward();
    opt.step();
    return loss;
  });
  const losses = [];
  const steps = async (n) => {
    for (let k = 0; k < n; k++) {
      const l = step();
      losses.push((await l.data())[0]);
      l.dispose();
    }
    await sg.sync();
    await settleFinalizers(); // earlier tests' forgotten tensors must not be freed between the counts
    return [sg.webgpuStats(), sg.memory()];
  };
  const [s0, m0] = await steps(3); // warm-up: the optimizer's state, the kernels' pipelines and buffers
  const [s1, m1] = await steps(6);
  opt.zeroGrad();
  sg.dispose([x, y, lstm, gru, head]);
  opt.dispose();
  sg.setBackend('wasm');
  t.diagnostic(`losses ${losses.map((v) => v.toFixed(4)).join(', ')}; ${(s1.dispatches - s0.dispatches) / 6} dispatches a step`);
  assert.equal(s1.buffersCreated, s0.buffersCreated, 'buffers created after warm-up');
  assert.equal(m1.handles, m0.handles, 'tensors left behind');
  assert.ok(losses.at(-1) < losses[0], `loss ${losses[0]} → ${losses.at(-1)}`);
});

test('the gradient of a gradient through an LSTM and a GRU on webgpu (the recorded backward) equals wasm', { skip }, async () => {
  const run = async (device) => {
    sg.setBackend(device === 'webgpu' ? 'webgpu' : 'wasm');
    sg.manualSeed(21);
    const out = [];
    for (const m of [new sg.nn.LSTM(3, 4, { projSize: 2 }), new sg.nn.GRU(3, 4, { bidirectional: true })]) {
      m.to(device);
      const x = sg.tensor(Float32Array.from({ length: 24 }, (_, k) => Math.sin(1.7 * k)), { shape: [4, 2, 3], device, requiresGrad: true });
      const [y] = m.forward(x);
      const [gx] = sg.autograd.grad(y.mul(y).sum(), [x], { createGraph: true });
      const w = m.parameters()[1];
      const [ggx, ggw] = sg.autograd.grad(gx.pow(2).sum(), [x, w]);
      out.push(...[await gx.data(), await ggx.data(), await ggw.data()].map((a) => Array.from(a)));
      sg.dispose([x, y, gx, ggx, ggw]);
      m.dispose();
    }
    sg.setBackend('wasm');
    return out;
  };
  const want = await run('cpu'), got = await run('webgpu');
  const errors = want.map((w, i) => worst(got[i], w));
  assert.ok(errors.every((e) => e <= 1e-4), `largest relative errors ${errors.join(', ')}`);
});
