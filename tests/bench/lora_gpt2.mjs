// node --no-liftoff tests/bench/lora_gpt2.mjs [--steps 2] [--batch 4] [--seq 128] [--layers 12] [--gen 512]
//                                            [--cases torch,f32,bf16,f32+ckpt,f32+ckpt+chunk,gen] [--chunk 128] [--rounds 1]
//                                            (also f32+relaxed: the float32 step with the relaxed-SIMD GEMM kernels)
//                                            [--loss labels|narrow] (how both sides write the next-token loss)
// Issue 23's rows on a GPT-2-124M-shaped GPT2LMHeadModel (12 layers, 768 wide, 12 heads, vocab 50,257, 1,024
// positions) with random weights:
// - one LoRA fine-tuning step (sg.peft, r 8, alpha 16 on attn.c_attn and attn.c_proj: GPT-2's q/k/v and o; forward,
//   next-token loss, backward, AdamW over the adapters), batch × seq tokens, wasm, one thread: wall and process-CPU
//   ms per step (median after a warm-up step) and tokens/s, beside PyTorch 1.13 on one thread running the same step
//   on nanoGPT's model.py with the same LoRA written out (torch/gpt2_lora_step.py);
// - the memory of that step with a float32 base, a bfloat16 base (adapters float32, as PEFT), and a float32 base
//   with gradientCheckpointingEnable(): live tensor bytes at rest (model, adapters, AdamW state), their peak over
//   the step (sg.memory().peakBytes), the activation part (peak − at rest), and the wasm heap's size
//   (memory().heapBytes, which never shrinks: for the bf16 base it includes the float32 model the constructor
//   made before .to('bfloat16')); a '+chunk' case computes the loss chunkedNextTokenLoss's way (below), which never
//   holds the whole logits (cases: f32+chunk, bf16+chunk, f32+ckpt+chunk, bf16+ckpt+chunk);
// - greedy generate with the key/value cache from a 16-token prompt to --gen positions: ms per token around
//   positions 16, 64, 128, 256 and the last (median of 8 steps), wall and process CPU, from onToken's timestamps.
// - f32+relaxed (not in the default cases): the float32 step with the relaxed-SIMD GEMM microkernels (one fused
//   multiply-add per product), which init() selects where the engine validates relaxed SIMD: Chromium by default,
//   Node 20 with --experimental-wasm-relaxed-simd, which this case's child process gets. The plain f32 row is the
//   SIMD128 module as Node 20 runs it without flags.
// Each case runs in a child process of its own (fresh heap). Measures, asserts nothing.
// --rounds N: PyTorch and each step case run N times, interleaved round by round (PyTorch, then the cases, in
// turn), so that a passing load on this shared machine weighs on both sides alike; the table gives each case's
// median over the rounds, and the float32 step's ratio to PyTorch is the ratio of the CPU-time medians.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { slowBlas, TORCH_ALLOC_ENV } from './lib/torch.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? (typeof dflt === 'number' ? Number(args[i + 1]) : args[i + 1]) : dflt;
};
const steps = opt('steps', 2);
const B = opt('batch', 4);
const T = opt('seq', 128);
const layers = opt('layers', 12);
const genTo = opt('gen', 512);
const cases = opt('cases', 'torch,f32,bf16,f32+ckpt,f32+ckpt+chunk,gen').split(',');
const CHUNK = opt('chunk', 128); // positions per chunk of the chunked loss (the +chunk cases)
const rounds = opt('rounds', 1);
const LOSS = opt('loss', 'labels'); // the plain step's next-token loss: 'labels' or 'narrow' (child's step, below)
if (!['labels', 'narrow'].includes(LOSS)) throw new Error(`--loss: expected 'labels' or 'narrow', got '${LOSS}'`);
const CONFIG = { vocab_size: 50257, n_positions: 1024, n_embd: 768, n_layer: layers, n_head: 12, resid_pdrop: 0, embd_pdrop: 0, attn_pdrop: 0 };
const TARGETS = ['attn.c_attn', 'attn.c_proj'];
const MB = 2 ** 20;

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function child(kind) {
  const { init } = await import('../../npm/dist/index.mjs');
  const relaxed = kind.endsWith('+relaxed');
  const sg = await init({ relaxedSimd: relaxed });
  if (relaxed && !sg.features().relaxedSimd) throw new Error(`${kind}: this engine does not take relaxed SIMD`);
  sg.manualSeed(1);
  const model = new sg.models.GPT2LMHeadModel(CONFIG);
  if (kind === 'gen') return generation(sg, model);
  if (kind.startsWith('bf16')) model.to('bfloat16');
  sg.emptyCache();
  sg.peft.getPeftModel(model, { r: 8, loraAlpha: 16, targetModules: TARGETS });
  if (kind.includes('+ckpt')) model.gradientCheckpointingEnable();
  model.train();
  const params = model.parameters().filter((p) => p.requiresGrad);
  const adamw = new sg.optim.AdamW(params, { lr: 1e-4 });
  const ids = sg.randint(0, CONFIG.vocab_size, [B, T]).to('int32');
  const labels = sg.cat([ids.narrow(1, 1, T - 1), sg.full([B, 1], -100, { dtype: 'int32' })], 1).reshape([-1]);
  const chunked = kind.endsWith('+chunk');
  const step = () => {
    sg.tidy(() => {
      if (chunked) return void chunkedNextTokenLoss(sg, model, ids, CHUNK).backward();
      const logits = model.forward(ids);
      // --loss narrow: the logits narrowed to the first T − 1 positions (a copy, and in backward a padded copy of
      // its gradient); labels (default): every position's logits against the labels shifted left and padded with
      // ignoreIndex -100 (transformers' ForCausalLMLoss since 4.46): same loss and gradients, no copy.
      const flat = LOSS === 'narrow' ? logits.narrow(1, 0, T - 1).reshape([-1, CONFIG.vocab_size]) : logits.reshape([-1, CONFIG.vocab_size]);
      sg.F.crossEntropy(flat.dtype === 'float32' ? flat : flat.to('float32'), LOSS === 'narrow' ? ids.narrow(1, 1, T - 1).reshape([-1]) : labels).backward();
    });
    adamw.step();
    adamw.zeroGrad();
  };
  step(); // warm-up, and AdamW's state
  const held = sg.memory().bytes;
  sg.resetPeakMemory();
  const wall = [];
  const cpu = [];
  for (let i = 0; i < steps; i++) {
    const [t0, c0] = [performance.now(), process.cpuUsage()];
    step();
    const c = process.cpuUsage(c0);
    wall.push(performance.now() - t0);
    cpu.push((c.user + c.system) / 1000);
  }
  const m = sg.memory();
  const { trainable, total } = sg.peft.trainableParameters(model);
  return { kind, wallMs: median(wall), cpuMs: median(cpu), held, peak: m.peakBytes, heapBytes: m.heapBytes, trainable, total };
}

