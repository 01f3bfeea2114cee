// sg.customLoss.linearize paths no other file reaches: under gradMethod 'symbolic', a term whose
// own gradMethod is 'auto' (a term's default) gets its graph's gradient, and the
// log-probability tensors a loss's graph does not reach are probed for dependence (all moved
// together, then each alone) and differenced only where it depends on them; and a
// gradMethod 'hybrid' gradFn that throws is a "Custom loss failed: gradFn" Error. The expected
// gradient of sum(x0) + 5·x1 is (1, 1), 5, 0 by hand; the evaluation count follows the documented scheme.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';

const CL = sg.customLoss;

test("gradMethod 'symbolic' with a term left 'auto': inputs the graph does not reach are probed (together, then each alone) and only those the loss depends on are differenced", async () => {
  const xs = [sg.tensor([1, 2]), sg.tensor([3]), sg.tensor([4, 5, 6])];
  // sum(x0) through the graph + 5·x1 read back with dataSync (no graph); x2 unused
  const baseLoss = (lps) => [lps[0].sum().add(5 * lps[1].dataSync()[0]), {}];
  const r = await CL.linearize(xs, null, { baseLoss, gradMethod: 'symbolic' });
  const w = r.weights.map((t) => Array.from(t.dataSync()));
  assert.deepEqual(w[0], [-1, -1]);
  assert.ok(Math.abs(w[1][0] + 5) < 1e-3, `weight of x1: ${w[1]} (−∂/∂x1 of 5·x1)`);
  assert.deepEqual(w[2], [0, 0, 0]);
  assert.equal(r.telemetry.base_loss.gradient_method, 'mixed');
  // probes: x1 and x2 moved ±eps together (2), then each alone (2 × 2); central differences of
  // x1's one element (2): 8 evaluations after the first (x2's three elements are not differenced)
  assert.equal(r.telemetry.gradient_evaluations, 8);
  sg.dispose([...r.weights, ...xs]);
});

test("gradMethod 'hybrid': a gradFn that throws is a Custom loss failed: gradFn Error", async () => {
  const x = sg.tensor([1, 2]);
  const gradFn = () => {
    throw new Error('no gradient today');
  };
  await assert.rejects(CL.linearize([x], null, { baseLoss: (l) => [l[0].sum(), {}], gradMethod: 'hybrid', gradFn }),
    (e) => e.message === 'Custom loss failed: gradFn: no gradient today' && e.cause instanceof Error);
  const ok = await CL.linearize([x], null, { baseLoss: (l) => [l[0].sum(), {}], gradMethod: 'hybrid', gradFn: (inputs) => [sg.onesLike(inputs[0])] });
  assert.deepEqual(Array.from(ok.weights[0].dataSync()), [-1, -1]);
  sg.dispose([...ok.weights, x]);
});
