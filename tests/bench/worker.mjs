// Runs ONE workload in a fresh process (run.mjs starts one per workload), with simdgrad and
// tfjs loaded side by side. A fresh process per workload is what makes the memory numbers
// mean something: simdgrad's peakBytes and tfjs's wasm heap only ever grow.
//   node --expose-gc worker.mjs <workload> '<options json>'
// Prints one line "@@RESULT <json>" on stdout; everything else goes to stderr.
import os from 'node:os';
import { relDiff } from './lib/data.mjs';
import { loadSimdgrad, loadTfjs, tfjsHeapBytes } from './lib/libs.mjs';
import { measureSimd128Peak } from './lib/peak.mjs';
import { dropOrtWorker, loadJax, loadOrt, PEERS, peerSide } from './lib/peers.mjs';
import { WORKLOADS } from './lib/workloads.mjs';

const [name, optsJson = '{}'] = process.argv.slice(2);
const opts = JSON.parse(optsJson);
const w = WORKLOADS.find((x) => x.name === name);
if (!w) {
  console.error(`worker: unknown workload '${name}'`);
  process.exit(2);
}
const gc = globalThis.gc ?? (() => {});
const errText = (e) => String(e?.stack ?? e).split('\n').slice(0, 3).join(' | ');

const result = { name: w.name, group: w.group, desc: w.desc, flops: w.flops, peakLine: !!w.peakLine, sg: {}, tf: {}, jax: {}, ort: {}, notes: [] };
const libs = {};
try {
  libs.sg = await loadSimdgrad();
  result.env = { simdgrad: libs.sg.info };
} catch (e) {
  result.sg = { error: `simdgrad did not load: ${errText(e)}` };
}
try {
  libs.tf = await loadTfjs();
  result.env = { ...result.env, tfjs: libs.tf.info };
} catch (e) {
  result.tf = { error: `tfjs did not load: ${errText(e)}` };
}

// The peers (lib/peers.mjs), loaded only where they have a side for this workload; ORT last,
// after jax-js (ORT defines a global Worker that would turn jax-js's thread pool on).
const peerMake = {};
for (const key of Object.keys(PEERS)) {
  const make = peerSide(key, w);
  if (typeof make === 'string') result[key] = { skipped: make };
  else peerMake[key] = make;
}
for (const [key, load] of [['jax', loadJax], ['ort', loadOrt]]) {
  if (!peerMake[key]) continue;
  try {
    libs[key] = await load();
    result.env = { ...result.env, [key]: libs[key].info };
  } catch (e) {
    result[key] = { error: `${PEERS[key]} did not load: ${errText(e)}` };
    delete peerMake[key];
  }
}

/** The sg.* names a workload needs, e.g. 'nn.Conv2d'; returns the first missing one. */
function missingApi(sg, needs = []) {
  for (const p of needs) {
    let o = sg;
    for (const k of p.split('.')) o = o?.[k];
    if (o === undefined) return `sg.${p}`;
  }
  return null;
}

const data = w.data();
const sides = [];  // { key, side, times (wall ms), cpu (process CPU ms), tidy }

if (libs.sg && !result.sg.error) {
  const { sg } = libs.sg;
  const missing = missingApi(sg, w.needs);
  if (missing) {
    const area = missing.split('.')[1];
    result.sg = { skipped: `sg.${area} not available (missing ${missing})` };
  } else {
    try {
      const side = w.sg(sg, data);
      sides.push({ key: 'sg', side, times: [], cpu: [], tidy: (f) => sg.tidy(f) });
      // A second simdgrad step to compare with in this process (the plain product for a
      // transposed one): timed in the same rounds, so machine drift does not enter the ratio.
      if (side.baseline) sides.push({ key: 'sgBaseline', side: side.baseline, times: [], cpu: [], tidy: (f) => sg.tidy(f) });
    } catch (e) {
      result.sg = { error: `setup failed: ${errText(e)}` };
    }
  }
}
if (libs.tf && !result.tf.error) {
  const { tf } = libs.tf;
  try {
    const side = w.tf(tf, data);
    if (side.unsupported) result.tf = { skipped: side.unsupported };
    else {
      if (side.note) result.notes.push(side.note);
      sides.push({ key: 'tf', side, times: [], cpu: [], tidy: (f) => tf.tidy(f) });
    }
  } catch (e) {
    result.tf = { error: `setup failed: ${errText(e)}` };
  }
}

// The peers' sides: they need simdgrad (ORT runs a model simdgrad exports).
for (const key of Object.keys(peerMake)) {
  if (!libs.sg || result.sg.error) {
    result[key] = { skipped: 'simdgrad did not load (the peer is checked against it)' };
    continue;
  }
  try {
    const side = await peerMake[key](libs[key], data, libs.sg.sg);
    sides.push({ key, side, times: [], cpu: [], async: true, tidy: (f) => f() });
  } catch (e) {
    result[key] = { error: `setup failed: ${errText(e)}` };
  }
}
if (libs.ort) dropOrtWorker(libs.ort);

// One run of a side, every tensor it makes freed by the library's tidy() (a peer frees its
// own arrays, and its step is awaited: jax-js's blockUntilReady, ORT's session.run).
const runOnce = (s) => (s.async ? s.side.step() : s.tidy(() => { s.side.step(); }));

function drop(s, e) {
  result[s.key] = { error: errText(e) };
  sides.splice(sides.indexOf(s), 1);
}

