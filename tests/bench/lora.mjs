// node tests/bench/lora.mjs [--steps 5] [--layers 4] [--hidden 256] [--batch 4] [--seq 128]
// One fine-tuning step (forward, next-token loss, backward, AdamW) of a small random Llama
// (LlamaForCausalLM, GQA), three ways side by side: full fine-tuning (every parameter), LoRA
// (sg.peft.getPeftModel, r 8 on q/k/v/o_proj, AdamW over the adapters only), and LoRA with
// model.gradientCheckpointingEnable(). Reports wall ms per step (median after a warm-up step),
// tokens/s (batch·seq per step), the parameters trained, and the peak bytes of live tensors over a
// step above what the model holds (sg.memory().peakBytes). Then greedy generate with the key/value
// cache against a full recompute per token. wasm backend, 1 thread. When /usr/bin/python3 has
// torch, PyTorch's full and LoRA steps on the same shapes (torch/llama_lora_step.py, one thread)
// are printed beside them. Measures, asserts nothing. Issue 23's rows at GPT-2-124M's size (PyTorch
// beside it, a bfloat16 base, checkpointing, generation to 512 positions) are lora_gpt2.mjs's.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { init } from '../../npm/dist/index.mjs';
import { slowBlas } from './lib/torch.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const steps = opt('steps', 5);
const layers = opt('layers', 4);
const hidden = opt('hidden', 256);
const B = opt('batch', 4);
const T = opt('seq', 128);
const vocab = 2048;

const sg = await init();
const config = {
  vocab_size: vocab, hidden_size: hidden, intermediate_size: Math.round((hidden * 8) / 3 / 32) * 32, num_hidden_layers: layers,
  num_attention_heads: 8, num_key_value_heads: 4, max_position_embeddings: 1024,
};

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function run(kind) {
  sg.manualSeed(1);
  const model = new sg.models.LlamaForCausalLM(config);
  if (kind !== 'full') sg.peft.getPeftModel(model, { r: 8, loraAlpha: 16, targetModules: ['q_proj', 'k_proj', 'v_proj', 'o_proj'] });
  if (kind === 'lora+ckpt') model.gradientCheckpointingEnable();
  const params = model.parameters().filter((p) => p.requiresGrad);
  const opt = new sg.optim.AdamW(params, { lr: 1e-4 });
  const ids = sg.randint(0, vocab, [B, T]).to('int32');
  const step = () => {
    sg.tidy(() => {
      const logits = model.forward(ids);
      sg.F.crossEntropy(logits.narrow(1, 0, T - 1).reshape([-1, vocab]), ids.narrow(1, 1, T - 1).reshape([-1])).backward();
    });
    opt.step();
    opt.zeroGrad();
  };
  step(); // warm-up (and the optimizer's state)
  const held = sg.memory().bytes;
  sg.resetPeakMemory();
  const times = [];
  for (let i = 0; i < steps; i++) {
    const t0 = performance.now();
    step();
    times.push(performance.now() - t0);
  }
  const peak = sg.memory().peakBytes - held;
  const { trainable, total } = sg.peft.trainableParameters(model);
  ids.dispose();
  model.dispose();
  return { ms: median(times), trainable, total, peak };
}

console.log(`LlamaForCausalLM: ${layers} layers, hidden ${hidden}, 8 heads (4 kv), vocab ${vocab}; batch ${B} × ${T} tokens; wasm, 1 thread; ${os.cpus()[0]?.model ?? ''}, load ${os.loadavg()[0].toFixed(1)}`);
// PyTorch first (its own process), so the two do not share the core at once.
const torch = spawnSync('/usr/bin/python3', [new URL('./torch/llama_lora_step.py', import.meta.url).pathname, JSON.stringify({ config, batch: B, seq: T, steps })], { encoding: 'utf8', timeout: 900_000 });
let torchMs = null;
if (torch.status === 0) {
  torchMs = JSON.parse(torch.stdout.trim().split('\n').at(-1));
  const noYardstick = slowBlas(torchMs);
  if (noYardstick) {
    console.log(`(PyTorch not shown: ${noYardstick})`);
    torchMs = null;
  }
}
else console.log(`(PyTorch not measured: ${torch.error?.message ?? torch.stderr.trim().split('\n').at(-1)})`);
console.log('step              ms/step   tokens/s   trained / total params   peak MB above the model   PyTorch 1.13 ms/step (tokens/s)');
for (const kind of ['full', 'lora', 'lora+ckpt']) {
  let r;
  try {
    r = run(kind);
  } catch (e) {
    console.log(`${kind.padEnd(16)} failed: ${e.message}`);
    continue;
  }
  const t = torchMs && { full: torchMs.full_ms, lora: torchMs.lora_ms }[kind];
  const torchCol = t ? `${t.toFixed(0).padStart(12)} (${((B * T) / (t / 1000)).toFixed(0)})` : '';
  console.log(`${kind.padEnd(16)} ${r.ms.toFixed(0).padStart(8)} ${((B * T) / (r.ms / 1000)).toFixed(0).padStart(10)}   ${String(r.trainable).padStart(9)} / ${String(r.total).padEnd(12)} ${(r.peak / 2 ** 20).toFixed(1).padStart(8)}              ${torchCol}`);
}

// Generation: the cache makes a step one position; a recompute runs the whole sequence.
sg.manualSeed(2);
const model = new sg.models.LlamaForCausalLM(config).eval();
const prompt = sg.randint(0, vocab, [1, 16]).to('int32');
for (const n of [64, 256]) {
  let t0 = performance.now();
  (await model.generate(prompt, { maxNewTokens: n })).dispose();
  const cached = (performance.now() - t0) / n;
  t0 = performance.now();
  let seq = prompt.clone();
  const m = Math.min(n, 64);
  for (let i = 0; i < m; i++) {
    const next = sg.noGrad(() => sg.tidy(() => {
      const l = model.forward(seq);
      return sg.cat([seq, l.select(1, l.shape[1] - 1).argmax(-1).view([1, 1])], 1);
    }));
    seq.dispose();
    seq = next;
  }
  seq.dispose();
  const full = (performance.now() - t0) / m;
  console.log(`generate ${n} tokens after 16: cached ${cached.toFixed(1)} ms/token (${(1000 / cached).toFixed(0)} tokens/s); full recompute ${full.toFixed(1)} ms/token over the first ${m}`);
}
model.dispose();
prompt.dispose();
