// A tiny character-level GPT (sg.models.GPT, nanoGPT's model) trained in Node on the nursery
// rhymes of the transformer web demo (demos/web/transformer/rhymes.txt, public domain), then
// sampled with model.generate. Single-threaded wasm; the default 500 steps take ~8 s.
//
// Usage: node demos/node/tiny_gpt.mjs [--steps 500] [--seed 0] [--sample 200]
// Prints the mean loss of every 25 steps, a sample, and a last line
// "loss: <first 25 steps' mean> -> <last 25 steps' mean>" (read by tests/js/models_demo.test.mjs).
import { readFileSync } from 'node:fs';
import { init } from '../../npm/dist/index.mjs';

function intArg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  const v = i < 0 ? fallback : Number(process.argv[i + 1]);
  if (!Number.isInteger(v) || v < 0) throw new Error(`--${name} must be an integer >= 0`);
  return v;
}
const STEPS = intArg('steps', 500);
const SEED = intArg('seed', 0);
const SAMPLE = intArg('sample', 200);
const BATCH = 16;
const REPORT = 25;

const sg = await init();
sg.manualSeed(SEED);

const text = readFileSync(new URL('../web/transformer/rhymes.txt', import.meta.url), 'utf8');
const chars = [...new Set(text)].sort();
const stoi = new Map(chars.map((c, i) => [c, i]));
const data = Int32Array.from(text, (c) => stoi.get(c));

const model = new sg.models.GPT({ vocabSize: chars.length, blockSize: 32, nLayer: 2, nHead: 4, nEmbd: 48, dropout: 0, bias: true });
// nanoGPT's configure_optimizers: weight decay on matrices and embeddings only.
const opt = new sg.optim.AdamW(model.optimizerGroups(0.1), { lr: 3e-3, betas: [0.9, 0.99] });
console.log(`${model.getNumParams().toLocaleString('en')} parameters, vocabulary ${chars.length}, ${text.length} characters`);

/** Random windows of blockSize characters and the characters that follow them (a seeded LCG). */
let state = SEED + 1;
function batch() {
  const T = model.config.blockSize;
  const x = new Int32Array(BATCH * T);
  const y = new Int32Array(BATCH * T);
  for (let b = 0; b < BATCH; b++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const o = state % (data.length - T - 1);
    x.set(data.subarray(o, o + T), b * T);
    y.set(data.subarray(o + 1, o + T + 1), b * T);
  }
  return [sg.tensor(x, { shape: [BATCH, T] }), sg.tensor(y, { shape: [BATCH, T] })];
}

const means = [];
let sum = 0;
const start = Date.now();
for (let step = 1; step <= STEPS; step++) {
  sum += sg.tidy(() => {
    const [x, y] = batch();
    opt.zeroGrad();
    const { loss } = model.forward(x, y);
    loss.backward();
    opt.step();
    return loss.item();
  });
  if (step % REPORT === 0) {
    means.push(sum / REPORT);
    console.log(`step ${String(step).padStart(4)}  loss ${(sum / REPORT).toFixed(4)}  (${((Date.now() - start) / 1000).toFixed(1)} s)`);
    sum = 0;
  }
}

model.eval();
const prompt = sg.tensor([[stoi.get('\n')]], { dtype: 'int32' });
const out = model.generate(prompt, SAMPLE, { temperature: 0.8, topK: 10 });
console.log(`sample (${SAMPLE} characters, temperature 0.8, topK 10):`);
console.log('---');
console.log(Array.from(out.dataSync().slice(1), (i) => chars[i]).join(''));
console.log('---');
if (means.length) console.log(`loss: ${means[0].toFixed(4)} -> ${means[means.length - 1].toFixed(4)}`);
out.dispose();
prompt.dispose();
model.dispose();
