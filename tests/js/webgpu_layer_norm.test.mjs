// LayerNorm on WebGPU in row kernels (web/webgpu/kernels/layer_norm.ts, through
// LayerKernels::layer_norm_f32 and src/nn/layer_norm_fused.cpp): values and the gradients of x,
// weight and bias against the 'reference' backend (scalar loops, double accumulators, the composed
// form of src/nn/norm.cpp) on odd sizes — one value a row, rows past 256 values (the workgroup
// path), dw/db over more than 256 rows (the same for the column sums), no weight or bias, a 2-d
// normalized shape, a transposed input — and the gradient of a gradient (the recorded backward
// falls back to the composed form).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { gpu, why } from './webgpu_env.mjs';
import { init } from '../../npm/dist/index.mjs';
import { f } from './backend_cases.mjs';
import { compare, webgpuDifferences } from './backend_matrix_run.mjs';

const skip = gpu ? false : why;
const sg = gpu ? await init({ backend: 'webgpu', gpu }) : await init();
after(() => {
  sg.setBackend('wasm');
  if (gpu) setTimeout(() => process.exit(process.exitCode ?? 0), 100); // Dawn keeps Node alive otherwise
});

test('LayerNorm in row kernels: values and gradients of x, weight and bias equal the reference on odd sizes', { skip }, async () => {
  const cases = [];
  const ln = (name, xShape, norm, affine, seed) => {
    const inputs = [f(xShape, -3, 3, seed)];
    if (affine) inputs.push(f(norm, 0.5, 1.5, seed + 1), f(norm, -1, 1, seed + 2));
    cases.push({ name, tol: 1e-4, inputs, run: (s, x, w, b) => s.F.layerNorm(x, norm, w ?? null, b ?? null, { eps: 1e-5 }) });
  };
  ln('one value a row', [3, 1], [1], true, 1);
  ln('7 values, 5 rows', [5, 7], [7], true, 2);
  ln('no weight or bias', [2, 3, 9], [9], false, 3);
  ln('2-d normalized shape', [3, 4, 5], [4, 5], true, 4);
  ln('300 values a row (workgroup path)', [3, 300], [300], true, 5);
  ln('257 rows (dw/db over rows: workgroup path)', [257, 3], [3], true, 6);
  cases.push({ name: 'weight only', tol: 1e-4, inputs: [f([4, 6], -2, 2, 7), f([6], 0.5, 1.5, 8)], run: (s, x, w) => s.F.layerNorm(x, [6], w, null) });
  cases.push({ name: 'bias only', tol: 1e-4, inputs: [f([4, 6], -2, 2, 9), f([6], -1, 1, 10)], run: (s, x, b) => s.F.layerNorm(x, [6], null, b) });
  // A non-contiguous input (a transposed view) is read through a contiguous copy.
  cases.push({ name: 'transposed input', tol: 1e-4, inputs: [f([6, 4], -2, 2, 11), f([6], 0.5, 1.5, 12)], run: (s, x, w) => s.F.layerNorm(x.T, [6], w, null) });
  assert.deepEqual(await webgpuDifferences(sg, cases), []);
});
test('LayerNorm on webgpu: the gradient of a gradient (recorded backward) equals the reference', { skip }, async () => {
  const grads = {};
  for (const backend of ['reference', 'webgpu']) {
    sg.setBackend(backend === 'webgpu' ? 'wasm' : 'reference');
    const device = backend === 'webgpu' ? 'webgpu' : 'cpu';
    const x = sg.tensor(Float32Array.from({ length: 15 }, (_, k) => Math.sin(3 * k) * 2), { shape: [3, 5], requiresGrad: true, device });
    const w = sg.tensor([0.5, 1, 1.5, 2, 0.7], { requiresGrad: true, device });
    const y = sg.F.layerNorm(x, [5], w, null);
    const [gx] = sg.autograd.grad(y.mul(y).sum(), [x], { createGraph: true });
    const [ggx, ggw] = sg.autograd.grad(gx.pow(2).sum(), [x, w]);
    grads[backend] = [await gx.data(), await ggx.data(), await ggw.data()].map((a) => Array.from(a));
    sg.dispose([x, w, y, gx, ggx, ggw]);
  }
  sg.setBackend('wasm');
  assert.equal(compare(grads.reference, grads.webgpu, 1e-4), null);
});
