// The newer dtypes on WebGPU (API.md "Dtypes (all devices)"; web/webgpu/kernels/elements.ts and
// casts.ts): float16, bfloat16, int64, int8 and uint8 stored in their own width on the GPU. Every
// comparison is against the CPU (wasm), whose casts and ops dtypes.test.mjs and
// dtype_compute.test.mjs check against PyTorch 1.13, or against PyTorch's own rounding table
// (tests/data/dtypes_ref.json). Bits are compared through safetensors bytes (sg.save), so NaN
// payloads, signed zeros and subnormals count. Skipped where no WebGPU device can start (Dawn on
// SwiftShader: webgpu_env.mjs); SwiftShader has no shader-f16, so the native f16 path is not run.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { gpu, why } from './webgpu_env.mjs';
import { init } from '../../npm/dist/index.mjs';
import { readRef } from './helpers.mjs';

const skip = gpu ? false : why;
const sg = gpu ? await init({ backend: 'webgpu', gpu }) : await init();
sg.setBackend('wasm');
after(() => {
  if (gpu) setTimeout(() => process.exit(process.exitCode ?? 0), 100); // Dawn keeps Node alive otherwise
});

const ref = readRef('dtypes_ref.json');
const GPU_DTYPES = ['float32', 'int32', 'bool', 'float16', 'bfloat16', 'int64', 'int8', 'uint8'];
const CODE = { float32: 'F32', int32: 'I32', bool: 'BOOL', float16: 'F16', bfloat16: 'BF16', int64: 'I64', int8: 'I8', uint8: 'U8' };
const SIZE = { float32: 4, int32: 4, bool: 1, float16: 2, bfloat16: 2, int64: 8, int8: 1, uint8: 1 };

/** A CPU tensor holding exactly `bytes` as `dtype` elements (a safetensors file read by sg.load). */
function fromBytes(dtype, shape, bytes) {
  const header = new TextEncoder().encode(JSON.stringify({ x: { dtype: CODE[dtype], shape, data_offsets: [0, bytes.length] } }));
  const file = new Uint8Array(8 + header.length + bytes.length);
  new DataView(file.buffer).setBigUint64(0, BigInt(header.length), true);
  file.set(header, 8);
  file.set(bytes, 8 + header.length);
  return sg.load(file).x;
}

/** The bytes of a tensor's elements (any device), as sg.save writes them. */
async function bytesOf(t) {
  const cpu = t.device === 'cpu' ? t.contiguous() : t.to('cpu');
  await sg.sync();
  const file = sg.save({ x: cpu });
  cpu.dispose();
  const n = Number(new DataView(file.buffer, file.byteOffset).getBigUint64(0, true));
  return file.slice(8 + n);
}

/** Random bytes from a fixed seed (a 32-bit LCG): every bit pattern of every dtype. */
function randomBytes(n, seed) {
  const out = new Uint8Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s >>> 24;
  }
  return out;
}

/** bool elements must be 0 or 1; other dtypes take any bytes. */
const patternFor = (dtype, n, seed) => {
  const b = randomBytes(n * SIZE[dtype], seed);
  if (dtype === 'bool') for (let i = 0; i < b.length; i++) b[i] &= 1;
  return b;
};

// op → dtype → true for each op whose values on webgpu were compared here, for the dtypes column
// of npm/README's Backend support (scripts/backend-support.mjs reads build/webgpu_dtype_matrix.json).
const matrix = {};
const passed = (op, dtype) => ((matrix[op] ??= {})[dtype] = true);
after(() => {
  if (!gpu || !Object.keys(matrix).length) return;
  mkdirSync(new URL('../../build/', import.meta.url), { recursive: true });
  writeFileSync(new URL('../../build/webgpu_dtype_matrix.json', import.meta.url), JSON.stringify(matrix, null, 1));
});

const hex = (bytes, i, size) => Array.from(bytes.slice(i * size, (i + 1) * size), (v) => v.toString(16).padStart(2, '0')).join('');

