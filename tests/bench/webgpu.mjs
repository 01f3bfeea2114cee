#!/usr/bin/env node
// simdgrad on WebGPU: `npm run bench -- --backend=webgpu` (or node tests/bench/webgpu.mjs).
//   matmul N×N (GFLOP/s), the MNIST-shaped MLP train step and the bench's small CNN train step
//   (ms), each timed after a warm-up with sg.sync() (which waits for the GPU) around the runs,
//   next to the same workload on wasm in the same process; and a 60-op elementwise chain eagerly
//   and under sg.compile (one fused WGSL kernel), with the dispatches per call.
// The GPU is navigator.gpu where it exists, else Dawn from npm `webgpu` (tests/js/webgpu_env.mjs:
// Chromium's SwiftShader on machines without a GPU, which emulates one on the CPU: its numbers
// say nothing about a real GPU). TensorFlow.js's WebGPU backend (tfjs-backend-webgpu, a dev
// dependency of tests/bench) runs the same workloads on the same GPU in the same process
// (rows with device tfjs-webgpu; lib/tfjs_webgpu.mjs), timed the same way (its data read back).
//   --quick: fewer runs; --sizes 512,2048: the matmul sizes; --no-tfjs: simdgrad only.
//   --gpu-report (scripts/gpu-bench.sh): matmul at 1024, 2048, 4096 and 8192 (wasm only up to 1024),
//     GFLOP/s with the fraction of the adapter's fp32 peak where lib/gpu_peaks.mjs knows it, the
//     adapter's name, features and limits, and the nanoGPT-shaped train step (lib/gpt.mjs).
import os from 'node:os';
import { gpu, why } from '../js/webgpu_env.mjs';
import { init } from '../../npm/dist/index.mjs';
import { loadTfjsWebgpu, tfjsWorkloads } from './lib/tfjs_webgpu.mjs';
import { ADAMW, GPT, gptData, sgGpt } from './lib/gpt.mjs';
import { peakOf } from './lib/gpu_peaks.mjs';
import { rawCheck, rawDevice, rawTime } from './lib/raw_gemm.mjs';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const report = args.includes('--gpu-report');
const sizesArg = args.indexOf('--sizes');
const sizes = sizesArg >= 0 ? args[sizesArg + 1].split(',').map(Number) : report ? [1024, 2048, 4096, 8192] : [512, 2048];
if (!gpu && !globalThis.navigator?.gpu) {
  console.error(`bench: no WebGPU here (${why})`);
  process.exit(1);
}

const sg = await init({ backend: 'webgpu', gpu: gpu ?? undefined });

/** Median ms of `runs` calls of f (each in a tidy), after `warm` calls; the GPU waited for. */
async function time(device, f, runs, warm = 2) {
  sg.setBackend(device === 'webgpu' ? 'webgpu' : 'wasm');
  for (let i = 0; i < warm; i++) sg.tidy(f);
  await sg.sync();
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    sg.tidy(f);
    await sg.sync();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return ms[ms.length >> 1];
}

const rows = [];
for (const n of sizes) {
  // wasm takes seconds per product past 1024: the report times it up to there.
  for (const device of report && n > 1024 ? ['webgpu'] : ['wasm', 'webgpu']) {
    sg.setBackend(device === 'webgpu' ? 'webgpu' : 'wasm');
    const a = sg.randn([n, n]), b = sg.randn([n, n]);
    const ms = await time(device, () => a.matmul(b), quick ? 2 : n >= 2048 ? 3 : 10, 1);
    rows.push({ workload: `matmul_${n}`, device, ms, gflops: (2 * n ** 3) / ms / 1e6 });
    sg.dispose([a, b]);
  }
}

// The blocked WGSL GEMM straight on a device of its own: f32, and f16 storage with f32
// accumulation where the adapter has shader-f16 (lib/raw_gemm.mjs), each checked before timing.
const rawNotes = [];
if (report) {
  const rawAdapter = await (gpu ?? globalThis.navigator.gpu).requestAdapter();
  for (const storage of ['f32', 'f16']) {
    if (storage === 'f16' && !rawAdapter.features.has('shader-f16')) {
      rawNotes.push('raw f16 GEMM: not run (the adapter has no shader-f16)');
      continue;
    }
    const dev = await rawDevice(rawAdapter, storage === 'f16');
    const err = await rawCheck(dev, storage);
    rawNotes.push(`raw ${storage} GEMM check (130 × 67 × 33 against a double product of the same inputs): largest |Δ|/(1+|want|) ${err.toExponential(2)}`);
    for (const n of sizes) {
      const r = await rawTime(dev, storage, n, quick ? 2 : 5);
      rows.push({ workload: `matmul_${n}`, device: `raw-${storage}`, ms: r.ms, gflops: r.gflops });
    }
    dev.destroy();
  }
}

