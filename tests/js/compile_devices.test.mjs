// Devices inside sg.compile (the audit's item 6): t.to('cpu') of a GPU tensor followed by CPU ops
// is a stage boundary (the copy read back and awaited between two stages), a callback of a
// function compiled with { async: true } gets host copies of its GPU inputs (so a synchronous
// callback can dataSync them), and the same compiled function gives the same results on wasm
// (CPU tensors) and on WebGPU (Dawn on SwiftShader, webgpu_env.mjs), gradients included.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { gpu, why } from './webgpu_env.mjs';
import { init } from '../../npm/dist/index.mjs';

const skip = gpu ? false : why;
let sg;
if (gpu) after(() => setTimeout(() => process.exit(process.exitCode ?? 0), 100)); // Dawn keeps Node alive

const close = (got, want, tol, what) => {
  assert.equal(got.length, want.length, `${what}: length`);
  want.forEach((w, i) => assert.ok(Math.abs(got[i] - w) <= tol * (1 + Math.abs(w)), `${what}[${i}]: ${got[i]} vs ${w}`));
};
const read = async (ts) => Promise.all(ts.map(async (t) => Array.from(await t.data())));

// GPU work, a move to the CPU, CPU work on it, and a synchronous callback reading its input
// with dataSync (a host copy on WebGPU), whose result goes back where the input was.
const devicesSeen = [];
function body(x, w) {
  const h = x.mul(w).tanh();
  const onCpu = h.to('cpu').mul(3).add(1); // CPU ops after the move
  const squared = sg.jsCall({ shape: x.shape }, [h.add(1)], (t) => {
    devicesSeen.push(t.device);
    return sg.tensor(Array.from(t.dataSync(), (v) => v * v), { shape: t.shape, device: 'cpu' });
  });
  return [onCpu.sum(), squared.mean(), h.mul(10).to('cpu').to('int32')];
}

test('t.to(\'cpu\') of a GPU tensor and callbacks inside sg.compile: webgpu equals wasm, call after call', { skip }, async () => {
  sg = await init({ backend: 'webgpu', gpu });
  const values = [[0.5, -1.5, 2.0], [1.0, 0.25, -3.0]];
  const wv = [0.7, -1.2, 0.4];
  const f = sg.compile(body, { async: true });
  const results = {};
  const stages = {};
  for (const device of ['cpu', 'webgpu']) {
    const x = sg.tensor(values, { device });
    const w = sg.tensor(wv, { device });
    devicesSeen.length = 0;
    const runs = [];
    for (let call = 0; call < 2; call++) runs.push(await read(await f(x, w)));
    assert.deepEqual(runs[1], runs[0], `${device}: the replay equals the first call`);
    assert.deepEqual(devicesSeen, ['cpu', 'cpu'], `${device}: the callback gets CPU tensors`);
    results[device] = runs[0];
    stages[device] = f.stats().stages;
    sg.dispose([x, w]);
  }
  const eager = sg.tidy(() => {
    const x = sg.tensor(values, { device: 'cpu' });
    const h = x.mul(sg.tensor(wv, { device: 'cpu' })).tanh();
    return [h.mul(3).add(1).sum().item(), h.add(1).square().mean().item(), Array.from(h.mul(10).to('int32').dataSync())];
  });
  for (const device of ['cpu', 'webgpu']) {
    close(results[device][0], [eager[0]], 1e-6, `${device}: sum after the move`);
    close(results[device][1], [eager[1]], 1e-6, `${device}: the callback's result`);
    assert.deepEqual(results[device][2], eager[2], `${device}: an int32 cast after the move`);
  }
  // Two moves to the CPU: two more stages on WebGPU than on the CPU, where they move nothing.
  assert.equal(f.stats().compiles, 2);
  assert.deepEqual(stages, { cpu: 2, webgpu: 4 });
  f.clear();
});

test('a gradient crosses the move: the compiled call\'s backward equals the eager one on both devices', { skip }, async () => {
  sg = await init({ backend: 'webgpu', gpu });
  const loss = (x, w) => x.mul(w).tanh().to('cpu').square().sum();
  const f = sg.compile(loss, { async: true });
  const grads = {};
  for (const device of ['cpu', 'webgpu']) {
    const x = sg.tensor([[0.5, -1.5, 2.0], [1.0, 0.25, -3.0]], { device });
    const w = sg.tensor([0.7, -1.2, 0.4], { device, requiresGrad: true });
    const l = await f(x, w);
    assert.equal(l.device, 'cpu');
    l.backward();
    assert.equal(w.grad.device, device, 'the gradient comes back to where w lives');
    grads[device] = Array.from(await w.grad.data());
    sg.dispose([x, w, l]);
  }
  const x = sg.tensor([[0.5, -1.5, 2.0], [1.0, 0.25, -3.0]], { device: 'cpu' });
  const w = sg.tensor([0.7, -1.2, 0.4], { device: 'cpu', requiresGrad: true });
  loss(x, w).backward();
  const eager = Array.from(w.grad.dataSync());
  close(grads.cpu, eager, 1e-6, 'cpu');
  close(grads.webgpu, eager, 1e-5, 'webgpu');
  f.clear();
  sg.dispose([x, w]);
});

test('a synchronous compiled function refuses t.to(\'cpu\') of a GPU tensor when traced, saying to compile with { async: true }', { skip }, async () => {
  sg = await init({ backend: 'webgpu', gpu });
  const f = sg.compile((x) => x.mul(2).to('cpu').add(1));
  const onCpu = sg.tensor([1, 2], { device: 'cpu' });
  assert.deepEqual(Array.from(f(onCpu).dataSync()), [3, 5], 'no move on the CPU: fine');
  const onGpu = sg.tensor([1, 2], { device: 'webgpu' });
  assert.throws(() => f(onGpu), /t\.to\('cpu'\) of a 'webgpu' tensor needs sg\.compile\(fn, \{ async: true \}\): the copy from the GPU completes asynchronously/);
  // Uploads are ordinary ops: a CPU tensor moved to the GPU inside a synchronous function is fine.
  const up = sg.compile((c) => c.mul(3).to('webgpu').add(1));
  const r = up(onCpu);
  assert.equal(r.device, 'webgpu');
  assert.deepEqual(Array.from(await r.data()), [4, 7]);
  sg.dispose([onCpu, onGpu, r]);
  f.clear();
  up.clear();
});