/** Asserts two byte arrays hold equal elements (those `keep` accepts), naming the first that differs. */
function sameBits(got, want, size, what, keep = () => true) {
  assert.equal(got.length, want.length, `${what}: byte length`);
  for (let i = 0; i < want.length; i++) {
    if (got[i] !== want[i] && keep(Math.floor(i / size))) {
      const e = Math.floor(i / size);
      assert.fail(`${what}: element ${e} differs: got ${hex(got, e, size)}, want ${hex(want, e, size)}`);
    }
  }
}

test('every dtype round-trips CPU → GPU → CPU bit for bit (odd lengths for the packed tails)', { skip }, async () => {
  for (const dtype of GPU_DTYPES) {
    for (const n of [1, 3, 5, 7, 1025]) {
      const bytes = patternFor(dtype, n, n * 31 + dtype.length);
      const x = fromBytes(dtype, [n], bytes);
      const g = x.to('webgpu');
      assert.equal(g.dtype, dtype);
      sameBits(await bytesOf(g), bytes, SIZE[dtype], `${dtype} [${n}]`);
      sg.dispose([x, g]);
    }
  }
});

test('strided views, slices at odd offsets and clones on the GPU equal the CPU bit for bit', { skip }, async () => {
  const views = [
    ['transposed', (t) => t.reshape([5, 7]).transpose(0, 1).contiguous()],
    ['a column at an odd offset', (t) => t.reshape([5, 7]).index(null, 3).contiguous()],
    ['every other element from 1', (t) => t.index([1, 35, 2]).contiguous()],
    ['reversed rows (flip is a copy)', (t) => t.reshape([5, 7]).index([1, 4]).clone()],
    ['cat of two slices', (t) => sg.cat([t.index([0, 3]), t.index([5, 16])], 0)],
    ['expand then contiguous', (t) => t.index([2, 5]).reshape([1, 3]).expand([4, 3]).contiguous()],
  ];
  for (const dtype of GPU_DTYPES) {
    // int64: values within int32 (index and flip compute int64 in int32, refusing larger ones).
    const x = dtype === 'int64' ? fromBytes('int32', [35], patternFor('int32', 35, 7)).to('int64') : fromBytes(dtype, [35], patternFor(dtype, 35, 7));
    const g = x.to('webgpu');
    for (const [name, f] of views) {
      const want = sg.tidy(() => f(x));
      const got = sg.tidy(() => f(g));
      assert.equal(got.device, 'webgpu');
      assert.deepEqual(got.shape, want.shape);
      sameBits(await bytesOf(got), await bytesOf(want), SIZE[dtype], `${dtype}: ${name}`);
      sg.dispose([want, got]);
    }
    // A strided copy into a view of a GPU tensor (copy_ through a transposed destination).
    const copyInto = (t) => sg.tidy(() => {
      const r = t.reshape([5, 7]).clone();
      r.transpose(0, 1).index(2).copy_(t.index([10, 15]));
      return r;
    });
    const want = copyInto(x), into = copyInto(g);
    sameBits(await bytesOf(into), await bytesOf(want), SIZE[dtype], `${dtype}: copy_ into a column`);
    sg.dispose([x, g, want, into]);
  }
});

// float32 bit patterns where the 16-bit roundings are hard: ties to even, the largest finite
// values and the overflow threshold, float16 subnormals and the rounding to 0 below them,
// float32 subnormals, signed zeros, infinities, NaNs with payloads, and the integer limits.
function specialFloats() {
  const vals = [0, -0, 1, -1, 1 + 2 ** -11, 1 + 3 * 2 ** -11, 1 + 2 ** -8, 1 + 3 * 2 ** -8, 65504, 65519, 65520, -65520,
    65536, 1e10, 3.4e38, 2 ** -14, 2 ** -24, 2 ** -25, 3 * 2 ** -25, 2 ** -25 * 1.0000001, 2 ** -26, 1e-40, -1e-40,
    2 ** -126, 2.5, -2.5, 0.5, 127.9, -128.7, 255.5, 256, -129, 2 ** 24 + 2, 2 ** 31 - 128, -(2 ** 31), 2 ** 62,
    -(2 ** 63), Infinity, -Infinity, NaN];
  const f = new Float32Array(vals);
  const u = new Uint32Array(f.buffer);
  const nans = [0x7f800001, 0xffc00001, 0x7fbfffff, 0x7fc12345];
  const extra = ref.rounding.bits;
  return Uint32Array.from([...u, ...nans, ...extra]);
}

