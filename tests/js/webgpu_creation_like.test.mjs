// zerosLike, onesLike and fullLike (tensor/creation.ts) put the result where the input is, as
// torch.*_like: a cpu input gives a cpu tensor while new tensors go to the GPU ('webgpu' backend),
// a GPU input a GPU tensor, and a given device wins. Needs Dawn (webgpu_env.mjs); skipped without it.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { gpu, why } from './webgpu_env.mjs';
import { init } from '../../npm/dist/index.mjs';

const skip = gpu ? false : why;
const sg = gpu ? await init({ backend: 'webgpu', gpu }) : await init();
after(() => {
  sg.setBackend('wasm');
  if (gpu) setTimeout(() => process.exit(process.exitCode ?? 0), 100); // Dawn keeps Node alive otherwise
});

test('*Like keep the input\'s device (cpu under the webgpu backend, webgpu), and take a given device instead', { skip }, async () => {
  const onCpu = sg.ones([2, 3], { device: 'cpu' });
  const onGpu = sg.ones([2, 3]);
  assert.equal(onGpu.device, 'webgpu', 'new tensors go to the GPU');
  const makers = { zerosLike: (t, o) => sg.zerosLike(t, o), onesLike: (t, o) => sg.onesLike(t, o), fullLike: (t, o) => sg.fullLike(t, 2, o) };
  for (const [name, make] of Object.entries(makers)) {
    for (const [x, opts, device] of [[onCpu, undefined, 'cpu'], [onGpu, undefined, 'webgpu'], [onCpu, { device: 'webgpu' }, 'webgpu'], [onGpu, { device: 'cpu' }, 'cpu']]) {
      const r = make(x, opts);
      assert.equal(r.device, device, `${name}(${x.device} input, ${JSON.stringify(opts)})`);
      r.dispose();
    }
  }
  sg.dispose([onCpu, onGpu]);
});
