// sg.customLoss and sg.telemetry on every backend: the linearization's weights against closed
// forms and autograd, the telemetry's arithmetic and events, async regularizers (concurrency,
// timeouts, failures), the whole remote-training protocol through localClient against direct
// autograd on the same model, and memory back to its starting count after every call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, close, settleGarbage, within, typeCheck } from './helpers.mjs';
import { forEachBackend, values } from './backends.mjs';

const CL = sg.customLoss;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const neg = (a) => (Array.isArray(a) ? a.map(neg) : -a);

/** linearize on fresh tensors made from arrays; returns the weights read, the result, and frees everything. */
async function linearized(arrays, options, data = null) {
  const inputs = arrays.map((a) => sg.tensor(a));
  try {
    const r = await CL.linearize(inputs, data, options);
    const weights = [];
    for (const w of r.weights) weights.push(await values(w));
    r.weights.forEach((w, i) => {
      assert.deepEqual(w.shape, inputs[i].shape, 'weights[i] is shaped as logprobsList[i]');
      assert.equal(w.device, inputs[i].device);
    });
    sg.dispose(r.weights);
    return { ...r, weights };
  } finally {
    sg.dispose(inputs);
  }
}

/** Runs f and asserts sg.memory() is back to where it was (tensors and bytes), f's failure included. */
async function memoryUnchanged(f) {
  await settleGarbage(); // earlier tests' forgotten tensors must not be freed during f
  const before = sg.memory();
  let error;
  try {
    await f();
  } catch (e) {
    error = e;
  }
  const after = sg.memory();
  assert.equal(after.tensors, before.tensors, `tensors ${before.tensors} → ${after.tensors}`);
  assert.equal(after.bytes, before.bytes, `bytes ${before.bytes} → ${after.bytes}`);
  return error;
}

const sum = (lps) => lps[0].sum();
const mean = (lps) => lps[0].mean();

// ---- the seed's tests ----

forEachBackend('numerical gradient of a sum loss on [1, 2, 3] is [1, 1, 1] within 1e-4', async () => {
  const r = await linearized([[1, 2, 3]], { baseLoss: sum });
  within(neg(r.weights[0]), [1, 1, 1], 1e-4);
  assert.equal(r.telemetry.gradient_method, 'numerical');
});

forEachBackend('weight 0.5 × mean on [2, 4] gives gradient [0.25, 0.25] within 1e-4', async () => {
  const r = await linearized([[2, 4]], { regularizers: [CL.regularizer('mean', 0.5, (lps) => [mean(lps), {}])] });
  within(neg(r.weights[0]), [0.25, 0.25], 1e-4);
  close(r.lossTotal, 1.5, 1e-6);
});

forEachBackend('symbolic gradient of a sum loss is [1, 1, 1]', async () => {
  const r = await linearized([[1, 2, 3]], { baseLoss: sum, gradMethod: 'symbolic' });
  assert.deepEqual(neg(r.weights[0]), [1, 1, 1]);
  assert.equal(r.telemetry.gradient_method, 'symbolic');
});

forEachBackend('telemetry arithmetic: base 2.5 + regularizers 0.123 and 0.224 → loss_total 2.847', async () => {
  const constant = (v, metrics = {}) => (lps) => [lps[0].sum().mul(0).add(v), metrics];
  const r = await linearized([[1, 2]], {
    baseLoss: constant(2.5, { tokens: 2 }),
    regularizers: [CL.regularizer('a', 0.01, constant(12.3, { note: 'x' })), CL.regularizer('b', 0.01, constant(22.4))],
    gradMethod: 'symbolic',
  });
  const t = r.telemetry;
  assert.deepEqual(Object.keys(t), ['loss_total', 'base_loss', 'regularizers', 'regularizer_total', 'gradient_method', 'gradient_duration_ms', 'gradient_evaluations']);
  assert.equal(t.gradient_evaluations, 0, 'every term reached its input through the graph');
  assert.equal(t.base_loss.gradient_method, 'symbolic');
  close(t.base_loss.value, 2.5, 1e-7);
  assert.deepEqual(t.base_loss.custom, { tokens: 2 });
  assert.deepEqual(Object.keys(t.regularizers), ['a', 'b']);
  assert.deepEqual(Object.keys(t.regularizers.a), ['value', 'weight', 'contribution', 'custom', 'gradient_method']);
  assert.equal(t.regularizers.b.gradient_method, 'symbolic');
  close(t.regularizers.a.value, 12.3, 1e-6);
  assert.equal(t.regularizers.a.weight, 0.01);
  close(t.regularizers.a.contribution, 0.123, 1e-6);
  close(t.regularizers.b.contribution, 0.224, 1e-6);
  assert.deepEqual(t.regularizers.a.custom, { note: 'x' });
  assert.deepEqual(t.regularizers.b.custom, {});
  close(t.regularizer_total, 0.347, 1e-6);
  close(t.loss_total, 2.847, 1e-6);
  assert.equal(r.lossTotal, t.loss_total);
  assert.ok(t.gradient_duration_ms >= 0);
  within(r.weights[0], [0, 0], 0, 'constant losses: zero weights');
});