// Integer sources: int64 values around 2^24, 2^53 and the limits (float32 rounding ties), int32
// limits, and everything an 8-bit integer holds.
function specialInts() {
  const v = [0n, 1n, -1n, 127n, 128n, -128n, -129n, 255n, 256n, 2n ** 24n + 1n, 2n ** 24n + 3n, 2n ** 25n + 2n, -(2n ** 24n) - 1n,
    2n ** 31n - 1n, -(2n ** 31n), 2n ** 31n, 2n ** 32n + 5n, 2n ** 53n + 1n, 2n ** 62n + 2n ** 38n, 2n ** 63n - 1n, -(2n ** 63n),
    -(2n ** 63n) + 1n, 0x7fffff8000000000n, 0x7fffff7fffffffffn, 12345678901234n];
  for (let i = -128; i < 256; i++) v.push(BigInt(i));
  return BigInt64Array.from(v);
}

test('casts between every pair of GPU dtypes equal the CPU\'s bit for bit (ties, overflow, subnormals, NaN)', { skip }, async () => {
  const floats = specialFloats();
  const ints = specialInts();
  const sources = [
    ...['float32', 'float16', 'bfloat16'].map((d) => [d, fromBytes('float32', [floats.length], new Uint8Array(floats.buffer))]),
    ...['int64', 'int32', 'int8', 'uint8', 'bool'].map((d) => [d, fromBytes('int64', [ints.length], new Uint8Array(ints.buffer))]),
  ];
  // A float outside an integer dtype's range (NaN, inf) has no defined conversion (C++ and PyTorch
  // leave it undefined; the CPU's own scalar and SIMD loops differ there): not compared.
  const RANGE = { int32: [-(2 ** 31), 2 ** 31 - 1], int64: [-(2 ** 63), 2 ** 63 - 1], int8: [-128, 127], uint8: [0, 255] };
  for (const [from, base] of sources) {
    const x = base.to(from); // the source dtype, made on the CPU
    const g = x.to('webgpu');
    const asFloat = x.dtype.startsWith('float') || x.dtype === 'bfloat16' ? Array.from(x.to('float32').dataSync()) : null;
    for (const to of GPU_DTYPES) {
      const want = x.to(to), got = g.to(to);
      assert.equal(got.device, 'webgpu');
      const r = RANGE[to];
      const keep = asFloat && r ? (e) => Math.trunc(asFloat[e]) >= r[0] && Math.trunc(asFloat[e]) < r[1] + 1 : undefined;
      sameBits(await bytesOf(got), await bytesOf(want), SIZE[to], `${from} → ${to}`, keep);
      sg.dispose([want, got]);
    }
    sg.dispose([base, x, g]);
  }
});

test('float32 → float16/bfloat16 on the GPU equals PyTorch\'s rounding table', { skip }, async () => {
  const bits = Uint32Array.from(ref.rounding.bits);
  const x = fromBytes('float32', [bits.length], new Uint8Array(bits.buffer)).to('webgpu');
  for (const d of ['float16', 'bfloat16']) {
    const h = x.to(d);
    const got = new Uint32Array((await h.data()).buffer); // widened exactly to float32
    const want = ref.rounding[d];
    for (let i = 0; i < want.length; i++) {
      const nan = (w) => (w & 0x7fffffff) > 0x7f800000;
      if (!(nan(got[i]) && nan(want[i]))) assert.equal(got[i], want[i], `${d}: input 0x${bits[i].toString(16)}`);
    }
    h.dispose();
  }
  x.dispose();
});

