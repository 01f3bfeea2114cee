// PyTorch 1.13 (Debian's python3-torch, CPU) as a native yardstick for workloads that tfjs
// does not run: the bench's gpt_train against torch/gpt_step.py, on the same machine right
// after the workers, from the same starting parameters (written to a temporary file).
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
 * Runs the PyTorch twin of workload `kind` ('gpt') on `threads` threads; returns its JSON
 * report ({ wall_ms, cpu_ms, loss0, blas, ... }) or { error }.
 */
export function runTorch(kind, threads, budgetMs = 4000) {
  const spec = SCRIPTS[kind];
  if (!spec) return { error: `no PyTorch twin for '${kind}'` };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sg-torch-'));
  try {
    const file = path.join(dir, 'data.bin');
    writeGptData(file);
    const env = { ...process.env, OMP_NUM_THREADS: String(threads), MKL_NUM_THREADS: String(threads), OPENBLAS_NUM_THREADS: String(threads) };
    const r = spawnSync(PYTHON, [path.join(BENCH_DIR, spec.script), '--data', file, '--threads', String(threads), '--budget-ms', String(budgetMs)], { env, encoding: 'utf8' });
    const line = (r.stdout ?? '').trim().split('\n').pop();
    if (r.status !== 0 || !line?.startsWith('{')) return { error: `python exited with ${r.status}: ${(r.stderr ?? '').trim().split('\n').slice(-2).join(' | ')}` };
    return JSON.parse(line);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
