#!/usr/bin/env node
// sg.compile against eager simdgrad (the goals of issue 10): `node tests/bench/compiled.mjs`.
//   --only REGEX   a subset of the workloads (lib/compiled_workloads.mjs)
//   --quick        3 timed runs each: checks the harness, measures nothing
// Each workload runs in fresh processes: one timing process, where the eager and the compiled
// step alternate (and swap who goes first every round) so that load changes hit both, timed in
// process CPU time (process.cpuUsage); and one process per side for peak memory
// (sg.memory().peakBytes only grows, so each side gets its own). Prints a table, the goals, and a
// last line of JSON. Needs `bash scripts/build.sh wasm js`.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { COMPILED_WORKLOADS } from './lib/compiled_workloads.mjs';
import { loadSimdgrad } from './lib/libs.mjs';
import { relDiff } from './lib/data.mjs';

const SELF = fileURLToPath(import.meta.url);
const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** How backward went through the fused kernels, when it did: fused gradient kernels / members replayed. */
const backwardNote = (b) => (b && b.fused + b.replayed > 0 ? `, backward ${b.fused ? 'fused' : 'replayed'}` : '');

async function timeWorkload(name, quick) {
  const { sg } = await loadSimdgrad();
  const w = COMPILED_WORKLOADS.find((x) => x.name === name);
  const s = w.setup(sg);
  const [e, c] = sg.tidy(() => s.check());
  const diff = relDiff(e, c);
  const sides = { eager: [], compiled: [], floor: [] };
  s.floor?.prepare();
  // Steps of a few microseconds run `repeat` times per sample (process.cpuUsage counts whole
  // microseconds); the table shows the time of one.
  const repeat = w.repeat ?? 1;
  const once = (key) => sg.tidy(() => {
    for (let r = 0; r < repeat; r++) (key === 'floor' ? s.floor.run : s[key])();
  });
  const warmStart = performance.now();
  for (let i = 0; i < (quick ? 1 : 3) || (!quick && performance.now() - warmStart < 500 && i < 5000); i++) {
    once('eager');
    once('compiled');
  }
  const started = performance.now();
  const max = quick ? 3 : 2000;
  for (let i = 0; i < max; i++) {
    const keys = i % 2 ? ['compiled', 'eager'] : ['eager', 'compiled'];
    if (s.floor) keys.push('floor');
    for (const key of keys) {
      const c0 = process.cpuUsage();
      once(key);
      const d = process.cpuUsage(c0);
      sides[key].push((d.user + d.system) / 1000 / repeat);
    }
    if (i + 1 >= (quick ? 3 : 10) && performance.now() - started > 4000) break;
  }
  const stats = s.stats();
  s.dispose();
  const floor = s.floor ? median(sides.floor) : null;
  return { diff, eager: median(sides.eager), compiled: median(sides.compiled), floor, runs: sides.eager.length, stats };
}

async function peakOf(name, key) {
  const { sg } = await loadSimdgrad();
  const w = COMPILED_WORKLOADS.find((x) => x.name === name);
  const s = w.setup(sg, key);
  // One step first: the optimizer creates its state then, which stays (part of the rest), and a
  // compiled function traces (eagerly). The peak counts from the rest on.
  sg.tidy(() => void s[key]());
  const resting = sg.memory().bytes;
  sg.resetPeakMemory();
  for (let i = 0; i < 3; i++) sg.tidy(() => void s[key]());
  return { resting, peak: sg.memory().peakBytes };
}

function child(args) {
  const r = spawnSync(process.execPath, ['--no-liftoff', SELF, ...args], { encoding: 'utf8', maxBuffer: 1 << 24 });
  const line = (r.stdout ?? '').split('\n').find((l) => l.startsWith('@@'));
  if (!line) throw new Error(`child ${args.join(' ')} failed: ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' | ')}`);
  return JSON.parse(line.slice(2));
}

