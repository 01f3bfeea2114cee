#!/usr/bin/env node
// simdgrad vs TensorFlow.js (wasm backend): `npm run bench` (from npm/ or tests/bench/).
//   node tests/bench/run.mjs [--only REGEX] [--quick] [--out FILE]
//     --only   run the workloads whose name matches REGEX (e.g. 'matmul_512|mlp')
//     --quick  1 warm-up + 3 timed runs each: a smoke test of the harness, not a measurement
//     --out    also write the full JSON report to FILE
// Each workload runs in its own node process (worker.mjs) with both libraries loaded,
// alternating. Prints the table, the goal summary and, as its last line, one JSON line.
//   --backend=webgpu runs webgpu.mjs instead (simdgrad on WebGPU next to wasm; its own flags).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BENCH_DIR, SG_ENTRY } from './lib/libs.mjs';
import { goals, goalsText, table } from './lib/report.mjs';
import { WORKLOADS } from './lib/workloads.mjs';

if (process.argv.includes('--backend=webgpu')) {
  const rest = process.argv.slice(2).filter((a) => a !== '--backend=webgpu');
  const r = spawnSync(process.execPath, [path.join(path.dirname(new URL(import.meta.url).pathname), 'webgpu.mjs'), ...rest], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}

function parseArgs(argv) {
  const o = { only: null, quick: false, out: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') o.quick = true;
    else if (a === '--only') o.only = new RegExp(argv[++i]);
    else if (a === '--out') o.out = path.resolve(argv[++i]);
    else if (a === '--help' || a === '-h') {
      console.log('usage: node tests/bench/run.mjs [--only REGEX] [--quick] [--out FILE]');
      console.log(`workloads: ${WORKLOADS.map((w) => w.name).join(' ')}`);
      process.exit(0);
    } else throw new Error(`bench: unknown argument '${a}' (try --help)`);
  }
  return o;
}

function preflight() {
  if (!existsSync(SG_ENTRY) || !existsSync(path.join(path.dirname(SG_ENTRY), 'simdgrad.wasm'))) {
    console.error(`bench: ${path.relative(process.cwd(), SG_ENTRY)} or its simdgrad.wasm is missing; build first: bash scripts/build.sh wasm js`);
    process.exit(1);
  }
  // tfjs lives in tests/bench's own node_modules (devDependencies kept out of the package).
  if (!existsSync(path.join(BENCH_DIR, 'node_modules/@tensorflow/tfjs-backend-wasm/package.json'))) {
    console.error('bench: installing tfjs into tests/bench/node_modules (npm ci) ...');
    const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: BENCH_DIR, stdio: ['ignore', 2, 2] });
    if (r.status !== 0) process.exit(1);
  }
}

function runWorker(name, opts) {
  return new Promise((resolve) => {
    // --no-liftoff: V8 compiles each wasm function with its optimizing tier on first call,
    // so the warm-up runs bring both libraries to their steady-state code. With the default
    // dynamic tier-up, a busy machine can leave either library on baseline code for dozens of
    // iterations (measured: 2x slower matmul). --expose-gc: a collection before timing.
    const child = spawn(process.execPath, ['--no-liftoff', '--expose-gc', path.join(BENCH_DIR, 'worker.mjs'), name, JSON.stringify(opts)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('@@RESULT '));
      if (line) resolve(JSON.parse(line.slice(9)));
      else {
        const why = `worker exited with ${code}: ${(err || out).trim().split('\n').slice(-3).join(' | ')}`;
        resolve({ name, sg: { error: why }, tf: { error: why }, notes: [] });
      }
    });
  });
}

const opts = parseArgs(process.argv.slice(2));
preflight();
const selected = WORKLOADS.filter((w) => !opts.only || opts.only.test(w.name));
if (!selected.length) throw new Error(`bench: no workload matches ${opts.only}`);

const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
const cores = os.cpus().length;
const loadStart = os.loadavg()[0];
const results = [];
for (const [i, w] of selected.entries()) {
  const t0 = performance.now();
  process.stderr.write(`[${i + 1}/${selected.length}] ${w.name} ... `);
  const r = await runWorker(w.name, { quick: opts.quick });
  results.push(r);
  process.stderr.write(`${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
}
const loadEnd = os.loadavg()[0];
const env = results.find((r) => r.env?.simdgrad && r.env?.tfjs)?.env ?? results.find((r) => r.env)?.env ?? {};

const busy = Math.max(loadStart, loadEnd) > cores * 0.75;
console.log('\nsimdgrad vs TensorFlow.js, both single-threaded wasm SIMD in one node process, alternating iterations');
console.log(`machine: ${cpu}, ${cores} cores, node ${process.version}; load average ${loadStart.toFixed(1)} at start, ${loadEnd.toFixed(1)} at end`);
if (busy) console.log(`WARNING: the machine was busy (load > ${(cores * 0.75).toFixed(1)}): timings are noisy; compare medians, and rerun on an idle machine for tuning`);
if (opts.quick) console.log('WARNING: --quick: 3 runs per workload, a smoke test of the harness, not a measurement');
const s = env.simdgrad;
const t = env.tfjs;
console.log(s ? `simdgrad ${s.version}: backend ${s.backend}, features ${JSON.stringify(s.features)}` : 'simdgrad: did not load');
console.log(t ? `tfjs ${t.version}: backend ${t.backend}, binary ${t.binary} (file read: ${t.binaryRead}), features ${JSON.stringify(t.features)}` : 'tfjs: did not load');
console.log('ms: process CPU time of one iteration (wall: its wall-clock median); tfjs/sg = tfjs median ÷ simdgrad median (> 1: simdgrad faster);');
console.log('peak MB: live tensor bytes at their highest (simdgrad: sg.memory().peakBytes; tfjs: tf.profile peakBytes); heap MB: wasm memory size.\n');
const tb = table(results);
console.log(tb.text);
if (tb.notes.length) console.log(`\n${tb.notes.map((n) => `- ${n}`).join('\n')}`);
const gs = goals(results);
// With --only, list just the goals that the selected workloads measure.
console.log(`\n${goalsText(opts.only ? gs.filter((g) => g.value != null) : gs)}\n`);

const report = {
  bench: 'simdgrad-vs-tfjs',
  date: new Date().toISOString(),
  quick: opts.quick,
  machine: { cpu, cores, node: process.version, loadavgStart: loadStart, loadavgEnd: loadEnd },
  simdgrad: s ?? null,
  tfjs: t ?? null,
  results: results.map(({ env: _env, ...r }) => r),
  goals: gs,
};
if (opts.out) writeFileSync(opts.out, JSON.stringify(report, null, 2) + '\n');
console.log(JSON.stringify(report));
const errors = results.filter((r) => r.sg?.error || r.tf?.error);
process.exitCode = errors.length ? 1 : 0;
