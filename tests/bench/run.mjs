#!/usr/bin/env node
// simdgrad vs TensorFlow.js (wasm backend), jax-js (wasm, jit) and ONNX Runtime Web (wasm EP,
// inference only): `npm run bench` (from npm/ or tests/bench/).
//   node tests/bench/run.mjs [--only REGEX] [--quick] [--out FILE]
//     --only   run the workloads whose name matches REGEX (e.g. 'matmul_512|mlp'; 'native_gemm'
//              is the native GEMM line against OpenBLAS, run when build/bench is built)
//     --quick  1 warm-up + 3 timed runs each: a smoke test of the harness, not a measurement
//     --out    also write the full JSON report to FILE
//     --save   also write the table to results/<machine kind>.md (CPU, date, table, goals)
//     --rounds N  rounds of simdgrad / PyTorch processes, interleaved, for the workloads with a
//              PyTorch twin (gpt_train; default 3): medians of the per-process medians
// Each workload runs in its own node process (worker.mjs) with every library that has a side for
// it loaded, alternating. Prints the table, the goal summary and, as its last line, one JSON line.
//   --backend=webgpu runs webgpu.mjs instead (simdgrad on WebGPU next to wasm; its own flags).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BENCH_DIR, SG_ENTRY } from './lib/libs.mjs';
import { kindSlug, machineInfo, machineLine } from './lib/machine.mjs';
import { measureSimd128Peak } from './lib/peak.mjs';
import { goals, goalsText, table, torchText } from './lib/report.mjs';
import { medianOf, runTorch, torchAvailable, torchMedian } from './lib/torch.mjs';
import { nativeGemm, nativeText } from './lib/native.mjs';
import { WORKLOADS } from './lib/workloads.mjs';

