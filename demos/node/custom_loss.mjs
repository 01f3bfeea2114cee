// Fine-tuning through the linearization trick (sg.customLoss), in one process or against the
// remote trainer.
//
// A training service that only computes log-probabilities and trains on its own weighted
// cross-entropy (loss = −Σ w·logprob) can still train any custom loss L(logprobs): send it
// w = −∂L/∂logprobs. Here `sg.customLoss.localClient` plays that service with a tiny
// character-level transformer (Embedding → PositionalEncoding → one causal TransformerEncoderLayer
// → Linear) on the nursery rhymes of the web demo, and each fine-tuning step is
//   forward (log-probabilities [L, V] per sequence) → linearize (cross-entropy + an entropy
//   regularizer, here on the client) → forwardBackward(weights) on the "service" → Adam step,
// printing the telemetry of every step. The model is first pretrained briefly with plain
// cross-entropy; at the end, the protocol's parameter gradients are compared with those of
// total.backward() on the same model and batch.
//
// With --remote URL the service is the real trainer (trainer/, scripts/trainer.sh: PyTorch ranks
// behind HTTP) through `sg.customLoss.remoteClient`: its forward gives the log-probabilities of
// the target characters ([L] per sequence), the loss is their mean negative log-likelihood plus a
// confidence regularizer (the mean target probability, weighted by --entropy-weight), and each
// step is forwardBackwardCustom then the trainer's AdamW step (optimStep). The trainer's model must
// know the rhymes' characters: --write-model DIR writes a tiny GPT-2 folder for them.
//
// Usage: node demos/node/custom_loss.mjs [--steps 20] [--pretrain 150] [--entropy-weight 0.05]
//          [--grad symbolic|numerical] [--seed 0] [--backend wasm|reference]
//        node demos/node/custom_loss.mjs --write-model /tmp/rhymes-gpt2
//        bash scripts/trainer.sh --model /tmp/rhymes-gpt2 --nproc 2 --token secret   (prints its URL)
//        node demos/node/custom_loss.mjs --remote http://127.0.0.1:8765 --token secret [--steps 20] [--lr 3e-3]
// (numerical differentiates every log-probability by central differences: slow; try --steps 1.)
import { readFileSync } from 'node:fs';
import { init } from '../../npm/dist/index.mjs';

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  if (i + 1 >= process.argv.length) throw new Error(`--${name} needs a value`);
  return process.argv[i + 1];
}
const steps = Number(arg('steps', 20));
const pretrainSteps = Number(arg('pretrain', 150));
const entropyWeight = Number(arg('entropy-weight', 0.05));
const gradMethod = arg('grad', 'symbolic');
const seed = Number(arg('seed', 0));
if (!Number.isInteger(steps) || steps < 1 || !Number.isInteger(pretrainSteps) || pretrainSteps < 0) {
  throw new Error('--steps must be a positive integer and --pretrain a non-negative one');
}

const remote = arg('remote', null);
const token = arg('token', undefined);
const writeModel = arg('write-model', null);

const D_MODEL = 32;
const CONTEXT = 32;
const BATCH = 8;

const t0 = performance.now();
const sg = await init({ backend: arg('backend', 'wasm') });
sg.manualSeed(seed);
const { nn } = sg;

// ---- data: characters of the rhymes, random windows of CONTEXT + 1 ----
const corpus = readFileSync(new URL('../web/transformer/rhymes.txt', import.meta.url), 'utf8');
const chars = [...new Set(corpus)].sort();
const ids = Int32Array.from(corpus, (c) => chars.indexOf(c));
const V = chars.length;
let state = seed + 1;
const random = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32);

/** A batch: inputs [BATCH, CONTEXT] (int32) and, per sequence, the next characters. */
function batch() {
  const xs = new Int32Array(BATCH * CONTEXT);
  const targets = [];
  for (let b = 0; b < BATCH; b++) {
    const o = Math.floor(random() * (ids.length - CONTEXT - 1));
    xs.set(ids.subarray(o, o + CONTEXT), b * CONTEXT);
    targets.push(Array.from(ids.subarray(o + 1, o + CONTEXT + 1)));
  }
  return { x: sg.tensor(xs, { shape: [BATCH, CONTEXT] }), targets };
}

