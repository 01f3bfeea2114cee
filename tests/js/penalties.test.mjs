// sg.penalties on every backend: values and gradients against PyTorch 1.13
// (tests/data/gen_penalties.py) and closed forms, gradients against central differences of the
// penalty's own forward, a transposed view equal to its contiguous copy, lambda as a number and
// as a 0-d tensor, results on the input's device, and no memory left behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { sg, close, settleGarbage, throwsWith } from './helpers.mjs';
import { forEachBackend, values } from './backends.mjs';

const P = sg.penalties;
const REF = JSON.parse(readFileSync(new URL('../data/penalties_ref.json', import.meta.url), 'utf8'));

/** Leaves from plain arrays, f applied, its value and the gradients of its sum (all read, all freed). */
async function evaluate(f, inputs) {
  const leaves = inputs.map((a) => sg.tensor(a, { requiresGrad: true }));
  const out = f(...leaves);
  try {
    const value = await values(out);
    const total = out.ndim === 0 ? out : out.sum();
    total.backward();
    if (total !== out) total.dispose();
    const grads = [];
    for (const l of leaves) grads.push(l.grad === null ? null : await values(l.grad));
    return { value, grads, shape: out.shape, device: out.device };
  } finally {
    out.dispose();
    for (const l of leaves) {
      l.grad?.dispose();
      l.dispose();
    }
  }
}

/** Central differences of Σ f(inputs) with respect to inputs[k], on the current backend (float32). */
async function centralDifferences(f, inputs, k, eps = 1e-2) {
  const flat = inputs[k].flat(Infinity);
  const shape = sg.tensor(inputs[k]).shape;
  const at = async (j, v) => {
    const changed = flat.slice();
    changed[j] = v;
    const ts = inputs.map((a, i) => (i === k ? sg.tensor(changed, { shape }) : sg.tensor(a)));
    const out = sg.tidy(() => f(...ts).sum());
    try {
      return await values(out);
    } finally {
      out.dispose();
      sg.dispose(ts);
    }
  };
  const g = [];
  for (let j = 0; j < flat.length; j++) {
    const up = Math.fround(flat[j] + eps);
    const down = Math.fround(flat[j] - eps);
    g.push(((await at(j, up)) - (await at(j, down))) / (up - down));
  }
  return g;
}

/** Asserts autograd's gradient of every input equals central differences. */
async function gradCheck(f, inputs, tol = 2e-3) {
  const { grads } = await evaluate(f, inputs);
  for (let k = 0; k < inputs.length; k++) close(grads[k].flat(Infinity), await centralDifferences(f, inputs, k), tol, `grad ${k}`);
}

// ---- against PyTorch ----

/** The JS call of a reference case; spectral cases get enough steps for their singular-value gap. */
function call(c) {
  const options = { ...c.options };
  if (c.sigmaRatio !== undefined) options.powerIterations = Math.ceil(Math.log(1e-9) / (2 * Math.log(c.sigmaRatio)));
  return (...xs) => P[c.penalty](...xs, options);
}

for (const [i, c] of REF.cases.entries()) {
  const title = `${c.penalty} ${JSON.stringify(c.options)} on [${c.shapes[0]}] equals PyTorch's value and gradients (case ${i})`;
  forEachBackend(title, async () => {
    const r = await evaluate(call(c), c.inputs);
    close(r.value, c.value, 1e-5);
    c.grads.forEach((g, k) => close(r.grads[k], g, 1e-4, `grad ${k}`));
  });
}

// ---- closed forms ----

