// sg.jsCall callbacks get host copies of GPU inputs eagerly as in compiled code (issue 26, audit
// item 6): the same function, whose synchronous callback reads its inputs with dataSync() and
// whose vjp computes with tensor ops, gives the same values and gradients run eagerly or through
// a synchronous sg.compile, on wasm (CPU tensors) and on WebGPU (Dawn on SwiftShader,
// webgpu_env.mjs), call after call, with sg.memory() flat, also inside sg.tidy(); errors in such a
// callback are reported by the next sg.sync(). Library callbacks that compute with GPU tensors
// keep them: gradientPenalty and checkpoint compiled synchronously on WebGPU equal eager.
// Expected values: the callback's computation written with tensor ops (no callback), run
// eagerly on CPU tensors; its gradients by autograd through those ops.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exitAfterTests, gpu, skipWithoutGpu as skip } from './webgpu_env.mjs';
import { init } from '../../npm/dist/index.mjs';
import { close, memoryOf as memoryIn, WV, XV } from './host_copies_cases.mjs';
import { settleFinalizers } from './gc_settle.mjs';

let sg;
await exitAfterTests();

// Two results from host values: t² (t's shape) and Σ t³ (a scalar), so that the results are
// packed into one tensor for autograd (src/graph/callbacks.cpp link_callback).
const seen = [];
function powersOnHost(t) {
  seen.push(t.device);
  const v = t.dataSync();
  return [
    sg.tensor(Array.from(v, (a) => a * a), { shape: t.shape, device: 'cpu' }),
    sg.tensor(v.reduce((s, a) => s + a * a * a, 0), { device: 'cpu' }),
  ];
}
// d/dt: 2t·g0 + 3t²·g1, with tensor ops (its residuals may be on a GPU).
const powersVjp = ({ inputs: [t] }, [g0, g1]) => g0.mul(t).mul(2).add(t.square().mul(3).mul(g1));

function body(x, w) {
  const h = x.mul(w).tanh();
  const [sq, cubes] = sg.jsCall([{ shape: x.shape }, { shape: [] }], [h.add(1)], powersOnHost, { vjp: powersVjp });
  return [sq.mean().add(cubes.mul(0.1)), h.sum().to('cpu')];
}

/** body's values and w's gradient with its callback written as tensor ops, eagerly on CPU tensors. */
function expected() {
  return sg.tidy(() => {
    const x = sg.tensor(XV, { device: 'cpu' });
    const w = sg.tensor(WV, { device: 'cpu', requiresGrad: true });
    const h = x.mul(w).tanh();
    const u = h.add(1);
    const m = u.square().mean().add(u.pow(3).sum().mul(0.1));
    m.backward();
    return { loss: m.item(), sum: h.sum().item(), grad: Array.from(w.grad.dataSync()) };
  });
}

const memoryOf = () => memoryIn(sg);

test('the same function with a dataSync callback: eager = compiled (synchronous), wasm = webgpu, values and gradients, call after call, memory flat', { skip }, async () => {
  sg = await init({ backend: 'webgpu', gpu });
  const want = expected();
  const compiled = sg.compile(body);
  // Eagerly, tidy frees body's intermediates (the compiled graph frees its own).
  const eagerly = (x, w) => sg.tidy(() => body(x, w));
  for (const [mode, run] of [['eager', eagerly], ['compiled', compiled]]) {
    for (const device of ['cpu', 'webgpu']) {
      const what = `${mode} on ${device}`;
      const x = sg.tensor(XV, { device });
      seen.length = 0;
      let live;
      for (let call = 0; call < 4; call++) {
        const w = sg.tensor(WV, { device, requiresGrad: true });
        const out = run(x, w);
        assert.ok(Array.isArray(out), `${what}: the call returns its results, not a Promise`);
        assert.deepEqual(out.map((t) => t.device), [device, 'cpu'], `${what}: results where the inputs are`);
        const [loss, sum] = await Promise.all(out.map(async (t) => (await t.data())[0]));
        close([loss, sum], [want.loss, want.sum], 1e-6, `${what} call ${call}: values`);
        out[0].backward();
        assert.equal(w.grad.device, device, `${what}: the gradient comes back to where w lives`);
        close(Array.from(await w.grad.data()), want.grad, device === 'cpu' ? 1e-6 : 1e-5, `${what} call ${call}: w.grad`);
        sg.dispose([...out, w.grad, w]);
        await sg.sync();
        await settleFinalizers();
        if (call === 1) live = memoryOf();
        if (call > 1) assert.deepEqual(memoryOf(), live, `${what}: sg.memory() flat over calls`);
      }
      assert.deepEqual(seen, ['cpu', 'cpu', 'cpu', 'cpu'], `${what}: the callback gets CPU tensors, once a call`);
      x.dispose();
    }
  }
  assert.equal(compiled.stats().compiles, 2);
  compiled.clear();
});

