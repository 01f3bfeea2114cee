// sg.customLoss.linearize's gradient methods term by term (the audit's items 1-4): a regularizer
// computed from values read back gets its gradient (differences) instead of a silent zero under
// 'symbolic', or an Error naming it when it insists on 'symbolic'; per-regularizer gradMethod
// ('auto', 'symbolic', 'numerical') with the method each term used in the telemetry; the
// client's failures wrapped as 'Custom loss failed: client.forward: ...' with the cause; and
// central differences in chunks (concurrent evaluations, bounded live tensors, same result).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, settleGarbage, within } from './helpers.mjs';
import { forEachBackend, values } from './backends.mjs';

const CL = sg.customLoss;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function linearized(arrays, options) {
  const inputs = arrays.map((a) => sg.tensor(a));
  try {
    const r = await CL.linearize(inputs, null, options);
    const weights = [];
    for (const w of r.weights) weights.push(await values(w));
    sg.dispose(r.weights);
    return { ...r, weights };
  } finally {
    sg.dispose(inputs);
  }
}

/** Σ x² of lps[0] computed from its values read back: no graph to the input. (Async, so that it reads on every device.) */
const readBack = (name, weight = 1, options = {}) =>
  CL.regularizer(name, weight, async (lps) => {
    const v = await lps[0].data();
    return [sg.tensor(Array.from(v).reduce((s, x) => s + x * x, 0)), {}];
  }, { async: true, ...options });

// ---- 1. a regularizer computed from values read back under 'symbolic' ----

forEachBackend("symbolic: a regularizer computed from values read back is differentiated numerically, not given zero weights", async () => {
  const r = await linearized([[1, -2, 0.5]], { baseLoss: (lps) => lps[0].sum(), regularizers: [readBack('readback', 0.5)], gradMethod: 'symbolic' });
  // total = Σx + 0.5·Σx² → ∂/∂x = 1 + x
  within(r.weights[0], [-2, 1, -1.5], 1e-3);
  assert.equal(r.telemetry.gradient_method, 'symbolic');
  assert.equal(r.telemetry.base_loss.gradient_method, 'symbolic');
  assert.equal(r.telemetry.regularizers.readback.gradient_method, 'numerical');
  // The probe (2 evaluations) and the differences of 3 elements (6).
  assert.equal(r.telemetry.gradient_evaluations, 8);
});

forEachBackend("a regularizer that insists on 'symbolic' but has no graph is an Error naming it and suggesting 'numerical'", async () => {
  await assert.rejects(
    linearized([[1, 2]], { regularizers: [readBack('judge', 1, { gradMethod: 'symbolic' })], gradMethod: 'symbolic' }),
    /^Error: Custom loss failed: judge: gradMethod 'symbolic', but its loss has no autograd graph to the log-probabilities .*use \{ gradMethod: 'numerical' \}/,
  );
});

// ---- 2. per-regularizer gradient methods ----

forEachBackend("per regularizer: 'auto' mixes autograd and differences by input; 'numerical' and 'symbolic' override the call's method", async () => {
  // part: lps[0] through the graph (Σ a³), lps[1] through read-back values (Σ b²).
  const part = CL.regularizer('part', 1, async (lps) => {
    const b = Array.from(await lps[1].data());
    return sg.tidy(() => [lps[0].pow(3).sum().add(b.reduce((s, x) => s + x * x, 0)), {}]);
  }, { async: true });
  const a = [0.5, -1];
  const b = [2, -0.25];
  const r = await linearized([a, b], { regularizers: [part], gradMethod: 'symbolic' });
  within(r.weights[0], a.map((x) => -3 * x * x), 1e-6);
  within(r.weights[1], b.map((x) => -2 * x), 1e-3);
  assert.equal(r.telemetry.regularizers.part.gradient_method, 'mixed');

  const cube = (lps) => [lps[0].pow(3).sum(), {}];
  const forced = await linearized([a], {
    regularizers: [CL.regularizer('diff', 1, cube, { gradMethod: 'numerical' }), CL.regularizer('graph', 2, cube, { gradMethod: 'symbolic' })],
    gradMethod: 'symbolic',
  });
  within(forced.weights[0], a.map((x) => -9 * x * x), 1e-3);
  assert.equal(forced.telemetry.regularizers.diff.gradient_method, 'numerical');
  assert.equal(forced.telemetry.regularizers.graph.gradient_method, 'symbolic');
  assert.equal(forced.telemetry.gradient_evaluations, 4, "only 'diff' is differenced: 2 elements × 2");

  // Under the default 'numerical', a regularizer that asks for 'symbolic' gets autograd (exact).
  const exact = await linearized([[1, 2, 3]], { regularizers: [CL.regularizer('sum', 1, (lps) => [lps[0].sum(), {}], { gradMethod: 'symbolic' })] });
  assert.deepEqual(exact.weights[0], [-1, -1, -1]);
  assert.equal(exact.telemetry.gradient_method, 'numerical');
  assert.equal(exact.telemetry.regularizers.sum.gradient_method, 'symbolic');
  assert.equal(exact.telemetry.gradient_evaluations, 0);

  // An input a term does not depend on at all: the probe finds no change, and no differences are taken.
  const unused = await linearized([[1, 2], [3, 4, 5]], { baseLoss: (lps) => lps[0].square().sum(), gradMethod: 'symbolic' });
  assert.deepEqual(unused.weights, [[-2, -4], [0, 0, 0]]);
  assert.equal(unused.telemetry.base_loss.gradient_method, 'symbolic');
  assert.equal(unused.telemetry.gradient_evaluations, 2);
});

