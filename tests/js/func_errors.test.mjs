// sg.func / sg.autograd.Function Errors no other file triggers, and the paths beside them:
// an autograd.Function without forward or backward (PyTorch raises NotImplementedError for
// each), jacrev / jacfwd with hasAux (a function not returning [output, aux]; and the right
// one: the Jacobian of x² is diag(2x), the aux handed back as it is), a vjp function mapped by a
// vmap that did not map its primals. Messages are the module's contract; the Jacobians are
// hand-computed. Each Error is followed by a working call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';

test('autograd.Function without forward or without backward: the Error names the class and what it lacks', () => {
  class NoForward extends sg.autograd.Function {
    static backward(_ctx, g) {
      return g;
    }
  }
  class NoBackward extends sg.autograd.Function {
    static forward(_ctx, t) {
      return t.mul(2);
    }
  }
  sg.tidy(() => {
    const x = sg.tensor([1, 2]);
    assert.throws(() => NoForward.apply(x), { message: 'autograd.Function: NoForward must define static forward(ctx, ...args)' });
    // forward runs; the missing backward is found when the graph is walked
    const p = sg.tensor([1, 2], { requiresGrad: true });
    const y = NoBackward.apply(p);
    assert.deepEqual(y.toArray(), [2, 4]);
    assert.throws(() => y.sum().backward(), /NoBackward\.backward raised: autograd\.Function: NoBackward must define static backward\(ctx, \.\.\.gradOutputs\)/);
    // autograd still works after
    const q = sg.tensor([3], { requiresGrad: true });
    q.mul(q).sum().backward();
    assert.deepEqual(q.grad.toArray(), [6]);
  });
});