forEachBackend('a regularizer "l1" with weight 0.01 appears as metrics.regularizers.l1 of forwardBackwardCustom', async () => {
  const model = new sg.nn.Linear(3, 4);
  try {
    const client = CL.localClient(model, (m, data) => [m.forward(data).logSoftmax(-1)]);
    const x = sg.tensor([[0.5, -1, 2], [1, 0, -0.5]]);
    const l1 = CL.regularizer('l1', 0.01, (lps) => [sg.penalties.l1(lps[0], { lambda: 1 }), { mean: lps[0].abs().mean() }]);
    const result = await CL.forwardBackwardCustom(client, x, { regularizers: [l1], gradMethod: 'symbolic' });
    const expected = sg.noGrad(() => sg.tidy(() => model.forward(x).logSoftmax(-1).abs().sum()));
    const value = await values(expected);
    expected.dispose();
    const reg = result.metrics.regularizers.l1;
    close(reg.value, value, 1e-6);
    assert.equal(reg.weight, 0.01);
    close(reg.contribution, 0.01 * value, 1e-6);
    close(reg.custom.mean, value / 8, 1e-6, 'a tensor metric is read to a number');
    assert.equal(result.metrics.gradient_method, 'symbolic');
    assert.equal(typeof result.metrics.loss, 'number', "the client's own metrics are kept");
    assert.equal(result.loss, result.metrics.loss);
    x.dispose();
  } finally {
    model.dispose();
  }
});

// ---- the protocol through localClient against direct autograd ----

/** A small model and data whose log-probabilities are full distributions [T, V] per datum. */
function setup() {
  sg.manualSeed(3);
  const model = new sg.nn.Sequential(new sg.nn.Linear(4, 8), new sg.nn.Tanh(), new sg.nn.Linear(8, 5));
  const data = [
    { x: sg.randn([3, 4]), targets: [1, 4, 0] },
    { x: sg.randn([2, 4]), targets: [2, 2] },
  ];
  const tokensToLogprobs = (m, batch) => batch.map((d) => m.forward(d.x).logSoftmax(-1));
  const baseLoss = (lps, batch) => {
    const nll = lps.map((lp, i) => lp.gather(1, batch[i].targets.map((t) => [t])).sum().neg());
    const tokens = batch.reduce((n, d) => n + d.targets.length, 0);
    return [nll.reduce((a, b) => a.add(b)).div(tokens), { tokens }];
  };
  const entropy = CL.regularizer('entropy', 0.1, (lps) => [lps.map((lp) => sg.penalties.entropy(lp)).reduce((a, b) => a.add(b)), {}]);
  const l2 = CL.regularizer('l2', 0.05, async (lps) => {
    await sleep(1);
    return sg.tidy(() => [lps.map((lp) => sg.penalties.l2(lp.exp(), { lambda: 1 })).reduce((a, b) => a.add(b)), {}]);
  }, { async: true });
  const dispose = () => {
    model.dispose();
    sg.dispose(data.map((d) => d.x));
  };
  return { model, data, tokensToLogprobs, baseLoss, regularizers: [entropy, l2], dispose };
}

async function parameterGrads(model) {
  const out = [];
  for (const p of model.parameters()) out.push((await values(p.grad)).flat(Infinity));
  return out;
}

