// sg.func on every backend (backends.mjs: 'reference', 'wasm', and 'webgpu' when scripts/test.sh
// runs the backend-looping suites with SG_TEST_WEBGPU=1, Dawn on SwiftShader): the transforms and
// vmap(grad) per-sample gradients of an MLP equal PyTorch (tests/data/gen_func.py), read with
// await, so the same code runs on a GPU (vmap dispatches the batched ops there, not B copies).
import assert from 'node:assert/strict';
import { forEachBackend, values } from './backends.mjs';
import { close, readRef, sg } from './helpers.mjs';

const ref = readRef('func_ref.json');
const TOL = 2e-5;
const T = (a) => sg.tensor(a);

forEachBackend('grad, vjp, jvp, jacrev, jacfwd and hessian equal PyTorch', async () => {
  const f = (x) => x.sin().mul(x).sum();
  const x = T(ref.sin.x);
  close(await values(sg.func.grad(f)(x)), ref.sin.grad, TOL);
  close(await values(sg.func.hessian(f)(x)), ref.sin.hessian, 1e-4);
  const g = (x) => x.softmax(0).mul(x).mul(x);
  const xv = T(ref.vec.x);
  close(await values(sg.func.vjp(g, xv)[1](T(ref.vec.u))[0]), ref.vec.vjp, TOL);
  close(await values(sg.func.jvp(g, [xv], [T(ref.vec.v)])[1]), ref.vec.jvp, TOL);
  close(await values(sg.func.jacrev(g)(xv)), ref.vec.jacobian, TOL);
  close(await values(sg.func.jacfwd(g)(xv)), ref.vec.jacobian, TOL);
});

forEachBackend('vmap(grad) per-sample gradients of an MLP through functionalCall equal PyTorch', async (backend) => {
  const m = ref.mlp;
  const model = new sg.nn.Sequential(new sg.nn.Linear(4, 6), new sg.nn.Tanh(), new sg.nn.Linear(6, 3));
  model.loadStateDict(Object.fromEntries(Object.entries(m.params).map(([k, v]) => [k, T(v)])));
  const params = Object.fromEntries(model.namedParameters());
  for (const p of Object.values(params)) assert.equal(p.device, backend === 'webgpu' ? 'webgpu' : 'cpu');
  const loss = (p, x, y) => sg.F.crossEntropy(sg.func.functionalCall(model, p, [x.unsqueeze(0)]), y.unsqueeze(0));
  const per = sg.func.vmap(sg.func.grad(loss), { inDims: [null, 0, 0] })(params, T(m.x), sg.tensor(m.y, { dtype: 'int32' }));
  for (const [name, samples] of Object.entries(m.per_sample)) {
    assert.equal(per[name].device, params[name].device);
    close(await values(per[name]), samples, TOL, name);
  }
});

forEachBackend('vmap of softmax, matmul and a nested vmap', async () => {
  const A = T([[[1, 2, 3], [0.5, -1, 2]], [[0, 0, 1], [3, 1, -2]]]);
  close(await values(sg.func.vmap(sg.func.vmap((r) => r.softmax(0)))(A)), await values(A.softmax(2)), 1e-6);
  const W = T([[1, 0], [0, 1], [1, 1]]);
  close(await values(sg.func.vmap((a) => a.matmul(W))(A)), await values(A.matmul(W)), 1e-6);
});
