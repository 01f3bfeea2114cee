// sg.compile on the WebGPU device (Dawn on SwiftShader, webgpu_env.mjs): the graph's stages run
// their ops on the GPU, a callback of a function compiled with { async: true } gets host copies
// of its GPU inputs and its results are moved back to the GPU; a compiled training step with a
// callback equals the eager one (compile_devices.test.mjs: t.to('cpu') and callbacks, webgpu = wasm).
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
  // Eagerly the callback gets the GPU tensor; in the compiled (async) step, a host copy of it.
  assert.deepEqual(devices, ['webgpu', 'cpu', 'webgpu', 'cpu', 'webgpu', 'cpu']);
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

test('elementwise chains on webgpu run as one fused WGSL kernel: values and gradients equal eager, broadcasts and views included', { skip: gpu ? false : why }, async () => {
  const sg = await init({ backend: 'webgpu', gpu });
  const close = (got, want, tol, what) => want.forEach((w, i) =>
    assert.ok(Math.abs(got[i] - w) <= tol * (1 + Math.abs(w)), `${what}[${i}]: ${got[i]} vs ${w}`));
  sg.manualSeed(11);
  const x = sg.randn([6, 5]);
  const row = sg.randn([5]);               // broadcast along the rows
  const t = sg.randn([5, 6]).transpose(0, 1);  // a strided view
  // 12 ops: add, mul, tanh, sub, sigmoid, maximum, exp, neg, mul, relu (two outputs read later).
  const chain = (a, b, c) => {
    const h = a.add(b).mul(0.5).tanh().sub(c).sigmoid();
    const k = h.maximum(c).mul(-1).exp().neg().mul(h);
    return [k.relu(), h];
  };
  const compiled = sg.compile(chain);
  const eager = await Promise.all(chain(x, row, t).map((v) => v.data()));
  compiled(x, row, t);  // traces
  const before = sg.webgpuStats().dispatches;
  const got = compiled(x, row, t);
  const used = sg.webgpuStats().dispatches - before;
  const vals = await Promise.all(got.map((v) => v.data()));
  close(vals[0], Array.from(eager[0]), 1e-6, 'k');
  close(vals[1], Array.from(eager[1]), 1e-6, 'h');
  assert.ok(compiled.stats().fused >= 1, JSON.stringify(compiled.stats()));
  assert.equal(used, 1, 'the chain of 11 ops is one dispatch (11 eagerly)');

  // 60 ops with 20 number operands (one-element GPU tensors, copied into one binding): one kernel.
  const long = (v) => {
    let h = v;
    for (let i = 0; i < 10; i++) h = h.mul(0.9).add(row).maximum(h.neg()).abs().minimum(2);
    return h;
  };
  const longC = sg.compile(long);
  longC(x);
  const d0 = sg.webgpuStats().dispatches;
  const lv = longC(x);
  assert.equal(sg.webgpuStats().dispatches - d0, 1, 'the 60-op chain is one dispatch (60 eagerly)');
  close(await lv.data(), Array.from(await long(x).data()), 1e-6, 'long');
  assert.equal(longC.stats().fusedOps, 60);
  longC.clear();

  // Eight one-element GPU tensors as operands: past 8 bindings, copied into one; same values.
  const ws = Array.from({ length: 8 }, (_, i) => sg.tensor(0.5 + i / 8));
  assert.equal(ws[0].device, 'webgpu');
  const scaled = (v, ...s) => s.reduce((acc, w, i) => (i % 2 ? acc.add(w) : acc.mul(w)), v);
  const scaledC = sg.compile(scaled);
  scaledC(x, ...ws);
  const d1 = sg.webgpuStats().dispatches;
  const sv = scaledC(x, ...ws);
  assert.equal(sg.webgpuStats().dispatches - d1, 1);
  close(await sv.data(), Array.from(await scaled(x, ...ws).data()), 1e-6, 'scaled');
  scaledC.clear();

  // Gradients through fused kernels: x's gradient eagerly and compiled (traced on the first
  // call, timed on the second), the dispatches of the second, and the compiled function's stats.
  const xg = sg.randn([6, 5], { requiresGrad: true });
  const gradients = async (loss, what) => {
    const lossC = sg.compile(loss);
    sg.tidy(() => loss(xg).backward());
    const want = await xg.grad.data();
    xg.grad = null;
    sg.tidy(() => lossC(xg).backward());  // traces and runs
    xg.grad = null;
    const before = sg.webgpuStats().dispatches;
    sg.tidy(() => lossC(xg).backward());
    const dispatches = sg.webgpuStats().dispatches - before;
    close(await xg.grad.data(), Array.from(want), 1e-5, what);
    xg.grad = null;
    const stats = lossC.stats();
    lossC.clear();
    return { dispatches, stats };
  };
  // The chain above (maximum's gradient, ties and sides, selects with masks in the kernel).
  const g1 = await gradients((a) => chain(a, row, t)[0].sum(), 'grad');
  assert.deepEqual(g1.stats.fusedBackward, { fused: 2, replayed: 0 });
  // The forward kernel, the sum, the sum's backward, the gradient kernel and what seeds and
  // stores the gradient: a handful of dispatches where the 8 ops and their gradients took 20+.
  const g2 = await gradients((a) => a.add(row).mul(0.5).tanh().sub(t).sigmoid().mul(a.exp()).gelu().sum(), 'fused grad');
  assert.deepEqual(g2.stats.fusedBackward, { fused: 2, replayed: 0 });
  assert.ok(g2.dispatches <= 8, `${g2.dispatches} dispatches for a compiled forward and backward`);
  // Ten rounds keep 20 values for the gradient: more outputs than one WGSL kernel may bind, so
  // the plain forward runs and the gradient kernel computes every value again from the inputs.
  const g3 = await gradients((a) => {
    let h = a;
    for (let i = 0; i < 10; i++) h = h.mul(0.9).add(row).tanh().sub(a.mul(0.1)).sigmoid();
    return h.sum();
  }, 'recomputing grad');
  assert.deepEqual(g3.stats.fusedBackward, { fused: 2, replayed: 0 });
  assert.ok(g3.dispatches <= 8, `${g3.dispatches} dispatches where the 60 ops and their gradients took 120+`);

  // More operands than one WGSL kernel may bind (9 inputs): the ops run one by one, same values.
  const many = Array.from({ length: 9 }, () => sg.randn([7]));
  const sum9 = (...ts) => ts.reduce((acc, v) => acc.mul(0.9).add(v));
  const sum9c = sg.compile(sum9);
  sum9c(...many);
  close(await sum9c(...many).data(), Array.from(await sum9(...many).data()), 1e-6, 'sum9');
  compiled.clear();
  sum9c.clear();
  process.exitCode = 0;
});
