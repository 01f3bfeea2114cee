// node --no-liftoff tests/bench/step_profile.mjs [--step gpt_train|lora] [--dist DIR] [--secs 8] [--layers 4] [--floor]
//                                               [--loss labels|narrow] (the LoRA step's next-token loss, as lora_gpt2.mjs)
// Where a training step's time goes (issues 23 and 29): the step runs for a warm-up (V8 compiles wasm functions
// lazily, TurboFan on first call under --no-liftoff: a profile that starts with the process counts seconds of
// compilation against the first callers), then V8's sampling profiler runs over --secs of steps and the samples are
// put in categories by the C++ functions on their stacks: the GEMM by caller (linear or matmul, forward or backward),
// softmax, layer norm, GELU, cross-entropy, dropout, the optimizer, autograd's accumulation, other elementwise
// ops, copies, allocation, and the rest (JavaScript, the bindings' glue, GC). Names need a module linked with
// --profiling-funcs (README section 4; --dist points at that copy of npm/dist); with the plain module every wasm
// frame is a number and lands in the rest.
// --step gpt_train: lib/workloads.mjs's nanoGPT-shaped step; --floor also times, alternating with the step, the
// step's 39 matrix products alone (the same shapes and transposes): the share no other change can remove.
// --step lora: issue 23's LoRA step (lora_gpt2.mjs's, float32) at --layers layers (12 is GPT-2-124M; 4 profiles
// faster with the head's share larger). With --floor (12 layers only) no profile: the step alternates with its
// matrix products alone (lib/lora_products_list.mjs: the shapes, transposes and counts of one 12-layer step).
import inspector from 'node:inspector';
import os from 'node:os';
import { PRODUCTS, operands } from './lib/lora_products_list.mjs';
import { WORKLOADS } from './lib/workloads.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? (typeof dflt === 'number' ? Number(args[i + 1]) : args[i + 1]) : dflt;
};
const which = opt('step', 'gpt_train');
const dist = opt('dist', new URL('../../npm/dist', import.meta.url).pathname);
const secs = opt('secs', 8);
const { init } = await import(`${dist}/index.mjs`);
const sg = await init();

function gptStep() {
  const w = WORKLOADS.find((x) => x.name === 'gpt_train');
  const s = w.sg(sg, w.data());
  return () => sg.tidy(() => void s.step());
}

function loraStep(layers) {
  const V = 50257, B = 4, T = 128;
  sg.manualSeed(1);
  const model = new sg.models.GPT2LMHeadModel({ vocab_size: V, n_positions: 1024, n_embd: 768, n_layer: layers, n_head: 12, resid_pdrop: 0, embd_pdrop: 0, attn_pdrop: 0 });
  sg.peft.getPeftModel(model, { r: 8, loraAlpha: 16, targetModules: ['attn.c_attn', 'attn.c_proj'] });
  model.train();
  const adamw = new sg.optim.AdamW(model.parameters().filter((p) => p.requiresGrad), { lr: 1e-4 });
  const ids = sg.randint(0, V, [B, T]).to('int32');
  // The next-token loss as lora_gpt2.mjs --loss writes it (labels: shifted labels padded with -100, no copy of
  // the logits; narrow: the logits narrowed to T − 1 positions).
  const labels = sg.cat([ids.narrow(1, 1, T - 1), sg.full([B, 1], -100, { dtype: 'int32' })], 1).reshape([-1]);
  const narrow = opt('loss', 'labels') === 'narrow';
  return () => {
    sg.tidy(() => {
      const logits = model.forward(ids);
      if (narrow) sg.F.crossEntropy(logits.narrow(1, 0, T - 1).reshape([-1, V]), ids.narrow(1, 1, T - 1).reshape([-1])).backward();
      else sg.F.crossEntropy(logits.reshape([-1, V]), labels).backward();
    });
    adamw.step();
    adamw.zeroGrad();
  };
}

/** gpt_train's matrix products, forward and backward, as the step lays its operands out (transposes as views). */
function gptProducts() {
  const R = 512, C = 64, T = 64, hs = 16, bh = 32, V = 65;
  const r = (shape) => sg.randn(shape);
  const linear = (i, o) => [[r([R, i]), r([o, i]).transpose(0, 1)], [r([R, o]), r([o, i])], [r([R, o]).transpose(0, 1), r([R, i])]];
  const attention = () => [
    [r([bh, T, hs]), r([bh, T, hs]).transpose(1, 2)], [r([bh, T, T]), r([bh, T, hs])], // q·kᵀ, att·v
    [r([bh, T, T]), r([bh, T, hs])], [r([bh, T, T]).transpose(1, 2), r([bh, T, hs])], // dq, dk
    [r([bh, T, hs]), r([bh, T, hs]).transpose(1, 2)], [r([bh, T, T]).transpose(1, 2), r([bh, T, hs])], // datt, dv
  ];
  const prods = [];
  for (let l = 0; l < 2; l++) prods.push(...linear(C, 3 * C), ...linear(C, C), ...linear(C, 4 * C), ...linear(4 * C, C), ...attention());
  prods.push(...linear(C, V));
  return { count: prods.length, run: () => sg.tidy(() => { for (const [a, b] of prods) a.matmul(b); }) };
}

