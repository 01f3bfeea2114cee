// node --no-liftoff tests/bench/lora_products.mjs [--only NAME,...] [--budget MS] [--relaxed]
// The matrix products of issue 23's LoRA step (tests/bench/lora_gpt2.mjs: GPT-2-124M shapes, batch 4 × 128 = 512
// tokens, r 8 on c_attn and attn.c_proj) in isolation, each with the operand layouts the step hands the GEMM
// (transposes as views), each call alternated with a 512×512×512 product in the same process so that the ratio
// of the two rates means something on this shared, loaded machine (the absolute GFLOP/s do not: the load average
// is printed). Medians of process CPU time per call after a 3 s warm-up; each row runs for --budget ms (default
// 2000) and at least 5 calls.
// --relaxed: the relaxed-SIMD kernels (init({ relaxedSimd: true }); Node 20 needs --experimental-wasm-relaxed-simd).
// Measures, asserts nothing.
import os from 'node:os';
import { PRODUCTS, operands } from './lib/lora_products_list.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const budgetMs = Number(opt('budget', 2000));
const only = opt('only', '') ? opt('only', '').split(',') : null;

const { init } = await import('../../npm/dist/index.mjs');
const sg = await init(args.includes('--relaxed') ? { relaxedSimd: true } : {});
if (args.includes('--relaxed') && !sg.features().relaxedSimd) throw new Error('--relaxed: this engine does not validate relaxed SIMD (Node 20: --experimental-wasm-relaxed-simd)');
sg.manualSeed(0);

const clock = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const flopsOf = (A, B) => 2 * A.shape.slice(0, -1).reduce((x, y) => x * y, 1) * A.shape.at(-1) * B.shape.at(-1);

const sq = [sg.randn([512, 512]), sg.randn([512, 512])];
const runSquare = () => sg.tidy(() => { sg.matmul(sq[0], sq[1]); });
const load = () => os.loadavg().map((x) => x.toFixed(1)).join(' ');
console.log(`CPU: ${os.cpus()[0].model}, ${os.cpus().length} cores; Node ${process.version}; relaxed SIMD: ${sg.features().relaxedSimd}; load average at start: ${load()}`);

const w0 = clock();
while (clock() - w0 < 3000) runSquare();

const rows = [];
let totalMs = 0, totalFlops = 0;
for (const p of PRODUCTS) {
  if (only && !only.some((o) => p.name.includes(o))) continue;
  const { a, b, A, B } = operands(sg, p);
  const flops = flopsOf(A, B);
  const run = () => sg.tidy(() => { sg.matmul(A, B); });
  run(); // first call of this shape (scratch growth)
  const t = { p: [], sq: [] };
  const t0 = clock();
  for (let i = 0; i < 5 || clock() - t0 < budgetMs; i++) {
    const s0 = clock();
    run();
    const s1 = clock();
    runSquare();
    t.p.push(s1 - s0);
    t.sq.push(clock() - s1);
    if (i >= 400) break;
  }
  const shape = `[${A.shape.join(',')}]${p.ta ? ' (Aᵀ view)' : ''}·[${B.shape.join(',')}]${p.tb ? ' (Bᵀ view)' : ''}`;
  sg.dispose([...new Set([A, B, a, b])]);
  const ms = median(t.p), sqMs = median(t.sq);
  const gf = flops / (ms * 1e6), sqGf = (2 * 512 ** 3) / (sqMs * 1e6);
  totalMs += p.n * ms;
  totalFlops += p.n * flops;
  rows.push([p.name, shape, ms.toFixed(2), gf.toFixed(1), sqGf.toFixed(1), (gf / sqGf).toFixed(2), p.n, (p.n * ms).toFixed(0)]);
  console.log(rows.at(-1).join(' | '));
}
console.log(`\n| product | op(A)·op(B) | ms | GFLOP/s | 512³ GFLOP/s beside it | ratio | per step | ms per step |\n|---|---|---|---|---|---|---|---|`);
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
console.log(`\nOne step's products (rows × per step): ${totalMs.toFixed(0)} ms for ${(totalFlops / 1e9).toFixed(1)} GFLOP (${(totalFlops / (totalMs * 1e6)).toFixed(1)} GFLOP/s); load average at end: ${load()}`);
