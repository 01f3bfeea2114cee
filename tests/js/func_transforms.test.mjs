// sg.func's differentiating transforms (grad, gradAndValue, vjp, jvp, jacrev, jacfwd, hessian)
// against PyTorch 1.13's torch.autograd.functional (tests/data/gen_func.py -> func_ref.json,
// float64 from the same 4-decimal inputs) and against central differences.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { close, readRef, sg } from './helpers.mjs';

const ref = readRef('func_ref.json');
const T = (a) => sg.tensor(a);
const TOL = 2e-5;

test('grad and gradAndValue of sum(sin(x)·x) equal PyTorch', () => {
  const f = (x) => x.sin().mul(x).sum();
  const x = T(ref.sin.x);
  close(sg.func.grad(f)(x).toArray(), ref.sin.grad, TOL);
  const [g, v] = sg.func.gradAndValue(f)(x);
  close(g.toArray(), ref.sin.grad, TOL);
  close(v.item(), ref.sin.x.reduce((s, t) => s + Math.sin(t) * t, 0), TOL);
  // the caller's tensor is untouched
  assert.equal(x.requiresGrad, false);
  assert.equal(x.grad, null);
});

test('grad with argnums [0, 1] and hasAux', () => {
  const f = (a, b) => a.matmul(b).tanh().sum();
  const a = T(ref.two.a), b = T(ref.two.b);
  const [ga, gb] = sg.func.grad(f, { argnums: [0, 1] })(a, b);
  close(ga.toArray(), ref.two.grad_a, TOL);
  close(gb.toArray(), ref.two.grad_b, TOL);
  close(sg.func.grad(f, { argnums: 1 })(a, b).toArray(), ref.two.grad_b, TOL);
  const [g, aux] = sg.func.grad((a, b) => [f(a, b), { note: 'kept', t: a.sum() }], { hasAux: true })(a, b);
  close(g.toArray(), ref.two.grad_a, TOL);
  assert.equal(aux.note, 'kept');
  close(aux.t.item(), ref.two.a.flat().reduce((s, t) => s + t, 0), TOL);
  const [[g2], [value, aux2]] = sg.func.gradAndValue((a, b) => [f(a, b), 7], { argnums: [0], hasAux: true })(a, b);
  close(g2.toArray(), ref.two.grad_a, TOL);
  assert.equal(aux2, 7);
  assert.deepEqual(value.shape, []);
});

test('grad of an object of tensors gives the same object of gradients', () => {
  const p = { w: T(ref.two.a), b: T(ref.two.b) };
  const g = sg.func.grad((p) => p.w.matmul(p.b).tanh().sum())(p);
  assert.deepEqual(Object.keys(g), ['w', 'b']);
  close(g.w.toArray(), ref.two.grad_a, TOL);
  close(g.b.toArray(), ref.two.grad_b, TOL);
});

test('vjp and jvp of softmax(x)·x² equal torch.autograd.functional.vjp / jvp', () => {
  const f = (x) => x.softmax(0).mul(x).mul(x);
  const x = T(ref.vec.x);
  const [out, vjpFn] = sg.func.vjp(f, x);
  close(out.toArray(), ref.vec.out, TOL);
  const [g] = vjpFn(T(ref.vec.u));
  close(g.toArray(), ref.vec.vjp, TOL);
  // vjpFn can be called again (the graph is kept)
  close(vjpFn(T(ref.vec.u))[0].toArray(), ref.vec.vjp, TOL);
  const [o2, t2] = sg.func.jvp(f, [x], [T(ref.vec.v)]);
  close(o2.toArray(), ref.vec.out, TOL);
  close(t2.toArray(), ref.vec.jvp, TOL);
});

test('jacrev and jacfwd equal torch.autograd.functional.jacobian', () => {
  const f = (x) => x.softmax(0).mul(x).mul(x);
  const x = T(ref.vec.x);
  close(sg.func.jacrev(f)(x).toArray(), ref.vec.jacobian, TOL);
  close(sg.func.jacfwd(f)(x).toArray(), ref.vec.jacobian, TOL);
  // a matrix output with respect to a matrix argument: [2, 4, 3, 4]
  const a = T(ref.two.a), b = T(ref.two.b);
  const jr = sg.func.jacrev((a, b) => a.matmul(b).tanh(), { argnums: 1 })(a, b);
  assert.deepEqual(jr.shape, [2, 4, 3, 4]);
  close(jr.toArray(), ref.two.jac_b, TOL);
  close(sg.func.jacfwd((a, b) => a.matmul(b).tanh(), { argnums: 1 })(a, b).toArray(), ref.two.jac_b, TOL);
});