forEachBackend('l1, l2, elasticNet: closed forms of value and gradient', async () => {
  const t = [1, -2, 3, 0];
  const sign = t.map(Math.sign);
  let r = await evaluate((x) => P.l1(x, { lambda: 0.1 }), [t]);
  close(r.value, 0.6);
  close(r.grads[0], sign.map((s) => 0.1 * s)); // |x| has gradient 0 at 0
  r = await evaluate((x) => P.l1(x), [t]);
  close(r.value, 0.06, 1e-6, 'default lambda 0.01');
  r = await evaluate((x) => P.l2(x, { lambda: 0.1 }), [t]);
  close(r.value, 1.4);
  close(r.grads[0], t.map((v) => 0.2 * v));
  r = await evaluate((x) => P.elasticNet(x, { lambda: 0.1, l1Ratio: 0.25 }), [t]);
  close(r.value, 0.1 * (0.25 * 6 + 0.75 * 14));
  close(r.grads[0], t.map((v, i) => 0.1 * (0.25 * sign[i] + 0.75 * 2 * v)));
  r = await evaluate((x) => P.elasticNet(x), [t]);
  close(r.value, 0.01 * (0.5 * 6 + 0.5 * 14), 1e-6, 'defaults lambda 0.01, l1Ratio 0.5');
});

forEachBackend('elasticNet with l1Ratio 1 is l1 and with 0 is l2, also on infinite entries', async () => {
  const t = [[0.5, -1.5], [2, Infinity]];
  const l1 = await evaluate((x) => P.l1(x, { lambda: 0.3 }), [t]);
  const e1 = await evaluate((x) => P.elasticNet(x, { lambda: 0.3, l1Ratio: 1 }), [t]);
  assert.deepEqual(e1, l1);
  const finite = [[0.5, -1.5], [2, 4]];
  assert.deepEqual(await evaluate((x) => P.elasticNet(x, { lambda: 0.3, l1Ratio: 0 }), [finite]), await evaluate((x) => P.l2(x, { lambda: 0.3 }), [finite]));
});

forEachBackend('klDivergence(p, p) = 0 and jsDivergence(p, p) = 0 within 1e-6', async () => {
  const lp = [[0.1, 0.5, 0.4], [0.3, 0.3, 0.4]].map((row) => row.map(Math.log));
  for (const f of [P.klDivergence, P.jsDivergence]) {
    const r = await evaluate((a, b) => f(a, b), [lp, lp]);
    assert.ok(Math.abs(r.value) <= 1e-6, `${f.name}: ${r.value}`);
  }
});

forEachBackend('divergences of distributions with zeros (log-probabilities −∞): finite values and gradients', async () => {
  const L = Math.log;
  // KL([½, ½, 0] ‖ [¼, ¼, ½]) = ½ ln 2 + ½ ln 2 = ln 2; the zero of P contributes 0.
  const r = await evaluate((a, b) => P.klDivergence(a, b), [[L(0.5), L(0.5), -Infinity], [L(0.25), L(0.25), L(0.5)]]);
  close(r.value, Math.LN2);
  assert.ok(r.grads.flat(Infinity).every(Number.isFinite), `gradients ${JSON.stringify(r.grads)}`);
  // Disjoint supports: JS = ln 2 exactly.
  const js = await evaluate((a, b) => P.jsDivergence(a, b), [[0, -Infinity], [-Infinity, 0]]);
  close(js.value, Math.LN2);
  assert.ok(js.grads.flat(Infinity).every(Number.isFinite), `gradients ${JSON.stringify(js.grads)}`);
  // A one-hot distribution has entropy 0.
  const h = await evaluate((x) => P.entropy(x), [[[3, -Infinity, -Infinity]]]);
  close(h.value, 0);
  assert.ok(h.grads.flat(Infinity).every(Number.isFinite));
});

forEachBackend('klDivergence normalizes through logsumexp: logits give the KL of their softmax', async () => {
  const a = [2, 0, -1];
  const b = [0.5, 0.5, 1];
  const softmax = (x) => {
    const s = x.reduce((acc, v) => acc + Math.exp(v), 0);
    return x.map((v) => Math.exp(v) / s);
  };
  const [p, q] = [softmax(a), softmax(b)];
  const expected = p.reduce((acc, pi, i) => acc + pi * Math.log(pi / q[i]), 0);
  close((await evaluate((x, y) => P.klDivergence(x, y), [a, b])).value, expected);
  // Shifting logits changes nothing.
  close((await evaluate((x, y) => P.klDivergence(x.add(100), y.sub(7)), [a, b])).value, expected);
});

