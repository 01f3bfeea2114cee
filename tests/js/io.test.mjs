// sg.save / sg.load (safetensors). Checked against files built byte by byte here from the
// format's specification, against a minimal independent reader of what sg.save writes, against
// a file written from PyTorch tensors (tests/data/torch_written.*, gen_safetensors.py), and by
// a model that predicts the same after a save → load round trip.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { sg, close, throwsWith } from './helpers.mjs';

/**
 * A safetensors file from the spec: 8-byte little-endian header length, the JSON header
 * (padded with spaces), then the data. entries: [name, dtype, shape, bytes(Uint8Array)], stored
 * in `dataOrder` (indices into entries) while the header lists them in the given order.
 */
function buildFile(entries, { metadata, dataOrder, pad = 0 } = {}) {
  const order = dataOrder ?? entries.map((_, i) => i);
  const offsets = new Map();
  let at = 0;
  for (const i of order) {
    offsets.set(i, [at, at + entries[i][3].length]);
    at += entries[i][3].length;
  }
  const header = {};
  if (metadata) header.__metadata__ = metadata;
  entries.forEach(([name, dtype, shape], i) => {
    header[name] = { dtype, shape, data_offsets: offsets.get(i) };
  });
  const json = new TextEncoder().encode(JSON.stringify(header) + ' '.repeat(pad));
  const out = new Uint8Array(8 + json.length + at);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  for (const i of order) out.set(entries[i][3], 8 + json.length + offsets.get(i)[0]);
  return out;
}

/** Little-endian bytes of numbers written with DataView's setter `set` of `size` bytes each. */
function le(values, size, set) {
  const b = new Uint8Array(values.length * size);
  const dv = new DataView(b.buffer);
  values.forEach((v, i) => dv[set](i * size, v, true));
  return b;
}