test('hessian and jacfwd(jacrev(f)) equal torch.autograd.functional.hessian', () => {
  const f = (x) => x.sin().mul(x).sum();
  const x = T(ref.sin.x);
  close(sg.func.hessian(f)(x).toArray(), ref.sin.hessian, 1e-4);
  close(sg.func.jacfwd(sg.func.jacrev(f))(x).toArray(), ref.sin.hessian, 1e-4);
  close(sg.func.jacrev(sg.func.jacrev(f))(x).toArray(), ref.sin.hessian, 1e-4);
  const a = T(ref.two.a), b = T(ref.two.b);
  const h = sg.func.hessian((a) => a.matmul(b).tanh().sum())(a);
  assert.deepEqual(h.shape, [2, 3, 2, 3]);
  close(h.toArray(), ref.two.hessian_a, 1e-4);
});

test('an nn module: jacobian, jvp and hessian with respect to the input equal PyTorch', () => {
  const m = ref.mlp;
  const model = new sg.nn.Sequential(new sg.nn.Linear(4, 6), new sg.nn.Tanh(), new sg.nn.Linear(6, 3));
  model.loadStateDict(Object.fromEntries(Object.entries(m.params).map(([k, v]) => [k, T(v)])));
  const x0 = T(m.x[0]);
  close(sg.func.jacrev((x) => model(x))(x0).toArray(), m.jac_x0, TOL);
  close(sg.func.jacfwd((x) => model(x))(x0).toArray(), m.jac_x0, TOL);
  close(sg.func.jvp((x) => model(x), [x0], [T(m.jvp_x0_v)])[1].toArray(), m.jvp_x0, TOL);
  const y0 = sg.tensor([m.y[0]], { dtype: 'int32' });
  const loss = (x) => sg.F.crossEntropy(model(x.unsqueeze(0)), y0);
  close(sg.func.hessian(loss)(x0).toArray(), m.hessian_x0, 1e-4);
});

test('jvp and hessian against central differences', () => {
  const f = (x) => x.exp().mul(x.cos()).sum();
  const xs = [0.3, -0.7, 1.1];
  const h = 1e-3;
  const fAt = (v) => sg.noGrad(() => f(sg.tensor(v)).item());
  // directional derivative along v by central differences
  const v = [0.5, -1, 2];
  const fd = (fAt(xs.map((a, i) => a + h * v[i])) - fAt(xs.map((a, i) => a - h * v[i]))) / (2 * h);
  const [, t] = sg.func.jvp(f, [sg.tensor(xs)], [sg.tensor(v)]);
  close(t.item(), fd, 1e-3);
  // each Hessian column by central differences of the gradient
  const g = (vals) => Array.from(sg.func.grad(f)(sg.tensor(vals)).dataSync());
  const H = sg.func.hessian(f)(sg.tensor(xs)).toArray();
  for (let j = 0; j < 3; j++) {
    const up = g(xs.map((a, i) => (i === j ? a + h : a)));
    const dn = g(xs.map((a, i) => (i === j ? a - h : a)));
    for (let i = 0; i < 3; i++) close(H[i][j], (up[i] - dn[i]) / (2 * h), 2e-3);
  }
});

test('transforms leave the tensor count flat', () => {
  const f = (x) => x.sin().mul(x).sum();
  const x = T(ref.sin.x);
  const run = () => sg.tidy(() => {
    sg.func.grad(f)(x);
    sg.func.jvp((x) => x.square(), [x], [x]);
    sg.func.vjp((x) => x.square(), x)[1](x);
    sg.func.hessian(f)(x);
  });
  run();
  const before = sg.memory().tensors;
  for (let i = 0; i < 5; i++) run();
  assert.equal(sg.memory().tensors, before);
});
