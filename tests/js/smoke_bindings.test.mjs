// The raw Embind module (bindings/README.md), without the JS layer: handles, HEAP views,
// callOp and its attribute conversion, C++ errors arriving as real JS Errors (and the module
// staying usable after them), autograd through handles, hooks, and handle bookkeeping.
// Expected values are computed by hand here. Set SIMDGRAD_MODULE to test another build of
// simdgrad.mjs than npm/dist's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';

const modulePath = process.env.SIMDGRAD_MODULE
  ? pathToFileURL(process.env.SIMDGRAD_MODULE).href
  : new URL('../../npm/dist/simdgrad.mjs', import.meta.url).href;
const { default: createSimdgrad } = await import(modulePath);
const M = await createSimdgrad();
const baseline = M.memoryStats().storages;

// Every handle this file makes goes through keep(), and is deleted at the end.
const live = [];
const keep = (h) => (live.push(h), h);
const keepAll = (hs) => (hs.forEach(keep), hs);

function f32(values, shape) {
  const h = keep(M.empty(shape, 'float32'));
  M.HEAPF32.set(values, h.dataPtr() / 4); // views are taken right before use (memory growth)
  return h;
}
function read(h) {
  assert.ok(h.isContiguous());
  const n = h.numel(), p = h.dataPtr();
  if (h.dtype() === 'float32') return Array.from(M.HEAPF32.subarray(p / 4, p / 4 + n));
  if (h.dtype() === 'int32') return Array.from(M.HEAP32.subarray(p / 4, p / 4 + n));
  return Array.from(M.HEAPU8.subarray(p, p + n));
}
function op(name, inputs, attrs = {}) {
  const out = keepAll(M.callOp(name, inputs, attrs));
  return out.length === 1 ? out[0] : out;
}
function closeTo(actual, expected, tol = 1e-6) {
  assert.equal(actual.length, expected.length);
  actual.forEach((a, i) => assert.ok(Math.abs(a - expected[i]) <= tol * (1 + Math.abs(expected[i])),
    `element ${i}: expected ${expected[i]}, got ${a}`));
}

test('the module exposes its heap views and its functions', () => {
  assert.ok(M.HEAPF32 instanceof Float32Array);
  assert.ok(M.HEAP32 instanceof Int32Array);
  assert.ok(M.HEAPU8 instanceof Uint8Array);
  for (const name of ['empty', 'callOp', 'computeGrads', 'setBackend', 'getBackend', 'manualSeed',
    'setGradEnabled', 'isGradEnabled', 'memoryStats', 'opNames', 'simdEnabled', 'TensorHandle']) {
    assert.equal(typeof M[name], 'function', name);
  }
  assert.equal(M.simdEnabled(), true);
  const names = M.opNames();
  assert.ok(names.length >= 86, `${names.length} ops`); // bindings/README.md's table, and more families
  for (const n of ['add', 'logSoftmax', 'maskedFill', 'split', 'randint']) assert.ok(names.includes(n), n);
});

test('empty + HEAPF32 write, callOp add with broadcasting, read back', () => {
  const a = f32([1, 2, 3, 4, 5, 6], [2, 3]);
  const b = f32([10, 20, 30], [3]);
  assert.deepEqual(a.shape(), [2, 3]);
  assert.deepEqual(a.strides(), [3, 1]);
  assert.equal(a.dtype(), 'float32');
  assert.equal(a.device(), 'cpu');
  assert.equal(a.numel(), 6);
  assert.equal(a.ndim(), 2);
  const c = op('add', [a, b]);
  assert.deepEqual(c.shape(), [2, 3]);
  assert.deepEqual(read(c), [11, 22, 33, 14, 25, 36]);
  const t = op('transpose', [a], { dim0: 0, dim1: 1 });
  assert.deepEqual(t.shape(), [3, 2]);
  assert.deepEqual(t.strides(), [1, 3]);
  assert.equal(t.isContiguous(), false);
  assert.equal(op('sum', [a]).item(), 21);
});