test('fills of every GPU dtype equal the CPU\'s (rounded once, wrapped, NaN to bool true)', { skip }, async () => {
  for (const dtype of GPU_DTYPES) {
    for (const v of [0, -0, 1.5, -2.75, 65519, 65520, 1 + 2 ** -11, 300, -129, 2 ** 40 + 3, NaN, Infinity, 1e-7]) {
      let want;
      try {
        want = sg.full([5], v, { dtype, device: 'cpu' });
      } catch (e) {
        // A value the dtype cannot hold: the same Error on the GPU.
        assert.throws(() => sg.full([5], v, { dtype, device: 'webgpu' }), { message: e.message });
        continue;
      }
      const got = sg.full([5], v, { dtype, device: 'webgpu' });
      sameBits(await bytesOf(got), await bytesOf(want), SIZE[dtype], `full(${v}) ${dtype}`);
      sg.dispose([want, got]);
    }
  }
});

/** Values of a 16-bit float tensor as ordered integers (ulp distance = their difference). */
async function ordered16(t) {
  const b = await bytesOf(t);
  const h = new Uint16Array(b.buffer, b.byteOffset, b.length / 2);
  return Array.from(h, (v) => (v & 0x8000 ? -(v & 0x7fff) : v));
}

/** Asserts every element of got within `ulps` of want (16-bit floats) or equal (integers, bool). */
async function sameValues(got, want, ulps, what) {
  assert.equal(got.dtype, want.dtype, `${what}: dtype`);
  assert.deepEqual(got.shape, want.shape, `${what}: shape`);
  if (got.dtype === 'float16' || got.dtype === 'bfloat16') {
    const [a, b] = [await ordered16(got), await ordered16(want)];
    a.forEach((v, i) => assert.ok(Math.abs(v - b[i]) <= ulps, `${what}: element ${i}: ${v} vs ${b[i]} (ordered bits)`));
  } else {
    sameBits(await bytesOf(got), await bytesOf(want), SIZE[got.dtype], what);
  }
}

/** A deterministic CPU tensor of `dtype`: floats in (−2, 2), integers in [lo, hi]. */
function values(dtype, shape, seed, lo = -9, hi = 9) {
  const n = shape.reduce((p, s) => p * s, 1);
  const r = randomBytes(n * 2, seed);
  const xs = Array.from({ length: n }, (_, i) => (r[2 * i] * 256 + r[2 * i + 1]) / 65536);
  if (dtype === 'float16' || dtype === 'bfloat16') return sg.tensor(Float32Array.from(xs, (v) => 4 * v - 2), { shape, dtype, device: 'cpu' });
  const ints = xs.map((v) => Math.floor(lo + v * (hi - lo + 1)));
  if (dtype === 'int64') return sg.tensor(BigInt64Array.from(ints, BigInt), { shape, device: 'cpu' });
  return sg.tensor(Int32Array.from(ints), { shape, device: 'cpu' }).to(dtype);
}

