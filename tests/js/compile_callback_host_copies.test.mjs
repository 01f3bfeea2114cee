// Callbacks of a synchronous compiled function get host copies of GPU inputs (the audit's item 6,
// npm/src/compile/compile.ts needsCopy): the same compiled function, whose synchronous sg.jsCall
// callback reads its input with dataSync() and whose vjp computes with tensor ops, gives the same
// values and gradients for CPU tensors (wasm) and WebGPU tensors (Dawn on SwiftShader,
// webgpu_env.mjs), call after call, with sg.memory() flat; so does a compiled training step
// whose callback reads the model's output. Library callbacks that compute with GPU tensors
// (gradientPenalty) keep their inputs on the device. The expected values are the same
// computation without a callback (or with it eagerly on CPU tensors), run eagerly on the CPU.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exitAfterTests, gpu, skipWithoutGpu as skip } from './webgpu_env.mjs';
import { init } from '../../npm/dist/index.mjs';
import { close, memoryOf, WV, XV } from './host_copies_cases.mjs';

let sg;
await exitAfterTests();

// The callback squares its input from host values (dataSync: only a CPU tensor can be read so)
// and returns a tensor on the default device (WebGPU here: for CPU placeholders it is read back
// before the next stage). Its vjp, d(t²)/dt · g = 2·t·g, computes with tensor ops.
const seen = [];
function squareOnHost(t) {
  seen.push(t.device);
  return sg.tensor(Array.from(t.dataSync(), (v) => v * v), { shape: t.shape });
}
const squareVjp = ({ inputs: [t] }, [g]) => g.mul(t).mul(2);

function body(x, w) {
  const h = x.mul(w).tanh();
  const sq = sg.jsCall({ shape: x.shape }, [h.add(1)], squareOnHost, { vjp: squareVjp });
  return [sq.mean(), h.sum().to('cpu')];
}

/** Values and w's gradient of body without a callback, eagerly on CPU tensors. */
function eager() {
  return sg.tidy(() => {
    const x = sg.tensor(XV, { device: 'cpu' });
    const w = sg.tensor(WV, { device: 'cpu', requiresGrad: true });
    const h = x.mul(w).tanh();
    const m = h.add(1).square().mean();
    m.backward();
    return { mean: m.item(), sum: h.sum().item(), grad: Array.from(w.grad.dataSync()) };
  });
}

test('a synchronous callback reads its input with dataSync in a synchronous compiled function: webgpu = wasm = eager CPU, values and gradients, memory flat', { skip }, async () => {
  sg = await init({ backend: 'webgpu', gpu });
  const want = eager();
  const f = sg.compile(body);
  for (const device of ['cpu', 'webgpu']) {
    const x = sg.tensor(XV, { device });
    seen.length = 0;
    let live;
    for (let call = 0; call < 4; call++) {
      const w = sg.tensor(WV, { device, requiresGrad: true });
      const out = f(x, w);
      assert.ok(Array.isArray(out), `${device}: the call returns its results, not a Promise`);
      assert.deepEqual(out.map((t) => t.device), [device, 'cpu'], `${device}: results where the trace put them`);
      const [mean, sum] = await Promise.all(out.map(async (t) => (await t.data())[0]));
      close([mean, sum], [want.mean, want.sum], 1e-6, `${device} call ${call}: values`);
      out[0].backward();
      assert.equal(w.grad.device, device, `${device}: the gradient comes back to where w lives`);
      close(Array.from(await w.grad.data()), want.grad, device === 'cpu' ? 1e-6 : 1e-5, `${device} call ${call}: w.grad`);
      sg.dispose([...out, w.grad, w]);
      await sg.sync();
      if (call === 1) live = memoryOf(sg);
      if (call > 1) assert.deepEqual(memoryOf(sg), live, `${device}: sg.memory() flat over calls`);
    }
    assert.deepEqual(seen, ['cpu', 'cpu', 'cpu', 'cpu'], `${device}: the callback gets CPU tensors, once a call`);
    x.dispose();
  }
  assert.equal(f.stats().compiles, 2);
  f.clear();
});

test('with { async: true } the same function gives the same values and gradients', { skip }, async () => {
  sg = await init({ backend: 'webgpu', gpu });
  const want = eager();
  const f = sg.compile(body, { async: true });
  for (const device of ['cpu', 'webgpu']) {
    const x = sg.tensor(XV, { device });
    const w = sg.tensor(WV, { device, requiresGrad: true });
    seen.length = 0;
    const out = await f(x, w);
    close([(await out[0].data())[0], (await out[1].data())[0]], [want.mean, want.sum], 1e-6, `${device}: values`);
    out[0].backward();
    close(Array.from(await w.grad.data()), want.grad, device === 'cpu' ? 1e-6 : 1e-5, `${device}: w.grad`);
    assert.deepEqual(seen, ['cpu'], `${device}: the callback gets a CPU tensor`);
    sg.dispose([...out, x, w]);
  }
  f.clear();
});