forEachBackend('entropy: uniform logits give ln V; mode minimize flips the sign; reduction none keeps the rows', async () => {
  const r = await evaluate((x) => P.entropy(x), [[[0, 0, 0, 0], [1, 1, 1, 1]]]);
  close(r.value, -Math.log(4));
  close(r.grads[0].flat(), new Array(8).fill(0), 1e-6, 'the maximum of H: gradient 0');
  const m = await evaluate((x) => P.entropy(x, { mode: 'minimize', reduction: 'none' }), [[[0, 0, 0, 0], [0, 0, 0, 0], [5, 5, 5, 5]]]);
  assert.deepEqual(m.shape, [3]);
  close(m.value, [Math.log(4), Math.log(4), Math.log(4)]);
});

forEachBackend('divergence reductions: batchmean divides by the first dim, mean by the number of distributions', async () => {
  const a = [[[0, 1], [2, 0]], [[1, 1], [0, 3]], [[0, 0], [1, 2]]]; // 3 × 2 distributions
  const b = [[[1, 0], [0, 0]], [[0, 2], [1, 1]], [[2, 0], [0, 1]]];
  const rows = (await evaluate((x, y) => P.klDivergence(x, y, { reduction: 'none' }), [a, b])).value;
  const total = rows.flat().reduce((s, v) => s + v, 0);
  close((await evaluate((x, y) => P.klDivergence(x, y, { reduction: 'sum' }), [a, b])).value, total);
  close((await evaluate((x, y) => P.klDivergence(x, y), [a, b])).value, total / 3);
  close((await evaluate((x, y) => P.klDivergence(x, y, { reduction: 'mean' }), [a, b])).value, total / 6);
});

forEachBackend('orthogonality: 0 for a rotation; diag(3, 1) gives soft 64λ and spectral 4λ with gradient 4λ·e₁e₁ᵀ', async () => {
  const [c, s] = [Math.cos(0.7), Math.sin(0.7)];
  for (const mode of ['soft', 'spectral']) {
    const r = await evaluate((w) => P.orthogonality(w, { mode, lambda: 1 }), [[[c, -s], [s, c]]]);
    close(r.value, 0, 1e-6, mode);
  }
  const soft = await evaluate((w) => P.orthogonality(w, { lambda: 0.5 }), [[[3, 0], [0, 1]]]);
  close(soft.value, 0.5 * 64);
  close(soft.grads[0], [[0.5 * 4 * 8 * 3, 0], [0, 0]]); // ∇‖WWᵀ − I‖² = 4(WWᵀ − I)W
  const spectral = await evaluate((w) => P.orthogonality(w, { mode: 'spectral', lambda: 0.5 }), [[[3, 0], [0, 1]]]);
  close(spectral.value, 0.5 * 4);
  close(spectral.grads[0], [[0.5 * 4, 0], [0, 0]], 1e-5); // 2(σ − 1)·u vᵀ
});

// ---- gradients by central differences ----

