// The ops that answer synchronously from the values (allclose's boolean; bincount, histc and
// maskedSelect, whose result shape depends on them) refuse a tensor on 'webgpu', naming the
// device and the asynchronous way to do it; after moving to the cpu they answer. Needs Dawn
// (webgpu_env.mjs); skipped without it. Expected values by hand.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { gpu, why } from './webgpu_env.mjs';
import { init } from '../../npm/dist/index.mjs';
import { throwsWith } from './helpers.mjs';

const skip = gpu ? false : why;
const sg = gpu ? await init({ backend: 'webgpu', gpu }) : await init();
after(() => {
  sg.setBackend('wasm');
  if (gpu) setTimeout(() => process.exit(process.exitCode ?? 0), 100); // Dawn keeps Node alive otherwise
});

test("allclose refuses a tensor on 'webgpu' (either side) and says how to read it", { skip }, async () => {
  const onGpu = sg.ones([3], { device: 'webgpu' });
  const onCpu = sg.ones([3], { device: 'cpu' });
  const msg = /^allclose: returns a boolean, read synchronously, and these tensors are on 'webgpu'; use `\(await sg\.isclose\(a, b\)\.all\(\)\.data\(\)\)\[0\] === 1`$/;
  throwsWith(() => sg.allclose(onGpu, onCpu), msg);
  throwsWith(() => sg.allclose(onCpu, onGpu), msg);
  throwsWith(() => sg.allclose(onGpu, onGpu), msg);
  assert.equal((await sg.isclose(onGpu, onGpu).all().data())[0], 1);
  assert.equal(sg.allclose(onCpu, sg.ones([3], { device: 'cpu' })), true);
});

test("bincount, histc and maskedSelect refuse a tensor on 'webgpu', naming it", { skip }, async () => {
  const x = sg.tensor([0, 1, 1, 3], { dtype: 'int32', device: 'webgpu' });
  const why = (fn) => new RegExp(`^${fn}: the result's shape depends on the values, which are read synchronously; this tensor is on 'webgpu': move it first \\(await x\\.to\\('cpu'\\) with sg\\.sync\\(\\), or read it with await x\\.data\\(\\)\\)$`);
  throwsWith(() => sg.bincount(x), why('bincount'));
  const f = sg.tensor([1, 2, 2, 3], { device: 'webgpu' });
  throwsWith(() => sg.histc(f, { bins: 3, min: 0, max: 3 }), why('histc'));
  throwsWith(() => sg.maskedSelect(f, f.gt(1)), why('maskedSelect'));
  const onCpu = x.to('cpu');
  await sg.sync();
  assert.deepEqual(sg.bincount(onCpu).toArray(), [1, 2, 0, 1]);
});

test("a 'webgpu' tensor: synchronous reads refuse with the async way; toString is a summary with the device", { skip }, async () => {
  const x = sg.tensor([1, 2, 3], { device: 'webgpu', requiresGrad: true });
  for (const fn of ['dataSync', 'item', 'toArray']) {
    const call = () => (fn === 'item' ? x.sum()[fn]() : x[fn]());
    throwsWith(call, new RegExp(`^${fn}: this tensor is on 'webgpu', whose data can only be read asynchronously: use \`await t\\.data\\(\\)\` or \`await t\\.array\\(\\)\` \\(or move it with t\\.to\\('cpu'\\) and await sg\\.sync\\(\\)\\)$`));
  }
  assert.equal(String(x), 'Tensor(shape=[3], dtype=float32, device=webgpu, requiresGrad=true)');
  assert.deepEqual(await x.array(), [1, 2, 3]);
});

test("Module.to('webgpu') and back moves each parameter's grad with it", { skip }, async () => {
  const lin = new sg.nn.Linear(2, 1).to('cpu');
  await sg.sync();
  sg.noGrad(() => lin.weight.copy_(sg.tensor([[1, 2]], { device: 'cpu' })));
  lin(sg.tensor([[3, 4]], { device: 'cpu' })).sum().backward();
  lin.to('webgpu');
  assert.equal(lin.weight.device, 'webgpu');
  assert.equal(lin.weight.grad.device, 'webgpu');
  assert.equal(lin.weight.isLeaf, true);
  assert.deepEqual(await lin.weight.grad.array(), [[3, 4]]);
  lin.to('cpu');
  await sg.sync();
  assert.deepEqual(lin.weight.grad.toArray(), [[3, 4]]);
  assert.deepEqual(lin.bias.grad.toArray(), [1]);
});