test('eagerly on webgpu the results are GPU tensors usable at once: backward right after the call runs the vjp', { skip }, async () => {
  sg = await init({ backend: 'webgpu', gpu });
  const want = expected();
  const x = sg.tensor(XV, { device: 'webgpu' });
  const w = sg.tensor(WV, { device: 'webgpu', requiresGrad: true });
  seen.length = 0;
  const [loss, sum] = body(x, w);
  loss.backward(); // no await before: the callback has not run yet (its host copies are on their way)
  assert.equal(seen.length, 0, 'the callback runs once its host copies have landed, not during the call');
  close(Array.from(await w.grad.data()), want.grad, 1e-5, 'w.grad');
  close([(await loss.data())[0]], [want.loss], 1e-6, 'loss');
  assert.deepEqual(seen, ['cpu']);
  sg.dispose([loss, sum, w.grad, w, x]);
});

test('inside sg.tidy: eager and compiled calls on webgpu keep what their deferred part uses, and tidy frees the rest', { skip }, async () => {
  sg = await init({ backend: 'webgpu', gpu });
  const want = expected();
  const compiled = sg.compile(body);
  const x = sg.tensor(XV, { device: 'webgpu' });
  for (const [mode, run] of [['eager', body], ['compiled', compiled]]) {
    let live;
    for (let call = 0; call < 3; call++) {
      const w = sg.tensor(WV, { device: 'webgpu', requiresGrad: true });
      const loss = sg.tidy(() => {
        const [l] = run(x, w);
        return l;
      });
      close([(await loss.data())[0]], [want.loss], 1e-6, `${mode} call ${call}: loss`);
      loss.backward();
      close(Array.from(await w.grad.data()), want.grad, 1e-5, `${mode} call ${call}: w.grad`);
      sg.dispose([loss, w.grad, w]);
      await sg.sync();
      // Tensors earlier tests left to the FinalizationRegistry must not be freed between two counts
      // (a CI run saw 9 live tensors after call 1 and 1 after call 2).
      await settleFinalizers();
      if (call === 1) live = memoryOf();
      if (call > 1) assert.deepEqual(memoryOf(), live, `${mode}: sg.memory() flat over calls`);
    }
  }
  x.dispose();
  compiled.clear();
});

test('eagerly, a first input on the CPU and another on webgpu: CPU results that arrive later, gradients once they have', { skip }, async () => {
  sg = await init({ backend: 'webgpu', gpu });
  const a = sg.tensor([1, -2, 3], { device: 'cpu', requiresGrad: true });
  const b = sg.tensor([0.5, 4, -1], { device: 'webgpu', requiresGrad: true });
  const devices = [];
  // 2a + Σb from host values; its vjp (2g, Σg for every element of b) on each input's device.
  const y = sg.jsCall({ shape: [3] }, [a, b], (p, q) => {
    devices.push(p.device, q.device);
    const total = q.dataSync().reduce((s, v) => s + v, 0);
    return sg.tensor(Array.from(p.dataSync(), (v) => 2 * v + total), { device: 'cpu' });
  }, { vjp: ({ inputs: [, q] }, [g]) => [g.mul(2), sg.onesLike(q).mul(g.sum().to('webgpu'))] });
  assert.equal(y.device, 'cpu');
  assert.throws(() => y.dataSync(), /still on its way/, 'read before the copies have landed: the pending Error (as an eager to(\'cpu\'))');
  assert.ok(y.requiresGrad);
  assert.deepEqual(Array.from(await y.data()), [5.5, -0.5, 9.5]);
  assert.deepEqual(devices, ['cpu', 'cpu']);
  const loss = y.sum();
  loss.backward();
  assert.deepEqual(Array.from(a.grad.dataSync()), [2, 2, 2]);
  assert.equal(b.grad.device, 'webgpu');
  assert.deepEqual(Array.from(await b.grad.data()), [3, 3, 3]);
  sg.dispose([a.grad, b.grad, a, b, y, loss]);
});