test('attributes: numbers, booleans, strings, arrays; null/undefined mean "absent"', () => {
  const a = f32([1, 2, 3, 4, 5, 6], [2, 3]);
  const s = op('sum', [a], { dim: [1], keepdim: true, ignored: undefined, alsoIgnored: null });
  assert.deepEqual(s.shape(), [2, 1]);
  assert.deepEqual(read(s), [6, 15]);
  const parts = op('split', [a], { sections: [1, 2], dim: 1 });
  assert.equal(parts.length, 2);
  assert.deepEqual(parts[0].shape(), [2, 1]);
  assert.deepEqual(parts[1].shape(), [2, 2]);
  const i = op('cast', [a], { dtype: 'int32' });
  assert.equal(i.dtype(), 'int32');
  assert.deepEqual(read(i), [1, 2, 3, 4, 5, 6]);
  const mask = op('gt', [a, f32([3], [1])]);
  assert.equal(mask.dtype(), 'bool');
  assert.deepEqual(read(mask), [0, 0, 0, 1, 1, 1]);
  const n = op('norm', [a], { p: Infinity });
  assert.equal(n.item(), 6);
  const z = op('full', [], { shape: [2], value: 2.5, dtype: 'float32' });
  assert.deepEqual(read(z), [2.5, 2.5]);
  // an int32 tensor written through HEAP32 and a bool one through HEAPU8
  const idx = keep(M.empty([2], 'int32'));
  M.HEAP32.set([2, 0], idx.dataPtr() / 4);
  assert.deepEqual(read(op('indexSelect', [a, idx], { dim: 1 })), [3, 1, 6, 4]);
  const b = keep(M.empty([3], 'bool'));
  M.HEAPU8.set([1, 0, 1], b.dataPtr());
  assert.equal(op('sum', [b]).item(), 2);
});

test('C++ errors arrive as JS Errors with the C++ message, and the module keeps working', () => {
  const a = f32([1, 2, 3, 4, 5, 6], [2, 3]);
  const bad = keep(M.empty([4, 5], 'float32'));
  let caught;
  try {
    keepAll(M.callOp('matmul', [a, bad], {}));
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof Error, `expected an Error, got ${caught}`);
  assert.match(caught.message, /matmul/);
  assert.ok(caught.message.includes('[2, 3]') && caught.message.includes('[4, 5]'), caught.message);
  assert.deepEqual(read(op('add', [a, a])), [2, 4, 6, 8, 10, 12]);

  const throwsError = (fn, text) => assert.throws(fn, (e) => e instanceof Error && e.message.includes(text),
    `expected an Error containing ${JSON.stringify(text)}`);
  throwsError(() => M.callOp('frobnicate', [a], {}), "unknown op 'frobnicate'");
  throwsError(() => M.callOp('add', [a], {}), 'add: expected 2 tensor arguments, got 1');
  throwsError(() => M.callOp('sum', [a], { dim: { x: 1 } }), "callOp: attribute 'dim' has an unsupported type");
  throwsError(() => M.callOp('sum', [a], { dim: [1, 'x'] }), "callOp: attribute 'dim' has an unsupported type");
  throwsError(() => M.callOp('sum', [a], { keepdim: 1 }), "sum: expected 'keepdim' to be a boolean, got a number");
  throwsError(() => M.callOp('sum', ['x'], {}), 'sum: inputs[0]: expected a TensorHandle or null');
  throwsError(() => M.callOp('exp', [null], {}), 'exp: tensor argument 0 is null');
  throwsError(() => M.empty([2, -1], 'float32'), '[2, -1]');
  throwsError(() => M.empty([2, 1.5], 'float32'), "empty: expected 'shape' to hold integers, got 1.5");
  throwsError(() => M.empty([2], 'float64'), "unknown dtype 'float64' (expected float32, int32 or bool)");
  throwsError(() => a.item(), 'item');
  throwsError(() => M.setBackend('cuda'), 'cuda');
  throwsError(() => M.manualSeed(1.5), 'manualSeed');
  assert.deepEqual(read(op('mul', [a, a])), [1, 4, 9, 16, 25, 36]);
});

test('a thrown error leaves the wasm stack pointer where it was', () => {
  const a = f32([1, 2], [2]);
  const before = M._sg_stack_save();
  for (let i = 0; i < 1000; i++) assert.throws(() => M.callOp('matmul', [a, a, a], {}));
  for (let i = 0; i < 1000; i++) assert.throws(() => a.item());
  assert.equal(M._sg_stack_save(), before);
});

