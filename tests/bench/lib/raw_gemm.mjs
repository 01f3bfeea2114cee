// The register-blocked WGSL GEMM (web/webgpu/kernels/gemm_blocked.ts) driven directly on a device
// of its own, for scripts/gpu-bench.sh: f32 storage, and f16 storage with f32 accumulation where
// the adapter has shader-f16 (simdgrad computes float16 tensors in float32, so its API has no f16
// product yet). Each size is checked first on a small odd shape against a double-precision product
// of the same (f16-rounded) inputs, then timed: `reps` dispatches per submit, waiting for the GPU.
import { blockedCode, blockedHeaderF16 } from '../../../npm/dist/esm/web/webgpu/kernels/gemm_blocked.js';
import { prelude } from '../../../npm/dist/esm/web/webgpu/kernels/prelude.js';

const STORAGE = 0x80, COPY_SRC = 0x04, COPY_DST = 0x08, UNIFORM = 0x40, MAP_READ = 0x01;
const HEADER_F32 = (pre) => `@group(0) @binding(0) var<storage, read> A: array<f32>;
@group(0) @binding(1) var<storage, read> B: array<f32>;
@group(0) @binding(2) var<storage, read> BIAS: array<f32>;
@group(0) @binding(3) var<storage, read_write> C: array<f32>;
${pre}`;

/** IEEE half bits of a float (round to nearest even), and back. */
export function toHalf(v) {
  const f = new Float32Array([v]), u = new Uint32Array(f.buffer)[0];
  const sign = (u >>> 16) & 0x8000, exp = (u >>> 23) & 0xff, man = u & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (man ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    const m = man | 0x800000, shift = 14 - e;
    let h = m >>> shift;
    const rem = m & ((1 << shift) - 1), half = 1 << (shift - 1);
    if (rem > half || (rem === half && (h & 1))) h++;
    return sign | h;
  }
  let h = (e << 10) | (man >>> 13);
  const rem = man & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (h & 1))) h++;
  return sign | h;
}
export function fromHalf(h) {
  const s = h & 0x8000 ? -1 : 1, e = (h >>> 10) & 0x1f, m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 0x1f) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

/** A device for the raw kernels (shader-f16 when asked and offered; the adapter's largest buffers). */
export async function rawDevice(adapter, f16) {
  const requiredFeatures = f16 && adapter.features.has('shader-f16') ? ['shader-f16'] : [];
  const lim = adapter.limits;
  return adapter.requestDevice({ requiredFeatures, requiredLimits: { maxStorageBufferBindingSize: lim.maxStorageBufferBindingSize, maxBufferSize: lim.maxBufferSize } });
}

function pipelineFor(device, storage) {
  const header = storage === 'f16' ? blockedHeaderF16(prelude(4)) : HEADER_F32(prelude(4));
  const module = device.createShaderModule({ code: blockedCode(header, false, false, 'x', storage) });
  return device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
}

function setup(device, pipeline, storage, m, n, k, a, b) {
  const bytes = storage === 'f16' ? 2 : 4;
  const pack = (arr) => {
    if (storage === 'f32') return new Float32Array(arr);
    const h = new Uint16Array(arr.length + (arr.length & 1));
    for (let i = 0; i < arr.length; i++) h[i] = toHalf(arr[i]);
    return h;
  };
  const buf = (data, size) => {
    const bf = device.createBuffer({ size: Math.max(16, Math.ceil(size / 4) * 4), usage: STORAGE | COPY_SRC | COPY_DST });
    if (data) device.queue.writeBuffer(bf, 0, data);
    return bf;
  };
  const A = buf(a && pack(a), m * k * bytes), B = buf(b && pack(b), k * n * bytes), bias = buf(null, 16), C = buf(null, m * n * bytes);
  const words = new Uint32Array(64), fw = new Float32Array(words.buffer);
  words.set([m, n, k]);
  fw[3] = 1; // alpha
  words[7] = k; words[9] = n; words[11] = n; // lda, ldb, ldc
  words[20] = 1; // one matrix
  const u = device.createBuffer({ size: 256, usage: UNIFORM | COPY_DST });
  device.queue.writeBuffer(u, 0, words);
  const group = device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: [A, B, bias, C, u].map((buffer, binding) => ({ binding, resource: { buffer } })),
  });
  const encode = (pass) => {
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, group);
    pass.dispatchWorkgroups(Math.ceil(n / 64), Math.ceil(m / 64), 1);
  };
  return { C, encode, destroy: () => [A, B, bias, C, u].forEach((x) => x.destroy()), bytes };
}

/** Largest |Δ| / (1 + |want|) of the kernel's m × n × k product against a double-precision one. */
export async function rawCheck(device, storage, m = 130, n = 67, k = 33) {
  const pipeline = pipelineFor(device, storage);
  const rnd = (len, seed) => Float32Array.from({ length: len }, (_, i) => Math.sin(seed * 7.13 + i * 1.7) * 2);
  const round = (v) => (storage === 'f16' ? fromHalf(toHalf(v)) : v);
  const a = rnd(m * k, 1).map(round), b = rnd(k * n, 2).map(round);
  const s = setup(device, pipeline, storage, m, n, k, a, b);
  const enc = device.createCommandEncoder();
  const pass = enc.beginComputePass();
  s.encode(pass);
  pass.end();
  const read = device.createBuffer({ size: s.C.size, usage: MAP_READ | COPY_DST });
  enc.copyBufferToBuffer(s.C, 0, read, 0, s.C.size);
  device.queue.submit([enc.finish()]);
  await read.mapAsync(MAP_READ);
  const raw = read.getMappedRange().slice(0);
  read.unmap();
  read.destroy();
  s.destroy();
  const got = storage === 'f16' ? Array.from(new Uint16Array(raw), fromHalf) : Array.from(new Float32Array(raw));
  let worst = 0;
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let want = 0;
      for (let p = 0; p < k; p++) want += a[i * k + p] * b[p * n + j];
      worst = Math.max(worst, Math.abs(got[i * n + j] - want) / (1 + Math.abs(want)));
    }
  }
  return worst;
}

/** Median ms of one N × N × N product (reps dispatches per submit), and GFLOP/s. */
export async function rawTime(device, storage, N, runs = 5) {
  const pipeline = pipelineFor(device, storage);
  const s = setup(device, pipeline, storage, N, N, N, null, null);
  const reps = N >= 4096 ? 2 : 10;
  const once = async () => {
    const enc = device.createCommandEncoder();
    const pass = enc.beginComputePass();
    for (let r = 0; r < reps; r++) s.encode(pass);
    pass.end();
    device.queue.submit([enc.finish()]);
    await device.queue.onSubmittedWorkDone();
  };
  await once();
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await once();
    ms.push((performance.now() - t0) / reps);
  }
  s.destroy();
  ms.sort((x, y) => x - y);
  const med = ms[ms.length >> 1];
  return { ms: med, gflops: (2 * N ** 3) / med / 1e6 };
}
