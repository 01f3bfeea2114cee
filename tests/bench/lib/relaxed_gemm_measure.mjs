// The relaxed-SIMD GEMM against the SIMD128 one in one process, interleaved call by call (the
// machine's load changes hit both alike): the shared part of tests/bench/relaxed_gemm.mjs, run in
// Node (with --experimental-wasm-relaxed-simd) and in a Chromium page. Pure ES module: no Node
// or DOM APIs; the caller passes the clock.
//   measureRelaxedGemm(sg, init, { clock, warmupMs, budgetMs }) → rows
// Switching goes through the public API (init({ relaxedSimd })), between timed calls.

// The square products and the MLP's (784 → 256 → 256 → 10, batch 128: nn.Linear's x·Wᵀ forward,
// its input gradient G·W and weight gradient Gᵀ·X).
export const SHAPES = [
  { name: 'square 512', a: [512, 512], b: [512, 512] },
  { name: 'square 1024', a: [1024, 1024], b: [1024, 1024] },
  { name: 'mlp fwd [128,784]·[256,784]ᵀ', a: [128, 784], b: [256, 784], tb: true },
  { name: 'mlp dX [128,256]·[256,784]', a: [128, 256], b: [256, 784] },
  { name: 'mlp dW [128,256]ᵀ·[128,784]', a: [128, 256], b: [128, 784], ta: true },
  { name: 'mlp fwd [128,256]·[256,256]ᵀ', a: [128, 256], b: [256, 256], tb: true },
];

const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export async function measureRelaxedGemm(sg, init, { clock, warmupMs = 3000, budgetMs = 4000, minRuns = 5, shapes = SHAPES } = {}) {
  const rows = [];
  for (const s of shapes) {
    const a = sg.randn(s.a), b = sg.randn(s.b);
    const A = s.ta ? a.T : a, B = s.tb ? b.T : b;
    const m = A.shape[0], k = A.shape[1], n = B.shape[1];
    const run = () => sg.tidy(() => { sg.matmul(A, B); });
    // The two kernels agree to float32 rounding (one rounding per product fewer).
    await init({ relaxedSimd: true });
    if (!sg.features().relaxedSimd) throw new Error('relaxed SIMD is not available in this engine');
    const fused = sg.matmul(A, B);
    await init({ relaxedSimd: false });
    const plain = sg.matmul(A, B);
    const diff = sg.tidy(() => fused.sub(plain).abs().max().item() / plain.abs().max().item());
    sg.dispose([fused, plain]);
    const times = { relaxed: [], simd128: [] };
    const side = async (which, timed) => {
      await init({ relaxedSimd: which === 'relaxed' });
      const t0 = clock();
      run();
      if (timed) times[which].push(clock() - t0);
    };
    const w0 = clock();
    for (let i = 0; clock() - w0 < warmupMs || i < 2; i++) {
      await side(i % 2 ? 'relaxed' : 'simd128', false);
      await side(i % 2 ? 'simd128' : 'relaxed', false);
    }
    const t0 = clock();
    for (let i = 0; i < minRuns || clock() - t0 < budgetMs; i++) {
      const order = i % 2 ? ['relaxed', 'simd128'] : ['simd128', 'relaxed'];
      for (const which of order) await side(which, true);
      if (i >= 200) break;
    }
    sg.dispose([a, b]);
    const r = median(times.relaxed), p = median(times.simd128);
    const gflops = (ms) => (2 * m * n * k) / (ms * 1e6);
    rows.push({
      shape: s.name, m, n, k, runs: times.relaxed.length, relDiff: diff,
      relaxedMs: r, simd128Ms: p, relaxedGflops: gflops(r), simd128Gflops: gflops(p), speedup: p / r,
    });
  }
  await init({ relaxedSimd: true });
  return rows;
}

export function formatRows(title, rows) {
  const lines = [title, 'shape                              relaxed ms  SIMD128 ms  relaxed GFLOP/s  SIMD128 GFLOP/s  speedup  runs  max rel diff'];
  for (const r of rows) {
    lines.push(
      `${r.shape.padEnd(34)} ${r.relaxedMs.toFixed(3).padStart(10)} ${r.simd128Ms.toFixed(3).padStart(11)} ` +
        `${r.relaxedGflops.toFixed(1).padStart(16)} ${r.simd128Gflops.toFixed(1).padStart(16)} ${(r.speedup.toFixed(2) + 'x').padStart(8)} ` +
        `${String(r.runs).padStart(5)}  ${r.relDiff.toExponential(1)}`,
    );
  }
  return lines.join('\n');
}
