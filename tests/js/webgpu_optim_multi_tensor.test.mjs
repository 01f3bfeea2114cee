// SGD and Adam/AdamW on WebGPU as multi-tensor dispatches (web/webgpu/kernels/optim.ts: the
// updates of one step held back, parameters and state moved into arenas, web/webgpu/arenas.ts),
// on Dawn over SwiftShader (webgpu_env.mjs). Values: PyTorch 1.13's trajectories
// (tests/data/optim_ref.json from gen_optim.py: two parameters, updated together in one
// dispatch, gradients missing at some steps) and, for 48 parameters of odd sizes in two groups,
// the wasm backend's steps. Counts (never times): one dispatch a step per group of equal
// hyperparameters, no GPU buffer created after warm-up, and the arenas freed with the tensors.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { gpu, why } from './webgpu_env.mjs';
import { init } from '../../npm/dist/index.mjs';
import { close, optimOptions, readRef } from './helpers.mjs';

const skip = gpu ? false : why;
const sg = gpu ? await init({ backend: 'webgpu', gpu }) : await init();
after(() => {
  sg.setBackend('wasm');
  if (gpu) setTimeout(() => process.exit(process.exitCode ?? 0), 100); // Dawn keeps Node alive otherwise
});

const ref = readRef('optim_ref.json');
const jsOptions = optimOptions;

test('SGD/Adam/AdamW on webgpu, both parameters in one dispatch: PyTorch 1.13 trajectories and final state', { skip }, async () => {
  sg.setBackend('webgpu');
  const cases = ref.cases.filter((c) => ['SGD', 'Adam', 'AdamW'].includes(c.algorithm));
  assert.ok(cases.length >= 13, `${cases.length} cases`);
  for (const c of cases) {
    const params = ref.init.map((v, i) => sg.tensor(Float32Array.from(v), { shape: ref.shapes[i], requiresGrad: true }));
    const opt = new sg.optim[c.algorithm](params, jsOptions(c.hyper));
    for (const [k, expected] of c.trajectory.entries()) {
      params.forEach((p, i) => {
        const g = ref.grads[k][i];
        if (g === null) p.grad = null;
        else {
          const t = sg.tensor(Float32Array.from(g), { shape: ref.shapes[i] });
          p.grad = t;
          t.dispose();
        }
      });
      opt.step();
      for (const [i, p] of params.entries()) close(Array.from(await p.data()), expected[i], 2e-6, `${c.name} step ${k} param ${i}`);
    }
    const sd = opt.stateDict();
    for (const [i, entries] of c.final_state.entries()) {
      for (const [key, values] of Object.entries(entries)) close(Array.from(await sd.state[i][key].data()), values, 2e-6, `${c.name} state ${i}.${key}`);
    }
    sg.dispose([sd.state, params]);
    opt.dispose();
  }
  await sg.sync();
  sg.setBackend('wasm');
});

// 48 parameters: sizes around the 64-element slice alignment and the 256-invocation workgroups.
const SIZES = [1, 3, 17, 63, 64, 65, 100, 255, 256, 257, 1000, 4097];
const SHAPES = Array.from({ length: 48 }, (_, i) => (i % 3 === 0 ? [SIZES[i % SIZES.length]] : [2, SIZES[i % SIZES.length]]));

function draw(seed, n) {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 31 - 1;
  });
}

/** Runs `steps` steps of `make(groups)` on the active backend; returns the values and the counts per step. */
async function train(make, steps) {
  const params = SHAPES.map((shape, i) => sg.tensor(draw(i + 1, shape.reduce((a, b) => a * b, 1)), { shape, requiresGrad: true }));
  // Two groups (even and odd parameters) with different hyperparameters: two dispatches a step.
  const opt = make([{ params: params.filter((_, i) => i % 2 === 0) }, { params: params.filter((_, i) => i % 2 === 1), lr: 0.003, weightDecay: 0 }]);
  const counts = [];
  for (let k = 0; k < steps; k++) {
    params.forEach((p, i) => {
      const t = sg.tensor(draw(1000 * (k + 1) + i, p.numel), { shape: p.shape });
      p.grad = t;
      t.dispose();
    });
    await sg.sync();
    const s0 = sg.webgpuStats();
    opt.step();
    await sg.sync();
    const s1 = sg.webgpuStats();
    counts.push({ dispatches: s1.dispatches - s0.dispatches, created: s1.buffersCreated - s0.buffersCreated });
  }
  const values = [];
  for (const p of params) values.push(Array.from(await p.data()));
  const sd = opt.stateDict();
  const state = [];
  for (const entries of Object.values(sd.state)) {
    const e = {};
    for (const [key, t] of Object.entries(entries)) if (t instanceof sg.Tensor) e[key] = Array.from(await t.data());
    state.push(e);
  }
  return { values, state, counts, params, opt, sd };
}

const OPTIMIZERS = [
  ['Adam', (g) => new sg.optim.Adam(g, { lr: 0.01, weightDecay: 0.05 })],
  ['AdamW amsgrad', (g) => new sg.optim.AdamW(g, { lr: 0.01, weightDecay: 0.1, amsgrad: true })],
  ['SGD momentum nesterov', (g) => new sg.optim.SGD(g, { lr: 0.05, momentum: 0.9, nesterov: true, weightDecay: 0.01 })],
];