/**
 * The next-token cross-entropy without the whole logits: the body's hidden states, then the head and the loss over
 * `chunk` positions at a time, each under sg.utils.checkpoint, so only one chunk's logits [chunk, vocab] (and in
 * backward their gradient) exist at a time, where the plain loss holds [B·T, vocab] more than once (the logits and
 * their gradient; with --loss narrow also the narrowed copy and the gradient padded back: 103 MB each at 4 × 128;
 * no log-softmax is stored). Same value as the plain mean; the head's
 * matmul runs twice (forward, and again in backward).
 */
function chunkedNextTokenLoss(sg, model, ids, chunk) {
  const h = model.transformer.forward(ids); // [B, T, C]
  const x = h.narrow(1, 0, T - 1).reshape([-1, h.shape[2]]);
  const y = ids.narrow(1, 1, T - 1).reshape([-1]);
  const N = x.shape[0];
  let total = null;
  for (let s = 0; s < N; s += chunk) {
    const n = Math.min(chunk, N - s);
    const part = sg.utils.checkpoint((xc, yc) => sg.F.crossEntropy(model.lm_head.forward(xc).to('float32'), yc, { reduction: 'sum' }), x.narrow(0, s, n), y.narrow(0, s, n));
    total = total === null ? part : total.add(part);
  }
  return total.div(N);
}

async function generation(sg, model) {
  model.eval();
  const prompt = sg.randint(0, CONFIG.vocab_size, [1, 16]).to('int32');
  const cpuMs = () => {
    const c = process.cpuUsage();
    return (c.user + c.system) / 1000;
  };
  const stamps = [];
  const t0 = [performance.now(), cpuMs()];
  (await model.generate(prompt, { maxNewTokens: genTo - 16, onToken: () => void stamps.push([performance.now(), cpuMs()]) })).dispose();
  // stamps[i]: the token at position 16 + i is known; its time is that step's (the first: the prompt's forward).
  const per = (k) => stamps.map((t, i) => t[k] - (i === 0 ? t0 : stamps[i - 1])[k]);
  const [wall, cpu] = [per(0), per(1)];
  const around = (xs, pos) => {
    const i = Math.min(xs.length - 8, Math.max(1, pos - 16));
    return median(xs.slice(i, i + 8));
  };
  const at = Object.fromEntries([17, 64, 128, 256, genTo - 8].map((p) => [p, [around(wall, p), around(cpu, p)]]));
  return { kind: 'gen', promptMs: wall[0], at };
}

if (args[0] === '--child') {
  console.log(JSON.stringify(await child(args[1])));
  process.exit(0);
}

const self = fileURLToPath(import.meta.url);
const runChild = (kind) => {
  const flags = kind.endsWith('+relaxed') ? ['--experimental-wasm-relaxed-simd'] : [];
  const r = spawnSync(process.execPath, [...process.execArgv, ...flags, self, '--child', kind, ...args], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) return { kind, error: (r.stderr || r.error?.message || '').trim().split('\n').slice(-3).join(' ') };
  return JSON.parse(r.stdout.trim().split('\n').at(-1));
};