test('an error in an eager callback on host copies is reported by the next sync; its results stay unreadable; the instance stays usable', { skip }, async () => {
  sg = await init({ backend: 'webgpu', gpu });
  const x = sg.tensor([1, 2, -4], { device: 'webgpu' });
  const plusOne = (c) => sg.tensor(Array.from(c.dataSync(), (v) => v + 1), { device: 'cpu' });
  const bad = sg.jsCall({ shape: [3] }, [x], function boom() {
    throw new Error('boom');
  });
  await assert.rejects(sg.sync(), /jsCall: JavaScript callback raised: boom/);
  const wrong = sg.jsCall({ shape: [4] }, [x], plusOne);
  await assert.rejects(sg.sync(), /jsCall: expected the callback to match the output template \{ shape: \[4\], dtype: 'float32' \}, got: Tensor \{ shape: \[3\]/);
  for (const t of [bad, wrong]) assert.ok(Array.from(await t.data()).every(Number.isNaN), 'a failed call\'s GPU results read NaN, not stale bytes');
  const ok = sg.jsCall({ shape: [3] }, [x], plusOne);
  assert.deepEqual(Array.from(await ok.data()), [2, 3, -3]);
  // The same in a synchronous compiled function (the second call fails).
  let calls = 0;
  const f = sg.compile((t) => sg.jsCall({ shape: [3] }, [t], (c) => {
    if (++calls === 2) throw new Error('boom');
    return plusOne(c);
  }).mul(10));
  const first = f(x);
  const failed = f(x);
  await assert.rejects(sg.sync(), /compiled function: the part of the call after .* failed: jsCall: JavaScript callback raised: boom/);
  assert.ok(Array.from(await failed.data()).every(Number.isNaN), 'a failed compiled call\'s GPU results read NaN');
  assert.deepEqual(Array.from(await first.data()), [20, 30, -30]);
  const third = f(x);
  assert.deepEqual(Array.from(await third.data()), [20, 30, -30], 'the compiled function stays usable');
  f.clear();
  sg.dispose([bad, wrong, ok, first, failed, third, x]);
});

test('library callbacks keep GPU inputs: gradientPenalty and checkpoint compiled synchronously on webgpu equal eager', { skip }, async () => {
  sg = await init({ backend: 'webgpu', gpu });
  const critic = sg.tensor([0.5, -1.0, 0.25], { device: 'webgpu', requiresGrad: true });
  const x = sg.tensor([[1.0, 0.2, -0.3], [0.4, -0.6, 0.9]], { device: 'webgpu' });
  // Its stage runs the critic (a GPU parameter) on x: a host copy of x would mix devices.
  const penalty = (input) => sg.penalties.gradientPenalty((t) => t.mul(critic).sum(-1).tanh().mul(t.square().sum(-1)), input);
  sg.manualSeed(3);
  const W1 = sg.randn([4, 4]).mul(0.4).to('webgpu').requiresGrad_();
  const W2 = sg.randn([4, 4]).mul(0.4).to('webgpu').requiresGrad_();
  const block = (t) => t.matmul(W1).tanh().matmul(W2).sigmoid().add(t);
  const z = sg.randn([2, 4]).to('webgpu');
  const cases = [
    ['gradientPenalty', penalty, x, [critic]],
    ['checkpoint', (input) => sg.utils.checkpoint(block, input).square().sum(), z, [W1, W2]],
  ];
  for (const [name, fn, input, leaves] of cases) {
    const read = async () => Promise.all(leaves.map(async (p) => Array.from(await p.grad.data())));
    const eagerLoss = fn(input);
    eagerLoss.backward();
    const want = { value: Array.from(await eagerLoss.data()), grads: await read() };
    const f = sg.compile((t) => {
      for (const p of leaves) p.grad = null;
      const loss = fn(t);
      loss.backward();
      return loss;
    });
    for (let call = 0; call < 2; call++) {
      const loss = f(input);
      assert.ok(!(loss instanceof Promise), `${name}: no { async: true } needed`);
      assert.equal(loss.device, 'webgpu');
      close(Array.from(await loss.data()), want.value, 1e-5, `${name} call ${call}: value`);
      (await read()).forEach((g, i) => close(g, want.grads[i], 1e-5, `${name} call ${call}: gradient ${i}`));
      loss.dispose();
    }
    f.clear();
    for (const p of leaves) p.grad = null;
    eagerLoss.dispose();
  }
  sg.dispose([critic, x, W1, W2, z]);
});
