// The nine dtypes (API.md "Dtypes"): creation and reading, casts and float16/bfloat16 rounding bit
// for bit, promotion, finfo/iinfo, safetensors files written by PyTorch, module.to(dtype), and the
// Error every computing op gives for a dtype it has not been taught yet. Expected values come
// from PyTorch 1.13 (tests/data/gen_dtypes.py → dtypes_ref.json, torch_dtypes.safetensors).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { sg, readRef, throwsWith } from './helpers.mjs';

const ref = readRef('dtypes_ref.json');
const NAMES = ['float32', 'int32', 'bool', 'float16', 'bfloat16', 'float64', 'int64', 'int8', 'uint8'];
const f32FromBits = (bits) => new Float32Array(new Uint32Array(bits).buffer);

test('sg.promoteTypes equals torch.promote_types for every pair (int16, absent here, is int32)', () => {
  for (const a of NAMES) {
    for (const b of NAMES) {
      const want = ref.promote[a][b] === 'int16' ? 'int32' : ref.promote[a][b];
      assert.equal(sg.promoteTypes(a, b), want, `${a} with ${b}`);
    }
  }
  throwsWith(() => sg.promoteTypes('float32', 'complex64'), 'promoteTypes', 'complex64');
});

test('sg.resultType equals torch.result_type for tensors of each dtype with numbers and 0-d tensors', () => {
  for (const c of ref.resultType) {
    const t = sg.zeros(c.shape, { dtype: c.dtype });
    const other = 'number' in c ? c.number : sg.zeros([], { dtype: c.zeroDim });
    // PyTorch's default integer is int64, this library's int32.
    const want = c.result === 'int64' && !(c.dtype === 'int64' || c.zeroDim === 'int64') ? 'int32' : c.result;
    assert.equal(sg.resultType(t, other), want, `${c.dtype}${JSON.stringify(c.shape)} with ${'number' in c ? c.number : `0-d ${c.zeroDim}`}`);
    t.dispose();
    if (other instanceof sg.Tensor) other.dispose();
  }
});

test('finfo and iinfo equal torch.finfo / torch.iinfo', () => {
  for (const [name, f] of Object.entries(ref.finfo)) assert.deepEqual(sg.finfo(name), f, name);
  for (const [name, i] of Object.entries(ref.iinfo)) {
    const got = sg.iinfo(name);
    assert.equal(got.bits, i.bits, name);
    assert.equal(got.max, Number(i.max), name);
    assert.equal(got.min, Number(i.min), name);
  }
  throwsWith(() => sg.finfo('int32'), 'finfo', 'int32');
  throwsWith(() => sg.iinfo('float32'), 'iinfo', 'float32');
});

test('float16 and bfloat16 round to nearest even once, bit for bit as PyTorch (ties, subnormals, overflow, NaN)', () => {
  const x = sg.tensor(f32FromBits(ref.rounding.bits), { shape: [ref.rounding.bits.length] });
  for (const d of ['float16', 'bfloat16']) {
    const h = x.to(d);
    assert.equal(h.dtype, d);
    const got = new Uint32Array(h.dataSync().buffer);
    const want = ref.rounding[d];
    for (let i = 0; i < want.length; i++) {
      const bothNaN = Number.isNaN(f32FromBits([got[i]])[0]) && Number.isNaN(f32FromBits([want[i]])[0]);
      if (!bothNaN) assert.equal(got[i], want[i], `${d}: input 0x${ref.rounding.bits[i].toString(16)}: got 0x${got[i].toString(16)}, want 0x${want[i].toString(16)}`);
    }
    h.dispose();
  }
  x.dispose();
});

test('casts between every pair of dtypes equal PyTorch', () => {
  for (const c of ref.casts) {
    const t = sg.tensor(c.input, { dtype: c.from });
    const r = t.to(c.to);
    assert.equal(r.dtype, c.to);
    const got = Array.from(r.dataSync(), Number);
    got.forEach((v, i) => assert.ok(Object.is(v, c.output[i]) || v === c.output[i], `${c.from} → ${c.to}: element ${i}: ${v} vs ${c.output[i]}`));
    t.dispose();
    r.dispose();
  }
});