const W = [[0.3, -0.8, 0.5], [0.9, 0.1, -0.4]];
const LOGITS = [[0.2, -1.1, 0.7, 0.3], [1.5, 0.4, -0.6, 0.1]];
const LOGITS2 = [[-0.3, 0.9, 0.2, -1.2], [0.6, -0.5, 1.1, 0.0]];
const GRADIENT_CHECKS = [
  ['l1', (x) => P.l1(x, { lambda: 0.7 }), [W]],
  ['l2', (x) => P.l2(x, { lambda: 0.7 }), [W]],
  ['elasticNet', (x) => P.elasticNet(x, { lambda: 0.7, l1Ratio: 0.3 }), [W]],
  ['klDivergence', (a, b) => P.klDivergence(a, b), [LOGITS, LOGITS2]],
  ['jsDivergence', (a, b) => P.jsDivergence(a, b, { reduction: 'sum' }), [LOGITS, LOGITS2]],
  ['entropy', (x) => P.entropy(x, { mode: 'minimize' }), [LOGITS]],
  ['orthogonality soft (wide)', (w) => P.orthogonality(w, { lambda: 0.5 }), [W]],
  ['orthogonality soft (tall)', (w) => P.orthogonality(w.T, { lambda: 0.5 }), [W]],
  ['orthogonality spectral', (w) => P.orthogonality(w, { mode: 'spectral', lambda: 0.5, powerIterations: 60 }), [W]],
  ['orthogonality spectral by svdvals', (w) => P.orthogonality(w, { mode: 'spectral', lambda: 0.5 }), [W]],
];
for (const [name, f, inputs] of GRADIENT_CHECKS) {
  forEachBackend(`${name}: autograd's gradient equals central differences`, () => gradCheck(f, inputs));
}

forEachBackend('spectral with the default 20 steps: the gradient is the converged one (σ₂/σ₁ = 0.21)', async () => {
  // W's singular values 1.19 and 0.25 (computed by hand from WᵀW): 20 steps are far past convergence.
  await gradCheck((w) => P.orthogonality(w, { mode: 'spectral', spectralMethod: 'power', lambda: 0.5 }), [[[1.1, 0.3], [0.4, 0.2]]]);
});

// ---- layouts, lambda, devices, memory ----

forEachBackend('a transposed (non-contiguous) input gives what its contiguous copy gives', async () => {
  const base = [[0.4, -1.2, 0.8], [0.3, 0.9, -0.5], [1.1, -0.2, 0.6], [-0.7, 0.5, 0.2]]; // [4, 3]; its transpose is [3, 4]
  const other = [[0.1, 0.2, -0.3, 0.4], [0.5, -0.6, 0.7, 0.8], [-0.9, 1.0, 0.3, -0.2]];
  const cases = [
    (x) => P.l1(x),
    (x) => P.l2(x),
    (x) => P.elasticNet(x),
    (x, y) => P.klDivergence(x, y),
    (x, y) => P.jsDivergence(x, y),
    (x) => P.entropy(x),
    (x) => P.orthogonality(x),
    (x) => P.orthogonality(x, { mode: 'spectral' }),
  ];
  for (const f of cases) {
    const viaView = await evaluate((b, o) => {
      const t = b.transpose(0, 1);
      assert.equal(t.isContiguous(), false, "the view is strided");
      return f(t, o);
    }, [base, other]);
    const viaCopy = await evaluate((b, o) => f(b.transpose(0, 1).contiguous(), o), [base, other]);
    close(viaView.value, viaCopy.value, 1e-6, f.toString());
    close(viaView.grads[0], viaCopy.grads[0], 1e-6, f.toString());
  }
});

forEachBackend('lambda as a number and as a 0-d tensor give the same result', async () => {
  const lambda = sg.tensor(0.37);
  try {
    for (const f of [P.l1, P.l2, P.elasticNet, P.orthogonality, (w, o) => P.orthogonality(w, { ...o, mode: 'spectral' })]) {
      const asNumber = await evaluate((w) => f(w, { lambda: 0.37 }), [W]);
      const asTensor = await evaluate((w) => f(w, { lambda }), [W]);
      assert.deepEqual(asTensor, asNumber);
    }
  } finally {
    lambda.dispose();
  }
});

