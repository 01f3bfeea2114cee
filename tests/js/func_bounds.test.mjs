// Single disjuncts of sg.func's guards: whether grad's result is recorded for an outer
// differentiation needs both grad mode on and an input that requires grad (functorch: a transform
// under no_grad, or over a constant, returns a tensor without history); jvp's tangent shape check
// by rank alone and by size alone; vmap's inDims / outDims lengths on their allowed side and a
// function returning no tensor; functionalCall replacing a buffer alone; an autograd.Function whose
// backward returns null for an input. Values by hand; messages: the source's.
import test from 'node:test';
import assert from 'node:assert/strict';
import { sg, close, throwsWith } from './helpers.mjs';

const sq = (t) => t.mul(t).sum();

test('func.grad records its result only with grad mode on and an input requiring grad', () => {
  const x = sg.tensor([1, 2], { requiresGrad: true });
  const g = sg.func.grad(sq)(x);
  close(g.toArray(), [2, 4]);
  assert.equal(g.requiresGrad, true);
  g.sum().backward();
  close(x.grad.toArray(), [2, 2]);
  const off = sg.noGrad(() => sg.func.grad(sq)(x));
  close(off.toArray(), [2, 4]);
  assert.equal(off.requiresGrad, false);
  const c = sg.func.grad(sq)(sg.tensor([1, 2]));
  close(c.toArray(), [2, 4]);
  assert.equal(c.requiresGrad, false);
});

test('func.jvp: a tangent of another rank alone, and of another size alone, are refused', () => {
  const x = sg.ones([3]);
  throwsWith(() => sg.func.jvp(sq, [x], [sg.ones([3, 1])]), /^jvp\(sq\): tangents 0 has shape \[3, 1\], expected \[3\]$/);
  throwsWith(() => sg.func.jvp(sq, [x], [sg.ones([])]), /^jvp\(sq\): tangents 0 has shape \[\], expected \[3\]$/);
  throwsWith(() => sg.func.jvp(sq, [x], [sg.ones([2])]), /^jvp\(sq\): tangents 0 has shape \[2\], expected \[3\]$/);
  throwsWith(() => sg.func.jvp(sq, [x], [x, x]), /^jvp\(sq\): expected 1 tangents, got 2$/);
  const [out, tan] = sg.func.jvp(sq, [sg.tensor([1, 2, 3])], [sg.tensor([1, 0, 1])]);
  close([out.item(), tan.item()], [14, 8]);
});

test('vmap: inDims / outDims of the right length pass; a function returning no tensor is refused', () => {
  const add = (a, b) => a.add(b);
  const a = sg.tensor([[1, 2], [3, 4]]);
  close(sg.func.vmap(add, { inDims: [0, 1] })(a, a).toArray(), [[2, 5], [5, 8]]);
  // torch 1.13: vmap(f, out_dims=(1,)) of a single-output f -> [[2, 6], [4, 8]]
  close(sg.func.vmap((t) => t.mul(2), { outDims: [1] })(a).toArray(), [[2, 6], [4, 8]]);
  const { s } = sg.func.vmap((t) => ({ s: t.sum() }), { outDims: [0] })(a);
  close(s.toArray(), [3, 7]);
  const [p, q] = sg.func.vmap((t) => [t, t.neg()], { outDims: [0, 1] })(a);
  close([p.toArray(), q.toArray()], [[[1, 2], [3, 4]], [[-1, -3], [-2, -4]]]);
  throwsWith(() => sg.func.vmap(function none() { return 5; })(a), /^vmap\(none\): the function must return a Tensor or an array\/object of Tensors, got 5$/);
  throwsWith(() => sg.func.vmap(function none() { return []; }, { outDims: [] })(a), /^vmap\(none\): the function must return a Tensor or an array\/object of Tensors, got \[\]$/);
  throwsWith(() => sg.func.vmap((t) => [t, t], { outDims: [0] })(a), /^vmap\(anonymous\): outDims has 1 entries but the function returned 2 outputs$/);
});

test('functionalCall: a buffer alone and a parameter alone may be replaced; neither is refused', () => {
  const bn = new sg.nn.BatchNorm1d(2);
  bn.eval();
  const x = sg.tensor([[1, 2]]);
  const y = sg.func.functionalCall(bn, { running_mean: sg.tensor([1, 1]) }, [x]);
  close(y.toArray(), [[0, 1]], 1e-4);
  const z = sg.func.functionalCall(bn, { weight: sg.tensor([2, 3]) }, [x]);
  close(z.toArray(), [[2, 6]], 1e-4);
  throwsWith(() => sg.func.functionalCall(bn, { nope: sg.ones([2]) }, [x]), /^functionalCall: params has 'nope', which is neither a parameter nor a buffer of the module$/);
});

