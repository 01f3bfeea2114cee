// Errors of npm/src/runtime that no test triggered or whose message no test read, each with its
// distinctive words and the "got ..." part, and the library still usable after: promoteTypes
// and to() given no dtype/device, the op call's unknown op and attribute type, int64 values
// beyond ±(2^53 − 1) (the boundary included), writeHandleBytes on a strided view, an async fn
// in tidy, hostStep without a WebGPU device, the module used before init() and init() retried
// after a failed load (both in a child process). Oracles: PyTorch 1.13's promote_types and
// strides, Number.MAX_SAFE_INTEGER, hand values.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { sg, throwsWith } from './helpers.mjs';
import * as H from '../../npm/dist/esm/npm/src/runtime/handles.js';
import { hostStep } from '../../npm/dist/esm/npm/src/runtime/webgpu_device.js';
import { isLoaded } from '../../npm/dist/esm/npm/src/runtime/module.js';

const DTYPES = 'float32, float64, float16, bfloat16, int32, int64, int8, uint8, bool';

test('promoteTypes names the two values when one is not a dtype', () => {
  throwsWith(() => sg.promoteTypes('float32', 'float8'), new RegExp(`^promoteTypes: expected two dtypes \\(${sg.DTYPES?.join(', ') ?? '[^)]*'}\\), got float32 and float8$`));
  throwsWith(() => sg.promoteTypes(undefined, 'int32'), /^promoteTypes: expected two dtypes \(.*\), got undefined and int32$/);
  // torch.promote_types(torch.int32, torch.float32) == torch.float32; (uint8, int8) -> int16, here int32.
  assert.equal(sg.promoteTypes('int32', 'float32'), 'float32');
  assert.equal(sg.promoteTypes('uint8', 'int8'), 'int32');
});

test("to({ device }) names a device that is not 'cpu' or 'webgpu'", () => {
  const x = sg.tensor([1, 2]);
  throwsWith(() => x.to({ device: 'gpu' }), /^to: expected 'device' to be 'cpu' or 'webgpu', got 'gpu'$/);
  throwsWith(() => new sg.nn.Linear(2, 1).to({ device: 5 }), /^to: expected 'device' to be 'cpu' or 'webgpu', got 5$/);
  assert.deepEqual(x.to({ device: 'cpu', dtype: 'float64' }).toArray(), [1, 2]);
});

test('callOp: an unknown op and an attribute of no supported type are Errors, nothing leaks', () => {
  const a = sg.tensor([1, 2]);
  const live = sg.memory().handles;
  throwsWith(() => H.callOp('noSuchOp', [a.handle]), /^unknown op 'noSuchOp'$/);
  throwsWith(() => H.callOp('add', [a.handle, a.handle], { alpha: { v: 2 } }), /^add: attribute 'alpha' has an unsupported type$/);
  throwsWith(() => H.callOp('add', [a.handle, a.handle], { alpha: ['2'] }), /^add: attribute 'alpha' has an unsupported type$/);
  assert.equal(sg.memory().handles, live);
  assert.deepEqual(a.add(a, { alpha: 2 }).toArray(), [3, 6]);
});

test('int64 values beyond ±(2^53 − 1) are Errors in item() and toArray(); the boundary itself reads', () => {
  const max = BigInt(Number.MAX_SAFE_INTEGER);
  const i64 = (...v) => sg.tensor(new BigInt64Array(v), { shape: [v.length] });
  const big = i64(max + 1n);
  throwsWith(() => big.item(), new RegExp(`^item: the int64 value ${max + 1n} is beyond ±\\(2\\^53 − 1\\), where JS numbers are exact: read it with dataSync\\(\\) \\(a BigInt64Array\\)$`));
  throwsWith(() => i64(1n, -max - 1n).toArray(), new RegExp(`^toArray: the int64 value ${-max - 1n} is beyond`));
  assert.equal(i64(max).item(), Number.MAX_SAFE_INTEGER);
  assert.deepEqual(i64(-max, max).toArray(), [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER]);
  assert.equal(big.dataSync()[0], max + 1n);
});

