// zeroGrad honours its argument (API.md: "Methods that ignore an argument they were given are
// bugs"): optimizers' and modules' zeroGrad({ setToNone }) / zeroGrad(setToNone), default true
// (PyTorch ≥ 2.0), with false zeroing the existing gradients in place; unknown keys and wrong
// types throw. Also the `inplace` flag of the activation and dropout modules, which writes the
// result into the input (PyTorch's in-place activations) instead of being ignored.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';

/** A Linear(2, 1) with weight [1, 2], bias 0, and the gradients of sum(lin(ones([3, 2]))). */
function trained() {
  const lin = new sg.nn.Linear(2, 1);
  sg.noGrad(() => {
    lin.weight.copy_(sg.tensor([[1, 2]]));
    lin.bias.zero_();
  });
  sg.tidy(() => lin.forward(sg.ones([3, 2])).sum().backward());
  return lin;
}

test('optimizer zeroGrad(): grads become null (setToNone by default)', () => {
  const lin = trained();
  const opt = new sg.optim.SGD(lin.parameters(), { lr: 0.1 });
  assert.deepEqual(lin.weight.grad.toArray(), [[3, 3]]);
  opt.zeroGrad();
  assert.equal(lin.weight.grad, null);
  assert.equal(lin.bias.grad, null);
  lin.dispose();
});

test('optimizer zeroGrad({ setToNone: false }) zeroes the same gradient tensors in place', () => {
  const lin = trained();
  const opt = new sg.optim.Adam(lin.parameters());
  const g = lin.weight.grad;
  opt.zeroGrad({ setToNone: false });
  assert.equal(lin.weight.grad, g, 'the same tensor');
  assert.deepEqual(g.toArray(), [[0, 0]]);
  assert.deepEqual(lin.bias.grad.toArray(), [0]);
  // Gradients accumulate onto the zeros as usual.
  sg.tidy(() => lin.forward(sg.ones([1, 2])).sum().backward());
  assert.deepEqual(lin.weight.grad.toArray(), [[1, 1]]);
  opt.zeroGrad(false);  // the positional form, as PyTorch's zero_grad(False)
  assert.deepEqual(lin.weight.grad.toArray(), [[0, 0]]);
  opt.zeroGrad({ setToNone: true });
  assert.equal(lin.weight.grad, null);
  // No gradient yet: stays null.
  opt.zeroGrad({ setToNone: false });
  assert.equal(lin.weight.grad, null);
  lin.dispose();
});

test('module zeroGrad(setToNone) and zeroGrad({ setToNone })', () => {
  const lin = trained();
  lin.zeroGrad(false);
  assert.deepEqual(lin.weight.grad.toArray(), [[0, 0]]);
  lin.zeroGrad({ setToNone: false });
  assert.deepEqual(lin.weight.grad.toArray(), [[0, 0]]);
  lin.zeroGrad();
  assert.equal(lin.weight.grad, null);
  const seq = new sg.nn.Sequential(trained(), new sg.nn.ReLU());
  seq.zeroGrad({ setToNone: false });
  assert.deepEqual(seq.parameters().map((p) => p.grad.toArray()), [[[0, 0]], [0]]);
  lin.dispose();
  seq.dispose();
});

test('a gradient that carries a graph (createGraph) is detached, then zeroed', () => {
  const w = sg.tensor([2], { requiresGrad: true });
  sg.tidy(() => w.pow(3).sum().backward({ createGraph: true }));
  assert.ok(w.grad.requiresGrad, 'd(w^3)/dw = 3w^2 keeps its graph');
  const opt = new sg.optim.SGD([w], { lr: 0.1 });
  opt.zeroGrad({ setToNone: false });
  assert.deepEqual(w.grad.toArray(), [0]);
  assert.equal(w.grad.requiresGrad, false);
  w.grad = null;
  w.dispose();
});