for (const [method, tol] of [['symbolic', 1e-5], ['numerical', 1e-3], ['hybrid', 1e-5]]) {
  forEachBackend(`forwardBackwardCustom through localClient (${method}) gives the parameter gradients of total.backward() within ${tol}`, async () => {
    const s = setup();
    try {
      // Direct: total = base + Σ weight·regularizer on the model's own log-probabilities.
      s.model.zeroGrad();
      const direct = sg.tidy(() => {
        const lps = s.tokensToLogprobs(s.model, s.data);
        const entropy = lps.map((lp) => sg.penalties.entropy(lp)).reduce((a, b) => a.add(b));
        const l2 = lps.map((lp) => sg.penalties.l2(lp.exp(), { lambda: 1 })).reduce((a, b) => a.add(b));
        const total = s.baseLoss(lps, s.data)[0].add(entropy.mul(0.1)).add(l2.mul(0.05));
        total.backward();
        return total;
      });
      const directValue = await values(direct);
      direct.dispose();
      const expected = await parameterGrads(s.model);

      s.model.zeroGrad();
      // hybrid: the user's gradient, here by autograd in their own code.
      const gradFn = (lps, batch) =>
        sg.tidy(() => {
          const leaves = lps.map((lp) => lp.detach().requiresGrad_());
          const ent = leaves.map((lp) => sg.penalties.entropy(lp)).reduce((a, b) => a.add(b));
          const l2 = leaves.map((lp) => sg.penalties.l2(lp.exp(), { lambda: 1 })).reduce((a, b) => a.add(b));
          s.baseLoss(leaves, batch)[0].add(ent.mul(0.1)).add(l2.mul(0.05)).backward();
          return leaves.map((l) => l.grad.clone());
        });
      const options = { baseLoss: s.baseLoss, regularizers: s.regularizers, gradMethod: method, ...(method === 'hybrid' ? { gradFn } : {}) };
      const result = await CL.forwardBackwardCustom(CL.localClient(s.model, s.tokensToLogprobs), s.data, options);
      const got = await parameterGrads(s.model);
      got.forEach((g, i) => within(g, expected[i], tol, `parameter ${i}`));
      close(result.metrics.loss_total, directValue, 1e-5);
      assert.deepEqual(result.metrics.base_loss.custom, { tokens: 5 });
      assert.deepEqual(Object.keys(result.metrics.regularizers), ['entropy', 'l2']);
    } finally {
      s.dispose();
    }
  });
}

forEachBackend('memory is back to its starting count after forwardBackwardCustom, a failed one included', async () => {
  const s = setup();
  try {
    const client = CL.localClient(s.model, s.tokensToLogprobs);
    const run = (options) => CL.forwardBackwardCustom(client, s.data, { baseLoss: s.baseLoss, ...options });
    await run({ regularizers: s.regularizers, gradMethod: 'symbolic' }); // creates the parameters' .grad once
    for (const gradMethod of ['symbolic', 'numerical']) {
      assert.equal(await memoryUnchanged(() => run({ regularizers: s.regularizers, gradMethod })), undefined);
    }
    const failing = [
      CL.regularizer('throws', 1, (lps) => {
        lps[0].exp(); // a temporary before the failure
        throw new Error('boom');
      }),
      CL.regularizer('slow', 1, async (lps) => {
        await sleep(60);
        return [lps[0].sum(), {}];
      }, { async: true, timeoutMs: 10 }),
      CL.regularizer('rejects', 1, async () => {
        await sleep(1);
        throw new Error('remote said no');
      }, { async: true }),
      CL.regularizer('bad result', 1, (lps) => [lps[0].exp(), {}]),
    ];
    for (const reg of failing) {
      for (const gradMethod of ['symbolic', 'numerical']) {
        const e = await memoryUnchanged(async () => {
          try {
            await run({ regularizers: [s.regularizers[0], reg], gradMethod });
          } finally {
            await sleep(80); // the timed-out regularizer resolves later: its loss is freed then
          }
        });
        assert.ok(e instanceof Error && e.message.startsWith(`Custom loss failed: ${reg.name}: `), `${reg.name}: ${e?.message}`);
      }
    }
  } finally {
    s.dispose();
  }
});

// ---- async regularizers, failures ----

