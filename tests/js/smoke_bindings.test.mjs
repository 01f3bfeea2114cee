// The raw wasm module (bindings/README.md), without the JS layer: tensors as handle ids, the
// scratch-area protocol of the op entry (written here from the README, independently of
// npm/src/runtime/handles.ts), HEAP views, C++ errors arriving as real JS Errors (and the module staying
// usable after them), stale ids, autograd through ids, hooks, and handle bookkeeping. Expected
// values are computed by hand here. Set SIMDGRAD_MODULE to test another build of simdgrad.mjs
// than npm/dist's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';

const modulePath = process.env.SIMDGRAD_MODULE
  ? pathToFileURL(process.env.SIMDGRAD_MODULE).href
  : new URL('../../npm/dist/simdgrad.mjs', import.meta.url).href;
const { default: createSimdgrad } = await import(modulePath);
const M = await createSimdgrad();
const baseline = M.memoryStats();

// ---- the protocol, from bindings/README.md ----
const DTYPES = ['float32', 'int32', 'bool'];
const opId = new Map(M.opNames().map((n, i) => [n, i]));
const idsView = () => new Int32Array(M.HEAPU8.buffer, M._sg_scratch(0, 0), M._sg_scratch_size(0));
const wordsView = (min = 0) => new Float64Array(M.HEAPU8.buffer, M._sg_scratch(1, min), M._sg_scratch_size(1));
function cString(ptr) {
  const heap = M.HEAPU8;
  let end = ptr;
  while (heap[end]) end++;
  return new TextDecoder().decode(heap.slice(ptr, end));
}
/** A negative result means failure: the message is pending. */
function check(r) {
  if (r < 0) throw new Error(cString(M._sg_take_error()));
  return r;
}
function putString(w, at, s) {
  w[at] = s.length;
  for (let i = 0; i < s.length; i++) w[at + 1 + i] = s.charCodeAt(i);
  return at + 1 + s.length;
}
const keyIds = new Map();
function key(name) {
  if (!keyIds.has(name)) {
    const at = 4096; // past any attributes written in this file
    keyIds.set(name, check(M._sg_intern(at, putString(wordsView(at + 64), at, name))));
  }
  return keyIds.get(name);
}
/** Encodes attrs as [key, tag, value...] words; returns the count. */
function writeAttrs(attrs) {
  const entries = Object.entries(attrs).filter(([, v]) => v !== null && v !== undefined);
  const keys = entries.map(([k]) => key(k)); // interned first: interning writes to the words too
  const w = wordsView(8192);
  let at = 0;
  entries.forEach(([, v], i) => {
    w[at++] = keys[i];
    if (typeof v === 'number') (w[at++] = 0), (w[at++] = v);
    else if (typeof v === 'boolean') (w[at++] = 1), (w[at++] = v ? 1 : 0);
    else if (typeof v === 'string') (w[at++] = 2), (at = putString(w, at, v));
    else (w[at++] = 3), (w[at++] = v.length), v.forEach((x) => (w[at++] = x));
  });
  return at;
}
/** Runs an op: returns [ids, dtypes] of its results. */
function callRaw(name, inputs, attrs = {}) {
  const nWords = writeAttrs(attrs);
  check(M._sg_scratch(0, inputs.length));
  idsView().set(inputs);
  const n = check(M._sg_call_op(opId.get(name) ?? 99999, inputs.length, nWords));
  const v = idsView();
  return [Array.from(v.subarray(0, n)), Array.from(v.subarray(n, 2 * n), (c) => DTYPES[c])];
}