test('ops on float16 / bfloat16 on the GPU equal the CPU within one ulp of the dtype (computed in float32, rounded once)', { skip }, async () => {
  const ops = [
    // [name, op, ulps, f]: elementwise float32 arithmetic is correctly rounded on both: bit for bit.
    ['add', 'add', 0, (a, b) => a.add(b)],
    ['mul', 'mul', 0, (a, b) => a.mul(b)],
    ['sub of a number', 'sub', 0, (a) => a.sub(0.375)],
    ['matmul', 'matmul', 1, (a, b) => a.reshape([6, 7]).matmul(b.reshape([7, 6]))],
    ['softmax', 'softmax', 1, (a) => a.reshape([6, 7]).softmax(-1)],
    ['sum over a dim', 'sum', 1, (a) => a.reshape([6, 7]).sum(1)],
    ['sum', 'sum', 1, (a) => a.sum()],
    ['layerNorm', 'layerNorm', 1, (a, b) => sg.F.layerNorm(a.reshape([6, 7]), [7], b.index([0, 7]), b.index([7, 14]))],
    ['gather', 'gather', 0, (a) => a.reshape([6, 7]).gather(1, sg.tensor([[6, 0], [1, 1], [2, 5], [3, 3], [0, 4], [5, 6]], { dtype: 'int32', device: a.device }))],
    ['indexSelect (int64 index)', 'indexSelect', 0, (a) => a.reshape([6, 7]).indexSelect(0, sg.tensor(new BigInt64Array([5n, 0n, 3n, 3n]), { shape: [4], device: a.device }))],
    ['cat', 'cat', 0, (a, b) => sg.cat([a.reshape([6, 7]), b.reshape([6, 7]).index([1, 3])], 0)],
    ['eq', 'eq', 0, (a, b) => a.eq(b.index([0, 1]).expand([42]))],
    ['lt', 'lt', 0, (a, b) => a.lt(b)],
    ['where', 'where', 0, (a, b) => sg.where(a.gt(0), a, b)],
    ['stack', 'stack', 0, (a, b) => sg.stack([a, b], 1)],
    ['flip', 'flip', 0, (a) => a.reshape([6, 7]).flip([1])],
    ['pad (reflect)', 'pad', 0, (a) => sg.F.pad(a.reshape([1, 6, 7]), [2, 1], { mode: 'reflect' })],
    ['cumsum', 'cumsum', 1, (a) => a.reshape([6, 7]).cumsum(1)],
    ['sort', 'sort', 0, (a) => a.reshape([6, 7]).sort(1)[0]],
    ['maskedFill', 'maskedFill', 0, (a, b) => a.maskedFill(b.lt(0), 1.5)],
  ];
  for (const dtype of ['float16', 'bfloat16']) {
    const a = values(dtype, [42], 11), b = values(dtype, [42], 12);
    const ga = a.to('webgpu'), gb = b.to('webgpu');
    for (const [name, op, ulps, f] of ops) {
      const want = sg.tidy(() => f(a, b));
      const got = sg.tidy(() => f(ga, gb));
      assert.equal(got.device, 'webgpu', name);
      await sameValues(got, want, ulps, `${dtype} ${name}`);
      passed(op, dtype);
      sg.dispose([want, got]);
    }
    sg.dispose([a, b, ga, gb]);
  }
});

test('int8 / uint8 / int64 integer ops on the GPU equal the CPU (int32 arithmetic, wrapped on the store)', { skip }, async () => {
  const ops = [
    ['add', 'add', (a, b) => a.add(b)],
    ['sub', 'sub', (a, b) => a.sub(b)],
    ['mul', 'mul', (a, b) => a.mul(b)],
    ['neg', 'neg', (a) => a.neg()],
    ['floorDivide', 'floorDivide', (a) => a.floorDivide(3)],
    ['remainder', 'remainder', (a) => a.remainder(4)],
    ['maximum', 'maximum', (a, b) => sg.maximum(a, b)],
    ['sum', 'sum', (a) => a.sum()],
    ['sum over a dim', 'sum', (a) => a.reshape([6, 7]).sum(0)],
    ['gather', 'gather', (a) => a.reshape([6, 7]).gather(1, sg.tensor([[6, 0], [1, 1], [2, 5], [3, 3], [0, 4], [5, 6]], { dtype: 'int32', device: a.device }))],
    ['indexSelect', 'indexSelect', (a) => a.reshape([6, 7]).indexSelect(1, sg.tensor([4, 4, 0, 6], { dtype: 'int32', device: a.device }))],
    ['cat', 'cat', (a, b) => sg.cat([a, b.index([3, 9])], 0)],
    ['eq', 'eq', (a, b) => a.eq(b)],
    ['le', 'le', (a, b) => a.le(b)],
    ['argmax', 'argmax', (a) => a.reshape([6, 7]).argmax(1)],
    ['stack', 'stack', (a, b) => sg.stack([a, b], 0)],
    ['flip', 'flip', (a) => a.reshape([6, 7]).flip([0])],
    ['tril', 'tril', (a) => a.reshape([6, 7]).tril()],
    ['topk values', 'topk', (a) => a.reshape([6, 7]).topk(3)[0]],
    ['where', 'where', (a, b) => sg.where(a.gt(b), a, b)],
  ];
  const ranges = { int8: [-128, 127], uint8: [0, 255], int64: [-40000, 40000] };
  for (const dtype of ['int8', 'uint8', 'int64']) {
    const [lo, hi] = ranges[dtype];
    const a = values(dtype, [42], 21, lo, hi), b = values(dtype, [42], 22, lo, hi);
    const ga = a.to('webgpu'), gb = b.to('webgpu');
    for (const [name, op, f] of ops) {
      const want = sg.tidy(() => f(a, b));
      const got = sg.tidy(() => f(ga, gb));
      assert.equal(got.device, 'webgpu', name);
      await sameValues(got, want, 0, `${dtype} ${name}`);
      passed(op, dtype);
      sg.dispose([want, got]);
    }
    sg.dispose([a, b, ga, gb]);
  }
});

