// Every loss module of PyTorch 1.13 with each reduction ('none', 'mean', 'sum'; KLDivLoss's
// 'batchmean') and with its options set (weights, posWeight, ignoreIndex, labelSmoothing with index
// and probability targets, margins, p, swap, eps, logTarget, logInput, full, a broadcast variance):
// 137 constructions on fixed inputs, whose results and gradients (of the result's sum, for the
// inputs PyTorch differentiates) must equal PyTorch's (tests/data/gen_loss_sweep.py). The options
// travel module -> F function -> kernel, so a setting dropped or defaulted wrong anywhere shows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { maxRelErr, readRef, sg } from './helpers.mjs';

const ref = readRef('loss_sweep_ref.json');
const fromTyped = (e, requiresGrad = false) => sg.tensor(e.data, { shape: e.shape, dtype: e.dtype, requiresGrad });

test('137 loss constructions: PyTorch 1.13\'s result and gradients', () => {
  assert.ok(ref.cases.length >= 130, `${ref.cases.length} cases`);
  const TOL = 2e-5;
  const wrong = [];
  const before = sg.memory().tensors;
  for (const c of ref.cases) {
    const W = c.W ? fromTyped(c.W) : null;
    const m = new Function('sg', 'W', `return ${c.sg}`)(sg, W);
    const xs = c.inputs.map((e, i) => fromTyped(e, c.grad.includes(i)));
    const r = m.forward(...xs);
    if (JSON.stringify(r.shape) !== JSON.stringify(c.result.shape)) wrong.push(`${c.sg}: shape [${r.shape}], PyTorch [${c.result.shape}]`);
    const err = maxRelErr(Array.from(r.dataSync()), c.result.data);
    if (!(err <= TOL)) wrong.push(`${c.sg}: result differs from PyTorch's by ${err}`);
    sg.tidy(() => r.sum().backward());
    c.grad.forEach((i, k) => {
      const g = xs[i].grad;
      const e = g ? maxRelErr(Array.from(g.dataSync()), c.grads[k].data) : NaN;
      if (!(e <= TOL)) wrong.push(`${c.sg}: the gradient of input ${i} differs from PyTorch's by ${e}`);
    });
    for (const t of [r, ...xs]) { t.grad?.dispose(); t.dispose(); }
    for (const [, b] of m.namedBuffers()) b?.dispose();
    W?.dispose();
  }
  assert.deepEqual(wrong, []);
  assert.equal(sg.memory().tensors, before, 'no tensor left');
});