// Every id this file makes goes through keep(), and is released at the end.
const live = [];
const keep = (id) => (live.push(id), id);
function op(name, inputs, attrs = {}) {
  const [out] = callRaw(name, inputs, attrs);
  out.forEach(keep);
  return out.length === 1 ? out[0] : out;
}
function shapeOf(id) {
  const n = check(M._sg_shape(id));
  return Array.from(wordsView().subarray(0, n));
}
function stridesOf(id) {
  const n = check(M._sg_strides(id));
  return Array.from(wordsView().subarray(0, n));
}
function empty(shape, dtype) {
  wordsView(shape.length).set(shape);
  return keep(check(M._sg_empty(shape.length, DTYPES.indexOf(dtype))));
}
function f32(values, shape) {
  const id = empty(shape, 'float32');
  M.HEAPF32.set(values, check(M._sg_data_ptr(id)) / 4); // views are taken right before use
  return id;
}
function read(id) {
  assert.equal(check(M._sg_is_contiguous(id)), 1);
  const n = shapeOf(id).reduce((a, b) => a * b, 1);
  const p = check(M._sg_data_ptr(id));
  const dtype = DTYPES[check(M._sg_dtype(id))];
  if (dtype === 'float32') return Array.from(M.HEAPF32.subarray(p / 4, p / 4 + n));
  if (dtype === 'int32') return Array.from(M.HEAP32.subarray(p / 4, p / 4 + n));
  return Array.from(M.HEAPU8.subarray(p, p + n));
}
function item(id) {
  check(M._sg_item(id));
  return wordsView()[0];
}
const throwsError = (fn, text) =>
  assert.throws(fn, (e) => e instanceof Error && e.message.includes(text), `expected an Error containing ${JSON.stringify(text)}`);

test('the module exposes its heap views, its Embind functions and its plain exports', () => {
  assert.ok(M.HEAPF32 instanceof Float32Array);
  assert.ok(M.HEAP32 instanceof Int32Array);
  assert.ok(M.HEAPU8 instanceof Uint8Array);
  for (const name of ['registerHook', 'backward', 'computeGrads', 'setBackend', 'getBackend', 'manualSeed',
    'memoryStats', 'emptyCache', 'opNames', 'simdEnabled', 'optimInitState', 'saveSafetensors']) {
    assert.equal(typeof M[name], 'function', name);
  }
  for (const name of ['scratch', 'scratch_size', 'intern', 'call_op', 'empty', 'scalar', 'release', 'share', 'same',
    'optim_prepare', 'optim_group_set_attrs', 'optim_group_step', 'optim_group_free', 'live_handles', 'dtype', 'device', 'shape', 'strides', 'is_contiguous', 'data_ptr', 'item', 'requires_grad',
    'set_requires_grad', 'is_leaf', 'grad_fn_name', 'grad', 'set_grad', 'retain_grad', 'detach',
    'is_grad_enabled', 'set_grad_enabled', 'take_error']) {
    assert.equal(typeof M[`_sg_${name}`], 'function', `_sg_${name}`);
  }
  assert.equal(M.TensorHandle, undefined, 'no Embind class: tensors are ids');
  assert.equal(M.simdEnabled(), true);
  const names = M.opNames();
  assert.ok(names.length >= 86, `${names.length} ops`);
  assert.deepEqual(names, [...names].sort(), 'sorted: an op id is its index');
  for (const n of ['add', 'logSoftmax', 'maskedFill', 'split', 'randint']) assert.ok(names.includes(n), n);
});

test('empty + HEAPF32 write, call_op add with broadcasting, read back', () => {
  const a = f32([1, 2, 3, 4, 5, 6], [2, 3]);
  const b = f32([10, 20, 30], [3]);
  assert.ok(a > 0 && b > 0 && a !== b);
  assert.deepEqual(shapeOf(a), [2, 3]);
  assert.deepEqual(stridesOf(a), [3, 1]);
  assert.equal(M._sg_dtype(a), 0);
  assert.equal(M._sg_device(a), 0); // cpu
  const [[c], [dtype]] = callRaw('add', [a, b]);
  keep(c);
  assert.equal(dtype, 'float32', 'the dtype code comes back with the id');
  assert.deepEqual(shapeOf(c), [2, 3]);
  assert.deepEqual(read(c), [11, 22, 33, 14, 25, 36]);
  const t = op('transpose', [a], { dim0: 0, dim1: 1 });
  assert.deepEqual(shapeOf(t), [3, 2]);
  assert.deepEqual(stridesOf(t), [1, 3]);
  assert.equal(M._sg_is_contiguous(t), 0);
  assert.equal(item(op('sum', [a])), 21);
});