test('zeroGrad errors: unknown keys, wrong types, extra arguments', () => {
  const lin = trained();
  const opt = new sg.optim.SGD(lin.parameters(), { lr: 0.1 });
  const live = sg.memory().tensors;
  throwsWith(() => opt.zeroGrad({ setToNon: false }), "SGD.zeroGrad: unknown option 'setToNon' (expected one of: setToNone)");
  throwsWith(() => opt.zeroGrad({ setToNone: 0 }), "SGD.zeroGrad: expected 'setToNone' to be a boolean, got 0");
  throwsWith(() => opt.zeroGrad('no'), "SGD.zeroGrad: expected 'setToNone' to be a boolean, got 'no'");
  throwsWith(() => opt.zeroGrad(false, { setToNone: false }), "got multiple values for argument 'setToNone'");
  throwsWith(() => lin.zeroGrad({ set_to_none: true }), "Linear.zeroGrad: unknown option 'set_to_none'");
  throwsWith(() => lin.zeroGrad(true, 1), 'Linear.zeroGrad: takes one argument');
  assert.equal(sg.memory().tensors, live);
  assert.deepEqual(lin.weight.grad.toArray(), [[3, 3]], 'a refused call changes nothing');
  lin.dispose();
});

test('inside sg.compile: zeroGrad() is fine, setToNone: false refuses with a clear Error', () => {
  const lin = new sg.nn.Linear(2, 1);
  const opt = new sg.optim.SGD(lin.parameters(), { lr: 0.1 });
  const step = sg.compile((x) => {
    opt.zeroGrad({ setToNone: false });
    const loss = lin.forward(x).sum();
    loss.backward();
    return loss;
  });
  const x = sg.ones([1, 2]);
  throwsWith(() => step(x), 'zeroGrad: setToNone: false cannot be compiled');
  step.clear();
  x.dispose();
  lin.dispose();
});

test('inplace: true leaves no tensor behind: the result, once written into the input, is freed', () => {
  // Outside sg.tidy (which would free a forgotten result anyway): live tensors before and after.
  const v = sg.tensor([-1, 2, -3, 4]);
  const live = sg.memory().tensors;
  assert.equal(sg.F.dropout(v, { p: 1, inplace: true }), v);
  assert.equal(new sg.nn.ReLU({ inplace: true }).forward(v), v);
  assert.equal(sg.memory().tensors, live);
  v.dispose();
});

test('inplace: true writes the activation into its input (and autograd follows it)', () => {
  const a = sg.tensor([-1, 2, -3, 4], { requiresGrad: true });
  const live = sg.memory().tensors;
  sg.tidy(() => {
    const x = a.mul(2);
    const y = new sg.nn.ReLU({ inplace: true }).forward(x);
    assert.equal(y, x, 'the input tensor is returned');
    assert.deepEqual(x.toArray(), [0, 4, 0, 8]);
    x.sum().backward();
  });
  assert.deepEqual(a.grad.toArray(), [0, 2, 0, 2], 'd relu(2a)/da');
  assert.equal(sg.memory().tensors, live + 1, 'only a.grad is new');
  sg.tidy(() => {
    const t = sg.tensor([-2, 1]);
    new sg.nn.LeakyReLU({ negativeSlope: 0.5, inplace: true }).forward(t);
    assert.deepEqual(t.toArray(), [-1, 1]);
    const u = sg.tensor([-2, 1]);
    new sg.nn.ReLU(true).forward(u);  // PyTorch's positional inplace
    assert.deepEqual(u.toArray(), [0, 1]);
    const v = sg.ones([4]);
    const out = sg.F.dropout(v, { p: 1, inplace: true });
    assert.equal(out, v);
    assert.deepEqual(v.toArray(), [0, 0, 0, 0]);
    const w = sg.ones([2]);
    assert.equal(sg.F.dropout(w, 1, true, true), w, "PyTorch's positional inplace");
    assert.deepEqual(w.toArray(), [0, 0]);
    const keep = sg.tensor([-2, 1]);
    const fresh = new sg.nn.ReLU().forward(keep);
    assert.notEqual(fresh, keep);
    assert.deepEqual(keep.toArray(), [-2, 1], 'without inplace the input is unchanged');
    assert.equal(new sg.nn.ReLU({ inplace: true }).extraRepr(), 'inplace=True');
  });
  // A leaf that requires grad refuses an in-place change, as in PyTorch.
  throwsWith(() => new sg.nn.ReLU({ inplace: true }).forward(a), /leaf/);
  a.grad = null;
  a.dispose();
});