if (process.argv.includes('--backend=webgpu')) {
  const rest = process.argv.slice(2).filter((a) => a !== '--backend=webgpu');
  const r = spawnSync(process.execPath, [path.join(path.dirname(new URL(import.meta.url).pathname), 'webgpu.mjs'), ...rest], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}

function parseArgs(argv) {
  const o = { only: null, quick: false, out: null, save: false, rounds: 3 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') o.quick = true;
    else if (a === '--only') o.only = new RegExp(argv[++i]);
    else if (a === '--out') o.out = path.resolve(argv[++i]);
    else if (a === '--save') o.save = true;
    else if (a === '--rounds') o.rounds = Math.max(1, Number(argv[++i]) | 0);
    else if (a === '--help' || a === '-h') {
      console.log('usage: node tests/bench/run.mjs [--only REGEX] [--quick] [--out FILE] [--save] [--rounds N]');
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
  const deps = ['@tensorflow/tfjs-backend-wasm', '@jax-js/jax', 'onnxruntime-web'];
  if (deps.some((d) => !existsSync(path.join(BENCH_DIR, 'node_modules', d, 'package.json')))) {
    console.error('bench: installing tfjs, jax-js and onnxruntime-web into tests/bench/node_modules (npm ci) ...');
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
    // A workload's own V8 flags (nodeFlags: the relaxed-SIMD rows need one in Node 20).
    const flags = WORKLOADS.find((w) => w.name === name)?.nodeFlags ?? [];
    const child = spawn(process.execPath, ['--no-liftoff', '--expose-gc', ...flags, path.join(BENCH_DIR, 'worker.mjs'), name, JSON.stringify(opts)], {
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
        resolve({ name, sg: { error: why }, tf: { error: why }, jax: { error: why }, ort: { error: why }, notes: [] });
      }
    });
  });
}

const opts = parseArgs(process.argv.slice(2));
preflight();
const selected = WORKLOADS.filter((w) => !opts.only || opts.only.test(w.name));
if (!selected.length && !opts.only.test('native_gemm')) throw new Error(`bench: no workload matches ${opts.only}`);

const machine = machineInfo();
const cpu = machine.model;
const cores = os.cpus().length;
const loadStart = os.loadavg()[0];
// The SIMD128 peak of this machine in this (parent) process, for the header; each GEMM and
// convolution workload measures its own in its worker, right before its timed runs.
const peak = opts.quick ? null : measureSimd128Peak({ budgetMs: 600 });
const results = [];
for (const [i, w] of selected.entries()) {
  const t0 = performance.now();
  process.stderr.write(`[${i + 1}/${selected.length}] ${w.name} ... `);
  const r = await runWorker(w.name, { quick: opts.quick });
  results.push(r);
  process.stderr.write(`${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
}
// PyTorch 1.13 natively for the workloads that name a twin, interleaved with simdgrad:
// `rounds` rounds of [simdgrad worker, PyTorch restated model.py, nanoGPT's model.py], the
// order rotated each round, every one a fresh process, so a change of load hits all three;
// each side's figure is the median of its per-process medians (the worker above is round 1's
// simdgrad). PyTorch on 2 threads once, after.
const torchKinds = [...new Set(selected.filter((w) => w.torch).map((w) => w.torch))];
if (torchKinds.length && !opts.quick) {
  const have = torchAvailable();
  for (const r of results) {
    const w = selected.find((x) => x.name === r.name);
    if (!w?.torch) continue;
    if (!have) {
      r.torch = { error: `PyTorch not importable by /usr/bin/python3 (apt-get install python3-torch)` };
      continue;
    }
    const sgRounds = r.sg?.cpu ? [r.sg] : [];
    const bench = [], nano = [];
    for (let round = 0; round < opts.rounds; round++) {
      process.stderr.write(`${r.name} against PyTorch, round ${round + 1}/${opts.rounds} ... `);
      const jobs = [
        async () => { if (round > 0) { const x = await runWorker(w.name, { quick: false }); if (x.sg?.cpu) sgRounds.push(x.sg); } },
        async () => bench.push(runTorch(w.torch, 1, { model: 'bench' })),
        async () => nano.push(runTorch(w.torch, 1, { model: 'nanogpt' })),
      ];
      for (let j = 0; j < jobs.length; j++) await jobs[(j + round) % jobs.length]();
      process.stderr.write('done\n');
    }
    r.torch = { 1: torchMedian(bench), nanogpt: torchMedian(nano), 2: runTorch(w.torch, 2), rounds: opts.rounds };
    r.sgRounds = sgRounds.map((x) => x.cpu.median);
    if (sgRounds.length) r.sgInterleaved = medianOf(r.sgRounds);
  }
}
// The native GEMM line (when build/bench is built), unless --only selects other workloads.
const native = opts.quick || (opts.only && !opts.only.test('native_gemm')) ? null : nativeGemm();
const loadEnd = os.loadavg()[0];
const env = { ...Object.assign({}, ...results.map((r) => r.env ?? {})), ...(results.find((r) => r.env?.simdgrad && r.env?.tfjs)?.env ?? {}) };

const busy = Math.max(loadStart, loadEnd) > cores * 0.75;
console.log('\nsimdgrad vs TensorFlow.js, jax-js and ONNX Runtime Web, all single-threaded wasm SIMD in one node process, alternating iterations');
const header = [];
header.push(`machine: ${machineLine(machine)}, node ${process.version}; load average ${loadStart.toFixed(1)} at start, ${loadEnd.toFixed(1)} at end`);
if (peak) header.push(`SIMD128 peak: ${peak.gflops.toFixed(1)} GFLOP/s (${peak.chains} independent f32x4 mul+add chains, wasm, one core; GFLOP/s by chain count ${JSON.stringify(peak.byChains)})`);
console.log(header.join('\n'));
if (busy) console.log(`WARNING: the machine was busy (load > ${(cores * 0.75).toFixed(1)}): timings are noisy; compare medians, and rerun on an idle machine for tuning`);
if (opts.quick) console.log('WARNING: --quick: 3 runs per workload, a smoke test of the harness, not a measurement');
const s = env.simdgrad;
const t = env.tfjs;
const libLines = [
  s ? `simdgrad ${s.version}: backend ${s.backend}, features ${JSON.stringify(s.features)}` : 'simdgrad: did not load',
  t ? `tfjs ${t.version}: backend ${t.backend}, binary ${t.binary} (file read: ${t.binaryRead}), features ${JSON.stringify(t.features)}` : 'tfjs: did not load',
  env.jax ? `jax-js ${env.jax.version}: device ${env.jax.device}, threads ${env.jax.threads}, every step under jit` : 'jax-js: not loaded (no selected workload has a jax-js side, or it failed: see the notes)',
  env.ort ? `onnxruntime-web ${env.ort.version}: ${env.ort.ep} execution provider, numThreads ${env.ort.threads}, graph optimizations ${env.ort.graphOptimizationLevel}, models exported by sg.onnx.export` : 'ORT: not loaded (no selected workload has an ORT side, or it failed: see the notes)',
];
console.log(libLines.join('\n'));
console.log('ms: process CPU time of one iteration (wall: its wall-clock median); tfjs/sg, jax-js/sg, ORT/sg = that peer\'s median ÷ simdgrad median (> 1: simdgrad faster);');
console.log('—: the peer does not run that workload (why: in the notes under the table);');
console.log('SIMD128 peak: measured in the workload\'s own process; sg/peak, tfjs/peak: GFLOP/s as a fraction of it (GEMM and convolution lines);');
console.log('peak MB: live tensor bytes at their highest (simdgrad: sg.memory().peakBytes; tfjs: tf.profile peakBytes); heap MB: wasm memory size.\n');
const tb = table(results);
console.log(tb.text);
if (tb.notes.length) console.log(`\n${tb.notes.map((n) => `- ${n}`).join('\n')}`);
const tt = torchText(results);
if (tt) console.log(`\n${tt}`);
const nt = native ? nativeText(native) : '';
if (nt) console.log(`\n${nt}`);
const gs = goals(results, native);
// With --only, list just the goals that the selected workloads measure.
const gText = goalsText(opts.only ? gs.filter((g) => g.value != null) : gs);
console.log(`\n${gText}\n`);
if (opts.save && !opts.quick) {
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: BENCH_DIR, encoding: 'utf8' }).stdout?.trim() || 'unknown';
  const file = path.join(BENCH_DIR, 'results', `${kindSlug(machine)}.md`);
  mkdirSync(path.dirname(file), { recursive: true });
  const md = [
    `# ${machine.model}: \`npm run bench\``,
    '',
    `- CPU: ${machineLine(machine)}`,
    `- date: ${new Date().toISOString()}, simdgrad commit ${commit}, node ${process.version}`,
    `- load average ${loadStart.toFixed(1)} at start, ${loadEnd.toFixed(1)} at end${busy ? ' (busy machine: noisy)' : ''}`,
    ...(peak ? [`- SIMD128 peak (header process): ${peak.gflops.toFixed(1)} GFLOP/s`] : []),
    ...libLines.map((l) => `- ${l}`),
    `- command: \`node tests/bench/run.mjs${opts.only ? ` --only '${opts.only.source}'` : ''} --save\``,
    '',
    '```',
    tb.text,
    ...(tb.notes.length ? ['', ...tb.notes.map((n) => `- ${n}`)] : []),
    ...(tt ? ['', tt] : []),
    ...(nt ? ['', nt] : []),
    '',
    gText,
    '```',
    '',
  ].join('\n');
  writeFileSync(file, md);
  console.log(`results written to ${path.relative(process.cwd(), file)}`);
}

const report = {
  bench: 'simdgrad-vs-tfjs',
  date: new Date().toISOString(),
  quick: opts.quick,
  machine: { ...machine, cpu, loadavgStart: loadStart, loadavgEnd: loadEnd, simd128Peak: peak },
  simdgrad: s ?? null,
  tfjs: t ?? null,
  jax: env.jax ?? null,
  ort: env.ort ?? null,
  results: results.map(({ env: _env, ...r }) => r),
  goals: gs,
  native,
};
if (opts.out) writeFileSync(opts.out, JSON.stringify(report, null, 2) + '\n');
console.log(JSON.stringify(report));
const errors = results.filter((r) => r.sg?.error || r.tf?.error || r.jax?.error || r.ort?.error);
process.exitCode = errors.length ? 1 : 0;