test('attributes: numbers, booleans, strings, arrays; absent ones take the default', () => {
  const a = f32([1, 2, 3, 4, 5, 6], [2, 3]);
  const s = op('sum', [a], { dim: [1], keepdim: true });
  assert.deepEqual(shapeOf(s), [2, 1]);
  assert.deepEqual(read(s), [6, 15]);
  assert.deepEqual(shapeOf(op('sum', [a], { dim: [1] })), [2], 'keepdim absent: false');
  const parts = op('split', [a], { sections: [1, 2], dim: 1 });
  assert.equal(parts.length, 2);
  assert.deepEqual(shapeOf(parts[0]), [2, 1]);
  assert.deepEqual(shapeOf(parts[1]), [2, 2]);
  const [[i], [idt]] = callRaw('cast', [a], { dtype: 'int32' });
  keep(i);
  assert.equal(idt, 'int32');
  assert.deepEqual(read(i), [1, 2, 3, 4, 5, 6]);
  const mask = op('gt', [a, f32([3], [1])]);
  assert.equal(M._sg_dtype(mask), 2);
  assert.deepEqual(read(mask), [0, 0, 0, 1, 1, 1]);
  assert.equal(item(op('norm', [a], { p: Infinity })), 6);
  assert.deepEqual(read(op('full', [], { shape: [2], value: 2.5, dtype: 'float32' })), [2.5, 2.5]);
  // an int32 tensor written through HEAP32 and a bool one through HEAPU8
  const idx = empty([2], 'int32');
  M.HEAP32.set([2, 0], check(M._sg_data_ptr(idx)) / 4);
  assert.deepEqual(read(op('indexSelect', [a, idx], { dim: 1 })), [3, 1, 6, 4]);
  const b = empty([3], 'bool');
  M.HEAPU8.set([1, 0, 1], check(M._sg_data_ptr(b)));
  assert.equal(item(op('sum', [b])), 2);
  // a string outside ASCII survives the UTF-16 → UTF-8 trip (it comes back in the error)
  throwsError(() => callRaw('gelu', [a], { approximate: 'tanh✓😀' }), 'tanh✓😀');
});

test('scalars, optional inputs (id 0) and many inputs or results grow the scratch area', () => {
  const x = f32([1, 2, 3], [3]);
  const two = keep(check(M._sg_scalar(2, 0)));
  assert.deepEqual(shapeOf(two), []);
  assert.deepEqual(read(op('mul', [x, two])), [2, 4, 6]);
  const nan = keep(check(M._sg_scalar(NaN, 0)));
  assert.ok(Number.isNaN(item(nan)));
  throwsError(() => keep(check(M._sg_scalar(2 ** 40, 1))), 'out of range for int32');
  // linear's bias is optional: id 0 passes "absent"
  const w = f32([1, 0, 0, 1], [2, 2]);
  assert.deepEqual(read(op('linear', [f32([3, 4], [1, 2]), w, 0])), [3, 4]);
  // 300 inputs (more than the ids buffer starts with) and 300 results
  const ones = Array.from({ length: 300 }, () => f32([1], [1]));
  const cat = op('cat', ones, { dim: 0 });
  assert.deepEqual(shapeOf(cat), [300]);
  const chunks = op('chunk', [cat], { chunks: 300, dim: 0 });
  assert.equal(chunks.length, 300);
  assert.deepEqual(read(chunks[299]), [1]);
  assert.ok(M._sg_scratch_size(0) >= 600);
});

