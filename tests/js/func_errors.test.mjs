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
