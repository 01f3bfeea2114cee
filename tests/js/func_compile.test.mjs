// sg.func and sg.compile together: transforms inside a compiled function (grad, vjp, vmap,
// vmap(grad)) and compiled functions inside transforms (grad, vjp, jvp, hessian, vmap) give the
// eager transform's values (which func_transforms/func_vmap check against PyTorch). What does not
// compose yet is an Error: jvp/hessian inside a compiled function (double backward in a graph).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { close, sg, throwsWith } from './helpers.mjs';

const f = (x) => x.sin().mul(x).sum();
const x = sg.tensor([0.5, 1.0, 2.0]);
const X = sg.tensor([[1, 2, 0.5], [3, 4, -1]]);
const W = sg.tensor([[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]]);
const perSample = (w, xs) => sg.func.vmap(sg.func.grad((w, r) => r.matmul(w).tanh().sum()), { inDims: [null, 0] })(w, xs);

test('transforms inside sg.compile equal the eager transforms, call after call', () => {
  const cg = sg.compile((x) => sg.func.grad(f)(x));
  const cv = sg.compile((x, u) => sg.func.vjp((x) => x.square().sin(), x)[1](u)[0]);
  const cm = sg.compile((A) => sg.func.vmap((r) => r.softmax(0).mul(r).sum())(A));
  const cp = sg.compile(perSample);
  const u = sg.tensor([1, -2, 0.5]);
  for (let i = 0; i < 2; i++) {
    close(cg(x).toArray(), sg.func.grad(f)(x).toArray(), 1e-6);
    close(cv(x, u).toArray(), sg.func.vjp((x) => x.square().sin(), x)[1](u)[0].toArray(), 1e-6);
    close(cm(X).toArray(), sg.func.vmap((r) => r.softmax(0).mul(r).sum())(X).toArray(), 1e-6);
    close(cp(W, X).toArray(), perSample(W, X).toArray(), 1e-6);
  }
  assert.equal(cg.stats().compiles, 1);
  assert.equal(cp.stats().compiles, 1);
});

test('compiled functions inside grad, vjp, jvp, hessian and vmap', () => {
  const cf = sg.compile(f);
  close(sg.func.grad(cf)(x).toArray(), sg.func.grad(f)(x).toArray(), 1e-6);
  close(sg.func.vjp(cf, x)[1](sg.tensor(2))[0].toArray(), sg.func.grad(f)(x).mul(2).toArray(), 1e-6);
  const v = sg.tensor([1, 0, -1]);
  close(sg.func.jvp(cf, [x], [v])[1].item(), sg.func.jvp(f, [x], [v])[1].item(), 1e-6);
  close(sg.func.hessian(cf)(x).toArray(), sg.func.hessian(f)(x).toArray(), 1e-5);
  // inside vmap a compiled function runs its ops through the batching rules (eagerly)
  close(sg.func.vmap(cf)(X).toArray(), [0, 1].map((i) => f(X.select(0, i)).item()), 1e-6);
});

test('jvp by forward mode compiles; the double-VJP (an op without a forward rule) is refused by name', () => {
  // d/dx sin(x²) · v = cos(x²)·2x·v, on the trace and on a replay with other values
  const cj = sg.compile((x, v) => sg.func.jvp((x) => x.square().sin(), [x], [v])[1]);
  for (const v of [[1, 1, 1], [1, -2, 0.5]]) {
    close(cj(x, sg.tensor(v)).toArray(), [0.5, 1, 2].map((a, i) => Math.cos(a * a) * 2 * a * v[i]), 1e-6);
  }
  assert.equal(cj.stats().compiles, 1);
  const cm = sg.compile((x, v) => sg.func.jvp((x) => x.maximum(x.mul(0.5)), [x], [v])[1]);
  throwsWith(() => cm(x, sg.ones([3])), 'createGraph (double backward) is not supported inside sg.compile');
  // the instance is still usable: d/dx sum(sin(x)·x) = sin(x) + x·cos(x)
  close(sg.func.grad(f)(x).toArray(), [0.5, 1, 2].map((v) => Math.sin(v) + v * Math.cos(v)), 1e-6);
});
