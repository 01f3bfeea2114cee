// The native yardstick as a line of `npm run bench`: simdgrad's GEMM kernel (native build,
// Highway dispatched to AVX2/AVX-512) against single-threaded OpenBLAS, when the Google
// Benchmark program (native/bench_kernels.cpp) is built:
//   cmake -S . -B build/bench -DCMAKE_BUILD_TYPE=Release -DSG_BENCH=ON
//   cmake --build build/bench -j2 --target simdgrad_bench_native
// OpenBLAS is libopenblas.so.0 (apt-get install libopenblas0-pthread), run with
// OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset so that it picks its own best kernel.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { REPO_DIR } from './libs.mjs';

export const NATIVE_BENCH = path.join(REPO_DIR, 'build/bench/simdgrad_bench_native');

/** { sizes: { 512: { sg, openblas, ratio }, ... }, openblas: context } or { skipped | error }. */
export function nativeGemm() {
  if (!existsSync(NATIVE_BENCH)) return { skipped: `${path.relative(process.cwd(), NATIVE_BENCH)} not built (see tests/bench/README.md, section 2)` };
  const env = { ...process.env };
  delete env.OPENBLAS_CORETYPE;
  delete env.OPENBLAS_L2_SIZE;
  const r = spawnSync(NATIVE_BENCH, [
    '--benchmark_filter=(sg_gemm|openblas_sgemm)/(512|1024)/0$', '--benchmark_repetitions=5',
    '--benchmark_enable_random_interleaving=true', '--benchmark_min_time=0.2', '--benchmark_format=json',
  ], { env, encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) return { error: `exited with ${r.status}: ${(r.stderr ?? '').trim().split('\n').slice(-2).join(' | ')}` };
  const report = JSON.parse(r.stdout);
  const median = (name) => {
    const v = report.benchmarks.filter((b) => b.run_name === name && b.run_type === 'iteration').map((b) => b.GFLOPS).sort((a, b) => a - b);
    return v.length ? v[v.length >> 1] : null;
  };
  const sizes = {};
  for (const n of [512, 1024]) {
    const sg = median(`sg_gemm/${n}/0`), ob = median(`openblas_sgemm/${n}/0`);
    sizes[n] = { sg, openblas: ob, ratio: sg && ob ? sg / ob : null };
  }
  return { sizes, openblas: report.context?.openblas ?? 'not loaded' };
}

export function nativeText(nat) {
  if (nat.skipped) return `native GEMM vs OpenBLAS: skipped: ${nat.skipped}`;
  if (nat.error) return `native GEMM vs OpenBLAS: ERROR: ${nat.error}`;
  const rows = Object.entries(nat.sizes).map(([n, s]) => `${n}: simdgrad ${s.sg?.toFixed(1)} GFLOP/s, OpenBLAS ${s.openblas?.toFixed(1)} GFLOP/s → ${s.ratio ? (100 * s.ratio).toFixed(0) : '—'} %`);
  return `native GEMM (A·B, CPU time, medians of 5 interleaved repetitions) vs single-threaded OpenBLAS (${nat.openblas}):\n  ${rows.join('\n  ')}`;
}
