// node --no-liftoff tests/bench/thread_phases.mjs [--step mlp_train|cnn_train|gpt_train] [--dist DIR[,DIR2]]
//                                                 [--rounds 6] [--secs 1.5] [--threads 2] [--procs 2]
// Where a training step's time goes on 1 thread and on N (issue 29): one process per --dist
// (default npm/dist; a second folder, e.g. an older commit's npm/dist, gives an A/B), the
// threaded module loaded once, and the thread count switched between blocks of steps
// (init({ threads: 1 }), init({ threads: N }), alternating for --rounds), so both counts see the
// same load. Each step is cut into zeroGrad / forward / backward / optimizer step by wrapping
// the optimizer's zeroGrad and step and Tensor.backward (the workload itself, lib/workloads.mjs,
// is unchanged), and the pool jobs of each phase are counted where the module exposes
// parallelJobs(), with those that had to wake a sleeping worker (parallelWakes()). Printed: per
// phase the median ms of each count and its speed-up. A phase whose speed-up stays near 1 runs
// serially, or its jobs are too short for the wake-up they pay. The GEMM's row blocks are one a
// thread while the workers are spinning (core/parallel.h workers_polling()), two otherwise, so the
// job count varies a little with the load; on an idle machine wakes ≪ jobs.
// With several --dist folders the processes alternate too (A, B, A, B; --procs of each), and
// each column is the median over processes of each process's median (and 10th percentile: on a
// shared machine, the steps that ran while both cores were free). A --dist built by
// `build.sh wasm-mt js` alone (an older commit's worktree) lacks the simdgrad.mjs that
// index.mjs imports: a stub exporting a default function will do, only the threaded module
// is loaded.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const PHASES = ['zero', 'forward', 'backward', 'optim', 'step'];

if (args[0] === '--child') await child();
else parent();

function median(xs) {
  const t = [...xs].sort((a, b) => a - b);
  const m = t.length >> 1;
  return t.length === 0 ? NaN : t.length % 2 ? t[m] : (t[m - 1] + t[m]) / 2;
}
// The 10th percentile: on a shared machine the steps that ran while both cores were free.
function low(xs) {
  const t = [...xs].sort((a, b) => a - b);
  return t.length === 0 ? NaN : t[Math.floor((t.length - 1) * 0.1)];
}

// The raw module's parallelJobs() and parallelWakes() (jobs that woke a sleeping worker; since
// 2026-11-30), wherever this dist keeps its module accessor (it moved into runtime/ after
// 2026-11-25); () => NaN for what it lacks.
async function jobCounters(dist) {
  for (const rel of ['esm/npm/src/runtime/module.js', 'esm/npm/src/module.js', 'esm/module.js']) {
    try {
      const { mod } = await import(pathToFileURL(path.join(dist, rel)).href);
      if (typeof mod().parallelJobs === 'function') {
        const wakes = typeof mod().parallelWakes === 'function' ? () => mod().parallelWakes() : () => NaN;
        return { jobs: () => mod().parallelJobs(), wakes };
      }
    } catch { /* not this layout */ }
  }
  return { jobs: () => NaN, wakes: () => NaN };
}