test('writeHandleBytes refuses a strided view; handleStrides are torch strides; a failed handleFrom frees its handle', () => {
  const x = sg.zeros([2, 3]);
  const t = x.T;
  throwsWith(() => H.writeHandleBytes(t.handle, new Uint8Array(24)), /^writeHandleBytes: expected a contiguous tensor$/);
  throwsWith(() => H.writeHandleBytes(x.handle, new Uint8Array(8)), /^writeHandleBytes: expected 24 bytes for a float32 tensor of shape \[2, 3\], got 8$/);
  assert.deepEqual(x.toArray(), [[0, 0, 0], [0, 0, 0]]);
  // torch.zeros(2, 3).T.stride() == (1, 3)
  assert.deepEqual(H.handleStrides(t.handle), [1, 3]);
  assert.deepEqual(H.handleStrides(x.handle), [3, 1]);
  // bytes of 1.0f (0x3f800000, little-endian) in element 4; bool bytes become 0/1.
  const b = new Uint8Array(24);
  b.set([0, 0, 0x80, 0x3f], 16);
  H.writeHandleBytes(x.handle, b);
  assert.deepEqual(x.toArray(), [[0, 0, 0], [0, 1, 0]]);
  const m = sg.zeros([3], { dtype: 'bool' });
  H.writeHandleBytes(m.handle, new Uint8Array([7, 0, 255]));
  assert.deepEqual(Array.from(m.dataSync()), [1, 0, 1]);
  const live = sg.memory().handles;
  assert.throws(() => H.handleFrom([1.5], [1], 'int64'), TypeError); // a number where int64 wants a bigint
  assert.equal(sg.memory().handles, live);
});

test('tidy refuses an async fn and frees what it made before the first await', () => {
  const live = sg.memory().tensors;
  throwsWith(() => sg.tidy(async () => { sg.ones([2]); }), /^tidy: fn must be synchronous \(it returned a Promise\); in async code use dispose\(\) and keep\(\)$/);
  assert.equal(sg.memory().tensors, live);
  assert.equal(sg.tidy(() => sg.ones([2]).sum().item()), 2);
});

test('hostStep without a running WebGPU device is an Error', () => {
  let ran = false;
  throwsWith(() => hostStep(() => (ran = true)), /^webgpu: no running WebGPU device \(it was lost or never started\)$/);
  assert.equal(ran, false);
  assert.equal(isLoaded(), true);
});

