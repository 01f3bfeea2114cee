// sg.optim trajectories against PyTorch 1.13's, step by step, from the committed JSON files:
//   tests/data/optim_ref.json     (gen_optim.py)    every optimizer option, one group, 6 steps
//   tests/data/optim_js_ref.json  (gen_optim_js.py) two param groups with different hyper-
//       parameters, and optimizers driven by schedulers (OneCycleLR cycles SGD's momentum and
//       Adam's beta1 between steps), 9 steps
// A parameter without a gradient at some step must be skipped (state and step count unchanged).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, close, optimOptions, readRef } from './helpers.mjs';


const single = readRef('optim_ref.json');
const multi = readRef('optim_js_ref.json');
const TOL = 2e-6;

const jsOptions = optimOptions;

function makeParams(init, shapes) {
  return init.map((values, i) => sg.tensor(Float32Array.from(values), { shape: shapes[i], requiresGrad: true }));
}

function setGrads(params, grads, shapes) {
  params.forEach((p, i) => {
    const g = grads[i];
    if (g === null) {
      p.grad = null;
    } else {
      const t = sg.tensor(Float32Array.from(g), { shape: shapes[i] });
      p.grad = t;
      t.dispose(); // the parameter keeps the gradient tensor alive
    }
  });
}

for (const c of single.cases) {
  test(`PyTorch trajectory: ${c.name}`, () => {
    const params = makeParams(single.init, single.shapes);
    const opt = new sg.optim[c.algorithm](params, jsOptions(c.hyper));
    c.trajectory.forEach((expected, k) => {
      setGrads(params, single.grads[k], single.shapes);
      opt.step();
      params.forEach((p, i) => close(Array.from(p.dataSync()), expected[i], TOL, `${c.name} step ${k} param ${i}`));
    });
    // The final state, entry by entry (PyTorch's state_dict keys).
    const sd = opt.stateDict();
    c.final_state.forEach((entries, i) => {
      const mine = sd.state[i] ?? {};
      assert.deepEqual(Object.keys(mine).sort(), Object.keys(entries).sort(), `${c.name}: state keys of param ${i}`);
      for (const [key, values] of Object.entries(entries)) close(Array.from(mine[key].dataSync()), values, TOL, `${c.name} state ${i}.${key}`);
    });
    sg.dispose([sd.state, params]);
    opt.dispose();
  });
}

function makeScheduler(opt, s) {
  const L = sg.optim.lrScheduler;
  switch (s.name) {
    case 'StepLR':
      return new L.StepLR(opt, s.options.stepSize, { gamma: s.options.gamma });
    case 'OneCycleLR': {
      const { maxLr, ...rest } = s.options;
      return new L.OneCycleLR(opt, maxLr, rest);
    }
    case 'CosineAnnealingLR':
      return new L.CosineAnnealingLR(opt, s.options.tMax, { etaMin: s.options.etaMin });
    default:
      throw new Error(`no scheduler ${s.name}`);
  }
}

for (const c of multi.cases) {
  test(`PyTorch trajectory: ${c.name}`, () => {
    const params = makeParams(multi.init, multi.shapes);
    const groups = multi.groups.map((ids, g) => ({ params: ids.map((i) => params[i]), ...c.groups[g] }));
    const opt = new sg.optim[c.algorithm](groups, c.defaults);
    assert.equal(opt.paramGroups.length, 2);
    const sched = c.scheduler ? makeScheduler(opt, c.scheduler) : null;
    c.trajectory.forEach((expected, k) => {
      setGrads(params, multi.grads[k], multi.shapes);
      opt.step();
      sched?.step();
      params.forEach((p, i) => close(Array.from(p.dataSync()), expected[i], TOL, `${c.name} step ${k} param ${i}`));
    });
    sg.dispose(params);
    opt.dispose();
  });
}

test('optimizer steps update the same Tensor objects in place (a model keeps its parameters)', () => {
  const model = new sg.nn.Linear(3, 2);
  const [w, b] = model.parameters();
  const before = w.toArray();
  const opt = new sg.optim.SGD(model.parameters(), { lr: 0.5 });
  sg.tidy(() => model(sg.ones([4, 3])).sum().backward());
  opt.step();
  const [w2, b2] = model.parameters();
  assert.equal(w2, w);
  assert.equal(b2, b);
  // dL/dW = 4 for every entry (sum over 4 rows of ones), so W decreases by lr·4 = 2.
  close(w.toArray(), before.map((row) => row.map((v) => v - 2)), 1e-6);
  assert.equal(w.requiresGrad, true);
  assert.equal(w.isLeaf, true);
  opt.dispose();
  model.dispose();
});