const argv = process.argv.slice(2);
if (argv[0] === '--time') {
  console.log('@@' + JSON.stringify(await timeWorkload(argv[1], argv[2] === 'quick')));
} else if (argv[0] === '--peak') {
  console.log('@@' + JSON.stringify(await peakOf(argv[1], argv[2])));
} else {
  const only = argv.includes('--only') ? new RegExp(argv[argv.indexOf('--only') + 1]) : null;
  const quick = argv.includes('--quick');
  const load0 = os.loadavg()[0];
  const rows = [];
  for (const w of COMPILED_WORKLOADS.filter((x) => !only || only.test(x.name))) {
    process.stderr.write(`${w.name} ... `);
    const t = child(['--time', w.name, quick ? 'quick' : '']);
    const pe = child(['--peak', w.name, 'eager']);
    const pc = child(['--peak', w.name, 'compiled']);
    rows.push({ name: w.name, desc: w.desc, ...t, peak: { eager: pe, compiled: pc } });
    process.stderr.write('done\n');
  }
  const load1 = os.loadavg()[0];
  const MB = 2 ** 20;
  console.log(`\nsg.compile vs eager simdgrad, wasm, one thread; ${os.cpus()[0]?.model}, ${os.cpus().length} cores, node ${process.version}`);
  console.log(`load average ${load0.toFixed(1)} at start, ${load1.toFixed(1)} at end${Math.max(load0, load1) > os.cpus().length * 0.75 ? ' (busy machine: timings are noisy)' : ''}`);
  console.log('ms: median process CPU time of one step (eager and compiled alternating in one process); speed-up = eager / compiled;');
  console.log('kernels alone: the step\'s matrix products (same shapes and transposes) and, in a training step, its Adam update, run by themselves,');
  console.log('  each as one compiled call (no call from JavaScript per product);');
  console.log('  in the same rounds; bound = eager / that: the largest speed-up any compiled form of the step can reach on this machine without faster kernels;');
  console.log('peak: sg.memory().peakBytes over 3 steps after a first one (which traces), in a process per side; and above the memory at rest (parameters, optimizer state, data).\n');
  const head = ['workload', 'eager ms', 'compiled ms', 'speed-up', 'kernels alone ms', 'bound', 'runs', 'stages', 'fused', 'peak eager MB', 'peak compiled MB', 'above rest eager', 'above rest compiled', 'check'];
  const table = rows.map((r) => {
    const above = (p) => ((p.peak - p.resting) / MB).toFixed(3);
    return [r.name, r.eager.toFixed(4), r.compiled.toFixed(4), (r.eager / r.compiled).toFixed(2) + '×',
      r.floor == null ? '—' : r.floor.toFixed(4), r.floor == null ? '—' : (r.eager / r.floor).toFixed(2) + '×', String(r.runs), String(r.stats.stages), `${r.stats.fused} (${r.stats.fusedOps} ops)${backwardNote(r.stats.fusedBackward)}`,
      (r.peak.eager.peak / MB).toFixed(3), (r.peak.compiled.peak / MB).toFixed(3), above(r.peak.eager), above(r.peak.compiled), r.diff <= 1e-5 ? 'ok' : `DIFF ${r.diff.toExponential(1)}`];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...table.map((row) => row[i].length)));
  const line = (cells) => cells.map((c, i) => (i ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ');
  console.log(line(head));
  for (const row of table) console.log(line(row));
  const by = (n) => rows.find((r) => r.name === n);
  const goals = [];
  const goal = (text, value, ok, note = '') => goals.push({ text, value, met: value == null ? null : ok(value), note });
  const sp = (n) => (by(n) ? by(n).eager / by(n).compiled : null);
  // Where the step's own products or resting memory leave no room for a goal, the line says so.
  const bound = (n) => (by(n)?.floor ? ` (bound: the step's matmuls${n.startsWith('mlp') ? ' and Adam update' : ''} alone take ${by(n).floor.toFixed(2)} ms of ${by(n).eager.toFixed(2)}: at most ${(by(n).eager / by(n).floor).toFixed(2)}×)` : '');
  const rest = (r) => (r ? ` (at rest ${(r.peak.eager.resting / MB).toFixed(2)} MB of ${(r.peak.eager.peak / MB).toFixed(2)}: parameters, Adam state, grads, data; above rest compiled/eager ${((r.peak.compiled.peak - r.peak.compiled.resting) / (r.peak.eager.peak - r.peak.eager.resting)).toFixed(2)})` : '');
  // The speed goals name no model size: each size measured gets its line (a step whose kernels
  // take all its time cannot meet them, which its bound says).
  const sizes = (prefix) => rows.filter((r) => r.name === prefix || r.name.startsWith(`${prefix}_`)).map((r) => r.name);
  for (const n of sizes('mlp_train')) goal(`compiled MLP train step ≥ 1.3× eager (${n})`, sp(n), (v) => v >= 1.3, bound(n));
  for (const n of sizes('attention_fwd_bwd')) goal(`compiled attention forward+backward ≥ 1.2× eager (${n})`, sp(n), (v) => v >= 1.2, bound(n));
  const mlpRow = by('mlp_train');
  goal('peak memory of the compiled MLP step ≤ 0.7× eager', mlpRow ? mlpRow.peak.compiled.peak / mlpRow.peak.eager.peak : null, (v) => v <= 0.7, rest(mlpRow));
  const attRow = by('attention_fwd_bwd');
  goal('(the same for attention forward+backward)', attRow ? attRow.peak.compiled.peak / attRow.peak.eager.peak : null, (v) => v <= 0.7, rest(attRow));
  goal('50 elementwise ops on 1,000 elements: compiled ≥ 5× eager', sp('elementwise_50x1000'), (v) => v >= 5);
  const hit = by('cache_hit_identity');
  goal('cache hit: a compiled call spends < 20 µs outside its kernels (identity graph, µs)', hit ? hit.compiled * 1000 : null, (v) => v < 20);
  console.log('\ngoals:');
  for (const g of goals) console.log(`  ${g.met == null ? 'n/a    ' : g.met ? 'met    ' : 'NOT met'}  ${g.text}: ${g.value == null ? '-' : g.value.toFixed(2)}${g.note}`);
  console.log(JSON.stringify({ bench: 'compiled-vs-eager', date: new Date().toISOString(), cpu: os.cpus()[0]?.model, load: [load0, load1], rows, goals }));
}