test('backward and grad through handles', () => {
  const x = f32([1, 2, 3], [3]);
  assert.equal(x.requiresGrad(), false);
  x.setRequiresGrad(true);
  assert.equal(x.isLeaf(), true);
  assert.equal(x.gradFnName(), null);
  assert.equal(x.grad(), null);
  const y = op('mul', [x, x]);
  const s = op('sum', [y]);
  assert.equal(s.isLeaf(), false);
  assert.equal(typeof s.gradFnName(), 'string');
  y.retainGrad();
  s.backward(null, false);
  const g = keep(x.grad());
  assert.deepEqual(read(g), [2, 4, 6]); // d/dx Σx² = 2x
  assert.deepEqual(read(keep(y.grad())), [1, 1, 1]);
  assert.equal(keep(x.grad()).same(g), true); // a new handle on the same grad tensor
  x.setGrad(null);
  assert.equal(x.grad(), null);
  x.setGrad(f32([7, 8, 9], [3]));
  assert.deepEqual(read(keep(x.grad())), [7, 8, 9]);
  assert.throws(() => x.setGrad(f32([1, 2], [2])), (e) => e instanceof Error && /shape/.test(e.message));

  // computeGrads leaves .grad alone; grad_output scales the result
  const z = op('mul', [x, f32([3, 3, 3], [3])]);
  const [gx] = keepAll(M.computeGrads(z, f32([1, 2, 3], [3]), [x], false));
  assert.deepEqual(read(gx), [3, 6, 9]);
  assert.deepEqual(read(keep(x.grad())), [7, 8, 9]);

  // detach/share/same
  const d = keep(x.detach());
  assert.equal(d.requiresGrad(), false);
  assert.equal(d.same(x), false);
  assert.equal(keep(x.share()).same(x), true);
  assert.equal(d.dataPtr(), x.dataPtr());
});

test('grad mode, backends, seeds', () => {
  const x = f32([1, 2], [2]);
  x.setRequiresGrad(true);
  assert.equal(M.isGradEnabled(), true);
  M.setGradEnabled(false);
  assert.equal(op('exp', [x]).requiresGrad(), false);
  M.setGradEnabled(true);
  assert.equal(op('exp', [x]).requiresGrad(), true);

  const before = M.getBackend();
  M.setBackend('reference');
  assert.equal(M.getBackend(), 'reference');
  closeTo(read(op('exp', [x])), [Math.E, Math.E * Math.E]);
  M.setBackend(before);
  assert.equal(M.getBackend(), before);

  M.manualSeed(42);
  const r1 = read(op('rand', [], { shape: [5] }));
  M.manualSeed(42);
  const r2 = read(op('rand', [], { shape: [5] }));
  assert.deepEqual(r1, r2);
  assert.ok(r1.every((v) => v >= 0 && v < 1));
});

test('hooks: a string becomes an Error, a handle replaces the gradient, undefined keeps it', () => {
  const x = f32([1, 2, 3], [3]);
  x.setRequiresGrad(true);
  x.registerHook((h) => { h.delete(); return 'gradient exploded'; });
  const s = op('sum', [x]);
  assert.throws(() => s.backward(null, true), (e) => e instanceof Error && e.message === 'hook: gradient exploded');

  const w = f32([1, 2, 3], [3]);
  w.setRequiresGrad(true);
  let seen = null;
  w.registerHook((h) => { seen = read(h); h.delete(); return undefined; });
  w.registerHook((h) => {
    const [r] = M.callOp('mul', [h, h], {}); // the incoming gradient, squared
    h.delete();
    return keep(r);
  });
  const t = op('sum', [op('mul', [w, f32([3, 3, 3], [3])])]);
  t.backward(null, false);
  assert.deepEqual(seen, [3, 3, 3]);
  assert.deepEqual(read(keep(w.grad())), [9, 9, 9]);
  assert.throws(() => w.registerHook(42), (e) => e instanceof Error && /function/.test(e.message));
});

// Last: deleting every handle frees every tensor, including those the graphs kept alive.
test('deleting every handle brings memoryStats().storages back to the baseline', () => {
  assert.ok(M.memoryStats().storages > baseline);
  for (const h of live.splice(0)) h.delete();
  assert.equal(M.memoryStats().storages, baseline);
  assert.ok(M.memoryStats().peakBytes >= M.memoryStats().bytes);
});