forEachBackend('every penalty returns a 0-d tensor on its input\'s device and leaves no other tensor behind', async () => {
  const inputs = [sg.tensor(W), sg.tensor(LOGITS), sg.tensor(LOGITS2)];
  try {
    // Earlier tests' forgotten tensors must not be freed (by the FinalizationRegistry) between the
    // two counts: the awaits below let finalizers run (a CI run once saw 78 wasm bytes drop to 3).
    await settleGarbage();
    const before = sg.memory();
    const results = [
      P.l1(inputs[0]),
      P.l2(inputs[0]),
      P.elasticNet(inputs[0]),
      P.klDivergence(inputs[1], inputs[2]),
      P.jsDivergence(inputs[1], inputs[2]),
      P.entropy(inputs[1]),
      P.orthogonality(inputs[0]),
      P.orthogonality(inputs[0], { mode: 'spectral' }),
    ];
    assert.equal(sg.memory().tensors, before.tensors + results.length);
    for (const r of results) {
      assert.deepEqual(r.shape, []);
      assert.equal(r.device, inputs[0].device);
      assert.ok(Number.isFinite(await values(r)));
    }
    sg.dispose(results);
    assert.equal(sg.memory().tensors, before.tensors);
    assert.equal(sg.memory().bytes, before.bytes);
  } finally {
    sg.dispose(inputs);
  }
});

forEachBackend("spectral's seeded start does not draw from the global generator and is the same every call", async () => {
  const w = sg.tensor(W);
  try {
    sg.manualSeed(7);
    const expected = await values(sg.tidy(() => sg.randn([6])));
    sg.manualSeed(7);
    const first = P.orthogonality(w, { mode: 'spectral', powerIterations: 3 });
    const drawn = sg.tidy(() => sg.randn([6]));
    assert.deepEqual(await values(drawn), expected, "the user's draws after the penalty are unchanged");
    const second = P.orthogonality(w, { mode: 'spectral', powerIterations: 3 });
    assert.equal(await values(second), await values(first));
    sg.dispose([first, second, drawn]);
  } finally {
    w.dispose();
  }
});

forEachBackend("spectral falls back to soft with one warning when an op of the iteration is missing", async (backend) => {
  const originalNorm = sg.Tensor.prototype.norm;
  const originalWarn = console.warn;
  const warnings = [];
  sg.Tensor.prototype.norm = function () {
    throw new Error(`norm: not available on ${backend} (simulated)`);
  };
  console.warn = (...args) => warnings.push(args.join(' '));
  try {
    const a = await evaluate((w) => P.orthogonality(w, { mode: 'spectral', spectralMethod: 'power', lambda: 0.2 }), [W]);
    const b = await evaluate((w) => P.orthogonality(w, { mode: 'spectral', spectralMethod: 'power', lambda: 0.2 }), [W]);
    sg.Tensor.prototype.norm = originalNorm;
    const soft = await evaluate((w) => P.orthogonality(w, { lambda: 0.2 }), [W]);
    assert.deepEqual(a, soft);
    assert.deepEqual(b, soft);
  } finally {
    sg.Tensor.prototype.norm = originalNorm;
    console.warn = originalWarn;
  }
  assert.equal(warnings.length, 1, warnings.join('\n'));
  assert.ok(warnings[0].startsWith(`orthogonality: 'spectral' not available on ${backend}, falling back to 'soft'`), warnings[0]);
});

// ---- gradientPenalty ----

forEachBackend('gradientPenalty checks its arguments and leaks nothing', async () => {
  const x = sg.ones(2, 3);
  try {
    const before = sg.memory();
    throwsWith(() => P.gradientPenalty('f', x), 'penalties.gradientPenalty', "'fn'", "'f'");
    throwsWith(() => P.gradientPenalty((t) => t, x, { target: -1 }), 'penalties.gradientPenalty', "'target'", '-1');
    throwsWith(() => P.gradientPenalty(() => 3, x), 'penalties.gradientPenalty', "'fn'", 'float32 Tensor');
    assert.equal(sg.memory().tensors, before.tensors);
    const w = sg.tensor([0.5, -1, 2], { requiresGrad: true });
    for (let i = 0; i < 5; i++) {
      const gp = P.gradientPenalty((t) => t.mul(w).sum(), x);
      gp.backward();
      gp.dispose();
      w.grad.dispose();
      w.grad = null;
    }
    assert.equal(sg.memory().tensors, before.tensors + 1);
    w.dispose();
  } finally {
    x.dispose();
  }
});