test('int64 beyond what int32 arithmetic holds: the GPU reports the op, the value and the device at the next sync', { skip }, async () => {
  const big = sg.tensor(new BigInt64Array([3n, 5000000000n, -7n]), { shape: [3], device: 'webgpu' });
  const r = big.add(1);
  await assert.rejects(sg.sync(), (e) => {
    assert.match(e.message, /^add: int64 values are computed in int32 by this op, exactly only while \|value\| <= 1073741824 here; got 5000000000 \(on the webgpu device\)/);
    return true;
  });
  // A sum: the sum of |values| is what must fit.
  const many = sg.full([3], 2 ** 30, { dtype: 'int64', device: 'webgpu' });
  const s = many.sum();
  await assert.rejects(sg.sync(), /^Error: sum: int64 values are computed in int32 by this op, exactly only while the sum of \|values\| <= 2147483647 here; got 3221225472 \(on the webgpu device\)|sum: int64 values .* got 3221225472 \(on the webgpu device\)/);
  // An int64 index beyond int32 positions.
  const x = sg.zeros([4], { device: 'webgpu' });
  const idx = sg.tensor(new BigInt64Array([1n, -(2n ** 40n)]), { shape: [2], device: 'webgpu' });
  const sel = x.indexSelect(0, idx);
  await assert.rejects(sg.sync(), /indexSelect: an index of 1099511627776 is beyond what any tensor here holds/);
  // Ops with no exact int32 form are refused at once, by name, as on the CPU.
  const column = big.reshape([3, 1]);
  assert.throws(() => big.matmul(column), /matmul: int64 tensors are computed in int32 by this op, whose int32 result could overflow \(on the webgpu device\)/);
  // The device is still usable.
  const two = sg.tensor(new BigInt64Array([2n, 3n]), { shape: [2], device: 'webgpu' });
  const ok = two.mul(4);
  assert.deepEqual(Array.from(await ok.data()), [8n, 12n]);
  sg.dispose([big, column, r, many, s, x, idx, sel, two, ok]);
});

test('gradients of a bfloat16 parameter on the GPU equal the CPU\'s (one bfloat16 ulp)', { skip }, async () => {
  const grads = {}, params = [];
  for (const device of ['cpu', 'webgpu']) {
    const [w0, x0] = [values('bfloat16', [7, 5], 31), values('bfloat16', [6, 7], 32)];
    const w = w0.to(device).requiresGrad_();
    const x = x0.to(device);
    const steps = [x.matmul(w)];
    steps.push(steps.at(-1).softmax(-1));
    steps.push(steps.at(-1).mul(3));
    steps.push(sg.F.layerNorm(steps.at(-1), [5]));
    steps.push(steps.at(-1).square());
    const loss = steps.at(-1).sum();
    loss.backward();
    sg.dispose(steps);
    assert.equal(w.grad.dtype, 'bfloat16');
    assert.equal(w.grad.device, device);
    grads[device] = w.grad;
    params.push(w);
    sg.dispose([w0, x0, x, loss]);
  }
  await sameValues(grads.webgpu, grads.cpu, 1, 'bf16 weight gradient');
  sg.dispose(params);
  for (const op of ['matmul', 'softmax', 'mul', 'layerNorm', 'square', 'sum']) passed(op, 'bfloat16');
  sg.dispose(Object.values(grads));
});