test('C++ errors arrive as JS Errors with the C++ message, and the module keeps working', () => {
  const a = f32([1, 2, 3, 4, 5, 6], [2, 3]);
  const bad = empty([4, 5], 'float32');
  let caught;
  try {
    callRaw('matmul', [a, bad]);
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof Error, `expected an Error, got ${caught}`);
  assert.match(caught.message, /matmul/);
  assert.ok(caught.message.includes('[2, 3]') && caught.message.includes('[4, 5]'), caught.message);
  assert.deepEqual(read(op('add', [a, a])), [2, 4, 6, 8, 10, 12]);
  throwsError(() => callRaw('frobnicate', [a]), 'callOp: unknown op id 99999');
  throwsError(() => callRaw('add', [a]), 'add: expected 2 tensor arguments, got 1');
  throwsError(() => callRaw('sum', [a], { keepdim: 1 }), "sum: expected 'keepdim' to be a boolean, got a number");
  throwsError(() => callRaw('sum', [12345]), 'sum: inputs[0]: 12345 is not a live tensor handle');
  throwsError(() => callRaw('exp', [0]), 'exp: tensor argument 0 is null');
  throwsError(() => empty([2, -1], 'float32'), '[2, -1]');
  throwsError(() => empty([2, 1.5], 'float32'), "empty: expected 'shape' to hold integers, got 1.5");
  throwsError(() => item(a), 'item');
  // the Embind functions report through the same channel, thrown by their JS wrapper
  throwsError(() => M.setBackend('cuda'), 'cuda');
  throwsError(() => M.manualSeed(1.5), 'manualSeed');
  throwsError(() => M.backward(a, 0, false, false), 'grad');
  assert.deepEqual(read(op('mul', [a, a])), [1, 4, 9, 16, 25, 36]);
});

test('a released id is dead: using it is an Error, and its slot comes back under another id', () => {
  const x = check(M._sg_empty(0, 0));
  check(M._sg_release(x));
  throwsError(() => check(M._sg_dtype(x)), `dtype: ${x} is not a live tensor handle`);
  throwsError(() => check(M._sg_release(x)), 'release');
  const y = keep(check(M._sg_empty(0, 0)));
  assert.notEqual(y, x, 'the reused slot has a new generation');
  assert.equal(y & 0xffffff, x & 0xffffff, 'same slot');
  throwsError(() => check(M._sg_shape(x)), 'not a live tensor handle');
  assert.deepEqual(shapeOf(y), []);
});

test('failed calls leave the wasm stack pointer and malloc where they were', () => {
  const a = f32([1, 2], [2]);
  const failures = [() => callRaw('matmul', [a, a, a]), () => item(a), () => M.setBackend('cuda')];
  for (const f of failures) assert.throws(f); // lazy caches (the op table, the message buffer) fill up
  const sp = M._sg_stack_save();
  const heap = M.memoryStats().heapUsed;
  for (const f of failures) for (let i = 0; i < 1000; i++) assert.throws(f);
  assert.equal(M._sg_stack_save(), sp);
  assert.ok(M.memoryStats().heapUsed - heap <= 16, `heapUsed grew by ${M.memoryStats().heapUsed - heap}`);
});

test('backward and grad through ids', () => {
  const x = f32([1, 2, 3], [3]);
  assert.equal(M._sg_requires_grad(x), 0);
  check(M._sg_set_requires_grad(x, 1));
  assert.equal(M._sg_is_leaf(x), 1);
  assert.equal(M._sg_grad_fn_name(x), 0);
  assert.equal(M._sg_grad(x), 0, 'no grad yet: 0');
  const y = op('mul', [x, x]);
  const s = op('sum', [y]);
  assert.equal(M._sg_is_leaf(s), 0);
  assert.equal(typeof cString(check(M._sg_grad_fn_name(s))), 'string');
  check(M._sg_retain_grad(y));
  M.backward(s, 0, false, false);
  const g = keep(check(M._sg_grad(x)));
  assert.deepEqual(read(g), [2, 4, 6]); // d/dx Σx² = 2x
  assert.deepEqual(read(keep(check(M._sg_grad(y)))), [1, 1, 1]);
  const g2 = keep(check(M._sg_grad(x)));
  assert.notEqual(g2, g, 'a new id ...');
  assert.equal(M._sg_same(g2, g), 1, '... on the same grad tensor');
  check(M._sg_set_grad(x, 0));
  assert.equal(M._sg_grad(x), 0);
  check(M._sg_set_grad(x, f32([7, 8, 9], [3])));
  assert.deepEqual(read(keep(check(M._sg_grad(x)))), [7, 8, 9]);
  throwsError(() => check(M._sg_set_grad(x, f32([1, 2], [2]))), 'shape');

  // computeGrads leaves .grad alone; grad_output scales the result
  const z = op('mul', [x, f32([3, 3, 3], [3])]);
  const [gx] = M.computeGrads(z, f32([1, 2, 3], [3]), [x], false, false).map(keep);
  assert.deepEqual(read(gx), [3, 6, 9]);
  assert.deepEqual(read(keep(check(M._sg_grad(x)))), [7, 8, 9]);

  // detach/share/same
  const d = keep(check(M._sg_detach(x)));
  assert.equal(M._sg_requires_grad(d), 0);
  assert.equal(M._sg_same(d, x), 0);
  assert.equal(M._sg_same(keep(check(M._sg_share(x))), x), 1);
  assert.equal(M._sg_data_ptr(d), M._sg_data_ptr(x));
});