async function child() {
  const dist = path.resolve(opt('dist'));
  const step = opt('step', 'mlp_train');
  const threads = Number(opt('threads', 2));
  const rounds = Number(opt('rounds', 6));
  const secs = Number(opt('secs', 1.5));
  const { init } = await import(pathToFileURL(path.join(dist, 'index.mjs')).href);
  const sg = await init({ threads });
  const { jobs, wakes } = await jobCounters(dist);
  const { WORKLOADS } = await import('./lib/workloads.mjs');
  const w = WORKLOADS.find((x) => x.name === step);
  if (!w) throw new Error(`--step: expected one of the workloads' names, got '${step}'`);
  sg.manualSeed(0);
  const side = w.sg(sg, w.data());

  // Phase marks: each wrapper records the clock and the job and wake counts where its phase ends.
  let marks = [];
  const mark = (name) => marks.push([name, performance.now(), jobs(), wakes()]);
  const wrap = (proto, key, before, after) => {
    const orig = proto[key];
    proto[key] = function (...a) {
      mark(before);
      try { return orig.apply(this, a); } finally { mark(after); }
    };
  };
  // The prototype in Adam's chain that defines the method (a base class, or Adam itself).
  const owner = (key) => {
    for (let p = sg.optim.Adam.prototype; p; p = Object.getPrototypeOf(p)) if (Object.hasOwn(p, key)) return p;
    throw new Error(`optim.Adam has no ${key}`);
  };
  wrap(owner('zeroGrad'), 'zeroGrad', 'start', 'zero');
  wrap(sg.Tensor.prototype, 'backward', 'forward', 'backward');
  wrap(owner('step'), 'step', 'pre-optim', 'optim');

  const runBlock = () => {
    const rows = [];
    const t0 = performance.now();
    while (performance.now() - t0 < secs * 1000 || rows.length < 5) {
      marks = [];
      sg.tidy(() => { side.step(); });
      const at = Object.fromEntries(marks.map(([n, t, j, w]) => [n, { t, j, w }]));
      const span = (a, b) => [at[b].t - at[a].t, at[b].j - at[a].j, at[b].w - at[a].w];
      rows.push({
        zero: span('start', 'zero'), forward: span('zero', 'forward'), backward: span('forward', 'backward'),
        optim: span('pre-optim', 'optim'), step: span('start', 'optim'),
      });
    }
    return rows;
  };
  for (let i = 0; i < 5; i++) sg.tidy(() => { side.step(); });  // V8 compiles lazily: warm both counts
  await init({ threads: 1 });
  for (let i = 0; i < 5; i++) sg.tidy(() => { side.step(); });
  const got = { 1: [], [threads]: [] };
  for (let r = 0; r < rounds; r++) {
    for (const n of r % 2 ? [threads, 1] : [1, threads]) {
      await init({ threads: n });
      got[n].push(...runBlock());
    }
  }
  side.dispose();
  const out = {};
  for (const n of Object.keys(got)) {
    out[n] = Object.fromEntries(PHASES.map((p) => [p, { ms: median(got[n].map((r) => r[p][0])), p10: low(got[n].map((r) => r[p][0])), jobs: median(got[n].map((r) => r[p][1])), wakes: median(got[n].map((r) => r[p][2])) }]));
    out[n].steps = got[n].length;
  }
  console.log('@@RESULT ' + JSON.stringify(out));
  process.exit(0);  // the pool's workers keep Node alive otherwise
}

function parent() {
  const dists = opt('dist', path.resolve(HERE, '../../npm/dist')).split(',').map((d) => path.resolve(d));
  const step = opt('step', 'mlp_train');
  const threads = Number(opt('threads', 2));
  const procs = Number(opt('procs', 2));
  const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
  console.log(`# ${step}: 1 vs ${threads} threads by phase, ${os.cpus()[0].model}, load average ${load()}`);
  const results = dists.map(() => []);
  const di = args.indexOf('--dist');
  const rest = di >= 0 ? [...args.slice(0, di), ...args.slice(di + 2)] : args;
  for (let p = 0; p < procs; p++) {
    dists.forEach((dist, i) => {
      const r = spawnSync(process.execPath, ['--no-liftoff', fileURLToPath(import.meta.url), '--child', ...rest, '--dist', dist], { encoding: 'utf8', timeout: 600000 });
      const line = (r.stdout || '').split('\n').find((l) => l.startsWith('@@RESULT '));
      if (!line) { console.error(`${dist}: failed (status ${r.status}) ${r.stderr.slice(-2000)}`); return; }
      results[i].push(JSON.parse(line.slice(9)));
    });
  }
  dists.forEach((dist, i) => {
    if (!results[i].length) return;
    console.log(`${dist} (${results[i].length} processes, steps a count: ${results[i].map((r) => r[1].steps).join('+')} / ${results[i].map((r) => r[threads].steps).join('+')})`);
    for (const ph of PHASES) {
      const one = median(results[i].map((r) => r[1][ph].ms));
      const many = median(results[i].map((r) => r[threads][ph].ms));
      const one10 = median(results[i].map((r) => r[1][ph].p10));
      const many10 = median(results[i].map((r) => r[threads][ph].p10));
      const jobs = median(results[i].map((r) => r[threads][ph].jobs));
      const wakes = median(results[i].map((r) => r[threads][ph].wakes ?? NaN));
      console.log(`  ${ph.padEnd(9)} median: 1 thread ${one.toFixed(3)} ms, ${threads} threads ${many.toFixed(3)} ms, ${(one / many).toFixed(2)}x` +
        ` | 10th percentile: ${one10.toFixed(3)} / ${many10.toFixed(3)} ms, ${(one10 / many10).toFixed(2)}x  (${jobs ?? 'uncounted'} pool jobs` +
        `${Number.isNaN(wakes) ? '' : `, ${wakes} woke a sleeping worker`})`);
    }
  });
  console.log(`# load average after: ${load()}`);
}
