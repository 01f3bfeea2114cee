// PyTorch 1.13 (Debian's python3-torch, CPU) as a native yardstick for workloads that tfjs
// does not run: the bench's gpt_train against torch/gpt_step.py (its restated model.py, and
// nanoGPT's own model.py as a cross-check), on the same machine, from the same starting
// parameters (written to a temporary file). run.mjs interleaves these processes with
// simdgrad's worker over several rounds and takes medians.
//
// PyTorch at its best: one thread really (gpt_step.py sets OMP/OPENBLAS/MKL_NUM_THREADS before
// it imports torch and reports CPU ÷ wall time and OpenBLAS's thread count), and glibc malloc
// told to keep freed memory: MALLOC_MMAP_THRESHOLD_ and MALLOC_TRIM_THRESHOLD_ at 4 GiB. With
// glibc's defaults every tensor above the mmap threshold (128 KiB, then adaptive) is unmapped
// on free and faulted in again on the next step: measured here 1,226 minor page faults per
// step and 39 ms a step, against 3 faults and 13.6 ms with the thresholds (loaded 2-core Zen 5;
// jemalloc 5.3 from Debian through LD_PRELOAD: 13 faults, 19 ms). The report names the
// allocator and the faults per step.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BENCH_DIR } from './libs.mjs';
import { gptData } from './gpt.mjs';

const PYTHON = '/usr/bin/python3';  // Debian's, where python3-torch lives (not a pyenv shim)
const SCRIPTS = { gpt: { script: 'torch/gpt_step.py', data: gptData } };

/** True when PyTorch can be imported by PYTHON. */
export function torchAvailable() {
  const r = spawnSync(PYTHON, ['-c', 'import torch, numpy'], { stdio: 'ignore' });
  return r.status === 0;
}

/** The parameters, then the int32 token ids and targets, as one binary file. */
function writeGptData(file) {
  const d = gptData();
  const parts = [...d.params, d.idx, d.targets].map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength));
  writeFileSync(file, Buffer.concat(parts));
}

/**
 * Runs the PyTorch twin of workload `kind` ('gpt') on `threads` threads, `model` 'bench' (the
 * restated model.py) or 'nanogpt' (nanoGPT's own); returns its JSON report ({ wall_ms, cpu_ms,
 * cpu_per_wall, faults_per_step, loss0, blas, allocator, ... }) or { error }.
 */
export const TORCH_ALLOC_ENV = { MALLOC_MMAP_THRESHOLD_: '4294967296', MALLOC_TRIM_THRESHOLD_: '4294967296' };

export function runTorch(kind, threads, { budgetMs = 4000, model = 'bench' } = {}) {
  const spec = SCRIPTS[kind];
  if (!spec) return { error: `no PyTorch twin for '${kind}'` };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sg-torch-'));
  try {
    const file = path.join(dir, 'data.bin');
    writeGptData(file);
    const env = { ...process.env, ...TORCH_ALLOC_ENV, OMP_NUM_THREADS: String(threads), MKL_NUM_THREADS: String(threads), OPENBLAS_NUM_THREADS: String(threads) };
    // OpenBLAS's own choice of kernel for this CPU (this environment sets OPENBLAS_CORETYPE=
    // Haswell for old builds; 0.3.21 picks Cooperlake's AVX-512 kernels on Zen 5), as native.mjs.
    delete env.OPENBLAS_CORETYPE;
    delete env.OPENBLAS_L2_SIZE;
    const args = [path.join(BENCH_DIR, spec.script), '--data', file, '--threads', String(threads), '--budget-ms', String(budgetMs), '--model', model];
    const r = spawnSync(PYTHON, args, { env, encoding: 'utf8' });
    const line = (r.stdout ?? '').trim().split('\n').pop();
    if (r.status !== 0 || !line?.startsWith('{')) return { error: `python exited with ${r.status}: ${(r.stderr ?? '').trim().split('\n').slice(-2).join(' | ')}` };
    return JSON.parse(line);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Why a PyTorch report is no yardstick, or null when it is: its process loaded a BLAS other than OpenBLAS or MKL
 * (Debian's reference BLAS, when libopenblas0-pthread is not installed: PyTorch's GPT-2 LoRA step then took 82-85 s
 * of CPU against 2.3 s with OpenBLAS on 2026-11-30's Intel Xeon). `report.blas` is torch/blas_info.py's.
 */
export function slowBlas(report) {
  if (!report?.blas) return 'the PyTorch script did not say which BLAS it loaded';
  return /openblas|mkl/i.test(report.blas) ? null : `PyTorch loaded ${report.blas}, not OpenBLAS (apt-get install libopenblas0-pthread): no yardstick`;
}

/** The median of numbers (null for none). */
export function medianOf(xs) {
  const t = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!t.length) return null;
  const mid = t.length >> 1;
  return t.length % 2 ? t[mid] : (t[mid - 1] + t[mid]) / 2;
}

/**
 * One report from several runs of gpt_step.py: medians of cpu_ms, wall_ms, cpu_per_wall and
 * faults_per_step over the runs that worked, the rest from the first; { error } if none did.
 */
export function torchMedian(runs) {
  const ok = runs.filter((r) => !r.error);
  if (!ok.length) return runs[0] ?? { error: 'not run' };
  const out = { ...ok[0], runsOk: ok.length, cpuRounds: ok.map((r) => r.cpu_ms) };
  for (const k of ['cpu_ms', 'wall_ms', 'cpu_per_wall', 'faults_per_step']) out[k] = medianOf(ok.map((r) => r[k]));
  return out;
}
