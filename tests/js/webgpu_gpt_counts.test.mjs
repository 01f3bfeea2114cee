// The nanoGPT-shaped train step on WebGPU (Dawn on SwiftShader, webgpu_env.mjs), counted: the
// dispatches of one step (337 before issue 29: a batched matmul over head views was 8 dispatches
// of 4 matrices, every LayerNorm 12 ops forward and 13 backward, AdamW one dispatch a parameter;
// the optimizer's own count is asserted apart: 1), at most 2 submits a step, no
// GPU buffer created after warm-up, and a bounded pipeline count while the sequence length
// varies. Asserts counts, never times. The kernels that cut the count are checked against the
// reference backend in webgpu_layer_norm.test.mjs and webgpu_gemm.test.mjs.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { gpu, why } from './webgpu_env.mjs';
import { init } from '../../npm/dist/index.mjs';
import { ADAMW, GPT, gptData, sgGpt } from '../bench/lib/gpt.mjs';

const skip = gpu ? false : why;
const sg = gpu ? await init({ backend: 'webgpu', gpu }) : await init();
after(() => {
  sg.setBackend('wasm');
  if (gpu) setTimeout(() => process.exit(process.exitCode ?? 0), 100); // Dawn keeps Node alive otherwise
});

// Dispatches of one bench GPT train step before issue 29's kernels (measured on SwiftShader with
// the same model, data and AdamW: 109 GEMM, 28 Adam, 125 of the composed LayerNorms, 75 other).
// Since: 157 (batched head-view GEMMs, LayerNorm kernels), then 124 (AdamW over the 28
// parameters as one multi-tensor dispatch; each MLP's GELU and the residual adds of the
// projections in their products' write-back).
const DISPATCHES_BEFORE = 337;

/** The bench's GPT (tests/bench/lib/gpt.mjs) with its data and AdamW, on the active backend. */
function gptSetup() {
  const d = gptData();
  const model = sgGpt(sg);
  sg.noGrad(() => model.parameters().forEach((p, i) => p.copy_(sg.tensor(d.params[i], { shape: p.shape }))));
  const opt = new sg.optim.AdamW(model.parameters(), { lr: ADAMW.lr, betas: ADAMW.betas, eps: ADAMW.eps, weightDecay: ADAMW.weightDecay });
  const idx = sg.tensor(d.idx, { shape: [GPT.batch, GPT.block] });
  const targets = sg.tensor(d.targets, { shape: [GPT.batch, GPT.block] });
  const step = () =>
    sg.tidy(() => {
      opt.zeroGrad();
      const l = model.forward(idx, targets);
      l.backward();
      opt.step();
      return l;
    });
  /** Dispatches of opt.step() alone, after a forward and backward. */
  const optimizerDispatches = async () => {
    const l = sg.tidy(() => {
      opt.zeroGrad();
      const loss = model.forward(idx, targets);
      loss.backward();
      return loss;
    });
    await sg.sync();
    const before = sg.webgpuStats().dispatches;
    opt.step();
    await sg.sync();
    l.dispose();
    return sg.webgpuStats().dispatches - before;
  };
  const dispose = () => {
    opt.zeroGrad();
    sg.dispose([idx, targets, model.pos, ...[...model.transformer.h.children()].map((b) => b.attn.mask), ...model.parameters()]);
  };
  return { step, optimizerDispatches, dispose };
}

test('GPT train step on webgpu: ≤ half the dispatches of before, ≤ 2 submits, no buffer created after warm-up, losses as wasm', { skip }, async (t) => {
  // The same three steps on wasm: their losses are the yardstick of the GPU's.
  sg.setBackend('wasm');
  const cpu = gptSetup();
  const want = [];
  for (let s = 0; s < 3; s++) {
    const l = cpu.step();
    want.push((await l.data())[0]);
    l.dispose();
  }
  cpu.dispose();

  sg.setBackend('webgpu');
  const gpuRun = gptSetup();
  const got = [];
  for (let s = 0; s < 3; s++) {
    const l = gpuRun.step();
    got.push((await l.data())[0]);
    l.dispose();
  }
  await sg.sync();
  const s0 = sg.webgpuStats();
  const N = 4;
  for (let s = 0; s < N; s++) gpuRun.step().dispose();
  await sg.sync();
  const s1 = sg.webgpuStats();
  const adamw = await gpuRun.optimizerDispatches();
  gpuRun.dispose();
  sg.setBackend('wasm');
  const per = (k) => (s1[k] - s0[k]) / N;
  t.diagnostic(`GPT train step on webgpu: ${per('dispatches')} dispatches (before issue 29: ${DISPATCHES_BEFORE}), ${per('submits')} submits, ` +
    `${s1.buffersCreated - s0.buffersCreated} buffers created after warm-up, ${s1.pipelines} pipelines, AdamW ${adamw} dispatch(es); losses ${got.join(', ')} (wasm ${want.join(', ')})`);
  for (let s = 0; s < 3; s++) assert.ok(Math.abs(got[s] - want[s]) <= 1e-4 * (1 + Math.abs(want[s])), `step ${s}: webgpu ${got[s]}, wasm ${want[s]}`);
  assert.ok(per('dispatches') <= DISPATCHES_BEFORE / 2, `${per('dispatches')} dispatches a step`);
  assert.ok(per('submits') <= 2, `${per('submits')} submits a step`);
  assert.equal(s1.buffersCreated, s0.buffersCreated, 'buffers created after warm-up');
  assert.equal(adamw, 1, 'AdamW over the 28 parameters: one multi-tensor dispatch');
});

test('sg.models.GPT train steps over varying sequence lengths: the pipeline count stops growing (kernels keyed by kind, not by shape)', { skip }, async (t) => {
  sg.setBackend('webgpu');
  sg.manualSeed(0);
  const model = new sg.models.GPT({ blockSize: GPT.block, vocabSize: GPT.vocab, nLayer: GPT.layers, nHead: GPT.heads, nEmbd: GPT.embd, dropout: 0, bias: true });
  const opt = new sg.optim.AdamW(model.parameters(), { lr: 1e-3 });
  const d = gptData();
  const idx = sg.tensor(d.idx, { shape: [GPT.batch, GPT.block] }), targets = sg.tensor(d.targets, { shape: [GPT.batch, GPT.block] });
  const lengths = [64, 5, 33, 1, 48, 17]; // six lengths: each pass costs a train step a length on SwiftShader
  const pass = async () => {
    for (const T of lengths) {
      sg.tidy(() => {
        opt.zeroGrad();
        model.forward(idx.narrow(1, 0, T).contiguous(), targets.narrow(1, 0, T).contiguous()).loss.backward();
        opt.step();
      });
    }
    await sg.sync();
    return sg.webgpuStats();
  };
  const a = await pass();
  const b = await pass();
  const c = await pass();
  opt.zeroGrad();
  sg.dispose([idx, targets, ...model.parameters()]);
  sg.setBackend('wasm');
  t.diagnostic(`pipelines after 1, 2, 3 passes over ${lengths.length} sequence lengths: ${a.pipelines}, ${b.pipelines}, ${c.pipelines}; ` +
    `buffers created ${a.buffersCreated}, ${b.buffersCreated}, ${c.buffersCreated}`);
  assert.equal(c.pipelines, a.pipelines, 'new pipelines for sequence lengths already seen');
  assert.equal(c.buffersCreated, b.buffersCreated, 'new buffers for sequence lengths already seen');
});