test('before init() the module refuses; a build without the threaded module says so; init() after a failed load retries and works', () => {
  const dist = new URL('../../npm/dist/', import.meta.url).href;
  const script = `
    import createSimdgrad from ${JSON.stringify(dist + 'simdgrad.mjs')};
    import { createInit } from ${JSON.stringify(dist + 'index.mjs')};
    import { mod, raw, isLoaded } from ${JSON.stringify(dist + 'esm/npm/src/runtime/module.js')};
    const out = { loaded0: isLoaded() };
    for (const f of [mod, raw]) { try { f(); out[f.name] = 'no error'; } catch (e) { out[f.name] = e.message; } }
    try { await createInit(createSimdgrad)({ threads: 2 }); out.noThreaded = 'resolved'; } catch (e) { out.noThreaded = e.message; }
    let calls = 0;
    const init = createInit(() => (++calls === 1 ? Promise.reject(new Error('boom')) : createSimdgrad()));
    try { await init(); out.first = 'resolved'; } catch (e) { out.first = e.message; }
    const sg = await init();
    out.calls = calls;
    out.sum = sg.tensor([1, 2]).sum().item();
    out.loaded1 = isLoaded();
    console.log(JSON.stringify(out));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60000 });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout.trim().split('\n').pop());
  assert.deepEqual(out, {
    loaded0: false,
    mod: 'simdgrad is not initialized: call `await init()` first',
    raw: 'simdgrad is not initialized: call `await init()` first',
    noThreaded: 'init: threads: 2 is not available: this build of simdgrad has no threaded module',
    first: 'boom',
    calls: 2,
    sum: 3,
    loaded1: true,
  });
});

test("init({ backend: 'webgpu' }) in a page without WebGPU: no navigator.gpu, or not a secure context; 'auto' falls back to wasm", async () => {
  const { init } = await import('../../npm/dist/index.mjs');
  const g = globalThis;
  const had = { navigator: Object.getOwnPropertyDescriptor(g, 'navigator'), isSecureContext: Object.getOwnPropertyDescriptor(g, 'isSecureContext') };
  const warn = console.warn;
  const warned = [];
  const cases = [
    [{}, undefined, /^init: backend 'webgpu' is not available: navigator\.gpu is missing \(this browser has no WebGPU, or it is disabled\)$/],
    [{}, false, /^init: backend 'webgpu' is not available: navigator\.gpu exists only in secure contexts \(https or localhost\), and this page is not one$/],
  ];
  try {
    console.warn = (...a) => warned.push(a.join(' '));
    for (const [nav, secure, msg] of cases) {
      Object.defineProperty(g, 'navigator', { value: nav, configurable: true, writable: true });
      if (secure === false) Object.defineProperty(g, 'isSecureContext', { value: false, configurable: true, writable: true });
      await assert.rejects(init({ backend: 'webgpu' }), (e) => (assert.match(e.message, msg), true));
      const s = await init({ backend: 'auto' });
      assert.equal(s.getBackend(), 'wasm');
      assert.match(warned.pop(), new RegExp(`'auto' chose 'wasm' \\(WebGPU is not available: ${msg.source.slice(msg.source.indexOf('available: ') + 11, -1)}\\)`));
    }
  } finally {
    console.warn = warn;
    for (const [k, d] of Object.entries(had)) {
      if (d) Object.defineProperty(g, k, d);
      else delete g[k];
    }
  }
  assert.equal(sg.getBackend(), 'wasm');
  assert.equal(sg.tensor([1, 2]).sum().item(), 3);
});

test('handleFrom rounds 16-bit floats as torch does; writeHandleBytes announces a write of the handle', () => {
  // torch.tensor([1.5, 65504, 1e-8, 0.1], dtype=torch.float16).tolist() == [1.5, 65504.0, 0.0, 0.0999755859375]
  const h = H.handleFrom([1.5, 65504, 1e-8, 0.1], [4], 'float16');
  const f16 = new sg.Tensor(h);
  assert.deepEqual(f16.toArray(), [1.5, 65504, 0, 0.0999755859375]);
  // torch.tensor([1.00390625, 3.0e38, 0.1], dtype=torch.bfloat16).tolist() == [1.0, 3.00405527047391e+38, 0.10009765625]
  const bf = new sg.Tensor(H.handleFrom([1.00390625, 3.0e38, 0.1], [3], 'bfloat16'));
  assert.deepEqual(bf.toArray(), [1, 3.00405527047391e38, 0.10009765625]);
  const x = sg.zeros([2]);
  const events = [];
  const prev = H.setBoundaryObserver((event, id) => events.push([event, id]));
  try {
    H.writeHandleBytes(x.handle, new Uint8Array(8));
  } finally {
    H.setBoundaryObserver(prev);
  }
  assert.ok(events.some(([e, id]) => e === 'write' && id === x.handle), JSON.stringify(events));
  sg.dispose([f16, bf, x]);
});


test('runtime messages in full (tests matched only some words), then correct calls (torch 1.13 values)', () => {
  const t = sg.zeros([2]);
  const live = sg.memory().handles;
  throwsWith(() => H.callOp1('addInPlace', [t.handle], { value: 1 }), /^addInPlace: the op returned no tensor$/);
  assert.equal(sg.memory().handles, live);
  const cases = [
    [() => sg.setDefaultDtype('int32'), /^setDefaultDtype: expected 'float32' or 'float64' \(as torch\.set_default_dtype\), got 'int32'$/],
    [() => sg.finfo('int32'), /^finfo: expected a floating dtype \(float32, float64, float16, bfloat16\), got 'int32'$/],
    [() => sg.finfo(5), /^finfo: expected a floating dtype \(float32, float64, float16, bfloat16\), got 5$/],
    [() => sg.iinfo('float32'), /^iinfo: expected an integer dtype \(int32, int64, int8, uint8, bool\), got 'float32'$/],
    [() => t.to({ dtype: 'float8' }), /^to: expected 'dtype' to be one of float32, int32, bool, float16, bfloat16, float64, int64, int8, uint8, got 'float8'$/],
    [() => sg.tidy('name', 5), /^tidy: expected a function \(or a name and a function\), got number$/],
    [() => sg.tidy({}), /^tidy: expected a function \(or a name and a function\), got object$/],
    [() => sg.tensor([1], 5), /^tensor: expected an options object, got 5$/],
    [() => sg.zeros([2.5]), /^zeros: expected a shape of integers, got \[2\.5\]$/],
    [() => sg.broadcastShapes([2, 3], [4, 3]), /^broadcastShapes: shapes \[2, 3\], \[4, 3\] do not broadcast \(2 vs 4 in dim 0\)$/],
    [() => sg.broadcastShapes([2, 3], [3, 3, 1]), /^broadcastShapes: shapes \[2, 3\], \[3, 3, 1\] do not broadcast \(2 vs 3 in dim 1\)$/],
  ];
  for (const [call, msg] of cases) throwsWith(call, msg);
  // torch.finfo(torch.float16).max == 65504, eps == 2**-10; torch.iinfo(torch.int8).min == -128;
  // torch.broadcast_shapes((2, 1), (3,)) == (2, 3)
  assert.equal(sg.finfo('float16').max, 65504);
  assert.equal(sg.finfo('float16').eps, 2 ** -10);
  assert.equal(sg.iinfo('int8').min, -128);
  assert.deepEqual(sg.broadcastShapes([2, 1], [3]), [2, 3]);
  assert.equal(sg.tidy('named', () => 3), 3);
  assert.equal(t.to({ dtype: 'int32' }).dtype, 'int32');
});