forEachBackend('async regularizers run concurrently and are awaited', async () => {
  const spans = {};
  const timed = (name, ms) =>
    CL.regularizer(name, 1, async (lps) => {
      spans[name] = { start: performance.now() };
      await sleep(ms);
      spans[name].end = performance.now();
      return [lps[0].sum(), { slept: ms }];
    }, { async: true, timeoutMs: 5000 });
  const r = await linearized([[1, 2]], { regularizers: [timed('a', 40), timed('b', 40)], gradMethod: 'symbolic' });
  assert.ok(spans.b.start < spans.a.end && spans.a.start < spans.b.end, `overlap: ${JSON.stringify(spans)}`);
  assert.deepEqual(r.telemetry.regularizers.a.custom, { slept: 40 });
  assert.deepEqual(neg(r.weights[0]), [2, 2]);
});

forEachBackend('the grad mode is as it was after a call with concurrent async regularizers, whichever method', async () => {
  const reg = (name, ms) => CL.regularizer(name, 1, async (lps) => {
    await sleep(ms);
    return sg.tidy(() => [lps[0].square().sum(), {}]);
  }, { async: true });
  for (const gradMethod of ['numerical', 'symbolic']) {
    const r = await linearized([[1, 2]], { regularizers: [reg('a', 5), reg('b', 15)], gradMethod });
    within(r.weights[0], [-4, -8], gradMethod === 'symbolic' ? 0 : 1e-3, gradMethod);
    assert.equal(sg.isGradEnabled(), true, `${gradMethod}: grad mode restored`);
  }
});

forEachBackend('failures name the regularizer and the reason; no weights are returned', async () => {
  const x = [[1, 2, 3]];
  const slow = CL.regularizer('slow', 1, async (lps) => {
    await sleep(200);
    return [lps[0].sum(), {}];
  }, { async: true, timeoutMs: 20 });
  await assert.rejects(linearized(x, { regularizers: [slow] }), { message: 'Custom loss failed: slow: timed out after 20 ms (timeoutMs)' });
  const throws = CL.regularizer('kl', 1, () => {
    throw new Error('reference model unavailable');
  });
  await assert.rejects(linearized(x, { baseLoss: sum, regularizers: [throws] }), { message: 'Custom loss failed: kl: reference model unavailable' });
  await assert.rejects(linearized(x, { baseLoss: () => { throw new Error('no targets'); } }), { message: 'Custom loss failed: baseLoss: no targets' });
  const promised = CL.regularizer('forgot async', 1, async (lps) => [lps[0].sum(), {}]);
  await assert.rejects(linearized(x, { regularizers: [promised] }), /^Error: Custom loss failed: forgot async: returned a Promise: declare it with \{ async: true \}/);
  const vector = CL.regularizer('vector', 1, (lps) => [lps[0].exp(), {}]);
  await assert.rejects(linearized(x, { regularizers: [vector] }), /Custom loss failed: vector: .*one-element float32 loss tensor, got a Tensor of shape \[3\]/);
  await assert.rejects(linearized(x, {}), { message: 'Must provide regularizers or baseLoss (customLoss.linearize got neither)' });
  await assert.rejects(linearized(x, { regularizers: [] }), /^Error: Must provide regularizers or baseLoss/);
  const badGrad = () => [sg.ones(2)];
  await assert.rejects(linearized(x, { baseLoss: sum, gradMethod: 'hybrid', gradFn: badGrad }), /Custom loss failed: gradFn: expected an array of float32 Tensors shaped as logprobsList \(\[3\]\)/);
  // Failures leave the memory as it was (the late result of the timed-out one included).
  await sleep(250);
});

forEachBackend('a failed call leaves no tensor behind, whichever method and whatever failed', async () => {
  const late = CL.regularizer('late', 1, async (lps) => {
    await sleep(30);
    return sg.tidy(() => [lps[0].square().sum(), { t: lps[0].sum() }]);
  }, { async: true, timeoutMs: 5 });
  for (const gradMethod of ['numerical', 'symbolic']) {
    const e = await memoryUnchanged(async () => {
      const x = sg.tensor([1, 2, 3]);
      try {
        await CL.linearize([x], null, { baseLoss: sum, regularizers: [late], gradMethod });
      } finally {
        await sleep(60); // x stays alive meanwhile, so the late regularizer does compute its result
        x.dispose();
      }
    });
    assert.match(e.message, /^Custom loss failed: late: timed out/);
  }
});