console.log(`GPT2LMHeadModel ${layers} layers × 768, 12 heads, vocab 50257 (random weights); LoRA r 8 on ${TARGETS.join(', ')}; batch ${B} × ${T}; next-token loss by ${LOSS}; wasm, 1 thread; ${os.cpus()[0]?.model ?? ''}, ${os.cpus().length} cores, load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} at start`);
const env = { ...process.env, ...TORCH_ALLOC_ENV, OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1' };
const runTorch = () => {
  const r = spawnSync('/usr/bin/python3', [new URL('./torch/gpt2_lora_step.py', import.meta.url).pathname, JSON.stringify({ layers, batch: B, seq: T, steps, loss: LOSS })], { env, encoding: 'utf8', timeout: 1_800_000 });
  if (r.status === 0) return JSON.parse(r.stdout.trim().split('\n').at(-1));
  console.log(`(PyTorch not measured: ${r.error?.message ?? r.stderr.trim().split('\n').at(-1)})`);
  return null;
};
const tps = (ms) => ((B * T) / (ms / 1000)).toFixed(0);
const stepCases = ['f32', 'f32+relaxed', 'bf16', 'f32+ckpt', 'f32+chunk', 'bf16+chunk', 'f32+ckpt+chunk', 'bf16+ckpt+chunk'].filter((k) => cases.includes(k));
const runs = Object.fromEntries(['torch', ...stepCases].map((k) => [k, []]));
for (let round = 0; round < rounds; round++) {
  if (cases.includes('torch')) {
    const pt = runTorch();
    if (pt) runs.torch.push(pt);
  }
  for (const kind of stepCases) {
    const r = runChild(kind);
    if (r.error) console.log(`${kind.padEnd(14)} failed: ${r.error}`);
    else runs[kind].push(r);
  }
  if (rounds > 1) {
    const cells = Object.entries(runs).filter(([, v]) => v.length > round).map(([k, v]) => `${k} ${(v[round].cpuMs ?? v[round].cpu_ms).toFixed(0)}`);
    console.log(`round ${round + 1}/${rounds} (CPU ms): ${cells.join(', ')}; load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  }
}
// The run with the median CPU time stands for the case (its other columns come from the same process).
const medianRun = (v, key) => [...v].sort((a, b) => a[key] - b[key])[Math.floor(v.length / 2)];
if (stepCases.length) console.log(`case            wall ms  CPU ms  tokens/s (CPU)  at rest MB  step peak MB  activations MB  wasm heap MB  trained / total${rounds > 1 ? `   (medians of ${rounds} rounds)` : ''}`);
for (const kind of stepCases) {
  if (!runs[kind].length) continue;
  const r = medianRun(runs[kind], 'cpuMs');
  console.log(`${kind.padEnd(15)}${r.wallMs.toFixed(0).padStart(8)} ${r.cpuMs.toFixed(0).padStart(7)} ${tps(r.cpuMs).padStart(15)} ${(r.held / MB).toFixed(0).padStart(11)} ${(r.peak / MB).toFixed(0).padStart(13)} ${((r.peak - r.held) / MB).toFixed(0).padStart(15)} ${(r.heapBytes / MB).toFixed(0).padStart(13)}  ${r.trainable} / ${r.total}`);
}
const pt = runs.torch.length ? medianRun(runs.torch, 'cpu_ms') : null;
if (pt) {
  console.log(`PyTorch 1.13    ${pt.wall_ms.toFixed(0).padStart(8)} ${pt.cpu_ms.toFixed(0).padStart(7)} ${tps(pt.cpu_ms).padStart(15)}   (nanoGPT's model.py, LoRA by hand, f32; peak RSS ${(pt.max_rss_kb / 1024).toFixed(0)} MB; ${pt.trainable} trained)`);
  console.log(`PyTorch's BLAS: ${pt.blas} (kernels ${pt.openblas_core ?? '—'}, threads ${pt.openblas_threads ?? '—'})`);
  const noYardstick = slowBlas(pt);
  if (noYardstick) console.log(`WARNING: ${noYardstick}; no ratio printed`);
  else if (runs.f32?.length) console.log(`float32 LoRA step / PyTorch's (CPU-time medians): ${(medianRun(runs.f32, 'cpuMs').cpuMs / pt.cpu_ms).toFixed(2)}× (goal ≤ 1.5×)`);
  if (runs['f32+relaxed']?.length) console.log(`float32 LoRA step with relaxed SIMD / PyTorch's: ${(medianRun(runs['f32+relaxed'], 'cpuMs').cpuMs / pt.cpu_ms).toFixed(2)}×`);
}
const g = cases.includes('gen') ? runChild('gen') : null;
if (g?.error) console.log(`generate failed: ${g.error}`);
else if (g) {
  const cells = Object.entries(g.at).map(([p, [w, c]]) => `${p}: ${w.toFixed(0)} wall / ${c.toFixed(0)} CPU ms (${(1000 / c).toFixed(1)} tokens/s CPU)`);
  console.log(`greedy generate with the cache, f32, per token around positions — ${cells.join(', ')}; the 16-token prompt ${g.promptMs.toFixed(0)} ms wall`);
}
console.log(`load at end ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
