// The machine's SIMD128 limit, as the bench's yardstick for GEMM and convolution: a wasm
// function that runs `chains` independent f32x4 chains, acc_i = acc_i · m + k, for `iters`
// steps (one f32x4.mul and one f32x4.add per chain and step: 8 flops). With enough chains
// the loop is bound by the vector multiply and add units alone, which is the most a
// wasm SIMD128 GEMM (no FMA) can reach on this engine and CPU. The module is assembled here
// byte by byte (no toolchain involved), so what it measures is plain to read.
//
// How many chains: enough to cover the latency of a multiply then an add on every vector
// port, and few enough to stay in registers (V8 on x64 allocates 15 xmm registers; each
// chain needs one, plus m and k). The probe times several counts and keeps the fastest: on
// x64, 12 chains; more spill to the stack and run slower; arm64 has 32 registers.
//
// m = 1 and k = 0 are passed at run time (nothing to fold): the values never change, so no
// denormal or overflow slows the arithmetic down.

const CHAIN_COUNTS = [8, 10, 12, 13, 16, 20, 24];
const UNROLL = 1;  // chain steps per loop iteration (unrolled copies measured slower under V8)

/** Unsigned / signed LEB128 of a small integer. */
function uleb(n) {
  const out = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}
const sleb = (n) => {
  const out = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && !(b & 0x40)) || (n === -1 && b & 0x40)) return [...out, b];
    out.push(b | 0x80);
  }
};
const section = (id, bytes) => [id, ...uleb(bytes.length), ...bytes];
const vec = (items) => [...uleb(items.length), ...items.flat()];
const f32 = (x) => [...new Uint8Array(Float32Array.of(x).buffer)];

const op = {
  localGet: (i) => [0x20, ...uleb(i)],
  localSet: (i) => [0x21, ...uleb(i)],
  localTee: (i) => [0x22, ...uleb(i)],
  i32Const: (v) => [0x41, ...sleb(v)],
  i32Sub: [0x6b],
  f32Const: (x) => [0x43, ...f32(x)],
  loop: [0x03, 0x40],
  brIf: (depth) => [0x0d, ...uleb(depth)],
  end: [0x0b],
  // SIMD (prefix 0xfd, LEB128 opcode)
  f32x4Splat: [0xfd, ...uleb(0x13)],
  f32x4ExtractLane: (lane) => [0xfd, ...uleb(0x1f), lane],
  f32x4Add: [0xfd, ...uleb(0xe4)],
  f32x4Mul: [0xfd, ...uleb(0xe6)],
};

/** The bytes of a module exporting run(iters: i32, m: f32, k: f32) → f32 with `chains` chains. */
export function peakModuleBytes(chains) {
  const I32 = 0x7f, F32 = 0x7d, V128 = 0x7b;
  // params 0 iters, 1 m, 2 k; locals 3 m4, 4 k4, 5.. the chains
  const M4 = 3, K4 = 4, acc = (i) => 5 + i;
  const body = [];
  body.push(...op.localGet(1), ...op.f32x4Splat, ...op.localSet(M4));
  body.push(...op.localGet(2), ...op.f32x4Splat, ...op.localSet(K4));
  // Distinct start values, so that no two chains are the same computation.
  for (let i = 0; i < chains; i++) body.push(...op.f32Const(i + 1), ...op.f32x4Splat, ...op.localSet(acc(i)));
  body.push(...op.loop);
  for (let u = 0; u < UNROLL; u++)
    for (let i = 0; i < chains; i++)
      body.push(...op.localGet(acc(i)), ...op.localGet(M4), ...op.f32x4Mul, ...op.localGet(K4), ...op.f32x4Add, ...op.localSet(acc(i)));
  body.push(...op.localGet(0), ...op.i32Const(1), ...op.i32Sub, ...op.localTee(0), ...op.brIf(0), ...op.end);
  // Every chain feeds the result, so none is dead code.
  body.push(...op.localGet(acc(0)));
  for (let i = 1; i < chains; i++) body.push(...op.localGet(acc(i)), ...op.f32x4Add);
  body.push(...op.f32x4ExtractLane(0), ...op.end);
  const locals = vec([[...uleb(2 + chains), V128]]);
  const func = [...locals, ...body];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec([[0x60, ...vec([[I32], [F32], [F32]]), ...vec([[F32]])]])),
    ...section(3, vec([[0]])),
    ...section(7, vec([[...vec([...'run'].map((c) => [c.charCodeAt(0)])), 0x00, 0]])),
    ...section(10, vec([[...uleb(func.length), ...func]])),
  ]);
}

const cpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

/**
 * Measures the SIMD128 peak in this process: first every chain count alternately for a
 * third of `budgetMs`, then the fastest count alone for the rest (interleaved with the
 * others, the best count measured 10 % below what it reaches alone, on an AMD EPYC);
 * returns its best GFLOP/s (process CPU time). Run the process with --no-liftoff (as the
 * bench workers are): the first call then already runs optimized code.
 */
export function measureSimd128Peak({ budgetMs = 400, sliceMs = 2 } = {}) {
  const runs = CHAIN_COUNTS.map((chains) => ({
    chains,
    run: new WebAssembly.Instance(new WebAssembly.Module(peakModuleBytes(chains))).exports.run,
    best: 0,
  }));
  // Iterations per slice from a calibration call of each.
  for (const r of runs) {
    r.run(1000, 1, 0);
    let iters = 1000;
    for (;;) {
      const t0 = cpuMs();
      r.run(iters, 1, 0);
      const ms = cpuMs() - t0;
      if (ms >= 1 || iters > 1e8) {
        r.iters = Math.max(1000, Math.round((iters * sliceMs) / Math.max(ms, 0.05)));
        break;
      }
      iters *= 4;
    }
  }
  const time = (r) => {
    const t0 = cpuMs();
    r.run(r.iters, 1, 0);
    const ms = cpuMs() - t0;
    if (ms > 0) r.best = Math.max(r.best, (8 * r.chains * UNROLL * r.iters) / (ms * 1e6));
  };
  const start = performance.now();
  do runs.forEach(time);
  while (performance.now() - start < budgetMs / 3);
  const top = runs.reduce((a, b) => (b.best > a.best ? b : a));
  while (performance.now() - start < budgetMs) time(top);
  return { gflops: top.best, chains: top.chains, byChains: Object.fromEntries(runs.map((r) => [r.chains, +r.best.toFixed(1)])) };
}