// ---- the gradient methods ----

forEachBackend('the three methods agree on a nonlinear loss over two inputs; weights = −∂total/∂logprobs', async () => {
  const a = [[-1.2, -0.4, -2.0], [-0.3, -1.6, -0.9]];
  const b = [-0.7, -1.1];
  // total = Σ exp(a)·a + 0.3·(Σ b²) → ∂/∂a = exp(a)(1 + a), ∂/∂b = 0.6 b.
  const baseLoss = (lps) => lps[0].exp().mul(lps[0]).sum();
  const regularizers = [CL.regularizer('b2', 0.3, (lps) => [lps[1].square().sum(), {}])];
  const expected = [neg(a.map((r) => r.map((v) => Math.exp(v) * (1 + v)))), neg(b.map((v) => 0.6 * v))];
  const gradFn = (lps) => sg.tidy(() => [lps[0].exp().mul(lps[0].add(1)), lps[1].mul(0.6)]);
  for (const [options, tol] of [[{ gradMethod: 'symbolic' }, 1e-6], [{}, 1e-3], [{ gradMethod: 'hybrid', gradFn }, 1e-6]]) {
    const r = await linearized([a, b], { baseLoss, regularizers, ...options });
    within(r.weights[0], expected[0], tol, options.gradMethod ?? 'numerical');
    within(r.weights[1], expected[1], tol, options.gradMethod ?? 'numerical');
  }
});

forEachBackend('numerical: eps sets the step; a non-finite log-probability gets weight 0', async () => {
  const square = (lps) => lps[0].square().sum(); // central differences are exact for a quadratic up to rounding
  const r = await linearized([[0.5, -Infinity, 1.5]], { baseLoss: (lps) => lps[0].narrow(0, 0, 1).square().sum().add(lps[0].narrow(0, 2, 1).square().sum()), eps: 0.05 });
  within(r.weights[0], [-1, 0, -3], 1e-4);
  const s = await linearized([[0.25, 2]], { baseLoss: square, eps: 0.125 });
  within(s.weights[0], [-0.5, -4], 1e-5);
  // Near 1000 float32 values are 6.1e-5 apart, so fl(x ± 0.01) − x is not ±0.01: the quotient
  // divides by the step actually taken, which keeps the gradient of the identity exact.
  const big = await linearized([[-1000.3]], { baseLoss: sum, eps: 0.01 });
  within(big.weights[0], [-1], 1e-6);
});

forEachBackend('symbolic: an input the total does not depend on gets zero weights; the inputs are left untouched', async () => {
  const a = sg.tensor([1, 2], { requiresGrad: true });
  const b = sg.tensor([3, 4]);
  try {
    const r = await CL.linearize([a, b], null, { baseLoss: (lps) => lps[0].square().sum(), gradMethod: 'symbolic' });
    assert.deepEqual(await values(r.weights[0]), [-2, -4]);
    assert.deepEqual(await values(r.weights[1]), [0, 0]);
    assert.equal(a.grad, null, "the caller's tensors get no .grad");
    assert.equal(b.requiresGrad, false);
    sg.dispose(r.weights);
  } finally {
    sg.dispose([a, b]);
  }
});

// ---- telemetry events ----

