// Convergence: the whole training stack (nn layers, losses, autograd, optimizers, schedulers,
// DataLoader) learns real tasks, fast enough for CI:
//   - a 2-layer MLP fits a smooth function to MSE < 1e-3 (Adam)
//   - an MLP reaches ≥ 95 % held-out accuracy on the MNIST split (8,000 / 2,000 digits)
//   - a small Transformer encoder learns to reverse short token sequences (≥ 95 % token accuracy)
// Seeds are fixed (sg.manualSeed, DataLoader seeds), so every run is the same run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';

const { nn, F } = sg;

test('a 2-layer MLP fits y = sin(3x₁)·cos(2x₂) to MSE < 1e-3', () => {
  sg.manualSeed(0);
  const model = new nn.Sequential(new nn.Linear(2, 64), new nn.Tanh(), new nn.Linear(64, 1));
  const x = sg.rand([128, 2]).mul(2).sub(1);
  const y = sg.tidy(() => x.narrow(1, 0, 1).mul(3).sin().mul(x.narrow(1, 1, 1).mul(2).cos()));
  const opt = new sg.optim.Adam(model.parameters(), { lr: 0.01 });
  const sched = new sg.optim.lrScheduler.ReduceLROnPlateau(opt, { patience: 50, factor: 0.5 });
  let loss = Infinity;
  for (let step = 0; step < 3000 && loss >= 1e-3; step++) {
    loss = sg.tidy(() => {
      opt.zeroGrad();
      const l = F.mseLoss(model(x), y);
      l.backward();
      opt.step();
      return l.item();
    });
    sched.step(loss);
  }
  assert.ok(loss < 1e-3, `final MSE ${loss}`);
  sg.dispose([x, y]);
  model.dispose();
  opt.dispose();
});

test('an MLP reaches ≥ 95 % held-out accuracy on the MNIST split', async () => {
  sg.manualSeed(0);
  const digits = await sg.datasets.mnist(); // 8,000 / 2,000
  // Inputs standardized with MNIST's usual mean and std.
  const [train, held] = [digits.train, digits.test].map(({ x, y }) => ({ x: sg.tidy(() => x.sub(0.1307).div(0.3081)), y }));
  sg.dispose([digits.train.x, digits.test.x]);
  const model = new nn.Sequential(new nn.Flatten(), new nn.Linear(784, 256), new nn.ReLU(), new nn.Dropout(0.2), new nn.Linear(256, 10));
  const epochs = 8;
  const loader = new sg.data.DataLoader(train, { batchSize: 64, shuffle: true, seed: 0 });
  const opt = new sg.optim.Adam(model.parameters(), { lr: 5e-3 });
  const sched = new sg.optim.lrScheduler.OneCycleLR(opt, 5e-3, { epochs, stepsPerEpoch: loader.length });
  for (let e = 0; e < epochs; e++) {
    for (const b of loader) {
      sg.tidy(() => {
        opt.zeroGrad();
        F.crossEntropy(model(b.x), b.y, { labelSmoothing: 0.1 }).backward();
        opt.step();
      });
      sched.step();
      sg.dispose(b);
    }
  }
  model.eval();
  const correct = sg.tidy(() => sg.noGrad(() => model(held.x).argmax(1).eq(held.y).sum().item()));
  const accuracy = (100 * correct) / held.y.shape[0];
  assert.ok(accuracy >= 95, `held-out accuracy ${accuracy}%`);
  sg.dispose([train, held]);
  model.dispose();
  opt.dispose();
});

test('a Transformer encoder learns to reverse sequences (≥ 95 % token accuracy on new sequences)', () => {
  sg.manualSeed(0);
  const V = 8; // tokens 0..7
  const L = 6; // sequence length
  const D = 32;
  class Reverser extends nn.Module {
    constructor() {
      super();
      this.tok = new nn.Embedding(V, D);
      this.pos = new nn.Embedding(L, D);
      this.encoder = new nn.TransformerEncoder(
        new nn.TransformerEncoderLayer(D, 4, { dimFeedforward: 64, dropout: 0, batchFirst: true }),
        2,
      );
      this.head = new nn.Linear(D, V);
    }
    forward(tokens) {
      const positions = sg.arange(0, L, 1, { dtype: 'int32' });
      return this.head(this.encoder(this.tok(tokens).add(this.pos(positions))));
    }
  }
  const model = new Reverser();
  const batch = (n) => {
    const src = sg.randint(0, V, [n, L]);
    return { src, tgt: sg.tidy(() => src.indexSelect(1, sg.tensor(Int32Array.from({ length: L }, (_, i) => L - 1 - i), { shape: [L] }))) };
  };
  const steps = 600;
  const opt = new sg.optim.AdamW(model.parameters(), { lr: 3e-3, weightDecay: 0 });
  const sched = new sg.optim.lrScheduler.OneCycleLR(opt, 3e-3, { totalSteps: steps, pctStart: 0.1 });
  for (let step = 0; step < steps; step++) {
    const { src, tgt } = batch(64);
    sg.tidy(() => {
      opt.zeroGrad();
      F.crossEntropy(model(src).reshape(-1, V), tgt.reshape(-1)).backward();
      sg.nn.utils.clipGradNorm_(model.parameters(), 1.0);
      opt.step();
    });
    sched.step();
    sg.dispose([src, tgt]);
  }
  model.eval();
  const { src, tgt } = batch(500);
  const accuracy = sg.tidy(() => sg.noGrad(() => model(src).argmax(-1).eq(tgt).float().mean().item())) * 100;
  assert.ok(accuracy >= 95, `token accuracy ${accuracy}%`);
  sg.dispose([src, tgt]);
  model.dispose();
  opt.dispose();
});
