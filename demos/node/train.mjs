// The command-line training demo (scripts/demo.sh runs it): two small fits with autograd
// and plain SGD written with tensor ops, printing the loss as it falls.
//   1. linear regression: y = 3x - 2 + noise, learns w ≈ 3, b ≈ -2
//   2. a 2-layer MLP (1 → 32 → 1, tanh) fitting y = sin(3x) on [-1, 1], SGD with momentum
// Usage: node demos/node/train.mjs [--steps N] [--lr 0.05] [--momentum 0.9] [--backend wasm|reference]
import { init } from '../../npm/dist/index.mjs';

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

const backend = arg('backend', 'wasm');
const steps = Number(arg('steps', 1000));
const lr = Number(arg('lr', 0.05));
const momentum = Number(arg('momentum', 0.9));
const sg = await init({ backend });
sg.manualSeed(0);
const f = sg.features();
console.log(`simdgrad ${sg.version} · backend ${sg.getBackend()} · simd ${f.simd}`);

/** One SGD step on every parameter: returns new leaves (the old ones are disposed). */
function sgdStep(params, lr) {
  const next = sg.tidy(() => sg.noGrad(() => params.map((p) => p.sub(p.grad.mul(lr)).requiresGrad_())));
  params.forEach((p) => p.dispose());
  return next;
}

/** SGD with momentum (PyTorch's rule: v = m·v + g; p = p - lr·v); returns [params, velocities]. */
function momentumStep(params, velocities, lr, m) {
  const [nextP, nextV] = sg.tidy(() =>
    sg.noGrad(() => {
      const vs = params.map((p, i) => (velocities ? velocities[i].mul(m).add(p.grad) : p.grad.clone()));
      return [params.map((p, i) => p.sub(vs[i].mul(lr)).requiresGrad_()), vs];
    }),
  );
  sg.dispose([params, velocities]);
  return [nextP, nextV];
}

// ---- 1. linear regression ----
{
  const n = 256;
  const [x, y] = sg.tidy(() => {
    const x = sg.rand([n, 1]).mul(4).sub(2); // U[-2, 2)
    return [x, x.mul(3).sub(2).add(sg.randn([n, 1]).mul(0.1))];
  });
  let [w, b] = [sg.zeros([1, 1], { requiresGrad: true }), sg.zeros([1], { requiresGrad: true })];
  console.log('\n1) linear regression  y = 3x - 2 + noise  (256 points, SGD lr 0.05)');
  const t0 = performance.now();
  for (let step = 0; step <= 200; step++) {
    const loss = sg.tidy(() => {
      const l = x.matmul(w).add(b).sub(y).square().mean();
      l.backward();
      return l.item();
    });
    if ([0, 5, 10, 20, 40, 80, 200].includes(step)) console.log(`  step ${String(step).padStart(4)}  mse ${loss.toFixed(6)}`);
    if (step < 200) [w, b] = sgdStep([w, b], 0.05);
  }
  console.log(`  learned w = ${w.item().toFixed(4)} (true 3), b = ${b.item().toFixed(4)} (true -2)  [${(performance.now() - t0).toFixed(0)} ms]`);
  sg.dispose([x, y, w, b]);
}

// ---- 2. MLP on y = sin(3x) ----
{
  const n = 128;
  const hidden = 32;
  const [x, y] = sg.tidy(() => {
    const x = sg.linspace(-1, 1, n).reshape(n, 1);
    return [x, x.mul(3).sin()];
  });
  // Xavier-style init: scale by 1/sqrt(fan_in)
  let params = [
    sg.tidy(() => sg.randn([1, hidden]).requiresGrad_()),
    sg.zeros([hidden], { requiresGrad: true }),
    sg.tidy(() => sg.randn([hidden, 1]).mul(1 / Math.sqrt(hidden)).detach().requiresGrad_()),
    sg.zeros([1], { requiresGrad: true }),
  ];
  let velocities = null;
  const forward = ([w1, b1, w2, b2]) => x.matmul(w1).add(b1).tanh().matmul(w2).add(b2);
  console.log(`\n2) MLP 1-${hidden}-1 (tanh) fitting y = sin(3x) on [-1, 1]  (${n} points, SGD lr ${lr} momentum ${momentum}, ${steps} steps)`);
  const t0 = performance.now();
  let first = 0;
  let last = 0;
  for (let step = 0; step <= steps; step++) {
    const loss = sg.tidy(() => {
      const l = forward(params).sub(y).square().mean();
      l.backward();
      return l.item();
    });
    if (step === 0) first = loss;
    last = loss;
    if (step % Math.max(1, Math.round(steps / 8)) === 0 || step === steps) {
      console.log(`  step ${String(step).padStart(4)}  mse ${loss.toFixed(6)}`);
    }
    if (step < steps) [params, velocities] = momentumStep(params, velocities, lr, momentum);
  }
  const ms = performance.now() - t0;
  const probe = sg.tidy(() => {
    const xs = sg.tensor([[-0.5], [0], [0.5]]);
    const h = xs.matmul(params[0]).add(params[1]).tanh().matmul(params[2]).add(params[3]);
    return h.toArray().flat();
  });
  console.log(`  mse ${first.toFixed(4)} → ${last.toFixed(6)} in ${ms.toFixed(0)} ms`);
  console.log(
    '  f(-0.5), f(0), f(0.5) = ' +
      probe.map((v) => v.toFixed(3)).join(', ') +
      `  (sin: ${[-0.5, 0, 0.5].map((v) => Math.sin(3 * v).toFixed(3)).join(', ')})`,
  );
  sg.dispose([x, y, params, velocities]);
}

const m = sg.memory();
console.log(`\nlive tensors at exit: ${m.tensors}, bytes: ${m.bytes}`);
