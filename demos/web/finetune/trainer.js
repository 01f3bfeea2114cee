// Fine-tuning demo, training side (run by worker.js, or on the page by common/inline-host.js):
// a pretrained causal LM (the default: ./model/, a tiny Llama that train_base.py pretrained on
// nursery rhymes; or the files of a folder the user picked) gets LoRA adapters (sg.peft, r 8 on
// q/k/v/o_proj) and learns the user's text. The page tokenizes (sg.tokenizers runs where the
// import map resolves its library) and sends token ids; this side trains, generates with the
// key/value cache (model.generate) and saves the adapter in PEFT's format.

const MODEL_FILES = ['config.json', 'model.safetensors'];
const BATCH = 8;
const WINDOW = 64; // tokens per training window (shorter when the text is short)
const SAMPLE_TOKENS = 120;

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

async function defaultFiles() {
  const files = {};
  for (const name of MODEL_FILES) {
    const r = await fetch(new URL(`./model/${name}`, import.meta.url));
    if (!r.ok) throw new Error(`cannot fetch model/${name} (${r.status})`);
    files[name] = new Uint8Array(await r.arrayBuffer());
  }
  return files;
}

export const pacing = { reportMs: 1000 };

export async function createTrainer(sg, config) {
  const ids = Int32Array.from(config.ids ?? []);
  if (ids.length < 17) throw new Error(`the text is too short to train on: ${ids.length} tokens (at least 17)`);
  const T = Math.min(WINDOW, ids.length - 1);
  sg.manualSeed(config.seed ?? 0);
  const rand = rng(config.seed ?? 0);
  const model = await sg.models.fromPretrained(config.files ?? (await defaultFiles()));
  const prompt = Int32Array.from(config.promptIds ?? ids.slice(0, 8));

  async function sample(seed) {
    model.eval();
    sg.manualSeed(seed);
    const p = sg.tensor(prompt, { shape: [1, prompt.length] });
    const maxPos = model.config.max_position_embeddings ?? model.config.n_positions;
    const out = await model.generate(p, { maxNewTokens: Math.min(SAMPLE_TOKENS, maxPos - prompt.length), doSample: true, temperature: 0.7, topK: 20, eosTokenId: config.eosTokenId ?? null });
    const tokens = Array.from(await out.data());
    sg.dispose([p, out]);
    model.train();
    return tokens;
  }

  const before = await sample(1);
  sg.peft.getPeftModel(model, { r: config.r ?? 8, loraAlpha: config.alpha ?? 16, targetModules: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'c_attn', 'c_proj'].filter((t) => model.namedModules().some(([n]) => n.endsWith(`.${t}`))) });
  const counts = sg.peft.trainableParameters(model);
  const opt = new sg.optim.AdamW(model.parameters().filter((p) => p.requiresGrad), { lr: config.lr ?? 5e-3, weightDecay: 0 });
  let steps = 0;
  let sent = false;

  return {
    async step() {
      const xs = new Int32Array(BATCH * (T + 1));
      for (let b = 0; b < BATCH; b++) {
        const o = Math.floor(rand() * (ids.length - T));
        xs.set(ids.subarray(o, o + T + 1), b * (T + 1));
      }
      const loss = sg.tidy(() => {
        const x = sg.tensor(xs, { shape: [BATCH, T + 1] });
        const logits = model.forward(x.narrow(1, 0, T));
        const l = sg.F.crossEntropy(logits.reshape([-1, logits.shape[2]]), x.narrow(1, 1, T).reshape([-1]));
        l.backward();
        return l.detach();
      });
      opt.step();
      opt.zeroGrad();
      steps++;
      const value = (await loss.data())[0];
      loss.dispose();
      return value;
    },
    report() {
      const r = { tokensPerStep: BATCH * T, trainable: counts.trainable, total: counts.total, textTokens: ids.length, model: model.constructor.name };
      if (!sent) {
        sent = true;
        r.before = before;
      }
      return r;
    },
    async handle(name) {
      if (name === 'sample') return { step: steps, ids: await sample(1) };
      if (name === 'adapter') return sg.peft.saveAdapter(model);
      throw new Error(`finetune worker: unknown request '${name}'`);
    },
    transfer(name, result) {
      return name === 'adapter' ? [result['adapter_model.safetensors'].buffer] : [];
    },
    dispose() {
      model.dispose();
      opt.dispose();
    },
  };
}
