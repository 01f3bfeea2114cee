// node tests/bench/linalg.mjs [--rounds 7]
// The decompositions against PyTorch 1.13 (issue 24's speed line): sg.linalg.svd of a 256×256
// and sg.linalg.eigh of a 512×512 float32 matrix on wasm (one thread), beside torch.linalg's
// (LAPACK via OpenBLAS) run by /usr/bin/python3 tests/bench/torch/linalg_decomp.py with
// OPENBLAS_NUM_THREADS=OMP_NUM_THREADS=1. Median CPU ms of `rounds` calls after a warm-up call
// (process.cpuUsage / time.process_time: a loaded machine's waiting is left out). Measures,
// asserts nothing.
import { spawnSync } from 'node:child_process';
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
function medianMs(fn) {
  sg.tidy(fn);
  const times = [];
  for (let i = 0; i < rounds; i++) times.push(cpuMs(() => sg.tidy(fn)));
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const a = sg.randn([256, 256]);
const r = sg.randn([512, 512]);
const s = r.add(r.T);
const ours = {
  svd_256: medianMs(() => sg.linalg.svd(a)),
  svdvals_256: medianMs(() => sg.linalg.svdvals(a)),
  eigh_512: medianMs(() => sg.linalg.eigh(s)),
  eigvalsh_512: medianMs(() => sg.linalg.eigvalsh(s)),
};

const script = fileURLToPath(new URL('./torch/linalg_decomp.py', import.meta.url));
const py = spawnSync('/usr/bin/python3', [script, String(rounds)], {
  env: { ...process.env, OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1' },
  encoding: 'utf8',
});
let torch = null;
if (py.status === 0) torch = JSON.parse(py.stdout.trim().split('\n').pop());
else console.log(`PyTorch side did not run: ${(py.stderr || py.error?.message || '').trim().split('\n').pop()}`);

console.log(`linalg decompositions, float32, median CPU ms of ${rounds} calls (simdgrad wasm 1 thread; PyTorch 1.13 ${torch ? `${torch.threads} thread` : 'n/a'})`);
console.log('| workload | simdgrad ms | PyTorch ms | ratio |');
console.log('|---|---|---|---|');
for (const [name, ms] of Object.entries(ours)) {
  const t = torch?.[name];
  console.log(`| ${name} | ${ms.toFixed(1)} | ${t === undefined ? '—' : t.toFixed(1)} | ${t === undefined ? '—' : (ms / t).toFixed(2) + '×'} |`);
}