if (writeModel !== null) {
  // A tiny GPT-2 for the trainer, its vocabulary the rhymes' characters (Hugging Face layout).
  const { mkdirSync, writeFileSync } = await import('node:fs');
  const config = { model_type: 'gpt2', vocab_size: V, n_positions: 64, n_embd: 64, n_layer: 2, n_head: 4, resid_pdrop: 0, embd_pdrop: 0, attn_pdrop: 0 };
  const gpt2 = new sg.models.GPT2LMHeadModel(config);
  const sd = gpt2.stateDict();
  delete sd['lm_head.weight']; // tied to transformer.wte.weight; HF leaves it out of the file
  mkdirSync(writeModel, { recursive: true });
  writeFileSync(`${writeModel}/config.json`, JSON.stringify(config, null, 1));
  writeFileSync(`${writeModel}/model.safetensors`, sg.save(sd));
  console.log(`wrote ${writeModel}/config.json and model.safetensors (GPT-2, ${V} characters, ${gpt2.parameters().reduce((n, p) => n + p.numel, 0)} parameters)`);
  console.log(`next: bash scripts/trainer.sh --model ${writeModel} --nproc 2 --token secret, then --remote <its URL> --token secret`);
  process.exit(0);
}

if (remote !== null) {
  await trainRemote();
  process.exit(0);
}