const CATEGORIES = [
  ['GEMM, linear backward', (st) => st.some((f) => f.startsWith('std::__2::__function::__func<sg::linear(')) && st.some((f) => /gemm/.test(f))],
  ['GEMM, matmul backward', (st) => st.some((f) => f.startsWith('std::__2::__function::__func<sg::matmul(')) && st.some((f) => /gemm/.test(f))],
  ['GEMM, linear forward', (st) => st.some((f) => f.startsWith('sg::linear(')) && st.some((f) => /gemm/.test(f))],
  ['GEMM, matmul forward', (st) => st.some((f) => f.startsWith('sg::matmul(')) && st.some((f) => /gemm/.test(f))],
  ['GEMM, other callers', (st) => st.some((f) => /gemm|Microkernel/.test(f))],
  ['softmax (attention, cross-entropy)', (st) => st.some((f) => /softmax/.test(f))],
  ['layer norm', (st) => st.some((f) => /layer_norm|batch_statistics|affine_node/.test(f))],
  ['GELU', (st) => st.some((f) => /gelu|fused\(/.test(f))],
  ['cross-entropy (besides softmax)', (st) => st.some((f) => /cross_entropy/.test(f))],
  ['dropout', (st) => st.some((f) => /dropout|random_uniform|philox/.test(f))],
  ['optimizer', (st) => st.some((f) => /optim|adam/.test(f))],
  ['autograd accumulation', (st) => st.some((f) => /Backward::accumulate/.test(f))],
  ['other elementwise / reductions', (st) => st.some((f) => /binary_f32|unary_f32|sum_to|reduce_f32/.test(f))],
  ['copies', (st) => st.some((f) => /copy_strided|copy_into|memcpy|memmove/.test(f))],
  ['allocation', (st) => st.some((f) => /malloc|dlfree|memset|Storage/.test(f))],
  ['JavaScript, glue, GC, the rest', () => true],
];

async function profile(fn) {
  const session = new inspector.Session();
  session.connect();
  const post = (m, p) => new Promise((res, rej) => session.post(m, p, (e, r) => (e ? rej(e) : res(r))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 100 });
  await post('Profiler.start');
  const c0 = process.cpuUsage(), t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < secs * 1000) (fn(), n++);
  const c = process.cpuUsage(c0);
  const { profile: p } = await post('Profiler.stop');
  return { p, n, cpuMs: (c.user + c.system) / 1000 / n };
}

function categories(p) {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const out = new Map(CATEGORIES.map(([k]) => [k, 0]));
  let total = 0;
  for (const id of p.samples) {
    const stack = [];
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) stack.push(byId.get(cur).callFrame.functionName);
    if (stack[0] === '(idle)') continue;
    total++;
    const [k] = CATEGORIES.find(([, test]) => test(stack));
    out.set(k, out.get(k) + 1);
  }
  return { out, total };
}

const step = which === 'lora' ? loraStep(opt('layers', 4)) : gptStep();
const warm = performance.now();
do step(); while (performance.now() - warm < (which === 'lora' ? 1 : 4000)); // lora: one step is seconds
step();
const cpuPer = (f, k) => {
  const c0 = process.cpuUsage();
  for (let i = 0; i < k; i++) f();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000 / k;
};
const medianOf = (v) => [...v].sort((x, y) => x - y)[v.length >> 1];
if (which === 'lora' && args.includes('--floor')) {
  if (opt('layers', 4) !== 12) throw new Error(`--step lora --floor: the product list is the 12-layer step's; got --layers ${opt('layers', 4)}`);
  const ops = PRODUCTS.map((p) => ({ p, ...operands(sg, p) }));
  const products = () => sg.tidy(() => { for (const { p, A, B } of ops) for (let i = 0; i < p.n; i++) sg.matmul(A, B); });
  products();
  const a = [], b = [];
  for (let k = 0; k < opt('rounds', 3); k++) (a.push(cpuPer(step, 1)), b.push(cpuPer(products, 1)));
  console.log(`floor: the LoRA step ${medianOf(a).toFixed(0)} ms, its ${PRODUCTS.reduce((t, p) => t + p.n, 0)} matrix products alone ${medianOf(b).toFixed(0)} ms (${((100 * medianOf(b)) / medianOf(a)).toFixed(0)} %), CPU-time medians of ${a.length} alternations (steps ${a.map((x) => x.toFixed(0)).join(', ')}; products ${b.map((x) => x.toFixed(0)).join(', ')}); load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  process.exit(0);
}
const { p, n, cpuMs } = await profile(step);
const { out, total } = categories(p);
console.log(`${which}: ${n} steps profiled, ${cpuMs.toFixed(which === 'lora' ? 0 : 2)} ms of CPU a step; ${os.cpus()[0]?.model ?? ''}, load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
for (const [k, c] of [...out].sort((a, b) => b[1] - a[1])) if (c) console.log(`  ${k.padEnd(36)} ${((100 * c) / total).toFixed(1).padStart(5)} %  ${((cpuMs * c) / total).toFixed(2).padStart(9)} ms`);
if (which === 'gpt_train' && args.includes('--floor')) {
  const prods = gptProducts();
  const a = [], b = [];
  for (let k = 0; k < 15; k++) (a.push(cpuPer(step, 20)), b.push(cpuPer(prods.run, 20)));
  console.log(`floor: the step ${medianOf(a).toFixed(2)} ms, its ${prods.count} matrix products alone ${medianOf(b).toFixed(2)} ms (${((100 * medianOf(b)) / medianOf(a)).toFixed(0)} %), CPU-time medians of 15 alternations of 20; load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
}