/** The minimal reader: header and raw little-endian values, independent of simdgrad. */
function readFile(bytes) {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = Number(dv.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  const base = 8 + n;
  const tensors = {};
  for (const [name, info] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const [b, e] = info.data_offsets;
    const size = { F32: 4, I32: 4, BOOL: 1 }[info.dtype];
    const values = [];
    for (let o = base + b; o < base + e; o += size) {
      values.push(info.dtype === 'F32' ? dv.getFloat32(o, true) : info.dtype === 'I32' ? dv.getInt32(o, true) : bytes[o]);
    }
    tensors[name] = { ...info, values };
  }
  return { headerLength: n, header, tensors, dataLength: bytes.length - base };
}

test('a file built byte by byte from the spec loads with the right values, dtypes and order', () => {
  const file = buildFile(
    [
      ['weight', 'F32', [2, 2], le([1.5, -2, 0.25, 3e38], 4, 'setFloat32')],
      ['ids', 'I64', [3], le([0n, -5n, 2147483647n], 8, 'setBigInt64')],
      ['counts', 'I32', [3], le([7, -1, 100000], 4, 'setInt32')],
      ['half', 'F16', [5], le([0x3c00, 0xc000, 0x3800, 0x7bff, 0x0001], 2, 'setUint16')],
      ['brain', 'BF16', [3], le([0x3f80, 0xc049, 0x3f00], 2, 'setUint16')],
      ['mask', 'BOOL', [4], Uint8Array.from([0, 1, 2, 0])],
      ['scalar', 'F32', [], le([42], 4, 'setFloat32')],
      ['empty', 'F32', [0, 3], new Uint8Array(0)],
    ],
    { metadata: { format: 'pt', who: 'hand' }, dataOrder: [5, 2, 0, 7, 6, 1, 3, 4], pad: 5 },
  );
  const sd = sg.load(file);
  assert.deepEqual(Object.keys(sd), ['weight', 'ids', 'counts', 'half', 'brain', 'mask', 'scalar', 'empty']);
  assert.deepEqual(sd.weight.shape, [2, 2]);
  assert.equal(sd.weight.dtype, 'float32');
  assert.deepEqual(sd.weight.toArray(), [[1.5, -2], [0.25, Math.fround(3e38)]]);
  assert.equal(sd.ids.dtype, 'int64'); // every file dtype is read as itself
  assert.deepEqual(sd.ids.toArray(), [0, -5, 2147483647]);
  assert.deepEqual(sd.counts.toArray(), [7, -1, 100000]);
  assert.equal(sd.half.dtype, 'float16');
  assert.equal(sd.brain.dtype, 'bfloat16');
  assert.deepEqual(sd.half.toArray(), [1, -2, 0.5, 65504, 2 ** -24]);
  assert.deepEqual(sd.brain.toArray(), [1, -3.140625, 0.5]);
  assert.equal(sd.mask.dtype, 'bool');
  assert.deepEqual(sd.mask.toArray(), [false, true, true, false]);
  assert.deepEqual(sd.scalar.shape, []);
  assert.equal(sd.scalar.item(), 42);
  assert.deepEqual(sd.empty.shape, [0, 3]);
  assert.deepEqual(sg.loadMetadata(file), { format: 'pt', who: 'hand' });
  sg.dispose(sd);
});

test('sg.save writes what an independent reader finds: header, offsets, alignment, little-endian values', () => {
  const w = sg.tensor([[1, -2.5, 3], [0.125, 1e-3, -7]]);
  const idx = sg.tensor([3, -1, 2147483647], { dtype: 'int32' });
  const m = sg.tensor([true, false, true]);
  const s = sg.tensor(9.5);
  const view = sg.tidy(() => w.T); // a strided view is written in row-major order of its own shape
  const bytes = sg.save({ 'layer.weight': w, index: idx, mask: m, s, wT: view }, { metadata: { epoch: '3' } });
  assert.ok(bytes instanceof Uint8Array);
  const r = readFile(bytes);
  assert.equal((8 + r.headerLength) % 8, 0, 'data starts 8-byte aligned');
  assert.deepEqual(r.header.__metadata__, { epoch: '3' });
  assert.deepEqual(Object.keys(r.tensors), ['layer.weight', 'index', 'mask', 's', 'wT']);
  assert.deepEqual(r.tensors['layer.weight'].dtype, 'F32');
  assert.deepEqual(r.tensors['layer.weight'].shape, [2, 3]);
  assert.deepEqual(r.tensors['layer.weight'].values, [1, -2.5, 3, 0.125, Math.fround(1e-3), -7]);
  assert.deepEqual(r.tensors.index.dtype, 'I32');
  assert.deepEqual(r.tensors.index.values, [3, -1, 2147483647]);
  assert.deepEqual(r.tensors.mask.dtype, 'BOOL');
  assert.deepEqual(r.tensors.mask.values, [1, 0, 1]);
  assert.deepEqual(r.tensors.s.shape, []);
  assert.deepEqual(r.tensors.s.values, [9.5]);
  assert.deepEqual(r.tensors.wT.shape, [3, 2]);
  assert.deepEqual(r.tensors.wT.values, [1, 0.125, -2.5, Math.fround(1e-3), 3, -7]);
  // The data regions tile the buffer exactly.
  const regions = Object.values(r.tensors).map((t) => t.data_offsets).sort((a, b) => a[0] - b[0]);
  let at = 0;
  for (const [b, e] of regions) {
    assert.equal(b, at);
    at = e;
  }
  assert.equal(at, r.dataLength);
  sg.dispose([w, idx, m, s, view]);
});

test('save → load round trip; Buffer, ArrayBuffer and offset views are accepted', () => {
  const a = sg.randn([3, 4]);
  const b = sg.tensor([[1, 2], [3, 4]], { dtype: 'int32' });
  const bytes = sg.save(new Map([['a', a], ['b', b]]));
  const copy = new Uint8Array(bytes.length + 3);
  copy.set(bytes, 3);
  for (const input of [bytes, Buffer.from(bytes), bytes.slice().buffer, copy.subarray(3), new DataView(copy.buffer, 3)]) {
    const sd = sg.load(input);
    assert.deepEqual(Object.keys(sd), ['a', 'b']);
    assert.deepEqual(sd.a.toArray(), a.toArray());
    assert.deepEqual(sd.b.toArray(), b.toArray());
    assert.equal(sd.b.dtype, 'int32');
    sg.dispose(sd);
  }
  assert.deepEqual(sg.loadMetadata(bytes), {});
  sg.dispose([a, b]);
});

test('a file written from PyTorch tensors loads with its values (tests/data/torch_written.*)', () => {
  const bytes = readFileSync(new URL('../data/torch_written.safetensors', import.meta.url));
  const expected = JSON.parse(readFileSync(new URL('../data/torch_written.json', import.meta.url), 'utf8'));
  const sd = sg.load(bytes);
  assert.deepEqual(Object.keys(sd), expected.order);
  assert.deepEqual(sg.loadMetadata(bytes), expected.metadata);
  for (const [name, t] of Object.entries(expected.tensors)) {
    assert.deepEqual(sd[name].shape, t.shape, name);
    const got = Array.from(sd[name].dataSync(), Number);
    const want = t.values.map(Number);
    assert.deepEqual(got, want, name);
  }
  sg.dispose(sd);
});

test('a model predicts identically after save → load into a fresh model', () => {
  const make = () =>
    new sg.nn.Sequential(
      new sg.nn.Conv2d(1, 4, 3, { padding: 1 }),
      new sg.nn.BatchNorm2d(4),
      new sg.nn.ReLU(),
      new sg.nn.Flatten(),
      new sg.nn.Linear(4 * 5 * 5, 3),
    );
  sg.manualSeed(1);
  const model = make();
  const x = sg.randn([2, 1, 5, 5]);
  sg.tidy(() => model(x)); // a training-mode forward moves the BatchNorm running stats
  model.eval();
  const before = sg.tidy(() => model(x).toArray());
  const sd = model.stateDict();
  const bytes = sg.save(sd);
  sg.dispose(sd);
  sg.manualSeed(2);
  const fresh = make();
  const loaded = sg.load(bytes);
  assert.deepEqual(Object.keys(loaded), Object.keys(sd));
  fresh.loadStateDict(loaded);
  sg.dispose(loaded);
  fresh.eval();
  assert.deepEqual(sg.tidy(() => fresh(x).toArray()), before);
  model.dispose();
  fresh.dispose();
  x.dispose();
});

test('errors name the problem', () => {
  const t = sg.ones([2]);
  throwsWith(() => sg.save(t), 'save: expected a state dict');
  throwsWith(() => sg.save({ a: 1 }), "save: 'a' must be a Tensor");
  throwsWith(() => sg.save({ a: t }, { metadata: { n: 1 } }), "option 'metadata' must be an object of string values");
  throwsWith(() => sg.save({ a: t }, { meta: {} }), "unknown option 'meta'");
  const d = sg.ones([1]);
  d.dispose();
  throwsWith(() => sg.save({ d }), "'d' is a disposed Tensor");
  throwsWith(() => sg.load('file.safetensors'), 'load: expected the bytes of a safetensors file');
  throwsWith(() => sg.load(new Uint8Array([1, 2, 3])), 'load:');
  const bad = buildFile([['x', 'F32', [3], le([1, 2], 4, 'setFloat32')]]);
  throwsWith(() => sg.load(bad), 'load:');
  throwsWith(() => sg.load(buildFile([['x', 'F8_E4M3', [8], new Uint8Array(8)]])), 'load:', 'F8_E4M3');
  t.dispose();
});