test('creation: TypedArrays bring their dtype, an explicit dtype wins, and reading gives the API.md arrays', () => {
  const cases = [
    [new Float64Array([0.1, 2]), 'float64', Float64Array],
    [new BigInt64Array([2n ** 60n, -3n]), 'int64', BigInt64Array],
    [new Int8Array([-5, 7]), 'int8', Int8Array],
    [new Uint8Array([200, 7]), 'uint8', Uint8Array],
    [new Float32Array([1.5, 2]), 'float32', Float32Array],
  ];
  for (const [data, dtype, Kind] of cases) {
    const t = sg.tensor(data, { shape: [2] });
    assert.equal(t.dtype, dtype);
    const got = t.dataSync();
    assert.ok(got instanceof Kind, `${dtype}: ${got.constructor.name}`);
    assert.deepEqual(Array.from(got), Array.from(data));
    t.dispose();
  }
  const h = sg.tensor([1, 0.1, 65504], { dtype: 'float16' });
  assert.ok(h.dataSync() instanceof Float32Array);
  assert.deepEqual(Array.from(h.dataSync()), [1, 0.0999755859375, 65504]); // 0.1 rounded to float16
  assert.deepEqual(h.toArray(), [1, 0.0999755859375, 65504]);
  const b = sg.tensor(new Uint8Array([1, 0]), { shape: [2], dtype: 'bool' });
  assert.equal(b.dtype, 'bool');
  assert.deepEqual(b.toArray(), [true, false]);
  const l = sg.tensor([1, 2, 3], { dtype: 'int64' });
  assert.deepEqual(l.toArray(), [1, 2, 3]);
  assert.equal(l.sum === undefined, false);
  for (const t of [h, b, l]) t.dispose();
  throwsWith(() => sg.tensor([300], { dtype: 'int8' }), 'tensor', '300', 'int8');
  throwsWith(() => sg.tensor([-1], { dtype: 'uint8' }), 'tensor', 'uint8');
  throwsWith(() => sg.tensor([1], { dtype: 'float128' }), 'tensor', 'dtype');
  throwsWith(() => sg.zeros([2], { dtype: 'complex64' }), 'zeros', 'dtype');
});

test('a float16 or bfloat16 tensor takes 2 bytes an element, float64 and int64 8 (sg.memory)', () => {
  for (const [dtype, bytes] of [['float16', 2], ['bfloat16', 2], ['float64', 8], ['int64', 8], ['int8', 1], ['uint8', 1]]) {
    const before = sg.memory().bytes;
    const t = sg.zeros([1000], { dtype });
    assert.equal(sg.memory().bytes - before, 1000 * bytes, dtype);
    t.dispose();
  }
});

test('int64 values beyond 2^53 read exactly through dataSync(); toArray() and item() refuse them by name', () => {
  const big = 2n ** 53n + 1n;
  const t = sg.tensor(new BigInt64Array([big, 5n]), { shape: [2] });
  assert.equal(t.dataSync()[0], big);
  throwsWith(() => t.toArray(), 'toArray', 'dataSync()');
  throwsWith(() => t.narrow(0, 0, 1).item(), 'item', 'dataSync()');
  assert.equal(t.narrow(0, 1, 1).item(), 5);
  t.dispose();
  throwsWith(() => sg.tensor([2 ** 60], { dtype: 'int64' }), 'tensor', 'BigInt64Array');
});

test('the casting methods, to({ device, dtype }) and setDefaultDtype', () => {
  const x = sg.tensor([1.5, -2.5]);
  const casts = { double: 'float64', half: 'float16', bfloat16: 'bfloat16', float: 'float32', int: 'int32', long: 'int64', bool: 'bool' };
  for (const [method, dtype] of Object.entries(casts)) {
    const y = x[method]();
    assert.equal(y.dtype, dtype, method);
    y.dispose();
  }
  const y = x.to({ device: 'cpu', dtype: 'float64' });
  assert.equal(y.dtype, 'float64');
  assert.deepEqual(y.toArray(), [1.5, -2.5]);
  y.dispose();
  throwsWith(() => x.to({ dtype: 'float64', layout: 'strided' }), 'to', 'layout');
  throwsWith(() => x.to('float128'), 'to', 'float128');
  x.dispose();

  assert.equal(sg.getDefaultDtype(), 'float32');
  sg.setDefaultDtype('float64');
  try {
    const t = sg.tensor([0.1, 2]);
    const z = sg.zeros([2]);
    const a = sg.arange(0, 1, 0.5);
    assert.deepEqual([t.dtype, z.dtype, a.dtype, sg.tensor([1, 2], { dtype: 'int32' }).dtype], ['float64', 'float64', 'float64', 'int32']);
    assert.equal(t.dataSync()[0], 0.1); // exact double
    for (const v of [t, z, a]) v.dispose();
  } finally {
    sg.setDefaultDtype('float32');
  }
  throwsWith(() => sg.setDefaultDtype('float16'), 'setDefaultDtype', 'float16');
});