function mlpStep(device) {
  sg.setBackend(device === 'webgpu' ? 'webgpu' : 'wasm');
  sg.manualSeed(0);
  const model = new sg.nn.Sequential(new sg.nn.Linear(784, 256), new sg.nn.ReLU(), new sg.nn.Linear(256, 10));
  const opt = new sg.optim.Adam(model.parameters(), { lr: 1e-3 });
  const x = sg.randn([128, 784]), y = sg.randint(0, 10, [128]);
  const step = () => {
    opt.zeroGrad();
    sg.F.crossEntropy(model.forward(x), y).backward();
    opt.step();
  };
  return { step, dispose: () => (model.dispose(), opt.dispose(), sg.dispose([x, y])) };
}

function cnnStep(device) {
  sg.setBackend(device === 'webgpu' ? 'webgpu' : 'wasm');
  sg.manualSeed(0);
  const model = new sg.nn.Sequential(
    new sg.nn.Conv2d(1, 8, 5), new sg.nn.ReLU(), new sg.nn.MaxPool2d(2),
    new sg.nn.Conv2d(8, 16, 5), new sg.nn.ReLU(), new sg.nn.MaxPool2d(2),
    new sg.nn.Flatten(), new sg.nn.Linear(256, 10),
  );
  const opt = new sg.optim.Adam(model.parameters(), { lr: 1e-3 });
  const x = sg.randn([32, 1, 28, 28]), y = sg.randint(0, 10, [32]);
  const step = () => {
    opt.zeroGrad();
    sg.F.crossEntropy(model.forward(x), y).backward();
    opt.step();
  };
  return { step, dispose: () => (model.dispose(), opt.dispose(), sg.dispose([x, y])) };
}

/** The bench's nanoGPT-shaped train step (lib/gpt.mjs: 2 layers, 4 heads, 64 wide, T 64, B 8, AdamW). */
function gptStep(device) {
  sg.setBackend(device === 'webgpu' ? 'webgpu' : 'wasm');
  const d = gptData();
  const model = sgGpt(sg);
  sg.noGrad(() => model.parameters().forEach((p, i) => p.copy_(sg.tensor(d.params[i], { shape: p.shape }))));
  const opt = new sg.optim.AdamW(model.parameters(), { lr: ADAMW.lr, betas: ADAMW.betas, eps: ADAMW.eps, weightDecay: ADAMW.weightDecay });
  const idx = sg.tensor(d.idx, { shape: [GPT.batch, GPT.block] }), targets = sg.tensor(d.targets, { shape: [GPT.batch, GPT.block] });
  const step = () => {
    opt.zeroGrad();
    model.forward(idx, targets).backward();
    opt.step();
  };
  const dispose = () => {
    opt.zeroGrad();
    sg.dispose([idx, targets, model.pos, ...[...model.transformer.h.children()].map((b) => b.attn.mask), ...model.parameters()]);
  };
  return { step, dispose };
}

const warn = console.warn;
console.warn = () => {}; // the CNN's fallback warnings
for (const [name, make] of [['mlp_step_128', mlpStep], ['cnn_step_32', cnnStep], ['gpt_step', gptStep]]) {
  for (const device of ['wasm', 'webgpu']) {
    const w = make(device);
    const s0 = sg.webgpuStats();
    const ms = await time(device, w.step, quick ? 3 : 10);
    const s1 = sg.webgpuStats();
    rows.push({ workload: name, device, ms, submits: s1.submits - s0.submits, ...(device === 'webgpu' ? { dispatches: (s1.dispatches - s0.dispatches) / ((quick ? 3 : 10) + 2) } : {}) });
    w.dispose();
  }
}
console.warn = warn;

/** Times `eager` and `compiled` (made from it by sg.compile) on the GPU, with the dispatches per call. */
async function timeCompiled(workload, eager, compiled) {
  sg.tidy(compiled);  // traces (its first run goes op by op)
  const runs = quick ? 5 : 30;
  for (const [device, f] of [['webgpu', eager], ['webgpu-compiled', compiled]]) {
    const s0 = sg.webgpuStats();
    const ms = await time('webgpu', f, runs);
    const s1 = sg.webgpuStats();
    rows.push({ workload, device, ms, dispatches: (s1.dispatches - s0.dispatches) / (runs + 2) });
  }
}

// sg.compile on the GPU: the compiled bench's chain (10 rounds of mul, add, maximum, abs, minimum on
// 1,000 floats: 60 ops with the neg) eagerly, one dispatch per op, and compiled, one fused kernel.
{
  sg.setBackend('webgpu');
  const a = sg.randn([1000]), b = sg.rand([1000]);
  const chain = (x) => {
    let h = x;
    for (let i = 0; i < 10; i++) h = h.mul(0.9).add(b).maximum(h.neg()).abs().minimum(2);
    return h;
  };
  const compiled = sg.compile(chain);
  await timeCompiled('chain_60ops_1000', () => chain(a), () => compiled(a));
  compiled.clear();
  sg.dispose([a, b]);
}

