// Tiny transformer demo, training side (run by worker.js, or on the page by common/inline-host.js):
// a character-level language model — sg.models.GPT, nanoGPT's model — trained on rhymes.txt
// with next-character cross-entropy, writing samples as it learns.

const D_MODEL = 48;
const HEADS = 4;
const LAYERS = 2;
const CONTEXT = 48; // characters per training window (and the longest context when sampling)
const BATCH = 16;
// A sample costs one forward pass per character (3–30 ms each, with the machine's load), so an
// automatic sample is written a few characters per report (reports come every ~0.7 s) instead
// of in one go, which paused training for seconds. Training goes on between the pieces: the
// sample is labelled with the step it started at. The untrained model's sample is shorter.
const SAMPLE_EVERY = 100; // steps between automatic samples
const SAMPLE_CHARS = 100;
const SAMPLE_CHARS_PER_REPORT = 12;

let textPromise = null;
function loadText() {
  textPromise ??= fetch(new URL('./rhymes.txt', import.meta.url)).then((r) => {
    if (!r.ok) throw new Error(`cannot fetch rhymes.txt (${r.status})`);
    return r.text();
  });
  textPromise.catch(() => (textPromise = null));
  return textPromise;
}

/** mulberry32: seeded window positions, so a reset replays the same run. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** nanoGPT's model (sg.models.GPT): token + position embeddings, pre-norm causal blocks, tied LM head. */
function makeModel(sg, vocab) {
  return new sg.models.GPT({ vocabSize: vocab, blockSize: CONTEXT, nLayer: LAYERS, nHead: HEADS, nEmbd: D_MODEL, dropout: 0, bias: true });
}

export const pacing = {};

export async function createTrainer(sg, config) {
  const corpus = await loadText();
  const chars = [...new Set(corpus)].sort();
  const index = new Map(chars.map((c, i) => [c, i]));
  const ids = Int32Array.from(corpus, (c) => index.get(c));
  const V = chars.length;
  sg.manualSeed(config.seed ?? 0);
  const rand = rng(config.seed ?? 0);
  const model = makeModel(sg, V);
  const opt = new sg.optim.Adam(model.parameters(), { lr: config.lr ?? 3e-3 });
  const params = model.parameters().reduce((n, p) => n + p.numel, 0);
  let steps = 0;
  let sampledAt = -Infinity;
  let pending = null; // the automatic sample being written: { step, ids, start, left }

  // One training step as a compiled graph (sg.compile): forward, loss, backward, gradient clipping
  // and the Adam step, run in C++ in one call once traced (the clipping and the optimizer step
  // run in place on every call).
  const trainStep = sg.compile((x, y) => {
    opt.zeroGrad();
    const l = model.forward(x, y).loss;
    l.backward();
    sg.nn.utils.clipGradNorm_(model.parameters(), 1.0);
    opt.step();
    return l;
  });

  /** A sample in progress: the prompt's ids (a newline when none of its characters is known). */
  function begin(prompt) {
    const ids = [...prompt].filter((c) => index.has(c)).map((c) => index.get(c));
    if (!ids.length) ids.push(index.get('\n') ?? 0);
    return { ids, start: ids.length };
  }

  /** Appends n characters drawn from the model at this temperature. */
  // Reads are awaited: on the 'webgpu' backend tensors live on the GPU (t.data() works everywhere).
  async function extend(state, n, temperature) {
    model.eval();
    {
      for (let k = 0; k < n; k++) {
        const ctx = state.ids.slice(-CONTEXT);
        const probsT = sg.noGrad(() =>
          sg.tidy(() => {
            // Without targets GPT gives the logits of the last position only ([1, 1, V]).
            const { logits } = model.forward(sg.tensor(Int32Array.from(ctx), { shape: [1, ctx.length] }));
            return logits.reshape([V]).div(temperature).softmax(0);
          }),
        );
        const probs = await probsT.data();
        probsT.dispose();
        let r = rand();
        let c = 0;
        while (c < V - 1 && (r -= probs[c]) > 0) c++;
        state.ids.push(c);
      }
    }
    model.train();
  }

  const text = (state) => ({
    prompt: state.ids.slice(0, state.start).map((i) => chars[i]).join(''),
    text: state.ids.slice(state.start).map((i) => chars[i]).join(''),
  });

  async function generate(prompt, n, temperature) {
    const state = begin(prompt);
    await extend(state, n, temperature);
    return text(state);
  }

  return {
    async step() {
      const xs = new Int32Array(BATCH * CONTEXT);
      const ys = new Int32Array(BATCH * CONTEXT);
      for (let b = 0; b < BATCH; b++) {
        const o = Math.floor(rand() * (ids.length - CONTEXT - 1));
        xs.set(ids.subarray(o, o + CONTEXT), b * CONTEXT);
        ys.set(ids.subarray(o + 1, o + CONTEXT + 1), b * CONTEXT);
      }
      const loss = sg.tidy(() => trainStep(sg.tensor(xs, { shape: [BATCH, CONTEXT] }), sg.tensor(ys, { shape: [BATCH, CONTEXT] })));
      steps++;
      const value = (await loss.data())[0];
      loss.dispose();
      return value;
    },
    async report() {
      if (!pending && steps - sampledAt >= SAMPLE_EVERY) {
        pending = { step: steps, ...begin('\n'), left: steps ? SAMPLE_CHARS : 50 };
        sampledAt = steps;
      }
      let sample = null;
      if (pending) {
        const n = Math.min(pending.left, SAMPLE_CHARS_PER_REPORT);
        await extend(pending, n, 0.8);
        pending.left -= n;
        if (!pending.left) {
          sample = { step: pending.step, ...text(pending) };
          pending = null;
        }
      }
      return { sample, vocab: V, params, chars: corpus.length, context: CONTEXT };
    },
    async handle(name, p) {
      if (name !== 'sample') throw new Error(`transformer worker: unknown request '${name}'`);
      const n = Math.max(1, Math.min(400, p.chars | 0));
      const t = Math.max(0.05, Math.min(2, Number(p.temperature) || 0.8));
      return { step: steps, ...(await generate(p.prompt ?? '\n', n, t)) };
    },
    dispose() {
      trainStep.clear();
      model.dispose();
      opt.dispose();
    },
  };
}