test('a vjp that makes its gradient on the CPU for a GPU input: the gradient is moved to the input\'s device', { skip }, async () => {
  sg = await init({ backend: 'webgpu', gpu });
  // The vjp of 3·t under the sum below (gradOutputs of ones): 3 for every element, made on the CPU.
  const triple = (t) => sg.tensor(Array.from(t.dataSync(), (v) => 3 * v), { shape: t.shape, device: 'cpu' });
  const vjp = ({ inputs: [t] }) => sg.full(t.shape, 3, { device: 'cpu' });
  const f = sg.compile((w) => sg.jsCall({ shape: [3] }, [w], triple, { vjp }).sum());
  const w = sg.tensor(WV, { device: 'webgpu', requiresGrad: true });
  const l = f(w);
  assert.equal(l.device, 'webgpu');
  close([(await l.data())[0]], [3 * (0.7 - 1.2 + 0.4)], 1e-6, 'value');
  l.backward();
  assert.equal(w.grad.device, 'webgpu');
  assert.deepEqual(Array.from(await w.grad.data()), [3, 3, 3]);
  sg.dispose([w, l]);
  f.clear();
});

test('an error in a callback that got host copies surfaces at the next sync, and the function stays usable', { skip }, async () => {
  sg = await init({ backend: 'webgpu', gpu });
  let calls = 0;
  const f = sg.compile((t) =>
    sg.jsCall({ shape: [3] }, [t.mul(2)], function reader(c) {
      if (++calls === 2) throw new Error('boom');
      return sg.tensor(Array.from(c.dataSync(), (v) => v + 1), { device: 'cpu' });
    }).mul(10),
  );
  const x = sg.tensor([1, 2, -4], { device: 'webgpu' });
  const ok = f(x);
  assert.deepEqual(Array.from(await ok.data()), [30, 50, -70]);
  const bad = f(x);
  await assert.rejects(sg.sync(), /compiled function: the part of the call after 'reader' \(jsCall #\d+\) failed: jsCall: JavaScript callback raised: boom/);
  const again = f(x);
  assert.deepEqual(Array.from(await again.data()), [30, 50, -70]);
  sg.dispose([ok, bad, again, x]);
  f.clear();
});

test('library callbacks that compute with GPU tensors keep their inputs on the device: gradientPenalty compiled with { async: true } on webgpu equals eager', { skip }, async () => {
  sg = await init({ backend: 'webgpu', gpu });
  const critic = sg.tensor([0.5, -1.0, 0.25], { device: 'webgpu', requiresGrad: true });
  const x = sg.tensor([[1.0, 0.2, -0.3], [0.4, -0.6, 0.9]], { device: 'webgpu' });
  // Its stage runs the critic (a GPU parameter) on x: a host copy of x would mix devices.
  const fn = (input) => sg.penalties.gradientPenalty((t) => t.mul(critic).sum(-1).tanh().mul(t.square().sum(-1)), input);
  const eagerLoss = fn(x);
  eagerLoss.backward();
  const want = { value: Array.from(await eagerLoss.data()), grad: Array.from(await critic.grad.data()) };
  critic.grad.dispose();
  critic.grad = null;
  const f = sg.compile(fn, { async: true });
  const loss = await f(x);
  assert.equal(loss.device, 'webgpu');
  close(Array.from(await loss.data()), want.value, 1e-5, 'value');
  loss.backward();
  close(Array.from(await critic.grad.data()), want.grad, 1e-5, 'critic gradient');
  sg.dispose([critic.grad, critic, x, eagerLoss, loss]);
  f.clear();
});

test('a synchronous compiled training step (backward and optimizer step inside) with a dataSync callback: webgpu equals the eager step on CPU', { skip }, async () => {
  sg = await init({ backend: 'webgpu', gpu });
  // Per-element weights from host values: 1 where the prediction is positive, else 0.5.
  const weigh = (t) => sg.tensor(Array.from(t.dataSync(), (v) => (v > 0 ? 1 : 0.5)), { shape: t.shape, device: 'cpu' });
  const make = (device) => {
    sg.manualSeed(4);
    const model = new sg.nn.Sequential(new sg.nn.Linear(5, 8), new sg.nn.Tanh(), new sg.nn.Linear(8, 3)).to(device);
    return { model, opt: new sg.optim.SGD(model.parameters(), { lr: 0.1 }) };
  };
  const stepOf = ({ model, opt }) => (x, y) => {
    opt.zeroGrad();
    const out = model(x);
    const w = sg.jsCall({ shape: [4, 3] }, [out.detach()], weigh);
    const loss = out.sub(y).square().mul(w).mean();
    loss.backward();
    opt.step();
    return loss;
  };
  const e = make('cpu');
  await sg.sync();
  const g = make('webgpu');
  sg.manualSeed(9);
  const xc = sg.randn([4, 5], { device: 'cpu' }), yc = sg.randn([4, 3], { device: 'cpu' });
  const [xg, yg] = [xc.to('webgpu'), yc.to('webgpu')];
  const eagerStep = stepOf(e);
  const compiled = sg.compile(stepOf(g));
  for (let i = 0; i < 3; i++) {
    const le = eagerStep(xc, yc);
    const lc = compiled(xg, yg);
    assert.equal(lc.device, 'webgpu');
    const [a, b] = [le.item(), (await lc.data())[0]];
    assert.ok(Math.abs(a - b) <= 1e-5 * Math.abs(a), `step ${i}: ${b} vs ${a}`);
    sg.dispose([le, lc]);
  }
  assert.equal(compiled.stats().compiles, 1);
  const pe = e.model.parameters().map((p) => Array.from(p.dataSync()));
  const pc = await Promise.all(g.model.parameters().map(async (p) => Array.from(await p.data())));
  pe.forEach((v, k) => close(pc[k], v, 1e-5, `parameter ${k}`));
  compiled.clear();
  sg.dispose([xc, yc, xg, yg]);
});
