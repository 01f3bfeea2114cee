// An elementwise op on a product's output fused into the WebGPU GEMM's write-back (web/webgpu/
// kernels/gemm.ts attachUnary, attachBinary): linear → GELU while a gradient is recorded
// (src/nn/linear.cpp runs the GELU as its own op then, as its backward needs the
// pre-activation), matmul → relu/sigmoid written as two ops, a residual add of a projection, in
// eager code and under sg.compile. Counts (never times): one dispatch fewer than the unfused path
// (prefs.gemmEpilogue off), and no fusion where it would be wrong (over part of the product, in
// place, a broadcast operand, the product twice). Values: outputs and gradients bit for bit equal
// to the unfused path's, and within 1e-4 of the 'reference' backend. Dawn over SwiftShader.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { gpu, why } from './webgpu_env.mjs';
import { init } from '../../npm/dist/index.mjs';
import { f } from './backend_cases.mjs';
import { compare, runCase } from './backend_matrix_run.mjs';

const skip = gpu ? false : why;
const sg = gpu ? await init({ backend: 'webgpu', gpu }) : await init();
after(() => {
  sg.setBackend('wasm');
  if (gpu) setTimeout(() => process.exit(process.exitCode ?? 0), 100); // Dawn keeps Node alive otherwise
});

const lin = (shape, out, seed) => [f(shape, -1, 1, seed), f([out, shape.at(-1)], -1, 1, seed + 1), f([out], -1, 1, seed + 2)];
// [name, inputs, run, fused: whether the unary should fuse]
const CASES = [
  ['linear → gelu', lin([5, 7], 9, 1), (s, x, w, b) => s.F.gelu(s.F.linear(x, w, b)), true],
  ['linear → gelu tanh, 3-d input', lin([2, 3, 7], 6, 4), (s, x, w, b) => s.F.gelu(s.F.linear(x, w, b), { approximate: 'tanh' }), true],
  ['matmul → relu', [f([6, 4], -1, 1, 7), f([4, 5], -1, 1, 8)], (s, a, b) => a.matmul(b).relu(), true],
  ['matmul of a transposed weight → sigmoid', [f([6, 4], -1, 1, 9), f([5, 4], -1, 1, 10)], (s, a, b) => a.matmul(b.T).sigmoid(), true],
  ['gelu over part of the product (not fused)', lin([5, 7], 9, 11), (s, x, w, b) => s.F.gelu(s.F.linear(x, w, b).narrow(1, 2, 4)), false],
  ['in-place relu_ of the product (not fused)', [f([6, 4], -1, 1, 14), f([4, 5], -1, 1, 15)], (s, a, b) => s.noGrad(() => a.matmul(b).relu_()), false],
  ['residual add x + linear(h)', [f([2, 3, 6], -1, 1, 16), ...lin([2, 3, 5], 6, 17)], (s, x, h, w, b) => x.add(s.F.linear(h, w, b)), true],
  ['matmul − x (the product on the left)', [f([6, 4], -1, 1, 20), f([4, 5], -1, 1, 21), f([6, 5], -1, 1, 22)], (s, a, b, x) => a.matmul(b).sub(x), true],
  ['matmul · a broadcast row (not fused)', [f([6, 4], -1, 1, 23), f([4, 5], -1, 1, 24), f([5], -1, 1, 25)], (s, a, b, r) => a.matmul(b).mul(r), false],
  ['product + itself (not fused)', [f([6, 4], -1, 1, 26), f([4, 5], -1, 1, 27)], (s, a, b) => { const y = a.matmul(b); return y.add(y); }, false],
  ['x.add_(product) in place (not fused)', [f([6, 4], -1, 1, 28), f([4, 5], -1, 1, 29), f([6, 5], -1, 1, 30)], (s, a, b, x) => s.noGrad(() => x.clone().add_(a.matmul(b))), false],
];

const FORCED = ['linear → gelu tanh, 3-d input', 'matmul of a transposed weight → sigmoid', 'residual add x + linear(h)', 'matmul − x (the product on the left)'];

/** Dispatches of c's forward on webgpu (inputs made and synced first). */
async function forwardDispatches(c) {
  sg.setBackend('webgpu');
  const inputs = c.inputs.map((s) => sg.tensor(new Float32Array(s.shape.reduce((a, b) => a * b, 1)).fill(0.5), { shape: s.shape, requiresGrad: true }));
  await sg.sync();
  const s0 = sg.webgpuStats().dispatches;
  const y = c.run(sg, ...inputs);
  await sg.sync();
  const n = sg.webgpuStats().dispatches - s0;
  sg.dispose([y, inputs]);
  sg.setBackend('wasm');
  return n;
}

