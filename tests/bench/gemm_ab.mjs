// node --no-liftoff tests/bench/gemm_ab.mjs [--dist DIR[,DIR2...]] [--shapes 512,1024,mlp] [--rounds 4]
//                                          [--secs 1.5] [--warmup 3]
// The single-threaded float32 GEMM as a fraction of the SIMD128 mul+add peak (lib/peak.mjs), for one
// build or several side by side (issue 29): every --dist folder (default npm/dist) is loaded into the
// same process (each its own wasm instance), and the rounds alternate build by build and shape by shape,
// the peak re-measured between rounds, so that a change of load on this shared machine hits every
// build alike. Printed per shape and build: the median GFLOP/s of process CPU time per product, and
// that over the peak measured in the same process (the ratio `npm run bench` prints as sg/peak).
// Shapes: N (an N×N·N×N product), mlp ([128, 784]·[784, 256], bench's matmul_mlp), MxKxN, and
// tn/nt suffixes for a transposed operand as a view (512tn). Measures, asserts nothing.
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { measureSimd128Peak } from './lib/peak.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const dists = opt('dist', 'npm/dist').split(',').map((d) => path.resolve(d));
const shapes = opt('shapes', '512,1024,mlp').split(',');
const rounds = Number(opt('rounds', 4));
const secs = Number(opt('secs', 1.5));
const warmupSecs = Number(opt('warmup', 3));

const cpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function parseShape(s) {
  const t = s.match(/(tn|nt)$/)?.[1] ?? 'nn';
  const body = s.replace(/(tn|nt)$/, '');
  let m, k, n;
  if (body === 'mlp') [m, k, n] = [128, 784, 256];
  else if (body.includes('x')) [m, k, n] = body.split('x').map(Number);
  else m = k = n = Number(body);
  if (![m, k, n].every((v) => Number.isInteger(v) && v > 0)) throw new Error(`--shapes: expected N, mlp or MxKxN (optionally tn/nt), got '${s}'`);
  return { name: s, m, k, n, t, flops: 2 * m * k * n };
}

const builds = [];
for (const dist of dists) {
  const { init } = await import(pathToFileURL(path.join(dist, 'index.mjs')).href);
  const sg = await init();
  sg.manualSeed(0);
  builds.push({ dist: path.relative(process.cwd(), dist) || dist, sg });
}

// Operands: the same values in every build (drawn once in JS).
let seed = 1;
const rand = (len) => Float32Array.from({ length: len }, () => {
  seed = (seed * 1103515245 + 12345) >>> 0;
  return seed / 2 ** 31 - 1;
});
const cases = shapes.map(parseShape).map((sh) => {
  const a = rand(sh.m * sh.k), b = rand(sh.k * sh.n);
  const per = builds.map(({ sg }) => {
    const A = sh.t === 'tn' ? sg.tensor(a, { shape: [sh.k, sh.m] }) : sg.tensor(a, { shape: [sh.m, sh.k] });
    const B = sh.t === 'nt' ? sg.tensor(b, { shape: [sh.n, sh.k] }) : sg.tensor(b, { shape: [sh.k, sh.n] });
    const opA = sh.t === 'tn' ? A.T : A, opB = sh.t === 'nt' ? B.T : B;
    return { run: () => sg.tidy(() => { sg.matmul(opA, opB); }), times: [] };
  });
  return { ...sh, per };
});

const load = () => os.loadavg().map((x) => x.toFixed(1)).join(' ');
console.log(`CPU: ${os.cpus()[0].model}, ${os.cpus().length} cores; Node ${process.version}; load average at start: ${load()}`);

// Warm-up: every build and shape, then the peak probe's own warm-up.
const until = performance.now() + warmupSecs * 1000;
while (performance.now() < until) for (const c of cases) for (const p of c.per) p.run();
const peaks = [];
for (let r = 0; r < rounds; r++) {
  peaks.push(measureSimd128Peak({ budgetMs: 600 }).gflops);
  const order = r % 2 ? [...builds.keys()].reverse() : [...builds.keys()];
  for (const c of cases) {
    for (const bi of order) {
      const p = c.per[bi];
      const end = cpuMs() + (secs * 1000) / cases.length;
      do {
        const t0 = cpuMs();
        p.run();
        p.times.push(cpuMs() - t0);
      } while (cpuMs() < end || p.times.length < 3 * (r + 1));
    }
  }
}
const peak = median(peaks);
console.log(`SIMD128 peak: median ${peak.toFixed(1)} GFLOP/s over ${rounds} probes (${peaks.map((x) => x.toFixed(1)).join(', ')}); load average at end: ${load()}`);
for (const c of cases) {
  const cells = c.per.map((p, bi) => {
    const ms = median(p.times);
    const gf = c.flops / (ms * 1e6);
    return `${builds[bi].dist}: ${ms.toFixed(3)} ms ${gf.toFixed(1)} GFLOP/s ${(gf / peak).toFixed(3)} of peak (${p.times.length} runs)`;
  });
  console.log(`${c.name.padEnd(10)} ${cells.join(' | ')}`);
}