forEachBackend("sg.telemetry.on('regularizer' | 'gradient') gets each call's events until unsubscribed", async () => {
  const seen = [];
  const offReg = sg.telemetry.on('regularizer', (e) => seen.push(['regularizer', e]));
  const offGrad = sg.telemetry.on('gradient', (e) => seen.push(['gradient', e]));
  const options = {
    baseLoss: sum,
    regularizers: [CL.regularizer('l1', 0.01, (lps) => [lps[0].abs().sum(), { tokens: 3, mean: lps[0].abs().mean() }])],
    gradMethod: 'symbolic',
  };
  try {
    await linearized([[1, -2, 3]], options);
  } finally {
    offReg();
    offGrad();
  }
  assert.equal(seen.length, 2);
  const [[kind, r], [kind2, g]] = seen;
  assert.equal(kind, 'regularizer');
  close(r.value, 6, 1e-7);
  close(r.contribution, 0.06, 1e-7);
  assert.deepEqual(Object.keys(r), ['regularizer', 'value', 'weight', 'contribution', 'tokens', 'mean']);
  assert.equal(r.regularizer, 'l1');
  assert.equal(r.weight, 0.01);
  assert.equal(r.tokens, 3);
  close(r.mean, 2, 1e-7);
  assert.equal(kind2, 'gradient');
  assert.deepEqual(Object.keys(g), ['method', 'duration_ms']);
  assert.equal(g.method, 'symbolic');
  assert.ok(g.duration_ms >= 0);
  await linearized([[1, -2, 3]], options);
  assert.equal(seen.length, 2, 'unsubscribed handlers get nothing');
});

test('telemetry: a handler that throws is reported and does not break the call; bad subscriptions are Errors', async () => {
  const warnings = [];
  const originalWarn = console.warn;
  console.warn = (...a) => warnings.push(a.join(' '));
  const off = sg.telemetry.on('gradient', () => {
    throw new Error('dashboard offline');
  });
  try {
    const r = await linearized([[1, 2]], { baseLoss: sum, gradMethod: 'symbolic' });
    assert.deepEqual(r.weights[0], [-1, -1]);
  } finally {
    off();
    console.warn = originalWarn;
  }
  assert.deepEqual(warnings, ["telemetry: a 'gradient' handler threw: dashboard offline"]);
  assert.throws(() => sg.telemetry.on('loss', () => {}), /telemetry\.on: unknown event 'loss' \(expected 'regularizer' or 'gradient'\)/);
  assert.throws(() => sg.telemetry.on('gradient', 'log'), /telemetry\.on: expected 'handler' to be a function, got 'log'/);
});

// ---- the Node example ----

test('the Node example (demos/node/custom_loss.mjs) runs two steps and prints the telemetry', async () => {
  const { spawnSync } = await import('node:child_process');
  const script = new URL('../../demos/node/custom_loss.mjs', import.meta.url).pathname;
  const r = spawnSync(process.execPath, [script, '--steps', '2', '--pretrain', '5'], { encoding: 'utf8', timeout: 120000 });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /step\s+1 .*loss_total/);
  assert.match(r.stdout, /step\s+2 /);
  assert.match(r.stdout, /regularizers\.entropy/);
  assert.match(r.stdout, /protocol vs direct autograd: max \|Δgrad\| = /);
});

// ---- types ----

