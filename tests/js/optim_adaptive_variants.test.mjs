// sg.optim.Adadelta, Adamax, NAdam and RAdam against PyTorch 1.13's trajectories
// (tests/data/optim_adaptive_variants_ref.json from gen_optim_adaptive_variants.py: ten steps, a parameter skipped at one
// step, single and two-group cases) and final state under PyTorch's keys; a state dict round
// trip that continues the same trajectory; the option checks. The kernels' SIMD/scalar twins
// are compared in tests/native/optim_test.cpp.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, close, throwsWith } from './helpers.mjs';
import { readRef } from './gradcheck_helpers.mjs';

const ref = readRef('optim_adaptive_variants_ref.json');
const TOL = 2e-6;

function makeParams() {
  return ref.init.map((values, i) => sg.tensor(Float32Array.from(values), { shape: ref.shapes[i], requiresGrad: true }));
}

function setGrads(params, k) {
  params.forEach((p, i) => {
    const g = ref.grads[k][i];
    if (g === null) {
      p.grad = null;
      return;
    }
    const t = sg.tensor(Float32Array.from(g), { shape: ref.shapes[i] });
    p.grad = t;
    t.dispose();
  });
}

function makeOptimizer(c, params) {
  const Opt = sg.optim[c.algorithm];
  if (c.groups === null) return new Opt(params, c.options);
  return new Opt(params.map((p, i) => ({ params: [p], ...c.groups[i] })), c.options);
}

for (const c of ref.cases) {
  test(`PyTorch trajectory: ${c.name}`, () => {
    const params = makeParams();
    const opt = makeOptimizer(c, params);
    c.trajectory.forEach((expected, k) => {
      setGrads(params, k);
      opt.step();
      params.forEach((p, i) => close(Array.from(p.dataSync()), expected[i], TOL, `step ${k + 1} param ${i}`));
    });
    const sd = opt.stateDict();
    c.final_state.forEach((entries, i) => {
      const mine = sd.state[i];
      assert.deepEqual(Object.keys(mine).sort(), Object.keys(entries).sort(), `state keys of param ${i}`);
      for (const [key, values] of Object.entries(entries)) close(Array.from(mine[key].dataSync()), values, TOL, `state ${i}.${key}`);
    });
    sg.dispose([sd.state, params]);
    opt.dispose();
  });
}

test('stateDict / loadStateDict: a fresh optimizer continues the same trajectory', () => {
  for (const algorithm of ['Adadelta', 'Adamax', 'NAdam', 'RAdam']) {
    const c = ref.cases.find((x) => x.algorithm === algorithm && x.groups === null);
    const params = makeParams();
    const opt = makeOptimizer(c, params);
    for (let k = 0; k < 5; k++) {
      setGrads(params, k);
      opt.step();
    }
    const sd = opt.stateDict();
    const second = makeOptimizer(c, params);
    second.loadStateDict(sd);
    sg.dispose(sd.state);
    opt.dispose();
    for (let k = 5; k < ref.grads.length; k++) {
      setGrads(params, k);
      second.step();
      params.forEach((p, i) => close(Array.from(p.dataSync()), c.trajectory[k][i], TOL, `${algorithm} step ${k + 1} param ${i}`));
    }
    sg.dispose(params);
    second.dispose();
  }
});

test("NAdam's mu_product is a one-element state; a wrong one is refused by loadStateDict", () => {
  const p = sg.zeros([3], { requiresGrad: true });
  const opt = new sg.optim.NAdam([p]);
  p.grad = sg.ones([3]);
  opt.step();
  const sd = opt.stateDict();
  assert.deepEqual(sd.state[0].mu_product.shape, []);
  const bad = { state: { 0: { ...sd.state[0], mu_product: sg.ones([3]) } }, param_groups: sd.param_groups };
  throwsWith(() => opt.loadStateDict(bad), 'NAdam.loadStateDict', 'mu_product must be a one-element number tensor', '[3]');
  sg.dispose([sd.state, bad.state[0].mu_product, p]);
  opt.dispose();
});

test('options are checked with PyTorch rules', () => {
  const p = [sg.zeros([2], { requiresGrad: true })];
  throwsWith(() => new sg.optim.Adadelta(p, { rho: 1.5 }), 'Adadelta: invalid rho value: 1.5', '[0, 1]');
  throwsWith(() => new sg.optim.Adadelta(p, { lr: -1 }), 'Adadelta: invalid learning rate: -1');
  throwsWith(() => new sg.optim.Adamax(p, { betas: [0.9, 1] }), 'Adamax: invalid beta parameter at index 1: 1');
  throwsWith(() => new sg.optim.Adamax(p, { eps: -1e-8 }), 'Adamax: invalid epsilon value');
  throwsWith(() => new sg.optim.NAdam(p, { momentumDecay: -0.1 }), 'NAdam: invalid momentumDecay value: -0.1');
  throwsWith(() => new sg.optim.NAdam(p, { maximize: true }), "NAdam: unknown option 'maximize'");
  throwsWith(() => new sg.optim.RAdam(p, { weightDecay: -1 }), 'RAdam: invalid weightDecay value: -1');
  throwsWith(() => new sg.optim.RAdam(p, { betas: 0.9 }), 'RAdam', "'betas'", 'two numbers');
  const d = new sg.optim.Adadelta(p);
  assert.deepEqual(d.defaults, { lr: 1, rho: 0.9, eps: 1e-6, weightDecay: 0, maximize: false });
  assert.deepEqual(new sg.optim.Adamax(p).defaults, { lr: 2e-3, betas: [0.9, 0.999], eps: 1e-8, weightDecay: 0, maximize: false });
  assert.deepEqual(new sg.optim.NAdam(p).defaults, { lr: 2e-3, betas: [0.9, 0.999], eps: 1e-8, weightDecay: 0, momentumDecay: 4e-3 });
  assert.deepEqual(new sg.optim.RAdam(p).defaults, { lr: 1e-3, betas: [0.9, 0.999], eps: 1e-8, weightDecay: 0 });
  sg.dispose(p);
});
