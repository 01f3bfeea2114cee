// LayerNorm of float16/bfloat16 tensors on WebGPU (the row kernels of src/nn/layer_norm_fused.cpp,
// on the float32 copies the dtype widening makes): between forward and backward the graph holds
// the 16-bit result and the kernel's float32 rstd (one a row), not a float32 x̂ of the whole input
// nor a float32 copy of the weight; backward makes x̂ again from the 16-bit input. Values and
// gradients against PyTorch 1.13 (tests/data/dtype_compute_ref.json, gen_dtype_compute.py's
// layerNorm cases: float32 computation rounded once), within one unit in the last place.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { gpu, why } from './webgpu_env.mjs';
import { init } from '../../npm/dist/index.mjs';
import { readFileSync } from 'node:fs';
import { withinOneUlp } from './ulps_16bit.mjs';

const skip = gpu ? false : why;
const sg = gpu ? await init({ backend: 'webgpu', gpu }) : null;
after(() => {
  if (gpu) setTimeout(() => process.exit(process.exitCode ?? 0), 100); // Dawn keeps Node alive otherwise
});

const ref = JSON.parse(readFileSync(new URL('../data/dtype_compute_ref.json', import.meta.url), 'utf8'));

/** Bytes on the CPU and the GPU together. */
async function bytesNow() {
  await sg.sync();
  const m = sg.memory();
  return m.bytes + m.gpuBytes;
}

/** What a GPU tensor of this shape and dtype adds (its buffer as the allocator counts it). */
async function bytesOf(shape, dtype) {
  const before = await bytesNow();
  const t = sg.zeros(shape, { dtype, device: 'webgpu' });
  const bytes = (await bytesNow()) - before;
  t.dispose();
  return bytes;
}

async function expectClose(what, t, want) {
  assert.equal(t.dtype, want.dtype, `${what}: dtype`);
  assert.deepEqual(t.shape, want.shape, `${what}: shape`);
  const got = Array.from(await t.data(), Number);
  withinOneUlp(what, got, want);
}

test('float16/bfloat16 layerNorm on webgpu holds its 16-bit result and float32 rstd between forward and backward; values and gradients equal PyTorch\'s', { skip }, async () => {
  const cases = ref.cases.filter((c) => c.name === 'layerNorm');
  assert.deepEqual(cases.map((c) => c.dtype).sort(), ['bfloat16', 'float16']);
  for (const c of cases) {
    const [x, w, b] = c.inputs.map((s) => sg.tensor(s.values, { dtype: s.dtype, device: 'webgpu' }).reshape(s.shape).requiresGrad_());
    const g = sg.tensor(c.g[0].values, { dtype: c.dtype, device: 'webgpu' }).reshape(c.g[0].shape);
    const rows = x.shape[0];
    const want = (await bytesOf(x.shape, c.dtype)) + (await bytesOf([rows], 'float32'));
    const before = await bytesNow();
    const y = sg.F.layerNorm(x, [x.shape[1]], w, b);
    const held = (await bytesNow()) - before;
    assert.equal(held, want, `${c.dtype}: bytes held between forward and backward (a float32 x-hat would add ${4 * x.numel})`);
    await expectClose(`${c.dtype} output`, y, c.outputs[0]);
    y.backward(g);
    for (const [k, t] of [x, w, b].entries()) await expectClose(`${c.dtype} grad ${k}`, t.grad, c.grads[k]);
    sg.dispose([x, w, b, g, y]);
  }
});