test('grad mode, backends, seeds', () => {
  const x = f32([1, 2], [2]);
  check(M._sg_set_requires_grad(x, 1));
  assert.equal(M._sg_is_grad_enabled(), 1);
  M._sg_set_grad_enabled(0);
  assert.equal(M._sg_requires_grad(op('exp', [x])), 0);
  M._sg_set_grad_enabled(1);
  assert.equal(M._sg_requires_grad(op('exp', [x])), 1);

  const before = M.getBackend();
  M.setBackend('reference');
  assert.equal(M.getBackend(), 'reference');
  const e = read(op('exp', [x]));
  [Math.E, Math.E * Math.E].forEach((v, i) => assert.ok(Math.abs(e[i] - v) < 1e-6 * v, `${e[i]} vs ${v}`));
  M.setBackend(before);
  assert.equal(M.getBackend(), before);

  M.manualSeed(42);
  const r1 = read(op('rand', [], { shape: [5] }));
  M.manualSeed(42);
  const r2 = read(op('rand', [], { shape: [5] }));
  assert.deepEqual(r1, r2);
  assert.ok(r1.every((v) => v >= 0 && v < 1));
});

test('hooks: a string becomes an Error, an id replaces the gradient, undefined keeps it', () => {
  const x = f32([1, 2, 3], [3]);
  check(M._sg_set_requires_grad(x, 1));
  M.registerHook(x, (g) => {
    check(M._sg_release(g));
    return 'gradient exploded';
  });
  const s = op('sum', [x]);
  assert.throws(() => M.backward(s, 0, true, false), (e) => e instanceof Error && e.message === 'hook: gradient exploded');

  const w = f32([1, 2, 3], [3]);
  check(M._sg_set_requires_grad(w, 1));
  let seen = null;
  M.registerHook(w, (g) => {
    seen = read(g);
    check(M._sg_release(g));
    return undefined;
  });
  M.registerHook(w, (g) => {
    const [[r]] = callRaw('mul', [g, g]); // the incoming gradient, squared
    check(M._sg_release(g));
    return keep(r);
  });
  const t = op('sum', [op('mul', [w, f32([3, 3, 3], [3])])]);
  M.backward(t, 0, false, false);
  assert.deepEqual(seen, [3, 3, 3]);
  assert.deepEqual(read(keep(check(M._sg_grad(w)))), [9, 9, 9]);
  throwsError(() => M.registerHook(w, 42), 'function');
});

// Last: releasing every id frees every tensor, including those the graphs kept alive.
test('releasing every id brings the storages and the handle count back to the baseline', () => {
  assert.ok(M.memoryStats().storages > baseline.storages);
  assert.equal(M._sg_live_handles(), baseline.handles + live.length);
  for (const id of live.splice(0)) check(M._sg_release(id));
  assert.equal(M.memoryStats().storages, baseline.storages);
  assert.equal(M.memoryStats().handles, baseline.handles);
  assert.equal(M._sg_live_handles(), baseline.handles);
  assert.ok(M.memoryStats().peakBytes >= M.memoryStats().bytes);
});
