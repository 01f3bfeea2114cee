// sg.func's bad input: Errors name the transform, the function and the argument, and the module
// stays usable (a later transform works and no batching is left behind).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { close, sg, throwsWith } from './helpers.mjs';

const x = sg.tensor([1, 2, 3]);
function square(t) {
  return t.square().sum();
}

test('grad: non-tensor or non-scalar outputs, argnums out of range, non-float arguments', () => {
  throwsWith(() => sg.func.grad(() => 3)(x), 'grad(anonymous): fn must return a Tensor with one element, got 3');
  throwsWith(() => sg.func.grad((t) => t.mul(2))(x), 'grad(anonymous): fn must return a Tensor with one element, got shape [3]');
  throwsWith(() => sg.func.grad(square, { argnums: 2 })(x), 'grad(square): argnums 2 is out of range: the function got 1 argument');
  throwsWith(() => sg.func.grad(square, { argnums: -1 }), 'grad(square): expected argnums to be a non-negative integer');
  throwsWith(() => sg.func.grad(square)(5), 'grad(square): argument 0 must be a Tensor (or an array/object of Tensors) to differentiate with respect to, got 5');
  throwsWith(() => sg.func.grad(square)(sg.tensor([1], { dtype: 'int32' })), 'grad(square): argument 0 must be a floating Tensor');
  throwsWith(() => sg.func.grad(square, { hasAux: true })(x), 'grad(square): with hasAux, fn must return [output, aux]');
  throwsWith(() => sg.func.grad(square, { argnum: 0 }), "grad: unknown option 'argnum'");
  throwsWith(() => sg.func.grad(7), 'grad: expected fn to be a function, got 7');
});

test('vjp, jvp, jacrev, jacfwd, hessian: what they need of fn and of their arguments', () => {
  throwsWith(() => sg.func.vjp(() => 'a', x), 'vjp(anonymous): fn must return a Tensor or an array/object of Tensors');
  throwsWith(() => sg.func.vjp(square, x)[1](sg.ones([2])), 'vjp(square): vjpFn: cotangents 0 has shape [2], expected []');
  throwsWith(() => sg.func.jvp(square, x, [x]), 'jvp(square): expected primals to be an array of Tensors');
  throwsWith(() => sg.func.jvp(square, [x], [sg.ones([4])]), 'jvp(square): tangents 0 has shape [4], expected [3]');
  throwsWith(() => sg.func.jvp(square, [x], []), 'jvp(square): expected 1 tangents, got 0');
  throwsWith(() => sg.func.jacrev(() => null)(x), 'jacrev(anonymous): fn must return a Tensor, got null');
  throwsWith(() => sg.func.jacfwd(square, { argnums: 1 })(x), 'jacfwd(square): argnums 1 is out of range');
  throwsWith(() => sg.func.hessian(square, { argnums: [0] })(x), 'hessian(square): argnums must be one integer here');
});

test('vmap: inDims that do not match the inputs, different sizes, outDims, reads, randomness', () => {
  const a = sg.ones([3, 2]), b = sg.ones([4, 2]);
  function add(p, q) {
    return p.add(q);
  }
  throwsWith(() => sg.func.vmap(add, { inDims: [0] })(a, a), 'vmap(add): inDims has 1 entries but the function got 2 arguments');
  throwsWith(() => sg.func.vmap(add)(a, b), 'vmap(add): expected the mapped dims to have one size, got 3 for argument 0 (dim 0) and 4 for argument 1 (dim 0)');
  throwsWith(() => sg.func.vmap(add, { inDims: [2, 0] })(a, a), 'vmap(add): inDims[0] = 2 is out of range for argument 0 of shape [3, 2]');
  throwsWith(() => sg.func.vmap(add, { inDims: [0, 0] })(a, 5), 'vmap(add): inDims[1] is 0, but argument 1 is 5, with no Tensor to map over (use null)');
  throwsWith(() => sg.func.vmap(add, { inDims: null })(a, a), 'vmap(add): no argument is mapped');
  throwsWith(() => sg.func.vmap(add, { inDims: 'x' }), "vmap: option 'inDims' must be an integer, null or an array of them");
  throwsWith(() => sg.func.vmap(add, { randomness: 'sometimes' }), "vmap: option 'randomness' must be 'error', 'different' or 'same'");
  throwsWith(() => sg.func.vmap((p) => p.sum().item())(a), 'vmap: the function read the values of a tensor batched by vmap');
  throwsWith(() => sg.func.vmap(() => 4)(a), 'vmap(anonymous): the function must return a Tensor or an array/object of Tensors, got 4');
  throwsWith(() => sg.func.vmap((p) => p.mul(2), { outDims: null })(a), 'vmap: outDims is null for output 0, but it depends on the mapped inputs');
  throwsWith(() => sg.func.vmap((p) => p.mul(2), { outDims: 3 })(a), 'vmap: outDims 3 is out of range for output 0 of 1 dims');
  throwsWith(() => sg.func.vmap((p) => p.add(sg.rand([2])))(a), "vmap: rand draws random numbers and vmap's randomness is 'error'");
  throwsWith(() => sg.func.vmap((p) => p.matmul(sg.ones([3, 3])))(a), 'matmul');
  // an in-place write of a batched value into a tensor that is not batched
  const plain = sg.zeros([2]);
  throwsWith(() => sg.func.vmap((p) => plain.add_(p))(a), 'vmap: add_ writes a batched value into a tensor that is not batched');
  // everything still works, and nothing is left batched
  close(sg.func.vmap((p) => p.sum())(a).toArray(), [2, 2, 2], 0);
  assert.deepEqual(plain.toArray(), [0, 0]);
  assert.deepEqual(a.shape, [3, 2]);
});

test('functionalCall: unknown names and non-tensors are Errors, and the module is restored', () => {
  const lin = new sg.nn.Linear(2, 2);
  const w = lin.weight;
  throwsWith(() => sg.func.functionalCall(lin, { weight: sg.ones([2, 2]), nope: sg.ones([1]) }, [sg.ones([2])]), "functionalCall: params has 'nope', which is neither a parameter nor a buffer of the module");
  throwsWith(() => sg.func.functionalCall(lin, { 'a.weight': sg.ones([2, 2]) }, [sg.ones([2])]), "functionalCall: params has 'a.weight', but the module has no submodule 'a'");
  throwsWith(() => sg.func.functionalCall(lin, { weight: [1, 2] }, [sg.ones([2])]), "functionalCall: params['weight'] must be a Tensor");
  throwsWith(() => sg.func.functionalCall((t) => t, {}, [x]), 'functionalCall: expected module to be an sg.nn.Module');
  throwsWith(() => sg.func.functionalCall(lin, { weight: sg.ones([3, 3]) }, [sg.ones([2])]), 'linear');
  assert.equal(lin.weight, w);
  assert.deepEqual(lin.parameters().map((p) => p.shape), [[2, 2], [2]]);
  // the swap itself: ones for the weight, zeros for the bias
  const y = sg.func.functionalCall(lin, { weight: sg.ones([2, 2]), bias: sg.zeros([2]) }, [sg.tensor([1, 2])]);
  assert.deepEqual(y.toArray(), [3, 3]);
  assert.equal(lin.weight, w);
});
