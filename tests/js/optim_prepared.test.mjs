// An optimizer's param groups are prepared in C++ once and then stepped by id
// (npm/src/optim/prepared_groups.ts): these tests change what a prepared group was made from —
// hyper-parameters (also an array changed in place), state entries, the groups themselves —
// and check each step against PyTorch's update rules computed here in double precision.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, close } from './helpers.mjs';

/** PyTorch 1.13's Adam (single-tensor path) in double: one step of p with grad g; s holds m, v, t. */
function adamStep(p, g, s, { lr, betas: [b1, b2], eps = 1e-8 }) {
  s.t += 1;
  return p.map((x, i) => {
    s.m[i] = b1 * s.m[i] + (1 - b1) * g[i];
    s.v[i] = b2 * s.v[i] + (1 - b2) * g[i] * g[i];
    const denom = Math.sqrt(s.v[i]) / Math.sqrt(1 - b2 ** s.t) + eps;
    return x - (lr / (1 - b1 ** s.t)) * (s.m[i] / denom);
  });
}

test('a hyper-parameter changed between steps applies to the next one (lr; betas changed in place)', () => {
  const p = sg.tensor([1, -2, 0.5], { requiresGrad: true });
  const opt = new sg.optim.Adam([p], { lr: 0.1 });
  const grads = [[0.3, -1, 2], [1, 1, -0.5], [-0.2, 0.4, 0.1], [2, -3, 1]];
  const hyper = [{ lr: 0.1, betas: [0.9, 0.999] }, { lr: 0.05, betas: [0.9, 0.999] }, { lr: 0.05, betas: [0.5, 0.99] }, { lr: 0, betas: [0.5, 0.99] }];
  let want = [1, -2, 0.5];
  const s = { m: [0, 0, 0], v: [0, 0, 0], t: 0 };
  grads.forEach((g, k) => {
    const group = opt.paramGroups[0];
    group.lr = hyper[k].lr;
    group.betas[0] = hyper[k].betas[0];  // in place: the same array object
    group.betas[1] = hyper[k].betas[1];
    p.grad = sg.tensor(g);
    opt.step();
    want = adamStep(want, g, s, hyper[k]);
    close(Array.from(p.dataSync()), want, 1e-5, `step ${k + 1}`);
  });
  opt.dispose();
  p.dispose();
});

test('state entries replaced by hand, and a param group added after steps, are what the next step uses', () => {
  const a = sg.tensor([0.5, 1.5], { requiresGrad: true });
  const opt = new sg.optim.Adam([a], { lr: 0.01 });
  const sa = { m: [0, 0], v: [0, 0], t: 0 };
  let wantA = [0.5, 1.5];
  a.grad = sg.tensor([1, -2]);
  opt.step();
  wantA = adamStep(wantA, [1, -2], sa, { lr: 0.01, betas: [0.9, 0.999] });
  // PyTorch's optimizer.state[p] is open to the program: replace the first moment.
  const st = opt.state.get(a);
  st.exp_avg.dispose();
  st.exp_avg = sg.tensor([0.25, -0.75]);
  sa.m = [0.25, -0.75];
  // And a second group, with its own lr.
  const b = sg.tensor([3], { requiresGrad: true });
  opt.addParamGroup({ params: [b], lr: 0.2 });
  const sb = { m: [0], v: [0], t: 0 };
  let wantB = [3];
  for (const [ga, gb] of [[[0.5, 0.5], [1]], [[-1, 2], [-4]]]) {
    a.grad = sg.tensor(ga);
    b.grad = sg.tensor(gb);
    opt.step();
    wantA = adamStep(wantA, ga, sa, { lr: 0.01, betas: [0.9, 0.999] });
    wantB = adamStep(wantB, gb, sb, { lr: 0.2, betas: [0.9, 0.999] });
    close(Array.from(a.dataSync()), wantA, 1e-5, 'a');
    close(Array.from(b.dataSync()), wantB, 1e-5, 'b');
  }
  opt.dispose();
  sg.dispose([a, b]);
});

test('after dispose() an optimizer steps as a fresh one; thousands of steps keep sg.memory() flat', () => {
  const p = sg.tensor([1, 2], { requiresGrad: true });
  const opt = new sg.optim.SGD([p], { lr: 0.5, momentum: 0.9 });
  p.grad = sg.tensor([1, 1]);
  opt.step();  // momentum_buffer = g; p = [0.5, 1.5]
  opt.dispose();  // state gone: the next step starts the buffer again from g
  opt.step();
  close(Array.from(p.dataSync()), [0, 1], 1e-6);
  const before = sg.memory();
  for (let i = 0; i < 3000; i++) opt.step();
  const after = sg.memory();
  assert.equal(after.tensors, before.tensors);
  assert.equal(after.bytes, before.bytes);
  opt.dispose();
  p.dispose();
});