// A small critic f(x) = act(x Wᵀ + b)·v, as gen_penalties.py writes it.
function critic(act, w, b, v) {
  return (t) => {
    const h = act === 'linear' ? sg.F.linear(t, w, b) : t.matmul(w.T).add(b);
    return (act === 'leakyRelu' ? h.leakyRelu(0.2) : h.tanh()).matmul(v);
  };
}

for (const [i, c] of REF.gradientPenalty.entries()) {
  const title = `gradientPenalty ${JSON.stringify(c.options)} of a ${c.critic} critic on [${c.shapes[0]}] equals PyTorch's value and gradients through the gradient (case ${i})`;
  forEachBackend(title, async () => {
    const r = await evaluate((x, w, b, v) => P.gradientPenalty(critic(c.critic, w, b, v), x, c.options), c.inputs);
    close(r.value, c.value, 1e-5);
    // Through a piecewise-linear critic (leakyRelu) ∂f/∂x does not depend on x: PyTorch gives x a
    // zero gradient, simdgrad none (no recorded path reaches x).
    const zerosLike = (a) => (Array.isArray(a) ? a.map(zerosLike) : 0);
    c.grads.forEach((g, k) => close(r.grads[k] ?? zerosLike(g), g, 1e-4, `grad ${k}`));
  });
}

test(
  'gradientPenalty: (‖∂f/∂x‖ − target)² per sample, and its gradient through the gradient',
  async () => {
    // f(x) = Σ (x·w): ∂f/∂x_b = w for every sample b, so the penalty is (‖w‖ − t)² and its
    // gradient with respect to w is 2(‖w‖ − t)·w/‖w‖.
    const w = sg.tensor([0.6, -1.2, 0.4], { requiresGrad: true });
    const x = sg.tensor([[1, 2, 3], [-1, 0, 2]], { requiresGrad: true });
    const norm = Math.hypot(0.6, -1.2, 0.4);
    const gp = P.gradientPenalty((t) => t.mul(w).sum(-1), x, { target: 1 });
    close(await values(gp), (norm - 1) ** 2);
    gp.backward();
    close(await values(w.grad), [0.6, -1.2, 0.4].map((v) => (2 * (norm - 1) * v) / norm));
    // f(x) = Σ x²: ∂f/∂x_b = 2x_b, penalty = mean_b (2‖x_b‖ − 0.5)², ∂/∂x_b = 2(2‖x_b‖ − 0.5)·2x_b/‖x_b‖ / B.
    const gp2 = P.gradientPenalty((t) => t.square().sum(), x, { target: 0.5 });
    const rows = [[1, 2, 3], [-1, 0, 2]];
    const norms = rows.map((r) => Math.hypot(...r));
    close(await values(gp2), norms.reduce((s, n) => s + (2 * n - 0.5) ** 2, 0) / 2);
    x.grad?.dispose();
    x.grad = null;
    gp2.backward();
    close(await values(x.grad), rows.map((r, b) => r.map((v) => (2 * (2 * norms[b] - 0.5) * 2 * v) / norms[b] / 2)));
    sg.dispose([w, x, gp, gp2]);
  },
);

// ---- inside sg.compile ----

