// The WebGPU device through the public API (npm `webgpu` = Dawn on SwiftShader: webgpu_env.mjs):
// init and its failures, where tensors live, moving data, reading (async only), device mixing,
// module.to, memory and the GPU buffer pool, errors found on the GPU, limits, device loss, save,
// and the counts a training loop must keep (submits per step, no buffer creation after warm-up,
// flat GPU memory). Values are checked against closed forms; the op-by-op comparison with the
// CPU backends is backend_matrix.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gpu, why } from './webgpu_env.mjs';
import { init } from '../../npm/dist/index.mjs';

const skip = gpu ? false : why;
const warnings = [];
const realWarn = console.warn;
console.warn = (...a) => warnings.push(a.join(' '));

/** A GPU object whose device can be reached (and destroyed) by the test. */
const devices = [];
const spy = gpu && {
  requestAdapter: async (o) => {
    const a = await gpu.requestAdapter(o);
    if (!a) return a;
    return new Proxy(a, {
      get(target, key) {
        if (key === 'requestDevice') {
          return async (d) => {
            const dev = await target.requestDevice(d);
            devices.push(dev);
            return dev;
          };
        }
        const v = target[key];
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
  },
};

async function rejects(p, ...patterns) {
  let err;
  try {
    await p;
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof Error, `expected an Error, got ${err}`);
  for (const re of patterns) assert.match(err.message, re);
  return err;
}

function throws(f, ...patterns) {
  let err;
  try {
    f();
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof Error, `expected an Error, got ${err}`);
  for (const re of patterns) assert.match(err.message, re);
}

// Before any device exists: what init says when there is none.
test('without a GPU: webgpu rejects saying why, auto falls back to wasm with one warning', { skip }, async () => {
  await rejects(init({ backend: 'webgpu' }), /init: backend 'webgpu' is not available: there is no navigator\.gpu here/, /create\(\[\]\)/);
  await rejects(init({ backend: 'webgpu', gpu: { requestAdapter: async () => null } }), /requestAdapter\(\) found no GPU adapter/);
  await rejects(init({ backend: 'webgpu', gpu: 42 }), /init: .*gpu.*requestAdapter/);
  warnings.length = 0;
  const sg = await init({ backend: 'auto' });
  assert.equal(sg.getBackend(), 'wasm');
  assert.equal(sg.features().webgpu, false);
  assert.deepEqual(warnings, ["simdgrad: backend 'auto' chose 'wasm' (WebGPU is not available: there is no navigator.gpu here (in Node, pass a GPU object: init({ backend: 'webgpu', gpu: create([]) }) with create from the npm package 'webgpu'))"]);
  assert.equal(sg.tensor([1]).device, 'cpu');
  throws(() => sg.setBackend('webgpu'), /setBackend: backend 'webgpu' is not running/);
});

let sg;

test('init puts new tensors on the GPU; { device: "cpu" } and setBackend keep the CPU reachable', { skip }, async () => {
  sg = await init({ backend: 'webgpu', gpu: spy });
  assert.equal(sg.features().webgpu, true);
  assert.equal(sg.features().f16, false);
  assert.equal(sg.getBackend(), 'webgpu');
  for (const t of [sg.tensor([1, 2]), sg.zeros([2]), sg.randn([3]), sg.arange(3), sg.eye(2), sg.randint(0, 3, [2]), sg.zerosLike(sg.ones([1]))]) {
    assert.equal(t.device, 'webgpu');
  }
  assert.equal(sg.tensor([1, 2], { device: 'cpu' }).device, 'cpu');
  assert.equal(sg.zeros([2], { device: 'cpu' }).device, 'cpu');
  assert.equal(sg.zerosLike(sg.ones([1], { device: 'cpu' })).device, 'cpu');
  throws(() => sg.zeros([2], { device: 'gpu' }), /zeros: .*device.*'cpu'.*'webgpu'/);
  sg.setBackend('wasm');
  assert.equal(sg.tensor([1]).device, 'cpu');
  sg.setBackend('webgpu');
  assert.equal(sg.tensor([1]).device, 'webgpu');
});

test('GPU tensors are read with await; synchronous reads say so', { skip }, async () => {
  const t = sg.tensor([[1, 2], [3, 4]]);
  assert.deepEqual(await t.array(), [[1, 2], [3, 4]]);
  assert.deepEqual(Array.from(await t.data()), [1, 2, 3, 4]);
  assert.deepEqual(await sg.tensor([true, false]).array(), [true, false]);
  throws(() => t.toArray(), /toArray: this tensor is on 'webgpu'/, /await t\.data\(\)/, /await t\.array\(\)/);
  throws(() => t.dataSync(), /dataSync: .*await t\.data\(\)/);
  throws(() => t.sum().item(), /item: .*await t\.data\(\)/);
  assert.match(String(t), /device=webgpu/);
});

test('to() moves data both ways, differentiably; mixing devices names both', { skip }, async () => {
  const c = sg.tensor([1, -2, 3], { device: 'cpu', requiresGrad: true });
  const g = c.to('webgpu');
  assert.equal(g.device, 'webgpu');
  const back = g.square().to('cpu');
  throws(() => back.toArray(), /still on its way from the gpu/);
  await sg.sync();
  assert.deepEqual(back.toArray(), [1, 4, 9]);
  back.sum().backward();
  await sg.sync();
  assert.deepEqual(c.grad.toArray(), [2, -4, 6]); // d/dc Σ c² = 2c, through both moves
  throws(() => c.add(g), /add: expected all tensors on one device, got cpu \(operand 0\) and webgpu \(operand 1\)/);
  assert.deepEqual(await g.mul(sg.tensor(2, { device: 'cpu' })).array(), [2, -4, 6]); // 0-d cpu scalars go anywhere
});

test('dtypes on the GPU: float64 is refused by name (WGSL has no f64); nothing moves (the others: webgpu_dtypes.test.mjs)', { skip }, async () => {
  const before = sg.memory().tensors;
  const d = sg.tensor([1, 2], { device: 'cpu', dtype: 'float64' });
  throws(() => d.to('webgpu'), /float64 tensors cannot live on the webgpu device/, /WGSL has no 64-bit floats/);
  throws(() => sg.zeros([2], { dtype: 'float64' }), /float64 tensors cannot live on the webgpu device/);
  // Cast first, on the CPU: float32 goes up.
  const up = d.to({ dtype: 'float32', device: 'webgpu' });
  assert.equal(up.device, 'webgpu');
  assert.deepEqual(await up.array(), [1, 2]);
  up.dispose();
  d.dispose();
  assert.equal(sg.memory().tensors, before);
});

test('module.to moves parameters in place; an optimizer made before keeps training them', { skip }, async () => {
  sg.manualSeed(3);
  sg.setBackend('wasm');
  const model = new sg.nn.Sequential(new sg.nn.Linear(3, 4), new sg.nn.Tanh(), new sg.nn.Linear(4, 2));
  const x = sg.tensor([[0.5, -1, 2], [1, 0, -0.5]]);
  const want = model.forward(x).toArray();
  const params = model.parameters();
  const opt = new sg.optim.SGD(params, { lr: 0.1 });
  sg.setBackend('webgpu');
  assert.equal(model.to('webgpu'), model);
  model.parameters().forEach((p, k) => {
    assert.equal(p, params[k]);
    assert.equal(p.device, 'webgpu');
    assert.equal(p.requiresGrad, true);
    assert.equal(p.isLeaf, true);
  });
  const xg = x.to('webgpu');
  const got = await model.forward(xg).array();
  got.flat().forEach((v, k) => assert.ok(Math.abs(v - want.flat()[k]) < 1e-5));
  const before = await params[0].array();
  model.forward(xg).sum().backward();
  assert.equal(params[0].grad.device, 'webgpu');
  opt.step();
  const after = await params[0].array();
  assert.notDeepEqual(after, before);
  await rejects(Promise.resolve().then(() => sg.save(model.stateDict())), /save: '0\.weight' is a webgpu tensor/, /await sg\.saveAsync/);
  const bytes = await sg.saveAsync(model.stateDict());
  const loaded = sg.load(bytes);
  assert.deepEqual(loaded['0.weight'].toArray().flat().map((v) => Math.fround(v)), after.flat());
  model.to('cpu');
  await sg.sync();
  assert.deepEqual(params[0].toArray(), after);
  assert.equal(params[0].device, 'cpu');
});

test('sg.memory counts GPU bytes apart; a disposed GPU tensor goes back to the pool', { skip }, async () => {
  await sg.sync();
  const m0 = sg.memory(), s0 = sg.webgpuStats();
  const t = sg.zeros([1000]);
  const m1 = sg.memory(), s1 = sg.webgpuStats();
  assert.equal(m1.gpuBytes - m0.gpuBytes, 4000);
  assert.equal(m1.gpuStorages - m0.gpuStorages, 1);
  assert.equal(m1.bytes, m0.bytes); // nothing in wasm memory
  assert.ok(s1.bytesInUse - s0.bytesInUse >= 4000);
  t.dispose();
  const s2 = sg.webgpuStats();
  assert.equal(s2.bytesInUse, s0.bytesInUse);
  const u = sg.zeros([1000]); // the same size class again: from the pool
  assert.equal(sg.webgpuStats().buffersCreated, s2.buffersCreated);
  u.dispose();
  assert.equal(sg.memory().gpuBytes, m0.gpuBytes);
});

test('bad data found on the GPU rejects the next read with the CPU message; the module stays usable', { skip }, async () => {
  const logits = sg.randn([3, 5]);
  const loss = sg.F.crossEntropy(logits, sg.tensor([1, 7, 0], { dtype: 'int32' }));
  const cpu = sg.tidy(() => {
    try {
      sg.F.crossEntropy(logits.to('cpu'), sg.tensor([1, 7, 0], { dtype: 'int32', device: 'cpu' }));
    } catch (e) {
      return e.message;
    }
    return '';
  });
  await rejects(loss.data(), new RegExp(cpu.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  assert.match(cpu, /7/);
  assert.deepEqual(await sg.tensor([1, 2]).add(1).array(), [2, 3]);
  await rejects(sg.tensor([0.5, 1.5]).data().then(() => sg.F.binaryCrossEntropy(sg.tensor([0.5, 1.5]), sg.tensor([1, 0])).data()), /binaryCrossEntropy/);
  // An integer to a negative integer power: refused on both devices (as PyTorch), never a 0.
  const ints = (v, device) => sg.tensor(v, { dtype: 'int32', device });
  assert.throws(() => sg.pow(ints([2, 3], 'cpu'), ints([1, -1], 'cpu')), /pow: integers to negative integer powers are not allowed, got exponent -1/);
  await rejects(sg.pow(ints([2, 3]), ints([1, -1])).data(), /pow: integers to negative integer powers are not allowed, got exponent -1/);
  assert.deepEqual(await sg.pow(ints([2, -3]), ints([3, 2])).array(), [8, 9]);
});

test('a tensor larger than one GPU buffer allows is an Error before anything is dispatched', { skip }, () => {
  const limit = devices[0].limits.maxStorageBufferBindingSize;
  const s0 = sg.webgpuStats();
  throws(() => sg.zeros([limit / 4 + 64]), /larger than this GPU allows in one buffer/, /maxStorageBufferBindingSize/);
  assert.equal(sg.webgpuStats().dispatches, s0.dispatches);
  assert.deepEqual(sg.tensor([1, 2]).device, 'webgpu');
});

test('a convolution with more output columns than one dispatch has workgroups runs in pieces, values by closed form', { skip }, async () => {
  // 2.2M positions = 68,750 column tiles of 32 > 65,535 workgroups per dimension.
  const n = 2_200_000;
  const x = sg.tensor(Float32Array.from({ length: n }, (_, i) => i % 4), { shape: [1, 1, n], requiresGrad: true });
  const w = sg.full([1, 1, 1], 2).requiresGrad_(), b = sg.full([1], 0.5).requiresGrad_();
  const s0 = sg.webgpuStats();
  const y = sg.F.conv1d(x, w, b);
  assert.ok(sg.webgpuStats().dispatches >= s0.dispatches + 2);
  y.sum().backward();
  const [yv, dx] = [await y.data(), await x.grad.data()];
  let bad = -1;
  for (let i = 0; i < n && bad < 0; i++) if (yv[i] !== 2 * (i % 4) + 0.5 || dx[i] !== 2) bad = i;
  assert.equal(bad, -1, `position ${bad}: y ${yv[bad]}, dx ${dx[bad]}`);
  assert.deepEqual([...(await w.grad.data())], [(n / 4) * 6]); // Σ x, exact in float32
  assert.deepEqual([...(await b.grad.data())], [n]);
  sg.dispose([x, w, b, y]);
});

test('what needs synchronous reads says so on GPU tensors (LBFGS, save, clipGradNorm_ errorIfNonfinite)', { skip }, async () => {
  const p = sg.tensor([1, -2], { requiresGrad: true });
  throws(() => new sg.optim.LBFGS([p]), /LBFGS: params\[0\] is on webgpu/, /asynchronously/, /model\.to\('cpu'\)/);
  p.grad = sg.tensor([3, 4]);
  throws(() => sg.nn.utils.clipGradNorm_([p], 1, { errorIfNonfinite: true }), /clipGradNorm_: errorIfNonfinite/);
  assert.ok(Number.isNaN(sg.nn.utils.clipGradNorm_([p], 1))); // clipped on the GPU; the norm stays there
  const g = await p.grad.array(); // [3, 4] · 1 / (‖[3, 4]‖ + 1e-6) = [0.6, 0.8]
  assert.ok(Math.abs(g[0] - 0.6) < 1e-6 && Math.abs(g[1] - 0.8) < 1e-6, `clipped grad ${g}`);
  throws(() => sg.save({ p }), /save: 'p' is a webgpu tensor/, /saveAsync/);
});

test('webgpuCoverage lists every op, with or without a kernel and why', { skip }, () => {
  const c = sg.webgpuCoverage();
  assert.ok(c.withKernel.includes('matmul') && c.withKernel.includes('crossEntropy') && c.withKernel.includes('linear'));
  for (const r of c.withoutKernel) assert.ok(r.reason.length > 10, r.op);
  assert.ok(c.withKernel.length + c.withoutKernel.length > 100);
});

test('an MLP training loop: ≤ 2 submits per step, no buffer created after warm-up, flat GPU memory over 1,000 steps', { skip }, async (t) => {
  sg.manualSeed(0);
  const x = sg.randn([32, 16]), y = sg.randint(0, 4, [32]);
  const model = new sg.nn.Sequential(new sg.nn.Linear(16, 16), new sg.nn.ReLU(), new sg.nn.Linear(16, 4));
  const opt = new sg.optim.Adam(model.parameters(), { lr: 1e-2 });
  const step = () =>
    sg.tidy(() => {
      opt.zeroGrad();
      const loss = sg.F.crossEntropy(model.forward(x), y);
      loss.backward();
      opt.step();
      return loss;
    });
  let first;
  for (let i = 0; i < 5; i++) {
    const l = step();
    first ??= (await l.data())[0];
    l.dispose();
  }
  await sg.sync();
  const s0 = sg.webgpuStats(), m0 = sg.memory();
  let last;
  for (let i = 0; i < 1000; i++) {
    const l = step();
    if (i % 100 === 99) last = (await l.data())[0]; // a read now and then, as a loop prints its loss
    l.dispose();
  }
  await sg.sync();
  const s1 = sg.webgpuStats(), m1 = sg.memory();
  const reads = s1.reads - s0.reads;
  t.diagnostic(`1000 steps: ${s1.submits - s0.submits} submits, ${s1.dispatches - s0.dispatches} dispatches, ${reads} reads, ${s1.buffersCreated - s0.buffersCreated} buffers created, ${s1.bytesResident} bytes resident`);
  assert.ok(s1.submits - s0.submits <= 2 * 1000 + reads, `${s1.submits - s0.submits} submits for 1000 steps and ${reads} reads`);
  assert.equal(s1.buffersCreated, s0.buffersCreated, 'buffers created after warm-up');
  assert.equal(s1.bytesResident, s0.bytesResident);
  // At most what it was (the collector may free earlier tests' forgotten tensors meanwhile).
  assert.ok(s1.bytesInUse <= s0.bytesInUse, `GPU bytes in use ${s0.bytesInUse} → ${s1.bytesInUse}`);
  assert.ok(m1.gpuBytes <= m0.gpuBytes, `gpuBytes ${m0.gpuBytes} → ${m1.gpuBytes}`);
  assert.ok(m1.tensors <= m0.tensors, `tensors ${m0.tensors} → ${m1.tensors}`);
  assert.ok(last < first * 0.5, `loss ${first} → ${last}`);
});

// Last: it loses the device.
test('a lost device: GPU ops say so, CPU tensors work, init starts a new one', { skip }, async () => {
  const t = sg.tensor([1, 2]);
  const c = sg.tensor([3, 4], { device: 'cpu' });
  devices[devices.length - 1].destroy();
  await new Promise((r) => setTimeout(r, 50));
  throws(() => t.add(1), /the device was lost/, /init\(\{ backend: 'webgpu' \}\) again/);
  await rejects(sg.sync(), /the device was lost/);
  assert.deepEqual(c.add(1).toArray(), [4, 5]);
  assert.equal(sg.features().webgpu, false);
  const sg2 = await init({ backend: 'webgpu', gpu: spy });
  assert.equal(devices.length, 2);
  assert.deepEqual(await sg2.tensor([1, 2]).mul(3).array(), [3, 6]);
  t.dispose(); // the old device's buffer: released without an error
  console.warn = realWarn;
  setTimeout(() => process.exit(process.exitCode ?? 0), 100); // Dawn keeps Node alive otherwise
});