test('jacrev / jacfwd with hasAux: [output, aux] is required; the Jacobian and the aux come back', () => {
  sg.tidy(() => {
    const x = sg.tensor([1, 2, 3]);
    assert.throws(() => sg.func.jacrev((t) => t.square(), { hasAux: true })(x),
      { message: 'jacrev(anonymous): with hasAux, fn must return [output, aux], got a Tensor of shape [3] (float32)' });
    function one(t) {
      return [t.square()];
    }
    assert.throws(() => sg.func.jacfwd(one, { hasAux: true })(x), /jacfwd\(one\): with hasAux, fn must return \[output, aux\], got \[a Tensor/);
    const diag = [[2, 0, 0], [0, 4, 0], [0, 0, 6]];
    const [j, aux] = sg.func.jacrev((t) => [t.square(), { s: t.sum() }], { hasAux: true })(x);
    assert.deepEqual(j.toArray(), diag);
    assert.equal(aux.s.item(), 6);
    const [j2, aux2] = sg.func.jacfwd((t) => [t.square(), 'kept'], { hasAux: true })(x);
    assert.deepEqual(j2.toArray(), diag);
    assert.equal(aux2, 'kept');
    // hasAux defaults to false: a returned [output, aux] is no Tensor output
    assert.throws(() => sg.func.jacrev((t) => [t.square(), 1])(x), /jacrev\(anonymous\): fn must return a Tensor, got \[/);
  });
});

test('a vjp function under a vmap that did not map its primals is refused, naming the input', () => {
  sg.tidy(() => {
    const x = sg.tensor([1, 2, 3]);
    const [, vjpFn] = sg.func.vjp((t) => t.square(), x);
    assert.throws(() => sg.func.vmap((ct) => vjpFn(ct))(sg.eye(3)),
      { message: 'vjp(anonymous): vjpFn: the output is batched over a vmap level that input 0 is not (a vjp/jvp function called inside a vmap that did not map its primals is not supported)' });
    // The same vjpFn outside vmap: 2x · ct
    const [g] = vjpFn(sg.tensor([1, 0, 1]));
    assert.deepEqual(g.toArray(), [2, 0, 6]);
    // and vmap still works
    assert.deepEqual(sg.func.vmap((r) => r.sum())(sg.eye(2)).toArray(), [1, 1]);
  });
});

test('trees of arguments and outputs: a non-tensor leaf beside tensors is refused; null leaves stay null', () => {
  sg.tidy(() => {
    const x = sg.tensor([1, 2]);
    const f = (arr) => arr[0].square().sum();
    assert.throws(() => sg.func.grad(f)([x, 3]), /^Error: grad\(f\): argument 0 must be a Tensor \(or an array\/object of Tensors\) to differentiate with respect to, got \[/);
    assert.throws(() => sg.func.grad((o) => o.a.sum())({ a: x, b: 'k' }), /grad\(anonymous\): argument 0 must be a Tensor \(or an array\/object of Tensors\)/);
    assert.throws(() => sg.func.vjp((t) => [t.mul(2), 5], x), /vjp\(anonymous\): fn must return a Tensor or an array\/object of Tensors, got \[/);
    // null in the tree: no tensor there, so no gradient there (torch.func treats None as an empty subtree)
    const [g, none] = sg.func.grad(f)([x, null]);
    assert.deepEqual(g.toArray(), [2, 4]);
    assert.equal(none, null);
    const { a, b } = sg.func.grad((o) => o.a.mul(o.a).sum())({ a: x, b: undefined });
    assert.deepEqual(a.toArray(), [2, 4]);
    assert.equal(b, undefined);
  });
});

test('more argument Errors: vmap, functionalCall, saveForBackward, a backward returning a non-tensor, jvp primals/tangents/outputs, jacfwd outputs, a dim out of range inside vmap', () => {
  sg.tidy(() => {
    const x = sg.tensor([1, 2]), t = sg.tensor([1, 0]);
    function f(a) {
      return a.mul(2);
    }
    assert.throws(() => sg.func.vmap(7), { message: 'vmap: expected fn to be a function, got 7' });
    assert.throws(() => sg.func.vmap(f, { outDims: [0, 0] })(sg.ones([3, 2])), { message: 'vmap(f): outDims has 2 entries but the function returned 1 outputs' });
    assert.throws(() => sg.func.vmap((a) => [a, a, a], { outDims: [0, 0] })(sg.ones([3, 2])), { message: 'vmap(anonymous): outDims has 2 entries but the function returned 3 outputs' });
    assert.throws(() => sg.func.vmap((a) => a.softmax(3))(sg.ones([2, 3])), { message: 'softmax: dim 3 is out of range for a tensor of 1 dims (inside vmap)' });
    assert.throws(() => sg.func.functionalCall(new sg.nn.Linear(2, 2), 5, [x]), { message: 'functionalCall: expected params to be an object (or Map) of name -> Tensor, got 5' });
    class Saves extends sg.autograd.Function {
      static forward(ctx, a) {
        ctx.saveForBackward(3);
        return a.mul(2);
      }
      static backward(_ctx, g) {
        return g;
      }
    }
    assert.throws(() => Saves.apply(x), { message: 'saveForBackward: argument 0 must be a Tensor or null, got 3' });
    class Five extends sg.autograd.Function {
      static forward(_ctx, a) {
        return a.mul(2);
      }
      static backward() {
        return [5];
      }
    }
    const p = sg.tensor([1, 2], { requiresGrad: true });
    assert.throws(() => Five.apply(p).sum().backward(), /Five\.backward raised: Five\.backward: gradients \(one per forward argument, null for none\) 0 must be a Tensor or null, got 5/);
    assert.throws(() => sg.func.jvp(f, [3], [t]), { message: 'jvp(f): argument 0 must be a Tensor to differentiate with respect to, got 3' });
    assert.throws(() => sg.func.jacrev(f)(3), { message: 'jacrev(f): argument 0 must be a Tensor to differentiate with respect to, got 3' });
    assert.throws(() => sg.func.jvp(f, [x], t), { message: 'jvp(f): expected tangents to be an array of Tensors, got a Tensor of shape [2] (float32)' });
    assert.throws(() => sg.func.jvp(f, [x], [3]), { message: 'jvp(f): tangents[0] must be a Tensor, got 3' });
    // by forward mode, and by the double-VJP (tanh-gelu has no forward rule)
    assert.throws(() => sg.func.jvp(() => 'a', [x], [t]), { message: "jvp(anonymous): fn must return a Tensor or an array/object of Tensors, got 'a'" });
    assert.throws(() => sg.func.jvp((a) => [sg.F.gelu(a, { approximate: 'tanh' }), 5], [x], [t]),
      { message: 'jvp(anonymous): fn must return a Tensor or an array/object of Tensors, got [a Tensor of shape [2] (float32), 5]' });
    assert.throws(() => sg.func.jacfwd(() => 3)(x), { message: 'jacfwd(anonymous): fn must return a Tensor, got 3' });
    // still usable: d(2a)/da = 2·I
    assert.deepEqual(sg.func.jacfwd(f)(x).toArray(), [[2, 0], [0, 2]]);
  });
});

test('empty Jacobians have the shape [...output, ...input] (torch.func.jacrev / jacfwd); they once hit a reshape Error', () => {
  sg.tidy(() => {
    for (const jac of [sg.func.jacrev, sg.func.jacfwd]) {
      assert.deepEqual(jac((a) => a.sum())(sg.zeros([0])).shape, [0]);
      assert.deepEqual(jac((a) => a.mul(2))(sg.zeros([0])).shape, [0, 0]);
      const e = jac((a) => a.narrow(0, 0, 0))(sg.ones([2]));
      assert.deepEqual([e.shape, e.dtype], [[0, 2], 'float32']);
      assert.deepEqual(jac((a) => a.narrow(0, 0, 0).reshape([0, 1]))(sg.ones([2, 3])).shape, [0, 1, 2, 3]);
      // a second, non-empty argument keeps its Jacobian
      const [j0, j1] = jac((a, b) => a.sum().add(b.mul(3).sum()), { argnums: [0, 1] })(sg.zeros([0]), sg.ones([2]));
      assert.deepEqual([j0.shape, j1.toArray()], [[0], [3, 3]]);
    }
  });
});