// Every penalty, as a compiled training step would use it: the penalty of parameters (and of a
// batch), its backward into the parameters' .grad, inside sg.compile; value and gradients equal
// the eager ones. gradientPenalty is a double backward, which the graph compiler does not trace:
// it runs as a callback that computes the penalty and its first-order gradients eagerly (see
// penalties.ts), so its compiled form has one callback stage.
const COMPILED = [
  ['l1', (w) => P.l1(w.a, { lambda: 0.3 })],
  ['l2 with a tensor lambda', (w) => P.l2(w.a, { lambda: w.lambda })],
  ['elasticNet', (w) => P.elasticNet(w.a, { lambda: 0.2, l1Ratio: 0.3 })],
  ['klDivergence', (w) => P.klDivergence(w.a.logSoftmax(-1), w.b.logSoftmax(-1))],
  ['jsDivergence', (w) => P.jsDivergence(w.a.logSoftmax(-1), w.b.logSoftmax(-1), { reduction: 'sum' })],
  ['entropy maximize', (w) => P.entropy(w.a)],
  ['entropy minimize', (w) => P.entropy(w.b, { mode: 'minimize', reduction: 'mean' })],
  ['orthogonality soft', (w) => P.orthogonality(w.a, { lambda: 0.5 })],
  ['orthogonality spectral', (w) => P.orthogonality(w.b, { mode: 'spectral', lambda: 0.5, powerIterations: 8 })],
  // The critic reads a and c; x + b[0] carries b's gradient through x.
  ['gradientPenalty of a batch', (w, x) => P.gradientPenalty((t) => t.matmul(w.a.transpose(0, 1)).tanh().matmul(w.c).sum(-1), x.add(w.b.narrow(0, 0, 1)))],
  ['gradientPenalty of one sample', (w, x) => P.gradientPenalty((t) => t.mul(w.c.reshape(3)).sum().sigmoid(), x.select(0, 0).narrow(0, 0, 3), { target: 0.5 })],
];

forEachBackend('every penalty compiles (sg.compile): value and parameter gradients equal the eager ones', async () => {
  const make = () => ({
    a: sg.tensor([[0.3, -1.2, 0.8, 0.1], [1.1, 0.4, -0.6, 0.9], [-0.2, 0.7, 0.5, -1.4]], { requiresGrad: true }),
    b: sg.tensor([[0.6, 0.2, -0.9, 1.3], [-0.5, 1.0, 0.3, -0.1], [0.8, -0.3, 0.2, 0.4]], { requiresGrad: true }),
    c: sg.tensor([[0.7], [-1.1], [0.4]], { requiresGrad: true }),
    lambda: sg.tensor(0.05),
  });
  const x = sg.tensor([[0.2, -0.4, 1.0, 0.5], [-0.8, 0.3, 0.1, 0.6]]);
  const params = (w) => [w.a, w.b, w.c];
  const read = async (w, loss) => {
    const grads = [];
    for (const p of params(w)) grads.push(p.grad === null ? null : await values(p.grad));
    return { value: await values(loss), grads };
  };
  for (const [name, penalty] of COMPILED) {
    const eagerW = make();
    const eagerLoss = penalty(eagerW, x);
    eagerLoss.backward();
    const eager = await read(eagerW, eagerLoss);

    const w = make();
    const step = sg.compile((input) => {
      for (const p of params(w)) p.grad = null;
      const loss = penalty(w, input);
      loss.backward();
      return loss;
    });
    let compiled;
    for (let call = 0; call < 2; call++) {
      const loss = step(x); // the second call replays the graph
      compiled = await read(w, loss);
      loss.dispose();
    }
    assert.equal(step.stats().compiles, 1, name);
    assert.equal(step.stats().callbacks, name.startsWith('gradientPenalty') ? 1 : 0, `${name}: callbacks`);
    close(compiled.value, eager.value, 1e-5, `${name}: value`);
    compiled.grads.forEach((g, i) => {
      if (eager.grads[i] === null) assert.ok(g === null || g.flat().every((v) => v === 0), `${name}: no gradient for parameter ${i}`);
      else close(g, eager.grads[i], 1e-5, `${name}: gradient of parameter ${i}`);
    });
    step.clear();
    for (const ws of [eagerW, w]) for (const t of Object.values(ws)) {
      t.grad?.dispose();
      t.dispose();
    }
    eagerLoss.dispose();
  }
  x.dispose();
});