/** The protocol against the trainer: character data as { inputIds, targets }, its AdamW step after each round trip. */
async function trainRemote() {
  const client = sg.customLoss.remoteClient(remote, { token, timeoutMs: Number(arg('timeout-ms', 60000)) });
  const health = await client.health();
  console.log(`simdgrad ${sg.version} · trainer ${remote}: ${health.modelType}, ${health.parameters} parameters, ${health.ranks} rank(s), step ${health.step} · ${V} characters`);
  const lr = Number(arg('lr', 3e-3));
  const sequences = () =>
    Array.from({ length: BATCH }, () => {
      const o = Math.floor(random() * (ids.length - CONTEXT - 1));
      return { inputIds: Array.from(ids.subarray(o, o + CONTEXT)), targets: Array.from(ids.subarray(o + 1, o + CONTEXT + 1)) };
    });
  /** Mean negative log-likelihood of the target characters. */
  const nll = (lps) => [lps.map((t) => t.sum()).reduce((a, b) => a.add(b)).neg().div(BATCH * CONTEXT), { tokens: BATCH * CONTEXT }];
  /** The mean probability given to the targets: a penalty on overconfidence (what is known of the distribution remotely). */
  const confidence = sg.customLoss.regularizer('confidence', entropyWeight, (lps) => {
    const p = lps.map((t) => t.exp().sum()).reduce((a, b) => a.add(b)).div(BATCH * CONTEXT);
    return [p, { mean_p: p }];
  });
  const remoteOptions = { baseLoss: nll, regularizers: [confidence], gradMethod };
  try {
    for (let s = 1; s <= steps; s++) {
      const data = sequences();
      const t0 = performance.now();
      const { metrics: m, loss } = await sg.customLoss.forwardBackwardCustom(client, data, remoteOptions);
      const { step, metrics: o } = await client.optimStep({ lr });
      const r = m.regularizers.confidence;
      console.log(
        `step ${String(s).padStart(2)} (trainer ${step})  loss_total ${m.loss_total.toFixed(4)}  base_loss ${m.base_loss.value.toFixed(4)}  ` +
          `regularizers.confidence ${r.value.toFixed(4)} × ${r.weight} = ${r.contribution.toFixed(4)}  ` +
          `${m.gradient_method} gradient ${m.gradient_duration_ms.toFixed(1)} ms  trainer loss ${loss.toFixed(3)} in ${(m.seconds * 1000).toFixed(0)} ms  ` +
          `|g| ${o.gradNorm.toExponential(2)}  round trip ${(performance.now() - t0).toFixed(0)} ms`,
      );
    }
    const prompt = Array.from(ids.subarray(0, 8));
    const out = await client.sample(prompt, { maxNewTokens: 40, temperature: 0 });
    console.log(`\ngreedy sample: ${JSON.stringify([...out.dataSync()].map((i) => chars[i]).join(''))}`);
    out.dispose();
  } finally {
    client.close();
  }
  console.log(`done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

// ---- model ----
class CharTransformer extends nn.Module {
  constructor() {
    super();
    this.embed = new nn.Embedding(V, D_MODEL);
    this.pos = new nn.PositionalEncoding(D_MODEL, { maxLen: CONTEXT, dropout: 0, batchFirst: true });
    this.block = new nn.TransformerEncoderLayer(D_MODEL, 2, { dimFeedforward: 2 * D_MODEL, dropout: 0, batchFirst: true, normFirst: true });
    this.head = new nn.Linear(D_MODEL, V);
  }
  /** ids [N, L] → logits [N, L, V]; position i sees positions ≤ i. */
  forward(x) {
    return sg.tidy(() => this.head.forward(this.block.forward(this.pos.forward(this.embed.forward(x)), { isCausal: true })));
  }
}
const model = new CharTransformer();
const opt = new sg.optim.Adam(model.parameters(), { lr: 3e-3 });
const nParams = model.parameters().reduce((n, p) => n + p.numel, 0);
console.log(`simdgrad ${sg.version} · backend ${sg.getBackend()} · ${V} characters · model ${nParams} parameters`);

// ---- phase 1: plain cross-entropy ----
for (let s = 1; s <= pretrainSteps; s++) {
  const { x, targets } = batch();
  const loss = sg.tidy(() => {
    opt.zeroGrad();
    const logits = model.forward(x).reshape([BATCH * CONTEXT, V]);
    const l = sg.F.crossEntropy(logits, targets.flat());
    l.backward();
    opt.step();
    return l.item();
  });
  x.dispose();
  if (s === pretrainSteps) console.log(`pretrained ${pretrainSteps} steps with cross-entropy: loss ${loss.toFixed(4)}\n`);
}

// ---- phase 2: the remote-training protocol ----
/** What the service returns: log-probabilities [CONTEXT, V] per sequence of the batch. */
const tokensToLogprobs = (m, data) => sg.tidy(() => m.forward(data.x).logSoftmax(-1).chunk(BATCH, 0).map((t) => t.reshape([CONTEXT, V])));
const service = sg.customLoss.localClient(model, tokensToLogprobs);

/** Mean next-character cross-entropy over the batch: the base loss, computed on the client. */
const crossEntropy = (lps, data) => {
  const nll = lps.map((lp, i) => lp.gather(1, data.targets[i].map((t) => [t])).sum()).reduce((a, b) => a.add(b));
  return [nll.neg().div(BATCH * CONTEXT), { tokens: BATCH * CONTEXT }];
};
/** −H of the predicted distributions (mode 'maximize'): keeps the model from growing overconfident. */
const entropy = sg.customLoss.regularizer('entropy', entropyWeight, (lps) => {
  const h = lps.map((lp) => sg.penalties.entropy(lp)).reduce((a, b) => a.add(b)).div(lps.length);
  return [h, { entropy_nats: h.neg() }];
});
const options = { baseLoss: crossEntropy, regularizers: [entropy], gradMethod };

const entropies = [];
const unsubscribe = sg.telemetry.on('regularizer', (e) => entropies.push(e.entropy_nats));
for (let s = 1; s <= steps; s++) {
  const data = batch();
  opt.zeroGrad();
  const { metrics: m, loss } = await sg.customLoss.forwardBackwardCustom(service, data, options);
  opt.step();
  data.x.dispose();
  const r = m.regularizers.entropy;
  console.log(
    `step ${String(s).padStart(2)}  loss_total ${m.loss_total.toFixed(4)}  base_loss ${m.base_loss.value.toFixed(4)}  ` +
      `regularizers.entropy ${r.value.toFixed(4)} × ${r.weight} = ${r.contribution.toFixed(4)}  ` +
      `${m.gradient_method} gradient ${m.gradient_duration_ms.toFixed(1)} ms  service loss ${loss.toFixed(4)}`,
  );
}
unsubscribe();
console.log(`\npredictive entropy: ${entropies[0].toFixed(3)} → ${entropies[entropies.length - 1].toFixed(3)} nats (uniform: ${Math.log(V).toFixed(3)})`);

// ---- check: the protocol trains exactly what total.backward() would ----
const data = batch();
// Inside tidy: the .grad wrappers made by reading are freed (the gradients stay on the parameters).
const grads = () => sg.tidy(() => model.parameters().map((p) => p.grad.dataSync()));
opt.zeroGrad();
sg.tidy(() => {
  const lps = tokensToLogprobs(model, data);
  const [base] = crossEntropy(lps, data);
  const [reg] = entropy.fn(lps, data);
  base.add(reg.mul(entropyWeight)).backward();
});
const direct = grads();
opt.zeroGrad();
await sg.customLoss.forwardBackwardCustom(service, data, { ...options, gradMethod: 'symbolic' });
const viaProtocol = grads();
let maxDiff = 0;
direct.forEach((g, i) => g.forEach((v, j) => (maxDiff = Math.max(maxDiff, Math.abs(v - viaProtocol[i][j])))));
console.log(`protocol vs direct autograd: max |Δgrad| = ${maxDiff.toExponential(2)} over ${nParams} parameters`);
data.x.dispose();
opt.zeroGrad();
model.dispose();
opt.dispose();
console.log(`done in ${((performance.now() - t0) / 1000).toFixed(1)} s · tensors alive: ${sg.memory().tensors}`);
