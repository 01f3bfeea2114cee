// sg.func's speed on the 784-256-256-10 MLP (ReLU, cross-entropy), wasm, one thread:
//   - per-sample gradients at batch 128 with vmap(grad(loss through functionalCall)), against one
//     ordinary batched backward (the mean's gradient only) and a loop of 128 backwards;
//   - jvp of the MLP's logits with respect to the input, against one forward.
//   node tests/bench/func.mjs [rounds]
// Wall time per call, median and min of the rounds (interleaved); prints the ratios side by side.
// Asserts nothing.
import { loadSimdgrad } from './lib/libs.mjs';

const rounds = Number(process.argv[2] ?? 7);
const { sg } = await loadSimdgrad();
const B = 128;
sg.manualSeed(0);
const model = new sg.nn.Sequential(new sg.nn.Linear(784, 256), new sg.nn.ReLU(), new sg.nn.Linear(256, 256), new sg.nn.ReLU(), new sg.nn.Linear(256, 10));
const params = Object.fromEntries(model.namedParameters());
const X = sg.randn([B, 784]);
const Y = sg.randint(0, 10, [B]);

const perSample = sg.func.vmap(
  sg.func.grad((p, x, y) => sg.F.crossEntropy(sg.func.functionalCall(model, p, x.unsqueeze(0)), y.unsqueeze(0))),
  { inDims: [null, 0, 0] },
);

const detached = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, v.detach()]));

// The cases run interleaved, one round of each after another, so that a load that comes and
// goes (other processes on the machine) weighs on every case alike and the ratios hold better
// than the absolute times.
const V = sg.randn([B, 784]);
const cases = {
  batched: () => {
    model.zeroGrad();
    sg.F.crossEntropy(model(X), Y).backward();
  },
  vmapped: () => perSample(params, X, Y),
  // PyTorch's per-sample-gradients tutorial passes detached parameters: no graph of the gradients
  vmappedDetached: () => perSample(detached, X, Y),
  loop: () => {
    for (let i = 0; i < B; i++) {
      model.zeroGrad();
      sg.F.crossEntropy(model(X.narrow(0, i, 1)), Y.narrow(0, i, 1)).backward();
    }
  },
  forward: () => sg.noGrad(() => model(X)),
  jvp: () => sg.func.jvp((x) => model(x), [X], [V]),
};
const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let r = 0; r < rounds + 1; r++) {
  for (const [k, fn] of Object.entries(cases)) {
    const t0 = performance.now();
    sg.tidy(() => {
      fn(); // nothing returned: tidy frees the results too
    });
    if (r > 0) times[k].push(performance.now() - t0); // the first round warms up
  }
}
const median = (ts) => ts.slice().sort((a, b) => a - b)[Math.floor(ts.length / 2)];
const stat = (f) => Object.fromEntries(Object.entries(times).map(([k, ts]) => [k, f(ts)]));
// Medians, and minima beside them: on a loaded machine the fastest round is the one least disturbed.
const med = stat(median), min = stat((ts) => Math.min(...ts));

const row = (name, k, base) =>
  `${name.padEnd(44)} ${med[k].toFixed(2).padStart(9)} ms ${(med[k] / med[base]).toFixed(2).padStart(6)}×   min ${min[k].toFixed(2).padStart(8)} ms ${(min[k] / min[base]).toFixed(2).padStart(6)}×`;
console.log(`sg.func bench: MLP 784-256-256-10, batch ${B}, backend ${sg.getBackend()}, median (and min) of ${rounds} interleaved rounds`);
console.log(row('one batched backward (forward + backward)', 'batched', 'batched'));
console.log(row('per-sample gradients: vmap(grad(...))', 'vmapped', 'batched'));
console.log(row('  the same, parameters detached', 'vmappedDetached', 'batched'));
console.log(row(`per-sample gradients: loop of ${B} backwards`, 'loop', 'batched'));
console.log(row('one forward (no grad)', 'forward', 'forward'));
console.log(row('jvp of the logits w.r.t. the input', 'jvp', 'forward'));