test('view and copy ops move every dtype as it is; computing ops refuse a dtype they lack by name, leaving memory unchanged', () => {
  for (const dtype of ['float16', 'bfloat16', 'float64', 'int64', 'int8', 'uint8']) {
    const x = sg.tensor([[1, 2, 3], [4, 5, 6]], { dtype });
    const back = (t) => Array.from(t.dataSync(), Number);
    assert.deepEqual(back(x.transpose(0, 1).contiguous()), [1, 4, 2, 5, 3, 6], `${dtype} transpose`);
    assert.deepEqual(back(x.reshape([3, 2]).narrow(0, 1, 2)), [3, 4, 5, 6], `${dtype} reshape/narrow`);
    assert.deepEqual(back(sg.cat([x, x], 1)), [1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6], `${dtype} cat`);
    assert.deepEqual(back(x.indexSelect(1, sg.tensor([2, 0], { dtype: 'int32' }))), [3, 1, 6, 4], `${dtype} indexSelect`);
    // index (x[1, 0:2], x[..., 2]) is a view: narrow + squeeze and slice, so every dtype as they.
    const row = x.index(1, [0, 2]);
    assert.equal(row.dtype, dtype, `${dtype} index`);
    assert.deepEqual(back(row), [4, 5], `${dtype} index(1, [0, 2])`);
    assert.deepEqual(back(x.index('...', 2)), [3, 6], `${dtype} index('...', 2)`);
    assert.equal(sg.stack([x, x]).dtype, dtype);
    const xt = x.transpose(0, 1);
    const live = () => { const m = sg.memory(); return [m.tensors, m.handles, m.bytes]; };
    const before = live();
    // int64 computes in int32 only where no result can leave int32 (dtype_compute.test.mjs has
    // the rest): a matrix product of int64 is refused by name, leaving memory as it was.
    if (dtype === 'int64') throwsWith(() => sg.matmul(x, xt), 'matmul', dtype, 'cpu');
    assert.deepEqual(live(), before);
    xt.dispose();
    x.dispose();
  }
});

test('index of a float64 tensor is differentiable in float64: the gradient is 1 at the viewed positions', () => {
  const x = sg.tensor([[1, 2, 3], [4, 5, 6]], { dtype: 'float64', requiresGrad: true });
  const y = x.index(null, 1);  // x[:, 1] = [2, 5]
  y.mul(y).sum().backward();   // d/dx of sum(x[:, 1]^2) = 2 x at those positions
  assert.equal(x.grad.dtype, 'float64');
  assert.deepEqual(Array.from(x.grad.dataSync()), [0, 4, 0, 0, 10, 0]);
});

test('requiresGrad: any floating dtype may require gradients, integers may not; a cast between floats is differentiable', () => {
  const w = sg.tensor([1, 2], { dtype: 'float64', requiresGrad: true });
  assert.equal(w.requiresGrad, true);
  throwsWith(() => sg.tensor([1, 2], { dtype: 'int64', requiresGrad: true }), 'requiresGrad', 'int64');
  const v = sg.tensor([1, 2], { requiresGrad: true });
  const h = v.half();
  assert.equal(h.requiresGrad, true);
  h.dispose();
  const d = sg.noGrad(() => v.double());
  assert.equal(d.dtype, 'float64');
  for (const t of [w, v, d]) t.dispose();
});

test('safetensors: a file PyTorch wrote with every dtype loads each tensor as itself, and saves back byte for byte', () => {
  const bytes = readFileSync(new URL('../data/torch_dtypes.safetensors', import.meta.url));
  const sd = sg.load(bytes);
  for (const [name, e] of Object.entries(ref.safetensors)) {
    const t = sd[name];
    assert.equal(t.dtype, e.dtype, name);
    assert.deepEqual(t.shape, e.shape, name);
    const got = Array.from(t.dataSync(), (v) => (typeof v === 'bigint' ? v.toString() : e.dtype === 'bool' ? v === 1 : v));
    assert.deepEqual(got, e.values, name);
  }
  // Written back and read again: every dtype and value survives (the writer keeps the given order).
  const again = sg.load(sg.save(sd));
  for (const name of Object.keys(ref.safetensors)) {
    assert.equal(again[name].dtype, sd[name].dtype, name);
    assert.deepEqual(Array.from(again[name].dataSync()), Array.from(sd[name].dataSync()), name);
  }
  for (const t of [...Object.values(sd), ...Object.values(again)]) t.dispose();
});

test('module.to(dtype), half(), double(): floating parameters and buffers cast, integer buffers kept; loadStateDict casts into the module', () => {
  const bn = new sg.nn.BatchNorm1d(3);
  const lin = new sg.nn.Linear(3, 2);
  const model = new sg.nn.Sequential(lin, bn);
  model.double();
  for (const [name, p] of Object.entries(model.stateDict())) {
    assert.equal(p.dtype, name.endsWith('num_batches_tracked') || name.endsWith('numBatchesTracked') ? p.dtype : 'float64', name);
  }
  assert.equal(lin.weight.requiresGrad, true);
  model.half();
  assert.equal(lin.weight.dtype, 'float16');
  model.to('float32');
  assert.equal(lin.weight.dtype, 'float32');
  throwsWith(() => model.to('int32'), 'to', 'floating');
  // A bfloat16 state dict into the float32 module: cast, as PyTorch's copy_.
  const sd = { '0.weight': sg.tensor([[1, 2, 3], [4, 5, 6]], { dtype: 'bfloat16' }), '0.bias': sg.tensor([0.5, -0.5], { dtype: 'bfloat16' }) };
  model.loadStateDict(sd, { strict: false });
  assert.equal(lin.weight.dtype, 'float32');
  assert.deepEqual(lin.weight.toArray(), [[1, 2, 3], [4, 5, 6]]);
  for (const t of Object.values(sd)) t.dispose();
  model.dispose();
});
