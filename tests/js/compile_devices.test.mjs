// Devices inside sg.compile (the audit's item 6): t.to('cpu') of a GPU tensor followed by CPU ops
// is a stage boundary (the copy enqueued by the call; awaited between two stages with
// { async: true }, or the rest of the run deferred to the device's queue in a synchronous call,
// whose CPU results then arrive later), a callback gets host copies of its GPU inputs (so a
// synchronous callback can dataSync them, compiled either way), and the same compiled function
// gives the same results on wasm (CPU tensors) and on WebGPU (Dawn on SwiftShader,
// webgpu_env.mjs), gradients included.
// The expected values are the same function run eagerly on CPU tensors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exitAfterTests, gpu, skipWithoutGpu as skip } from './webgpu_env.mjs';
import { init } from '../../npm/dist/index.mjs';

let sg;
await exitAfterTests();

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

// The same function compiled without { async: true }: the call returns at once; on WebGPU its CPU
// results arrive later (as an eager to('cpu')'s: a dataSync before is the pending-data Error), the
// rest of the run going on in the device's queue once the copies have landed. Its callback gets
// host copies of its GPU inputs here too (and runs once they have landed): the same body serves.
test('a synchronous compiled function crosses GPU → CPU: results arrive later, replays equal, webgpu equals wasm, memory flat', { skip }, async () => {
  sg = await init({ backend: 'webgpu', gpu });
  const values = [[0.5, -1.5, 2.0], [1.0, 0.25, -3.0]];
  const wv = [0.7, -1.2, 0.4];
  const f = sg.compile(body);
  const results = {};
  for (const device of ['cpu', 'webgpu']) {
    const x = sg.tensor(values, { device });
    const w = sg.tensor(wv, { device });
    devicesSeen.length = 0;
    const runs = [];
    let live;
    for (let call = 0; call < 4; call++) {
      const out = f(x, w);
      assert.ok(Array.isArray(out), `${device}: the call returns the results, not a Promise`);
      assert.deepEqual(out.map((t) => t.device), ['cpu', device, 'cpu']);
      if (device === 'webgpu') assert.throws(() => out[0].dataSync(), /still on its way from the gpu/);
      runs.push(await read(out));
      sg.dispose(out);
      await sg.sync();
      // Live tensors, handles, storages and bytes (the wasm heap's own bookkeeping left out).
      const { tensors, handles, storages, bytes, gpuBytes, gpuStorages } = sg.memory();
      if (call === 1) live = { tensors, handles, storages, bytes, gpuBytes, gpuStorages };
      if (call > 1) assert.deepEqual({ tensors, handles, storages, bytes, gpuBytes, gpuStorages }, live, `${device}: sg.memory() flat over calls`);
    }
    for (let call = 1; call < runs.length; call++) assert.deepEqual(runs[call], runs[0], `${device}: call ${call} equals the first`);
    assert.deepEqual(devicesSeen, ['cpu', 'cpu', 'cpu', 'cpu'], `${device}: the synchronous callback gets CPU tensors (dataSync works)`);
    results[device] = runs[0];
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
  assert.equal(f.stats().compiles, 2);
  f.clear();
});

test('a synchronous compiled call: the gradient crosses the move once the data arrived (webgpu = wasm), not before', { skip }, async () => {
  sg = await init({ backend: 'webgpu', gpu });
  const loss = (x, w) => x.mul(w).tanh().to('cpu').square().sum();
  const f = sg.compile(loss);
  const xv = [[0.5, -1.5, 2.0], [1.0, 0.25, -3.0]];
  const grads = {};
  for (const device of ['cpu', 'webgpu']) {
    const x = sg.tensor(xv, { device });
    for (let call = 0; call < 2; call++) {
      const w = sg.tensor([0.7, -1.2, 0.4], { device, requiresGrad: true });
      const l = f(x, w);
      assert.equal(l.device, 'cpu');
      if (device === 'webgpu') {
        assert.throws(() => l.backward(), /has not arrived yet.*await sg\.sync\(\)/s, 'backward before the data arrived: a clear Error');
      }
      await l.data();
      l.backward();
      assert.equal(w.grad.device, device, 'the gradient comes back to where w lives');
      const got = Array.from(await w.grad.data());
      if (call > 0) assert.deepEqual(got, grads[device], `${device}: the replay's gradient equals the first call's`);
      grads[device] = got;
      sg.dispose([l, w]);
    }
    sg.dispose([x]);
  }
  const x = sg.tensor(xv, { device: 'cpu' });
  const w = sg.tensor([0.7, -1.2, 0.4], { device: 'cpu', requiresGrad: true });
  loss(x, w).backward();
  const eager = Array.from(w.grad.dataSync());
  close(grads.cpu, eager, 1e-6, 'cpu');
  close(grads.webgpu, eager, 1e-5, 'webgpu');
  f.clear();
  sg.dispose([x, w]);
  // A result that does not depend on w through autograd: requiresGrad false once it arrived.
  const both = sg.compile((x, w) => [x.mul(w).to('cpu').sum(), x.mul(w).detach().to('cpu').sum()]);
  const xg = sg.tensor(xv, { device: 'webgpu' });
  const wg = sg.tensor([0.7, -1.2, 0.4], { device: 'webgpu', requiresGrad: true });
  const [a, d] = both(xg, wg);
  await sg.sync();
  assert.deepEqual([a.requiresGrad, d.requiresGrad], [true, false]);
  both.clear();
  sg.dispose([xg, wg, a, d]);
});

test('a synchronous compiled call: GPU results after the move are usable at once; an error after the move surfaces at the next sync, naming the stage', { skip }, async () => {
  sg = await init({ backend: 'webgpu', gpu });
  // Back to the GPU after CPU work: the result is a GPU tensor, and GPU work on it enqueued right
  // after the call runs after the deferred part has filled it.
  const roundTrip = sg.compile((x) => x.mul(2).to('cpu').add(1).to('webgpu').mul(3));
  const x = sg.tensor([1, 2, -4], { device: 'webgpu' });
  for (let call = 0; call < 2; call++) {
    const r = roundTrip(x);
    assert.equal(r.device, 'webgpu');
    const later = r.add(0.5);
    assert.deepEqual(Array.from(await later.data()), [9.5, 15.5, -20.5]);
    sg.dispose([r, later]);
  }
  // A callback after the move that fails on its second call.
  let calls = 0;
  const failing = sg.compile((t) =>
    sg.jsCall({ shape: [3] }, [t.to('cpu').add(1)], (c) => {
      if (++calls === 2) throw new Error('boom');
      return c.mul(2);
    }),
  );
  const ok = failing(x);
  assert.deepEqual(Array.from(await ok.data()), [(1 + 1) * 2, (2 + 1) * 2, (-4 + 1) * 2]);
  const bad = failing(x);
  await assert.rejects(sg.sync(), /compiled function: the part of the call after 'to\('cpu'\) from 'webgpu'' \(jsCall #\d+\) failed in an anonymous callback \(jsCall #\d+\): jsCall: JavaScript callback raised: boom/);
  assert.throws(() => bad.dataSync(), /still on its way/, 'the failed call\'s result never arrives: reading it stays an Error');
  const again = failing(x);  // the instance and the compiled function stay usable
  assert.deepEqual(Array.from(await again.data()), [(1 + 1) * 2, (2 + 1) * 2, (-4 + 1) * 2]);
  sg.dispose([ok, bad, again, x]);
  roundTrip.clear();
  failing.clear();
});

test('uploads inside a synchronous compiled function are ordinary ops', { skip }, async () => {
  sg = await init({ backend: 'webgpu', gpu });
  const onCpu = sg.tensor([1, 2], { device: 'cpu' });
  const up = sg.compile((c) => c.mul(3).to('webgpu').add(1));
  const r = up(onCpu);
  assert.equal(r.device, 'webgpu');
  assert.deepEqual(Array.from(await r.data()), [4, 7]);
  sg.dispose([onCpu, r]);
  up.clear();
});
