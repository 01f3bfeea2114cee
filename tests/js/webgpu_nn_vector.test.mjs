// sg.nn.utils.vectorToParameters with GPU tensors (Dawn on SwiftShader, webgpu_env.mjs): when
// the vector or any parameter is on the GPU the slices are copied there as tensors (a GPU vector
// cannot be read synchronously, which the cpu path does). Expected values by definition, as
// torch.nn.utils.vector_to_parameters: each parameter, in its own element order, gets the next
// numel values of the vector (an arange, so every value says where it came from).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { gpu, why } from './webgpu_env.mjs';
import { init } from '../../npm/dist/index.mjs';
import { settleFinalizers } from './gc_settle.mjs';

const skip = gpu ? false : why;
const sg = gpu ? await init({ backend: 'webgpu', gpu }) : null;
after(() => {
  if (gpu) setTimeout(() => process.exit(process.exitCode ?? 0), 100); // Dawn keeps Node alive otherwise
});

/** Runs fn, then checks that it left no tensor behind (the copies' temporaries are released). */
async function flat(fn) {
  await sg.sync();
  await settleFinalizers(); // earlier tests' forgotten tensors must not be freed between the counts
  const before = sg.memory().handles;
  await fn();
  await sg.sync();
  await settleFinalizers();
  assert.equal(sg.memory().handles, before, 'handles left behind');
}

test('vectorToParameters: a GPU vector into GPU parameters', { skip }, async () => {
  const w = sg.zeros([2, 3], { device: 'webgpu' }), b = sg.zeros([2], { device: 'webgpu' });
  const vec = sg.arange(8, { device: 'webgpu' });
  await flat(() => sg.nn.utils.vectorToParameters(vec, [w, b]));
  assert.deepEqual(await w.array(), [[0, 1, 2], [3, 4, 5]]);
  assert.deepEqual(await b.array(), [6, 7]);
  sg.dispose([w, b, vec]);
});

test('vectorToParameters: an empty GPU vector into no parameters does nothing', { skip }, async () => {
  // torch.nn.utils.vector_to_parameters(torch.empty(0), []) is a no-op; the GPU vector is never read.
  const vec = sg.zeros([0], { device: 'webgpu' });
  await flat(() => sg.nn.utils.vectorToParameters(vec, []));
  vec.dispose();
});

test('vectorToParameters: a cpu vector into cpu and GPU parameters, one a strided view on the GPU', { skip }, async () => {
  // Any parameter on the GPU sends every slice through the copy path, which writes a view in place:
  // the view gets its slice in its own (transposed) order, as PyTorch's parameter would, and its
  // base then holds the transpose of that.
  const c = sg.zeros([2], { device: 'cpu' });
  const base = sg.zeros([3, 2], { device: 'webgpu' }), b = sg.zeros([2], { device: 'webgpu' });
  const view = base.transpose(0, 1);
  const vec = sg.arange(10, { device: 'cpu' });
  await flat(() => sg.nn.utils.vectorToParameters(vec, [c, view, b]));
  assert.deepEqual(c.toArray(), [0, 1]);
  assert.deepEqual(await view.array(), [[2, 3, 4], [5, 6, 7]]);
  assert.deepEqual(await base.array(), [[2, 5], [3, 6], [4, 7]]);
  assert.deepEqual(await b.array(), [8, 9]);
  sg.dispose([c, base, view, b, vec]);
});

test('vectorToParameters: a GPU vector with a cpu parameter is an Error naming both devices, and nothing is written', { skip }, async () => {
  // The cpu parameter would need the GPU's values synchronously; the GPU parameter before it is
  // not written either (all or nothing).
  const g = sg.zeros([2], { device: 'webgpu' }), c = sg.zeros([2], { device: 'cpu' });
  const vec = sg.arange(4, { device: 'webgpu' });
  await flat(() => assert.throws(() => sg.nn.utils.vectorToParameters(vec, [g, c]),
    (e) => e instanceof Error && /vectorToParameters: expected the vector on the cpu for parameters\[1\], which is on the cpu; got a vector on 'webgpu'/.test(e.message)));
  assert.deepEqual(await g.array(), [0, 0]);
  assert.deepEqual(c.toArray(), [0, 0]);
  sg.dispose([g, c, vec]);
});

test('vectorToParameters: a float64 cpu vector into float32 GPU parameters is cast, as PyTorch\'s copy', { skip }, async () => {
  const w = sg.zeros([2], { device: 'webgpu' }), b = sg.zeros([1], { device: 'webgpu' });
  const vec = sg.tensor([0.1, -2.5, 1 / 3], { dtype: 'float64', device: 'cpu' });
  await flat(() => sg.nn.utils.vectorToParameters(vec, [w, b]));
  assert.deepEqual(await w.array(), [Math.fround(0.1), -2.5]);
  assert.deepEqual(await b.array(), [Math.fround(1 / 3)]);
  sg.dispose([w, b, vec]);
});
