// node tests/bench/linalg.mjs [--rounds 7]
// The decompositions against PyTorch 1.13 (issue 24's speed line): sg.linalg.svd of a 256×256
// and sg.linalg.eigh of a 512×512 float32 matrix on wasm (one thread), beside torch.linalg's
// (LAPACK via OpenBLAS) served call by call by /usr/bin/python3 tests/bench/torch/linalg_decomp.py
// with OPENBLAS_NUM_THREADS=OMP_NUM_THREADS=1. The two sides alternate (ours, then PyTorch's, for
// each workload in each round), so a shared machine's load weighs on both alike. Median CPU ms of
// `rounds` calls after a warm-up call (process.cpuUsage / time.process_time: waiting for a core is
// left out). Prints the load average beside the table. Measures, asserts nothing.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { init } from '../../npm/dist/index.mjs';

const args = process.argv.slice(2);
const at = args.indexOf('--rounds');
const rounds = at >= 0 ? Number(args[at + 1]) : 7;

const sg = await init({ backend: 'wasm', threads: 1 });
sg.manualSeed(0);

function cpuMs(fn) {
  const t0 = process.cpuUsage();
  fn();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / 1000;
}
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

const a = sg.randn([256, 256]);
const r = sg.randn([512, 512]);
const s = r.add(r.T);
const ours = {
  svd_256: () => sg.linalg.svd(a),
  svdvals_256: () => sg.linalg.svdvals(a),
  eigh_512: () => sg.linalg.eigh(s),
  eigvalsh_512: () => sg.linalg.eigvalsh(s),
};

// PyTorch's side: one process, asked for one timed call at a time.
const script = fileURLToPath(new URL('./torch/linalg_decomp.py', import.meta.url));
const py = spawn('/usr/bin/python3', [script], {
  env: { ...process.env, OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1' },
  stdio: ['pipe', 'pipe', 'inherit'],
});
const lines = createInterface({ input: py.stdout })[Symbol.asyncIterator]();
const next = async () => {
  const { value, done } = await lines.next();
  if (done) throw new Error('the PyTorch side ended early (see its error above)');
  return value;
};
const torchThreads = (await next()).split(' ')[1];
const theirs = async (name) => {
  py.stdin.write(`${name}\n`);
  return Number(await next());
};

const times = Object.fromEntries(Object.keys(ours).map((k) => [k, { ours: [], torch: [] }]));
for (const fn of Object.values(ours)) sg.tidy(fn);  // warm-up (PyTorch's ran before "ready")
const load0 = loadavg()[0];
for (let round = 0; round < rounds; round++) {
  for (const [name, fn] of Object.entries(ours)) {
    times[name].ours.push(cpuMs(() => sg.tidy(fn)));
    times[name].torch.push(await theirs(name));
  }
}
const load1 = loadavg()[0];
py.stdin.end();

console.log(`linalg decompositions, float32, median CPU ms of ${rounds} interleaved calls (simdgrad wasm 1 thread; PyTorch 1.13 ${torchThreads} thread); load average ${load0.toFixed(1)} → ${load1.toFixed(1)}`);
console.log('| workload | simdgrad ms | PyTorch ms | ratio |');
console.log('|---|---|---|---|');
for (const [name, t] of Object.entries(times)) {
  const mo = median(t.ours), mt = median(t.torch);
  console.log(`| ${name} | ${mo.toFixed(1)} | ${mt.toFixed(1)} | ${(mo / mt).toFixed(2)}× |`);
}