test('an elementwise op after a product fuses into the GEMM write-back: one dispatch fewer, values and gradients as unfused (bit for bit) and as the reference', { skip }, async (t) => {
  const { activeRuntime } = await import('../../npm/dist/esm/npm/src/runtime/webgpu_device.js');
  const prefs = activeRuntime().prefs;
  const errors = [];
  try {
    for (const [name, inputs, run, fuses] of CASES) {
      const c = { name, tol: 1e-4, inputs, run };
      prefs.gemmEpilogue = true;
      const fused = await runCase(sg, c, 'webgpu');
      const nFused = await forwardDispatches(c);
      prefs.gemmEpilogue = false;
      const plain = await runCase(sg, c, 'webgpu');
      const nPlain = await forwardDispatches(c);
      const want = await runCase(sg, c, 'reference');
      t.diagnostic(`${name}: forward ${nFused} dispatches fused, ${nPlain} unfused`);
      assert.equal(nFused, fuses ? nPlain - 1 : nPlain, `${name}: dispatches`);
      assert.deepEqual(fused, plain, `${name}: fused and unfused results differ`);
      const e = compare(want, fused, c.tol);
      if (e) errors.push(`${name}: ${e}`);
    }
  } finally {
    prefs.gemmEpilogue = true;
  }
  assert.deepEqual(errors, []);
});

test('the epilogue in the workgroup-tiled and register-blocked GEMMs (forced: SwiftShader picks the register-only one): values as unfused and the reference', { skip }, async () => {
  const { activeRuntime } = await import('../../npm/dist/esm/npm/src/runtime/webgpu_device.js');
  const prefs = activeRuntime().prefs;
  const chosen = prefs.gemm;
  const errors = [];
  try {
    for (const variant of ['tiled', 'blocked']) {
      prefs.gemm = variant;
      // One unary epilogue with a bias on a 3-d input, one binary with a bias, one binary with the
      // product on the left and a transposed weight's: each variant's write-back is generated by
      // the same attachUnary/attachBinary code for every op, so the other fused cases (all run on
      // the runtime's own variant in the test above) add SwiftShader pipeline compiles, not paths.
      for (const [name, inputs, run] of CASES.filter((c) => FORCED.includes(c[0]))) {
        const c = { name: `${variant}: ${name}`, tol: 1e-4, inputs, run };
        prefs.gemmEpilogue = true;
        const fused = await runCase(sg, c, 'webgpu');
        prefs.gemmEpilogue = false;
        const plain = await runCase(sg, c, 'webgpu');
        assert.deepEqual(fused, plain, `${c.name}: fused and unfused results differ`);
        const e = compare(await runCase(sg, c, 'reference'), fused, c.tol);
        if (e) errors.push(`${c.name}: ${e}`);
      }
    }
  } finally {
    prefs.gemm = chosen;
    prefs.gemmEpilogue = true;
  }
  assert.deepEqual(errors, []);
});

test('under sg.compile, linear → gelu in a training step: the GELU rides on the product, values as eager', { skip }, async (t) => {
  sg.setBackend('webgpu');
  sg.manualSeed(3);
  const model = new sg.nn.Sequential(new sg.nn.Linear(6, 16), new sg.nn.Linear(16, 3));
  const x = sg.randn([8, 6]);
  const body = () => {
    const [l1, l2] = [...model.children()];
    const h = sg.F.gelu(l1.forward(x)); // not fused by Sequential: a function between the layers
    const loss = l2.forward(h).square().mean();
    loss.backward();
    return loss;
  };
  const step = sg.compile(body);
  const run = async (fn) => {
    model.zeroGrad();
    await sg.sync();
    const s0 = sg.webgpuStats().dispatches;
    const loss = fn();
    const v = (await loss.data())[0];
    await sg.sync();
    const n = sg.webgpuStats().dispatches - s0;
    const grads = [];
    for (const p of model.parameters()) grads.push(Array.from(await p.grad.data()));
    loss.dispose();
    return { v, n, grads };
  };
  const { activeRuntime } = await import('../../npm/dist/esm/npm/src/runtime/webgpu_device.js');
  const prefs = activeRuntime().prefs;
  await run(step); // traces
  const compiled = await run(step);
  const eager = await run(body);
  prefs.gemmEpilogue = false;
  let plain;
  try {
    plain = await run(step);
  } finally {
    prefs.gemmEpilogue = true;
  }
  t.diagnostic(`compiled step: ${compiled.n} dispatches fused, ${plain.n} unfused; eager ${eager.n}`);
  assert.equal(compiled.v, plain.v);
  assert.deepEqual(compiled.grads, plain.grads);
  assert.equal(compiled.v, eager.v);
  assert.ok(compiled.n < plain.n, `compiled: ${compiled.n} dispatches fused, ${plain.n} unfused`);
  model.zeroGrad();
  sg.dispose([x, ...model.parameters()]);
  sg.setBackend('wasm');
});