forEachBackend('a compiled gradientPenalty passes its gradient on to x (a generator\'s output) and works under sg.grad of the compiled function', async () => {
  const critic = sg.tensor([0.5, -1.0, 0.25], { requiresGrad: true });
  const gen = sg.tensor([[1.0, 0.2, -0.3], [0.4, -0.6, 0.9]], { requiresGrad: true });
  const z = sg.tensor([[0.3, -0.7], [1.2, 0.5]]);
  const fn = (noise) => P.gradientPenalty((t) => t.mul(critic).sum(-1).tanh().mul(t.square().sum(-1)), noise.matmul(gen));
  const eager = sg.grad(fn)(z.clone().requiresGrad_(true));
  const expected = await values(eager);
  for (const g of [gen, critic]) { g.grad = null; }
  const eagerLoss = fn(z);
  eagerLoss.backward();
  const eagerGrads = [await values(gen.grad), await values(critic.grad)];
  const compiled = sg.compile(fn);
  gen.grad = null;
  critic.grad = null;
  const loss = compiled(z);
  loss.backward();
  close(await values(gen.grad), eagerGrads[0], 1e-5, 'generator gradient through x');
  close(await values(critic.grad), eagerGrads[1], 1e-5, 'critic gradient');
  close(await values(sg.grad(compiled)(z.clone().requiresGrad_(true))), expected, 1e-5, 'sg.grad through the compiled function');
  sg.dispose([critic, gen, z, eager, eagerLoss, loss]);
});

// ---- the playground demo ----

test("the playground's L1/L2 controls add sg.penalties.l1 and l2 of every weight matrix to the loss", async () => {
  const { createTrainer } = await import('../../demos/web/playground/trainer.js');
  const config = { dataset: 'xor', noise: 0.1, depth: 2, width: 6, activation: 'tanh', optimizer: 'sgd', lr: 0.01, l1: 0.001, l2: 0.01, seed: 1 };
  const calls = { l1: [], l2: [] };
  const originals = { l1: P.l1, l2: P.l2 };
  for (const name of ['l1', 'l2']) {
    P[name] = (w, options) => {
      const r = originals[name](w, options);
      // The trainer's step is compiled (sg.compile): this runs while it is traced, where values
      // cannot be read. The trace runs eagerly on the real weights, so copies kept now hold the
      // first call's values; they are read after the step.
      calls[name].push({ name, lambda: options.lambda, shape: w.shape, r: sg.keep(r.clone()), w: sg.keep(w.detach().clone()) });
      return r;
    };
  }
  const read = () => {
    for (const c of [...calls.l1, ...calls.l2]) {
      c.value = c.r.item();
      c.expected = sg.tidy(() => (c.name === 'l1' ? c.w.abs() : c.w.square()).sum().item() * c.lambda);
      sg.dispose([c.r, c.w]);
    }
  };
  let trainer;
  try {
    trainer = createTrainer(sg, config);
    const total = await trainer.step(); // the demo's trainers read with await (GPU tensors)
    const { dataLoss } = await trainer.report();
    read();
    // Three weight matrices (2→6, 6→6, 6→2), biases excluded.
    assert.deepEqual(calls.l1.map((c) => c.shape), [[6, 2], [6, 6], [2, 6]]);
    assert.deepEqual(calls.l2.map((c) => c.shape), [[6, 2], [6, 6], [2, 6]]);
    assert.ok(calls.l1.every((c) => c.lambda === 0.001) && calls.l2.every((c) => c.lambda === 0.01));
    for (const c of [...calls.l1, ...calls.l2]) close(c.value, c.expected, 1e-6);
    const penalties = [...calls.l1, ...calls.l2].reduce((s, c) => s + c.value, 0);
    close(total, dataLoss + penalties, 1e-5);
  } finally {
    Object.assign(P, originals);
    trainer?.dispose();
  }
});