test('per regularizer gradMethod: bad values and the hybrid conflict are Errors', async () => {
  assert.throws(() => CL.regularizer('r', 1, () => {}, { gradMethod: 'finite' }), /option 'gradMethod' must be one of 'auto', 'symbolic', 'numerical', got 'finite'/);
  assert.equal(CL.regularizer('r', 1, () => {}).gradMethod, 'auto');
  const x = sg.tensor([1, 2]);
  try {
    const gradFn = (lps) => [sg.onesLike(lps[0])];
    await assert.rejects(
      CL.linearize([x], null, { regularizers: [CL.regularizer('n', 1, (l) => l[0].sum(), { gradMethod: 'numerical' })], gradMethod: 'hybrid', gradFn }),
      /regularizer 'n' has gradMethod 'numerical', but gradMethod 'hybrid' takes the whole gradient from gradFn/,
    );
    await assert.rejects(CL.linearize([x], null, { baseLoss: (l) => l[0].sum(), gradMethod: 'hybrid', gradFn, chunkSize: 2 }), /option 'chunkSize' is for central differences/);
    await assert.rejects(CL.linearize([x], null, { baseLoss: (l) => l[0].sum(), chunkSize: 0 }), /option 'chunkSize' must be a positive integer/);
    const h = await CL.linearize([x], null, { baseLoss: (l) => l[0].sum(), gradMethod: 'hybrid', gradFn });
    assert.equal(h.telemetry.base_loss.gradient_method, 'hybrid');
    sg.dispose(h.weights);
  } finally {
    x.dispose();
  }
});

// ---- 3. the client's failures ----

forEachBackend("a failing client.forward or client.forwardBackward is 'Custom loss failed: client.…' with the original as cause, leaving no tensor", async () => {
  const boom = new Error('service unavailable');
  const sum = (lps) => lps[0].sum();
  const forwardFails = { forward: async () => { throw boom; }, forwardBackward: async () => ({}) };
  await assert.rejects(CL.forwardBackwardCustom(forwardFails, null, { baseLoss: sum }), (e) => {
    assert.equal(e.message, 'Custom loss failed: client.forward: service unavailable');
    assert.equal(e.cause, boom);
    return true;
  });
  await settleGarbage();
  const before = sg.memory().tensors;
  const backwardFails = { forward: async () => [sg.tensor([1, 2])], forwardBackward: async () => { throw boom; } };
  await assert.rejects(CL.forwardBackwardCustom(backwardFails, null, { baseLoss: sum }), (e) => {
    assert.equal(e.message, 'Custom loss failed: client.forwardBackward: service unavailable');
    assert.equal(e.cause, boom);
    return true;
  });
  assert.equal(sg.memory().tensors, before, 'the log-probabilities and the weights are freed');
});

// ---- 4. central differences in chunks ----

forEachBackend('chunkSize: the differences of chunkSize elements run together; same weights, bounded live tensors', async () => {
  const n = 12;
  const x = Array.from({ length: n }, (_, i) => (i - 5) / 4);
  let inFlight = 0;
  let most = 0;
  let liveMost = 0;
  const slowCube = CL.regularizer('remote', 1, async (lps) => {
    inFlight++;
    most = Math.max(most, inFlight);
    liveMost = Math.max(liveMost, sg.memory().tensors);
    await sleep(2);
    inFlight--;
    return sg.tidy(() => [lps[0].pow(3).sum(), {}]);
  }, { async: true });
  const runs = {};
  for (const chunkSize of [1, 4, 12]) {
    most = 0;
    await settleGarbage();
    const base = sg.memory().tensors;
    liveMost = 0;
    const r = await linearized([x], { regularizers: [slowCube], chunkSize });
    runs[chunkSize] = { weights: r.weights, most, live: liveMost - base };
    assert.equal(r.telemetry.gradient_evaluations, 2 * n);
    within(r.weights[0], x.map((v) => -3 * v * v), 2e-3);
  }
  assert.equal(runs[1].most, 2, 'one element at a time: its two evaluations');
  assert.equal(runs[4].most, 8);
  assert.equal(runs[12].most, 24);
  assert.deepEqual(runs[4].weights, runs[1].weights, 'the same differences, in another order');
  assert.deepEqual(runs[12].weights, runs[1].weights);
  // Live tensors grow with the chunk (its perturbed copies), not with the number of elements.
  assert.ok(runs[1].live <= 4, `chunk 1: ${runs[1].live} live tensors`);
  assert.ok(runs[4].live <= 4 * 2 + 2, `chunk 4: ${runs[4].live} live tensors`);
  assert.ok(runs[12].live > runs[4].live);
});