// Forward and backward of 60 elementwise ops (10 rounds of mul, add, tanh, sub, sigmoid: each
// with a fused gradient formula) on 1,000 floats: eagerly one dispatch per op and per gradient
// step; compiled, the forward kernel (keeping tanh's and sigmoid's results) and one gradient kernel.
{
  sg.setBackend('webgpu');
  const x = sg.randn([1000], { requiresGrad: true }), b = sg.rand([1000]);
  const loss = (v) => {
    let h = v;
    for (let i = 0; i < 10; i++) h = h.mul(0.9).add(b).tanh().sub(v.mul(0.1)).sigmoid();
    return h.sum();
  };
  const compiled = sg.compile(loss);
  const step = (f) => () => {
    f(x).backward();
    x.grad = null;
  };
  await timeCompiled('chain_60ops_1000_fwd_bwd', step(loss), step(compiled));
  compiled.clear();
  sg.dispose([x, b]);
}

// tfjs-backend-webgpu on the same GPU (navigator.gpu set to it for tfjs), after simdgrad's runs.
const tfjs = args.includes('--no-tfjs') ? { why: '--no-tfjs' } : await loadTfjsWebgpu(gpu);
if (tfjs.tf) {
  for (const w of tfjsWorkloads(tfjs.tf, sizes)) {
    const ms = await w.time(quick);
    rows.push({ workload: w.name, device: 'tfjs-webgpu', ms, gflops: w.flops ? w.flops / ms / 1e6 : undefined });
  }
}

const adapter = await (gpu ?? globalThis.navigator.gpu).requestAdapter();
const info = adapter?.info ?? {};
const adapterName = [info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(' / ') || '?';
console.log(`simdgrad WebGPU bench · adapter ${adapterName} · CPU ${os.cpus()[0]?.model} · ${new Date().toISOString()}`);
if (/swiftshader|llvmpipe|lavapipe/i.test(adapterName)) console.log('WARNING: a CPU-emulated adapter (no GPU found): these numbers say nothing about a GPU');
const peak = peakOf(adapterName);
if (report) {
  const lim = adapter?.limits ?? {};
  console.log(`features: ${[...(adapter?.features ?? [])].sort().join(', ') || 'none'}`);
  console.log(`limits: maxComputeInvocationsPerWorkgroup ${lim.maxComputeInvocationsPerWorkgroup}, maxComputeWorkgroupStorageSize ${lim.maxComputeWorkgroupStorageSize}, maxStorageBufferBindingSize ${lim.maxStorageBufferBindingSize}`);
  console.log(peak ? `fp32 peak of this GPU: ${peak.fp32} GFLOP/s (${peak.source})` : 'fp32 peak of this GPU: not in lib/gpu_peaks.mjs (no fraction printed)');
  // Float16 compute: simdgrad keeps float16 tensors but computes in float32 on every backend
  // (npm/README, Dtypes), so there is no f16 product of its own to time yet.
  console.log(`matmul f16: not run: simdgrad computes float16 tensors in float32 (adapter shader-f16: ${adapter?.features?.has?.('shader-f16') ? 'yes' : 'no'})`);
}
for (const n of rawNotes) console.log(n);
if (!tfjs.tf) console.log(`tfjs-backend-webgpu not compared: ${tfjs.why}`);
else console.log(`tfjs ${tfjs.tf.version_core} (tfjs-backend-webgpu) on the same adapter`);
console.log('workload         device           median ms   GFLOP/s   simdgrad webgpu / this');
const mine = (w) => rows.find((r) => r.workload === w && r.device === 'webgpu')?.ms;
for (const r of rows) {
  const ratio = r.device === 'webgpu' || !mine(r.workload) ? '' : (r.ms / mine(r.workload)).toFixed(2) + '×';
  const extra = r.dispatches === undefined ? '' : `   ${r.dispatches.toFixed(0)} dispatches per call`;
  const ofPeak = peak && r.gflops && r.device !== 'wasm' ? `   ${((100 * r.gflops) / peak.fp32).toFixed(1)} % of fp32 peak` : '';
  console.log(`${r.workload.padEnd(16)} ${r.device.padEnd(15)} ${r.ms.toFixed(2).padStart(10)}   ${r.gflops ? r.gflops.toFixed(2).padStart(7) : ''.padStart(7)}   ${ratio}${extra}${ofPeak}`);
}
console.log(JSON.stringify({ bench: 'webgpu', rows }));
process.exit(0);
