// sg.func's speed on the 784-256-256-10 MLP (ReLU, cross-entropy), wasm, one thread:
//   - per-sample gradients at batch 128 with vmap(grad(loss through functionalCall)), against one
//     ordinary batched backward (the mean's gradient only) and a loop of 128 backwards;
//   - jvp of the MLP's logits with respect to the input, against one forward.
//   node tests/bench/func.mjs [rounds]
// Wall time per call, median of the rounds; prints the ratios side by side. Asserts nothing.
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

function time(fn) {
  const ts = [];
  for (let r = 0; r < rounds + 1; r++) {
    const t0 = performance.now();
    sg.tidy(() => {
      fn(); // nothing returned: tidy frees the results too
    });
    const t = performance.now() - t0;
    if (r > 0) ts.push(t); // the first round warms up
  }
  ts.sort((a, b) => a - b);
  return ts[Math.floor(ts.length / 2)];
}

const batched = time(() => {
  model.zeroGrad();
  sg.F.crossEntropy(model(X), Y).backward();
});
const vmapped = time(() => perSample(params, X, Y));
const loop = time(() => {
  for (let i = 0; i < B; i++) {
    model.zeroGrad();
    sg.F.crossEntropy(model(X.narrow(0, i, 1)), Y.narrow(0, i, 1)).backward();
  }
});
const forward = time(() => sg.noGrad(() => model(X)));
const V = sg.randn([B, 784]);
const jvp = time(() => sg.func.jvp((x) => model(x), [X], [V]));

const row = (name, ms, base) => `${name.padEnd(44)} ${ms.toFixed(2).padStart(9)} ms  ${(ms / base).toFixed(2).padStart(6)}×`;
console.log(`sg.func bench: MLP 784-256-256-10, batch ${B}, backend ${sg.getBackend()}, median of ${rounds}`);
console.log(row('one batched backward (forward + backward)', batched, batched));
console.log(row('per-sample gradients: vmap(grad(...))', vmapped, batched));
console.log(row(`per-sample gradients: loop of ${B} backwards`, loop, batched));
console.log(row('one forward (no grad)', forward, forward));
console.log(row('jvp of the logits w.r.t. the input', jvp, forward));
