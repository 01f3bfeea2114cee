// Every module of tests/data/module_forward_ref.json (153 PyTorch 1.13 modules, defaults and options
// set: gen_module_forward.py) runs forward and backward here on inputs of the shapes PyTorch ran:
// the result has PyTorch's structure and shapes (LSTM's [out, [h, c]] as its (out, (h, c))), every
// float input gets a gradient of its shape, and once the results, the inputs and the gradients
// are disposed no tensor is left (the module's own parameters and buffers aside): a module whose
// forward or backward forgets to free an intermediate fails here. In-place modules run forward
// only, on an input without gradient (as PyTorch refuses a leaf that requires grad).
// Not under tidy(): tidy would free what a module leaked, and hide it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { maxRelErr, readRef, sg } from './helpers.mjs';

const ref = readRef('module_forward_ref.json');

const flat = (r) => (r instanceof sg.Tensor ? [r] : r === null || r === undefined ? [] : r.flatMap(flat));
const shapes = (r) => (r instanceof sg.Tensor ? [...r.shape] : r.map(shapes));

test('153 modules: PyTorch\'s output structure and shapes, a gradient for every float input, no tensor left', () => {
  assert.ok(ref.cases.length >= 150, `${ref.cases.length} cases`);
  sg.manualSeed(0);
  const wrong = [];
  for (const c of ref.cases) {
    const m = new Function('sg', `return ${c.sg}`)(sg);
    const before = sg.memory().tensors;
    const xs = c.inputs.map((i) => (i.int
      ? sg.randint(0, i.int[1], i.int[0])
      : sg.randn(i, { requiresGrad: !c.inplace })));
    const out = m.forward(...xs);
    const got = shapes(out);
    if (JSON.stringify(got) !== JSON.stringify(c.shapes)) wrong.push(`${c.sg}: shapes ${JSON.stringify(got)}, PyTorch ${JSON.stringify(c.shapes)}`);
    const outs = flat(out);
    if (!c.inplace) {
      const sums = outs.filter((t) => t.dtype === 'float32' && t.requiresGrad).map((o) => o.sum());
      const stacked = sums.length > 1 ? sg.stack(sums) : null;
      const loss = stacked ? stacked.sum() : sums[0];
      loss.backward();
      for (const t of new Set([...sums, stacked, loss])) t?.dispose();
      xs.forEach((x, i) => {
        if (x.dtype !== 'float32') return;
        if (!x.grad || JSON.stringify(x.grad.shape) !== JSON.stringify(x.shape)) wrong.push(`${c.sg}: input ${i} has no gradient of its shape`);
      });
    }
    const distinct = new Set([...outs, ...xs]);
    for (const t of distinct) { t.grad?.dispose(); t.dispose(); }
    m.zeroGrad();
    const left = sg.memory().tensors - before;
    if (left !== 0) wrong.push(`${c.sg}: ${left} tensor(s) left after forward and backward`);
    for (const p of m.parameters()) p.dispose();
    for (const [, b] of m.namedBuffers()) b?.dispose();
  }
  assert.deepEqual(wrong, []);
});

test('the 136 modules that draw no random numbers: PyTorch\'s outputs and gradients from PyTorch\'s parameters', () => {
  const cases = ref.cases.filter((c) => c.out);
  assert.ok(cases.length >= 130, `${cases.length} cases with values`);
  const TOL = 2e-5;
  const wrong = [];
  for (const c of cases) {
    const m = new Function('sg', `return ${c.sg}`)(sg);
    const own = new Map([...m.namedParameters(), ...m.namedBuffers()]);
    const state = {};
    for (const [k, e] of Object.entries(c.state)) state[k] = sg.tensor(e.data, { shape: e.shape, dtype: own.get(k)?.dtype ?? e.dtype });
    m.loadStateDict(state);
    Object.values(state).forEach((t) => t.dispose());
    const xs = c.x.map((e) => sg.tensor(e.data, { shape: e.shape, dtype: e.dtype, requiresGrad: e.dtype === 'float32' && !c.inplace }));
    const outs = flat(m.forward(...xs));
    c.out.forEach((e, i) => {
      const err = outs[i] ? maxRelErr(Array.from(outs[i].dataSync()), e.data) : NaN;
      if (!(err <= TOL)) wrong.push(`${c.sg}: output ${i} differs from PyTorch's by ${err}`);
    });
    if (c.gradIn) {
      const sums = outs.filter((t) => t.requiresGrad).map((o) => o.sum());
      sg.tidy(() => (sums.length > 1 ? sg.stack(sums).sum() : sums[0]).backward());
      c.gradIn.forEach((e, i) => {
        if (!e) return;
        const err = xs[i].grad ? maxRelErr(Array.from(xs[i].grad.dataSync()), e.data) : NaN;
        if (!(err <= TOL)) wrong.push(`${c.sg}: the gradient of input ${i} differs from PyTorch's by ${err}`);
      });
      const params = new Map(m.namedParameters());
      for (const [k, e] of Object.entries(c.gradParams)) {
        const g = params.get(k)?.grad;
        const err = g ? maxRelErr(Array.from(g.dataSync()), e.data) : NaN;
        if (!(err <= TOL)) wrong.push(`${c.sg}: the gradient of ${k} differs from PyTorch's by ${err}`);
      }
      sums.forEach((t) => t.dispose());
    }
    for (const t of new Set([...outs, ...xs])) { t.grad?.dispose(); t.dispose(); }
    m.zeroGrad();
    for (const p of m.parameters()) p.dispose();
    for (const [, b] of m.namedBuffers()) b?.dispose();
  }
  assert.deepEqual(wrong, []);
});