for (const [name, make] of OPTIMIZERS) {
  test(`${name}, 48 parameters in 2 groups on webgpu: one dispatch a group a step, values as wasm, no buffer after warm-up`, { skip }, async (t) => {
    sg.setBackend('wasm');
    const want = await train(make, 4);
    sg.dispose([want.sd.state, want.params]);
    want.opt.dispose();

    sg.setBackend('webgpu');
    await sg.sync();
    const inUse = sg.webgpuStats().bytesInUse;
    const got = await train(make, 4);
    t.diagnostic(`${name}: per step ${got.counts.map((c) => `${c.dispatches} dispatches, ${c.created} buffers created`).join('; ')}`);
    for (const [i, v] of want.values.entries()) close(got.values[i], v, 1e-5, `${name} param ${i}`);
    for (const [i, e] of want.state.entries()) for (const [key, v] of Object.entries(e)) close(got.state[i][key], v, 1e-5, `${name} state ${i}.${key}`);
    // Step 1 creates the state (one update a parameter); step 2 moves the tensors into arenas.
    for (const c of got.counts.slice(1)) assert.equal(c.dispatches, 2, `${name}: dispatches of a step after the first`);
    for (const c of got.counts.slice(2)) assert.equal(c.created, 0, `${name}: buffers created after warm-up`);
    // A parameter moved into an arena is still written and read as itself.
    got.params[5].grad = null;
    const quarter = sg.full(got.params[5].shape, 0.25);
    sg.noGrad(() => got.params[5].copy_(quarter));
    quarter.dispose();
    assert.deepEqual(Array.from(await got.params[5].data()), new Array(got.params[5].numel).fill(0.25));
    close(Array.from(await got.params[4].data()), got.values[4], 0, 'the neighbouring slice untouched');
    sg.dispose([got.sd.state, got.params]);
    got.opt.dispose();
    await sg.sync();
    assert.equal(sg.webgpuStats().bytesInUse, inUse, 'the arenas go back with the last tensor in them');
    sg.setBackend('wasm');
  });
}

test('parameters that are views: one at the start of its storage moves with the whole storage (the other views of it stay right); one further in keeps the per-tensor kernels', { skip }, async () => {
  const run = async (backend) => {
    sg.setBackend(backend);
    const base = sg.tensor(Float32Array.from({ length: 20 }, (_, i) => i / 10), { shape: [20] });
    const head = base.narrow(0, 0, 8), tail = base.narrow(0, 14, 6), middle = base.narrow(0, 8, 6);
    head.requiresGrad = true;
    tail.requiresGrad = true;
    const q = sg.tensor(Float32Array.from({ length: 5 }, (_, i) => -i), { shape: [5], requiresGrad: true });
    const r = sg.tensor(Float32Array.from({ length: 7 }, (_, i) => i * 0.3), { shape: [7], requiresGrad: true });
    const s = sg.tensor(Float32Array.from({ length: 3 }, (_, i) => 1 - i), { shape: [3], requiresGrad: true });
    const moving = new sg.optim.Adam([head, q, r], { lr: 0.1 });
    const staying = new sg.optim.SGD([tail, s], { lr: 0.1, momentum: 0.5 });
    const counts = [];
    for (let k = 0; k < 3; k++) {
      for (const p of [head, q, r, tail, s]) {
        const g = sg.tensor(Float32Array.from({ length: p.numel }, (_, i) => Math.sin(3 * i + k)), { shape: p.shape });
        p.grad = g;
        g.dispose();
      }
      await sg.sync();
      const d0 = backend === 'webgpu' ? sg.webgpuStats().dispatches : 0;
      moving.step();
      await sg.sync();
      const d1 = backend === 'webgpu' ? sg.webgpuStats().dispatches : 0;
      staying.step();
      await sg.sync();
      const d2 = backend === 'webgpu' ? sg.webgpuStats().dispatches : 0;
      counts.push([d1 - d0, d2 - d1]);
    }
    const out = { base: Array.from(await base.data()), middle: Array.from(await middle.data()), q: Array.from(await q.data()), r: Array.from(await r.data()), s: Array.from(await s.data()), counts };
    for (const o of [moving, staying]) {
      const sd = o.stateDict();
      sg.dispose(sd.state);
      o.zeroGrad();
      o.dispose();
    }
    sg.dispose([base, head, tail, middle, q, r, s]);
    sg.setBackend('wasm');
    return out;
  };
  const want = await run('wasm');
  const got = await run('webgpu');
  for (const key of ['base', 'q', 'r', 's']) close(got[key], want[key], 1e-6, key);
  assert.deepEqual(got.middle, [0.8, 0.9, 1, 1.1, 1.2, 1.3].map((v) => Math.fround(v)), 'the view no optimizer updates');
  // Adam over head, q, r: one dispatch once the state exists; SGD over tail (offset 56 bytes in
  // its storage), s: a kernel each.
  assert.deepEqual(got.counts.slice(1), [[1, 2], [1, 2]]);
});