test('autograd.Function: a null gradient for one input is taken, a wrong-shaped one refused', () => {
  class First extends sg.autograd.Function {
    static forward(ctx, a, b) {
      return a.mul(3).add(b.mul(0));
    }
    static backward(ctx, g) {
      return [g.mul(3), null];
    }
  }
  const a = sg.tensor([1, 2], { requiresGrad: true });
  const b = sg.tensor([5, 6], { requiresGrad: true });
  First.apply(a, b).sum().backward();
  close(a.grad.toArray(), [3, 3]);
  assert.equal(b.grad, null);
  class FirstU extends sg.autograd.Function {
    static forward(ctx, a, b) {
      return a.mul(3).add(b.mul(0));
    }
    static backward(ctx, g) {
      return [g.mul(3), undefined];
    }
  }
  a.grad = null;
  FirstU.apply(a, b).sum().backward();
  close(a.grad.toArray(), [3, 3]);
  assert.equal(b.grad, null);
  class Bad extends sg.autograd.Function {
    static forward(ctx, a, b) {
      return a.add(b);
    }
    static backward(ctx, g) {
      return [g, g.sum()];
    }
  }
  throwsWith(() => Bad.apply(a, b).sum().backward(), /Bad\.backward: the gradient of argument 1 has shape \[\], expected \[2\]$/);
});

test('vmap: reading an unbatched tensor inside the function is allowed; reading a batched one is refused', () => {
  const c = sg.tensor([3]);
  const a = sg.tensor([[1, 2], [3, 4]]);
  close(sg.func.vmap((x) => x.mul(c.item()))(a).toArray(), [[3, 6], [9, 12]]);
  throwsWith(() => sg.func.vmap((x) => x.mul(x.sum().item()))(a),
    /^vmap: the function read the values of a tensor batched by vmap \(item, dataSync, toArray\): a mapped function must compute with tensors only$/);
});

// Forward mode runs fn once; when fn does what it cannot follow it runs fn again by the double-VJP
// (func_jvp_fallback.test): the number of calls tells which path was taken.
test('jvp: a jsCall on a tensor without a tangent stays in forward mode; a backward pass or sg.grad inside fn falls back', () => {
  const spec = (shape) => ({ shape, dtype: 'float32' });
  let n = 0;
  const c = sg.tensor([1, 2]);
  const viaJs = (x) => (n++, x.mul(sg.jsCall(spec([2]), [c], (t) => t.mul(10))));
  const [y, t] = sg.func.jvp(viaJs, [sg.tensor([1, 1])], [sg.tensor([1, 0])]);
  assert.deepEqual([n, y.toArray(), t.toArray()], [1, [10, 20], [10, 0]]);
  n = 0;
  const withBackward = (x) => {
    n++;
    const w = sg.tensor([1, 2], { requiresGrad: true });
    w.mul(w).sum().backward();
    return x.mul(w.grad);
  };
  const [y2, t2] = sg.func.jvp(withBackward, [sg.tensor([1, 1])], [sg.tensor([1, 0])]);
  assert.deepEqual([n, y2.toArray(), t2.toArray()], [2, [2, 4], [2, 0]]);
  n = 0;
  const withGrad = (x) => (n++, x.mul(sg.grad((a) => a.mul(a).sum())(sg.tensor([1, 2]))));
  const [y3, t3] = sg.func.jvp(withGrad, [sg.tensor([1, 1])], [sg.tensor([1, 0])]);
  assert.deepEqual([n, y3.toArray(), t3.toArray()], [2, [2, 4], [2, 0]]);
});

test('func.grad argnums: 0, [1], [0, 1] taken; [], [0, -1], [0.5] refused; a [1, 1] result counts as one element', () => {
  const f = (a, b) => a.mul(b).sum();
  const a = sg.tensor([1, 2]), b = sg.tensor([3, 4]);
  close(sg.func.grad(f, { argnums: 0 })(a, b).toArray(), [3, 4]);
  close(sg.func.grad(f, { argnums: [1] })(a, b)[0].toArray(), [1, 2]);
  const [ga, gb] = sg.func.grad(f, { argnums: [0, 1] })(a, b);
  close([ga.toArray(), gb.toArray()], [[3, 4], [1, 2]]);
  for (const [bad, shown] of [[[], '\\[\\]'], [[0, -1], '\\[0, -1\\]'], [[0.5], '\\[0\\.5\\]']]) {
    throwsWith(() => sg.func.grad(f, { argnums: bad }), new RegExp(`^grad\\(f\\): expected argnums to be a non-negative integer or a non-empty array of them, got ${shown}$`));
  }
  close(sg.func.grad((t) => t.sum().reshape([1, 1]))(a).toArray(), [1, 1]);
});