// Cross-check: both libraries compute the same values from the same inputs.
const checks = {};
for (const s of sides.filter((x) => x.key !== 'sgBaseline')) {
  try {
    checks[s.key] = await s.tidy(() => s.side.check());
  } catch (e) {
    drop(s, e);
  }
}
if (w.torch && checks.sg) result.sgLoss = checks.sg[0];  // compared with the PyTorch twin's
if (checks.sg && checks.tf) {
  const diff = relDiff(checks.sg, checks.tf);
  result.check = { relDiff: diff, tol: w.tol, ok: diff <= w.tol };
  if (!result.check.ok) result.notes.push(`MISMATCH: simdgrad and tfjs differ by ${diff.toExponential(2)} (> ${w.tol})`);
}
for (const key of Object.keys(PEERS)) {
  if (!checks.sg || !checks[key]) continue;
  const diff = relDiff(checks.sg, checks[key]);
  result[`check_${key}`] = { relDiff: diff, tol: w.tol, ok: diff <= w.tol };
  if (!(diff <= w.tol)) result.notes.push(`MISMATCH: simdgrad and ${PEERS[key]} differ by ${diff.toExponential(2)} (> ${w.tol})`);
}

// Warm-up, then timed runs; the two libraries alternate (and swap who goes first every
// round) so that load changes on the machine hit both alike.
// The warm-up runs at least `warmup` rounds and at least warmupMs: a workload of a fraction
// of a millisecond needs hundreds of calls before V8 has optimised the JavaScript around
// the wasm (measured: matmul 128 took 0.27 ms a call over its first 1,000 calls, 0.17 after).
const it = { warmupMs: 300, ...w.iters, budgetMs: 4000, ...(opts.quick ? { warmup: 1, warmupMs: 0, min: 3, max: 3 } : {}) };
const order = (i) => (i % 2 ? [...sides].reverse() : [...sides]);
const warmStart = performance.now();
for (let i = 0; i < it.warmup || (performance.now() - warmStart < it.warmupMs && i < 2000); i++) {
  for (const s of order(i)) {
    try {
      if (s.async) await runOnce(s); else runOnce(s);
    } catch (e) {
      drop(s, e);
    }
  }
}
gc();
// The machine's SIMD128 limit in this process, right before the timed runs: GEMM and
// convolution lines are also given as a fraction of it (report.mjs).
if (w.peakLine && !opts.quick) result.peak = measureSimd128Peak({ budgetMs: 300 });
const sgMem0 = libs.sg && sides.some((s) => s.key === 'sg') ? libs.sg.sg.memory() : null;
const tfMem0 = libs.tf && sides.some((s) => s.key === 'tf') ? libs.tf.tf.memory() : null;
const started = performance.now();
for (let i = 0; i < it.max && sides.length; i++) {
  for (const s of order(i)) {
    try {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      if (s.async) await runOnce(s); else runOnce(s);
      const wall = performance.now() - t0;
      const c = process.cpuUsage(c0);
      s.times.push(wall);
      s.cpu.push((c.user + c.system) / 1000);
    } catch (e) {
      drop(s, e);
    }
  }
  if (i + 1 >= it.min && performance.now() - started > it.budgetMs) break;
}

function summary(xs) {
  const t = [...xs].sort((a, b) => a - b);
  const mid = t.length >> 1;
  return { median: t.length % 2 ? t[mid] : (t[mid - 1] + t[mid]) / 2, min: t[0], max: t[t.length - 1] };
}

// The headline number is the process CPU time of an iteration: on an idle machine it equals
// the wall time (both libraries are single-threaded), on a loaded one it leaves out the time
// spent waiting for a core, which wall time cannot. Both are kept.
function stats(s, flops) {
  const cpu = summary(s.cpu);
  return { runs: s.cpu.length, cpu, wall: summary(s.times), gflops: flops / (cpu.median * 1e6) };
}

for (const s of sides) {
  const r = stats(s, s.side.flops ?? w.flops);
  if (s.key === 'sgBaseline') {
    r.desc = s.side.desc;
  } else if (s.key === 'sg') {
    const m = libs.sg.sg.memory();
    // In this fresh process, the peak is this workload's: inputs, parameters, optimizer
    // state and the largest set of temporaries alive at once.
    // heapBytes: the wasm memory size (only grows), where this version of sg.memory() has it.
    Object.assign(r, { peakBytes: m.peakBytes ?? null, liveBytes: m.bytes, heapBytes: m.heapBytes ?? null });
    if (sgMem0 && (m.tensors > sgMem0.tensors || m.bytes > sgMem0.bytes)) {
      result.notes.push(`simdgrad leak? live tensors ${sgMem0.tensors} → ${m.tensors}, bytes ${sgMem0.bytes} → ${m.bytes} over the timed runs`);
    }
  } else if (s.key in PEERS) {
    // No live-byte counter comparable to sg.memory() / tf.profile in either peer.
    Object.assign(r, { peakBytes: null, liveBytes: null, heapBytes: null });
  } else {
    const { tf } = libs.tf;
    const m = tf.memory();
    if (tfMem0 && m.numTensors > tfMem0.numTensors) result.notes.push(`tfjs leak? live tensors ${tfMem0.numTensors} → ${m.numTensors}`);
    let peakBytes = null;
    try {
      // tf.profile tracks the live tensor bytes after every kernel: one extra, untimed run.
      peakBytes = (await tf.profile(() => runOnce(s))).peakBytes;
    } catch (e) {
      result.notes.push(`tf.profile failed: ${errText(e)}`);
    }
    Object.assign(r, { peakBytes, liveBytes: m.numBytes, heapBytes: tfjsHeapBytes(tf) });
    if (s.side.forwardOnly) r.forwardOnly = true;
  }
  result[s.key] = r;
}
for (const s of sides) {
  try {
    await s.side.dispose?.();
  } catch {
    // Nothing depends on it: the process ends here.
  }
}
result.loadavg = os.loadavg()[0];
process.stdout.write(`@@RESULT ${JSON.stringify(result)}\n`);