test('the .d.ts types of sg.penalties, sg.customLoss and sg.telemetry type-check a use and reject misuse (tsc --strict)', async () => {
  const r = await typeCheck(`
import { init, Tensor, type Regularizer, type LinearizeResult, type CustomLossTelemetry, type RegularizerEvent, type Lambda, type RemoteClient, type OptimStepResult, type RemoteForwardBackwardResult } from 'simdgrad';
const sg = await init();
const w = sg.randn([3, 4]);
const lambda: Lambda = sg.tensor(0.1);
const penalties: Tensor[] = [
  sg.penalties.l1(w, { lambda: 0.1 }), sg.penalties.l2(w, { lambda }), sg.penalties.elasticNet(w, { l1Ratio: 0.2 }),
  sg.penalties.klDivergence(w, w, { reduction: 'batchmean' }), sg.penalties.jsDivergence(w, w),
  sg.penalties.entropy(w, { mode: 'minimize', reduction: 'none' }),
  sg.penalties.orthogonality(w, { mode: 'spectral', lambda, powerIterations: 5 }),
];
// @ts-expect-error an unknown mode
sg.penalties.entropy(w, { mode: 'max' });
// @ts-expect-error lambda is a number or a Tensor
sg.penalties.l2(w, { lambda: '0.1' });
// @ts-expect-error fn maps a tensor to a tensor
sg.penalties.gradientPenalty((x: number) => x, w);
interface Batch { x: Tensor; targets: number[] }
const batch: Batch = { x: w, targets: [1, 2, 0] };
const reg: Regularizer<Batch> = sg.customLoss.regularizer<Batch>('l1', 0.01, (lps, data) => [lps[0]!.abs().sum(), { n: data.targets.length }]);
const slow = sg.customLoss.regularizer('remote', 1, async (lps) => lps[0]!.sum(), { async: true, timeoutMs: 100 });
const r: LinearizeResult = await sg.customLoss.linearize([w], batch, { regularizers: [reg], gradMethod: 'symbolic' });
const t: CustomLossTelemetry = r.telemetry;
const numbers: number[] = [t.loss_total, t.regularizer_total, t.regularizers.l1!.contribution, t.gradient_duration_ms, r.lossTotal];
const weights: Tensor[] = r.weights;
// @ts-expect-error an unknown gradient method
await sg.customLoss.linearize([w], batch, { gradMethod: 'finite' });
const model = new sg.nn.Linear(4, 3);
const client = sg.customLoss.localClient(model, (m, d: Batch) => [m.forward(d.x).logSoftmax(-1)]);
const result = await sg.customLoss.forwardBackwardCustom(client, batch, { baseLoss: (lps) => lps[0]!.sum(), regularizers: [reg, slow] });
const merged: number[] = [result.loss, result.metrics.loss, result.metrics.loss_total];
const method: 'numerical' | 'symbolic' | 'hybrid' = result.metrics.gradient_method;
const judged = sg.customLoss.regularizer('judge', 0.1, (lps) => lps[0]!.sum(), { gradMethod: 'numerical' });
// @ts-expect-error gradMethod of a regularizer: 'auto', 'symbolic' or 'numerical'
sg.customLoss.regularizer('r', 1, (lps) => lps[0]!.sum(), { gradMethod: 'hybrid' });
const chunked = await sg.customLoss.linearize([w], batch, { regularizers: [reg, judged], chunkSize: 4 });
const termMethod: 'symbolic' | 'numerical' | 'mixed' | 'hybrid' = chunked.telemetry.regularizers.judge!.gradient_method;
const evaluations: number = chunked.telemetry.gradient_evaluations;
const gpt2 = new sg.models.GPT2LMHeadModel({ vocab_size: 20, n_positions: 8, n_embd: 8, n_layer: 1, n_head: 2 });
const tokens = [{ inputIds: [1, 2, 3], targets: [2, 3, 4] }];
const local = sg.customLoss.localClient(gpt2, sg.customLoss.tokenLogprobs);
const lp: Tensor[] = await local.forward(tokens);
const remote: RemoteClient = sg.customLoss.remoteClient('http://127.0.0.1:8765', { token: 't', timeoutMs: 1000 });
const step: Promise<OptimStepResult> = remote.optimStep({ lr: 1e-4, betas: [0.9, 0.95], weightDecay: 0 });
// @ts-expect-error an unknown option
sg.customLoss.remoteClient('http://127.0.0.1:8765', { retries: 3 });
const fb: Promise<RemoteForwardBackwardResult> = remote.forwardBackward(tokens, [[1, 1, 1]]);
const sampled: Promise<Tensor> = remote.sample([1, 2], { maxNewTokens: 4, temperature: 0, topK: null });
const saved: Promise<Uint8Array> = remote.saveState();
step.catch(() => {}); fb.catch(() => {}); sampled.catch(() => {}); saved.catch(() => {});
// forwardBackwardCustom takes the remote client; its result has the trainer's metrics and the telemetry (not called here).
const viaRemote = async (): Promise<number> => {
  const r = await sg.customLoss.forwardBackwardCustom(remote, tokens, { baseLoss: (lps) => lps[0]!.sum() });
  const seconds: number = r.metrics.seconds;
  const total: number = r.metrics.loss_total;
  return seconds + total + (r.loss ?? 0);
};
void viaRemote;
remote.close();
const off: () => void = sg.telemetry.on('regularizer', (e: RegularizerEvent) => console.log(e.regularizer, e.contribution));
sg.telemetry.on('gradient', (e) => console.log(e.method, e.duration_ms.toFixed(1)));
// @ts-expect-error an unknown event
sg.telemetry.on('loss', () => {});
off();
sg.dispose([penalties, weights, chunked.weights, lp]);
gpt2.dispose();
console.log(numbers, merged, method, termMethod, evaluations);
`);
  assert.equal(r.status, 0, r.stdout + r.stderr);
});