test('sg.memory() counts 2 bytes a float16/bfloat16 element on the GPU, 1 for int8/uint8, 8 for int64', { skip }, async () => {
  for (const [dtype, size] of [['float16', 2], ['bfloat16', 2], ['int8', 1], ['uint8', 1], ['int64', 8], ['float32', 4]]) {
    const before = sg.memory().gpuBytes;
    const t = sg.zeros([1001], { dtype, device: 'webgpu' });
    assert.equal(sg.memory().gpuBytes - before, 1001 * size, dtype);
    t.dispose();
    assert.equal(sg.memory().gpuBytes, before, `${dtype}: freed`);
  }
  // Ops on 16-bit tensors free their float32 temporaries: flat over a loop.
  const x = sg.ones([257], { dtype: 'bfloat16', device: 'webgpu' });
  const start = sg.memory();
  for (let i = 0; i < 20; i++) sg.tidy(() => void x.mul(x).add(1).softmax(0).sum());
  await sg.sync();
  assert.equal(sg.memory().gpuBytes, start.gpuBytes);
  // Tensors: at most, since CPU temporaries this file left to the garbage collector may go meanwhile.
  assert.ok(sg.memory().tensors <= start.tensors, `${sg.memory().tensors} tensors after the loop, ${start.tensors} before`);
  x.dispose();
});

test('float64 on the GPU is an Error naming the dtype and the device; nothing is left behind', { skip }, async () => {
  const before = sg.memory();
  const d = sg.tensor(new Float64Array([1, 2]), { shape: [2] });
  assert.throws(() => d.to('webgpu'), /float64 tensors cannot live on the webgpu device/);
  assert.throws(() => sg.zeros([2], { dtype: 'float64', device: 'webgpu' }), /float64 tensors cannot live on the webgpu device/);
  const f = sg.tensor([1, 2], { device: 'webgpu' });
  assert.throws(() => f.to('float64'), /float64 tensors cannot live on the webgpu device/);
  sg.dispose([d, f]);
  await sg.sync();
  assert.equal(sg.memory().gpuBytes, before.gpuBytes);
});

test('a bfloat16 module on the GPU: forward equals the CPU, saveAsync writes the CPU\'s bytes, loadStateDict casts on the GPU', { skip }, async () => {
  sg.manualSeed(5);
  const m = new sg.nn.Linear(9, 5).bfloat16();
  const x = values('bfloat16', [3, 9], 41);
  const cpuY = m(x);
  const bytes = sg.save(m.stateDict());
  m.to('webgpu');
  assert.equal(m.weight.device, 'webgpu');
  assert.equal(m.weight.dtype, 'bfloat16');
  const gx = x.to('webgpu');
  const gpuY = m(gx);
  await sameValues(gpuY, cpuY, 1, 'Linear forward');
  passed('linear', 'bfloat16');
  const saved = await sg.saveAsync(m.stateDict());
  assert.deepEqual(Buffer.from(saved), Buffer.from(bytes));
  // A float16 module on the GPU loading the bfloat16 file: cast on the GPU, as the CPU casts.
  const half = new sg.nn.Linear(9, 5).half(), gpuHalf = new sg.nn.Linear(9, 5).to('webgpu').half();
  half.loadStateDict(sg.load(bytes));
  gpuHalf.loadStateDict(sg.load(bytes));
  for (const name of ['weight', 'bias']) sameBits(await bytesOf(gpuHalf[name]), await bytesOf(half[name]), 2, `loaded ${name}`);
  sg.dispose([x, gx, cpuY, gpuY]);
  for (const mod of [m, half, gpuHalf]) sg.dispose(mod.parameters());
});
