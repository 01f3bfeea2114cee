// sg.compile on the WebGPU device (Dawn on SwiftShader, webgpu_env.mjs): the graph's stages run
// their ops on the GPU, a callback gets its inputs there (read with await in a function compiled
// with { async: true }) and its results are moved back to the GPU; a compiled training step with
// a callback equals the eager one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gpu, why } from './webgpu_env.mjs';
import { init } from '../../npm/dist/index.mjs';

test('a compiled training step with a callback on webgpu equals the eager one', { skip: gpu ? false : why }, async () => {
  const sg = await init({ backend: 'webgpu', gpu });
  const devices = [];
  // A JS callback: reads its input with await (the data lives on the GPU), returns a CPU tensor.
  const weigh = async (t) => {
    devices.push(t.device);
    const v = await t.data();
    return sg.tensor(Array.from(v, (x) => (x > 0 ? 1 : 0.5)), { shape: t.shape, device: 'cpu' });
  };
  const make = () => {
    sg.manualSeed(4);
    const model = new sg.nn.Sequential(new sg.nn.Linear(5, 8), new sg.nn.Tanh(), new sg.nn.Linear(8, 3));
    return { model, opt: new sg.optim.SGD(model.parameters(), { lr: 0.1 }) };
  };
  const step = async ({ model, opt }, x, y, call) => {
    opt.zeroGrad();
    const out = model(x);
    const w = (await call(out.detach())).to('webgpu');
    const loss = out.sub(y).square().mul(w).mean();
    loss.backward();
    opt.step();
    return loss;
  };
  const e = make(), c = make();
  const compiled = sg.compile((x, y) => {
    c.opt.zeroGrad();
    const out = c.model(x);
    const w = sg.jsCall({ shape: [4, 3] }, [out.detach()], weigh);
    const loss = out.sub(y).square().mul(w).mean();
    loss.backward();
    c.opt.step();
    return loss;
  }, { async: true });
  const x = sg.randn([4, 5]), y = sg.randn([4, 3]);
  assert.equal(x.device, 'webgpu');
  for (let i = 0; i < 3; i++) {
    const le = await step(e, x, y, weigh);
    const lc = await compiled(x, y);
    assert.equal(lc.device, 'webgpu');
    const [a, b] = [(await le.data())[0], (await lc.data())[0]];
    assert.ok(Math.abs(a - b) <= 1e-5 * Math.abs(a), `step ${i}: ${b} vs ${a}`);
  }
  assert.ok(devices.every((d) => d === 'webgpu'));
  assert.equal(compiled.stats().stages, 2);
  const pe = await Promise.all(e.model.parameters().map((p) => p.data()));
  const pc = await Promise.all(c.model.parameters().map((p) => p.data()));
  pe.forEach((v, k) => v.forEach((z, j) => assert.ok(Math.abs(z - pc[k][j]) <= 1e-5 * (1 + Math.abs(z)))));
  process.exitCode = 0;
});

test('a module moved to another device after compiling is traced again, not run with its old tensors', { skip: gpu ? false : why }, async () => {
  const sg = await init({ backend: 'webgpu', gpu });
  sg.manualSeed(2);
  const model = new sg.nn.Linear(4, 3).to('cpu');
  await sg.sync();  // the parameters' data arrives from the GPU
  const f = sg.compile((t) => model(t));
  const x = sg.randn([2, 4], { device: 'cpu' });
  const cpu = await f(x).data();
  model.to('webgpu');
  // The graph held the CPU parameters: eager code would now refuse the CPU input, and so does
  // the compiled function (it traces again) instead of answering with the old weights.
  assert.throws(() => f(x), /device/);
  const xg = x.to('webgpu');
  const eager = await model(xg).data();
  const compiled = await f(xg).data();
  assert.deepEqual(Array.from(compiled), Array.from(eager));
  assert.deepEqual(Array.from(compiled).map((v) => Math.round(v * 1e4)), Array.from(cpu).map((v) => Math.round(v * 1e4)));
  assert.equal(f.stats().compiles, 2);  // the CPU one, the WebGPU one (the failed trace compiles nothing)
  f.clear();
  sg.dispose([x, xg, ...model.parameters()]);
});
