// Playground demo, training side (run by worker.js, or on the page by common/inline-host.js): an
// MLP classifying 2-D points, full batch, with optional L1/L2 penalties on the weights; reports the
// decision surface on a GRID×GRID lattice.
import { makeDataset } from './datasets.js';

const GRID = 100;
const TRAIN = 400;
const TEST = 200;

/** The lattice covering [-1.1, 1.1]², row-major from the top-left corner (y decreasing). */
function lattice() {
  const g = new Float32Array(GRID * GRID * 2);
  for (let r = 0; r < GRID; r++) {
    for (let c = 0; c < GRID; c++) {
      g[(r * GRID + c) * 2] = -1.1 + (2.2 * (c + 0.5)) / GRID;
      g[(r * GRID + c) * 2 + 1] = 1.1 - (2.2 * (r + 0.5)) / GRID;
    }
  }
  return g;
}

function activation(nn, name) {
  switch (name) {
    case 'tanh': return new nn.Tanh();
    case 'relu': return new nn.ReLU();
    case 'leakyRelu': return new nn.LeakyReLU(0.1);
    case 'sigmoid': return new nn.Sigmoid();
    case 'gelu': return new nn.GELU();
    default: throw new Error(`playground: unknown activation '${name}'`);
  }
}

function optimizer(optim, name, params, lr) {
  switch (name) {
    case 'sgd': return new optim.SGD(params, { lr });
    case 'momentum': return new optim.SGD(params, { lr, momentum: 0.9 });
    case 'adam': return new optim.Adam(params, { lr });
    case 'rmsprop': return new optim.RMSprop(params, { lr });
    case 'adagrad': return new optim.Adagrad(params, { lr });
    default: throw new Error(`playground: unknown optimizer '${name}'`);
  }
}

// A step takes well under a millisecond: 8 steps then a 40 ms rest (~150 steps/s) makes the
// boundary's motion visible, and each chunk ends with a fresh surface.
export const pacing = { maxChunkSteps: 8, restMs: 40, reportMs: 0 };

export function createTrainer(sg, c) {
  const { nn, F } = sg;
  sg.manualSeed(c.seed ?? 1);
  const train = makeDataset(c.dataset, TRAIN, c.noise, 1000 + (c.seed ?? 1));
  const test = makeDataset(c.dataset, TEST, c.noise, 2000 + (c.seed ?? 1));
  const x = sg.tensor(train.x, { shape: [TRAIN, 2] });
  const y = sg.tensor(train.y, { shape: [TRAIN] });
  const tx = sg.tensor(test.x, { shape: [TEST, 2] });
  const grid = sg.tensor(lattice(), { shape: [GRID * GRID, 2] });

  const layers = [];
  let width = 2;
  for (let i = 0; i < c.depth; i++) {
    layers.push(new nn.Linear(width, c.width), activation(nn, c.activation));
    width = c.width;
  }
  layers.push(new nn.Linear(width, 2));
  const model = new nn.Sequential(...layers);
  // Penalties apply to the weight matrices only (not the biases), as usual.
  const weights = model.namedParameters().filter(([name]) => name.endsWith('weight')).map(([, p]) => p);
  const opt = optimizer(sg.optim, c.optimizer, model.parameters(), c.lr);
  let l1 = c.l1;
  let l2 = c.l2;
  let dataLoss = NaN;

  // One training step as a compiled graph (sg.compile): traced on the first call, then run in
  // C++ in one call. The penalties are arguments: another value of l1/l2 compiles another graph
  // (the `if`s below are decided when tracing). The lr is read by opt.step() on every call.
  const trainStep = sg.compile((l1, l2) => {
    opt.zeroGrad();
    const base = F.crossEntropy(model.forward(x), y);
    let loss = base;
    // sg.penalties: λ·Σ|w| and λ·Σw², on whatever device the weights live.
    if (l1 > 0) for (const w of weights) loss = loss.add(sg.penalties.l1(w, { lambda: l1 }));
    if (l2 > 0) for (const w of weights) loss = loss.add(sg.penalties.l2(w, { lambda: l2 }));
    loss.backward();
    opt.step();
    return [loss, base];
  });

  // Reads are awaited: on the 'webgpu' backend tensors live on the GPU (t.data() works everywhere).
  const accuracy = async (logits, labels) => {
    const pred = await logits.data();
    let hits = 0;
    for (let i = 0; i < labels.length; i++) if (pred[i] === labels[i]) hits++;
    return hits / labels.length;
  };

  return {
    async step() {
      const kept = sg.tidy(() => trainStep(l1, l2));
      const [total, data] = await Promise.all(kept.map(async (t) => (await t.data())[0]));
      sg.dispose(kept);
      dataLoss = data;
      return total;
    },
    async report() {
      model.eval();
      const [surfaceT, trainPred, testPred] = sg.noGrad(() =>
        sg.tidy(() => [model.forward(grid).softmax(1).narrow(1, 1, 1).contiguous(), model.forward(x).argmax(1), model.forward(tx).argmax(1)]),
      );
      model.train();
      const out = {
        surface: await surfaceT.data(),
        trainAcc: await accuracy(trainPred, train.y),
        testAcc: await accuracy(testPred, test.y),
      };
      sg.dispose([surfaceT, trainPred, testPred]);
      return { ...out, dataLoss, grid: GRID, points: train.x, labels: train.y, params: model.parameters().reduce((n, p) => n + p.numel, 0) };
    },
    handle(name, p) {
      if (name !== 'tune') throw new Error(`playground worker: unknown request '${name}'`);
      // Learning rate and penalties change live; everything else needs a new model (reset).
      for (const g of opt.paramGroups) g.lr = p.lr;
      l1 = p.l1;
      l2 = p.l2;
      return true;
    },
    dispose() {
      trainStep.clear();
      for (const t of [x, y, tx, grid]) t.dispose();
      model.dispose();
      opt.dispose();
    },
  };
}
