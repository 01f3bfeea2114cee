// sg.optim bookkeeping: param groups, stateDict() in PyTorch's layout, loadStateDict() (resumed
// training equals uninterrupted training; a failed load changes nothing), zeroGrad, state
// ownership, and the errors of bad options (PyTorch's checks, with its wording adapted).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, close, throwsWith } from './helpers.mjs';

/** A small model and a fixed regression task, rebuilt identically from a seed. */
function setup(seed = 3) {
  sg.manualSeed(seed);
  const model = new sg.nn.Sequential(new sg.nn.Linear(4, 8), new sg.nn.Tanh(), new sg.nn.Linear(8, 2));
  const x = sg.randn([16, 4]);
  const y = sg.randn([16, 2]);
  return { model, x, y };
}

function trainSteps(model, opt, x, y, n, sched = null) {
  for (let k = 0; k < n; k++) {
    opt.zeroGrad();
    sg.tidy(() => sg.F.mseLoss(model(x), y).backward());
    opt.step();
    sched?.step();
  }
}

const flatParams = (model) => model.parameters().map((p) => Array.from(p.dataSync()));

const ALGOS = [
  ['SGD', { lr: 0.05, momentum: 0.9, nesterov: true, weightDecay: 0.01 }],
  ['Adam', { lr: 0.01, amsgrad: true }],
  ['AdamW', { lr: 0.01, betas: [0.8, 0.99] }],
  ['RMSprop', { lr: 0.01, momentum: 0.5, centered: true }],
  ['Adagrad', { lr: 0.1, lrDecay: 0.01, initialAccumulatorValue: 0.1 }],
];

for (const [algo, options] of ALGOS) {
  test(`${algo}: stateDict → loadStateDict → continued training equals uninterrupted training`, () => {
    // Uninterrupted: 10 steps with a StepLR changing the lr on the way.
    const a = setup();
    const optA = new sg.optim[algo](a.model.parameters(), options);
    const schedA = new sg.optim.lrScheduler.StepLR(optA, 3, { gamma: 0.5 });
    trainSteps(a.model, optA, a.x, a.y, 10, schedA);

    // Interrupted after 4 steps: model weights and optimizer state go through state dicts
    // (and the weights through a safetensors file), into a fresh model and optimizer.
    const b = setup();
    const optB = new sg.optim[algo](b.model.parameters(), options);
    const schedB = new sg.optim.lrScheduler.StepLR(optB, 3, { gamma: 0.5 });
    trainSteps(b.model, optB, b.x, b.y, 4, schedB);
    const bytes = sg.tidy(() => sg.save(b.model.stateDict()));
    const osd = optB.stateDict();
    const ssd = schedB.stateDict();

    const c = setup(99); // other initial weights: everything must come from the state dicts
    const loaded = sg.load(bytes);
    c.model.loadStateDict(loaded);
    sg.dispose(loaded);
    const optC = new sg.optim[algo](c.model.parameters(), { ...options, lr: 123 });
    optC.loadStateDict(osd);
    const schedC = new sg.optim.lrScheduler.StepLR(optC, 3, { gamma: 0.5 });
    schedC.loadStateDict(ssd);
    // The loaded state is a copy: disposing the dict (and the old optimizer) does not matter.
    sg.dispose(osd);
    optB.dispose();
    assert.equal(optC.paramGroups[0].lr, optB.paramGroups[0].lr);
    trainSteps(c.model, optC, b.x, b.y, 6, schedC);

    assert.deepEqual(flatParams(c.model), flatParams(a.model));
    assert.deepEqual(schedC.getLastLr(), schedA.getLastLr());
    for (const s of [a, b, c]) {
      s.model.dispose();
      sg.dispose([s.x, s.y]);
    }
    optA.dispose();
    optC.dispose();
  });
}

test("stateDict() has PyTorch's layout: state by parameter index, param_groups with indices", () => {
  const w = sg.zeros([2, 3], { requiresGrad: true });
  const b = sg.zeros([3], { requiresGrad: true });
  const v = sg.zeros([4], { requiresGrad: true });
  const opt = new sg.optim.Adam([{ params: [w, b] }, { params: [v], lr: 0.1, amsgrad: true }], { lr: 0.01 });
  w.grad = sg.onesLike(w);
  v.grad = sg.onesLike(v); // b has no grad: no state for it
  opt.step();
  const sd = opt.stateDict();
  assert.deepEqual(Object.keys(sd), ['state', 'param_groups']);
  assert.deepEqual(Object.keys(sd.state).sort(), ['0', '2']);
  assert.deepEqual(Object.keys(sd.state[0]).sort(), ['exp_avg', 'exp_avg_sq', 'step']);
  assert.deepEqual(Object.keys(sd.state[2]).sort(), ['exp_avg', 'exp_avg_sq', 'max_exp_avg_sq', 'step']);
  assert.deepEqual(sd.state[0].exp_avg.shape, [2, 3]);
  assert.equal(sd.state[2].step.item(), 1);
  assert.deepEqual(sd.param_groups, [
    { lr: 0.01, betas: [0.9, 0.999], eps: 1e-8, weightDecay: 0, amsgrad: false, maximize: false, params: [0, 1] },
    { lr: 0.1, betas: [0.9, 0.999], eps: 1e-8, weightDecay: 0, amsgrad: true, maximize: false, params: [2] },
  ]);
  // exp_avg after one step = (1 - β1)·g = 0.1
  close(sd.state[0].exp_avg.toArray(), [[0.1, 0.1, 0.1], [0.1, 0.1, 0.1]], 1e-6);
  // The returned tensors are the caller's; the optimizer keeps its own.
  sg.dispose(sd.state);
  opt.step();
  const sd2 = opt.stateDict();
  assert.equal(sd2.state[0].step.item(), 2);
  sg.dispose([sd2.state, w, b, v]);
  opt.dispose();
});

test('param groups: per-group hyper-parameters, defaults filled in, addParamGroup', () => {
  const [a, b, c] = [sg.zeros([2], { requiresGrad: true }), sg.zeros([2], { requiresGrad: true }), sg.zeros([2], { requiresGrad: true })];
  const opt = new sg.optim.SGD([{ params: [a] }, { params: [b], lr: 1, momentum: 0.5 }], { lr: 0.1 });
  assert.equal(opt.paramGroups.length, 2);
  assert.equal(opt.paramGroups[0].lr, 0.1);
  assert.equal(opt.paramGroups[0].momentum, 0);
  assert.equal(opt.paramGroups[1].lr, 1);
  assert.equal(opt.paramGroups[1].momentum, 0.5);
  opt.addParamGroup({ params: [c], lr: 10 });
  assert.equal(opt.paramGroups[2].lr, 10);
  for (const p of [a, b, c]) p.grad = sg.ones([2]);
  opt.step();
  close(a.toArray(), [-0.1, -0.1], 1e-7);
  close(b.toArray(), [-1, -1], 1e-7);
  close(c.toArray(), [-10, -10], 1e-6);
  throwsWith(() => opt.addParamGroup({ params: [a] }), 'some parameters appear in more than one parameter group');
  throwsWith(() => opt.addParamGroup({ params: [sg.zeros([1], { requiresGrad: true })], weight_decay: 0.1 }), "unknown option 'weight_decay'");
  opt.zeroGrad();
  for (const p of [a, b, c]) assert.equal(p.grad, null);
  sg.dispose([a, b, c]);
  opt.dispose();
});

test('Adagrad: state exists from construction; a group added later gets its own initial accumulator', () => {
  const a = sg.zeros([3], { requiresGrad: true });
  const opt = new sg.optim.Adagrad([a], { initialAccumulatorValue: 0.5 });
  let sd = opt.stateDict();
  assert.equal(sd.state[0].step.item(), 0);
  close(sd.state[0].sum.toArray(), [0.5, 0.5, 0.5], 0);
  sg.dispose(sd.state);
  const b = sg.zeros([2], { requiresGrad: true });
  opt.addParamGroup({ params: [b], initialAccumulatorValue: 2 });
  sd = opt.stateDict();
  close(sd.state[1].sum.toArray(), [2, 2], 0);
  sg.dispose([sd.state, a, b]);
  opt.dispose();
});

test('a failed loadStateDict changes nothing', () => {
  const p = sg.zeros([2, 2], { requiresGrad: true });
  const q = sg.zeros([3], { requiresGrad: true });
  const opt = new sg.optim.Adam([p, q], { lr: 0.01 });
  p.grad = sg.onesLike(p);
  q.grad = sg.onesLike(q);
  opt.step();
  const snapshot = () => {
    const sd = opt.stateDict();
    const out = {
      groups: JSON.stringify(sd.param_groups),
      state: Object.fromEntries(Object.entries(sd.state).map(([k, st]) => [k, Object.fromEntries(Object.entries(st).map(([n, t]) => [n, t.toArray()]))])),
    };
    sg.dispose(sd.state);
    return out;
  };
  const before = snapshot();
  const good = opt.stateDict();
  const other = sg.zeros([5]);
  const bad = [
    [{ ...good, param_groups: [] }, 'different number of parameter groups'],
    [{ ...good, param_groups: [{ ...good.param_groups[0], params: [0] }] }, "doesn't match the size of optimizer's group"],
    [{ ...good, param_groups: [{ ...good.param_groups[0], lr: -1 }] }, 'invalid learning rate'],
    [{ ...good, param_groups: [{ ...good.param_groups[0], betas: [1, 0.9] }] }, 'invalid beta parameter at index 0'],
    [{ ...good, param_groups: [{ ...good.param_groups[0], bogus: 1 }] }, "unknown option 'bogus'"],
    [{ ...good, state: { ...good.state, 1: { ...good.state[1], exp_avg: other } } }, 'expected a floating tensor of the parameter', '[3]'],
    [{ ...good, state: { ...good.state, 0: { ...good.state[0], momentum_buffer: other } } }, "unknown entry 'momentum_buffer'"],
    [{ ...good, state: { ...good.state, 7: good.state[0] } }, 'index 7'],
    [{ state: {} }, 'expected { state'],
  ];
  for (const [sd, ...msgs] of bad) {
    throwsWith(() => opt.loadStateDict(sd), 'Adam.loadStateDict', ...msgs);
    assert.deepEqual(snapshot(), before);
  }
  sg.dispose([good.state, other, p, q]);
  opt.dispose();
});

test('the optimizer owns its state: dispose() frees it, parameters stay', () => {
  const p = sg.zeros([10], { requiresGrad: true });
  const live = sg.memory().tensors;
  const opt = new sg.optim.Adam([p], { amsgrad: true });
  sg.tidy(() => {
    p.grad = sg.onesLike(p);
    opt.step(); // state made inside a tidy must survive it
  });
  const sd = opt.stateDict();
  assert.equal(Object.keys(sd.state[0]).length, 4);
  sg.dispose(sd.state);
  assert.equal(sg.memory().tensors, live + 4);
  opt.dispose();
  assert.equal(sg.memory().tensors, live);
  assert.equal(p.isDisposed, false);
  p.dispose();
});

test('a step creates state only for parameters with a grad, keeps sg.memory() flat; a disposed parameter fails with nothing changed', () => {
  const a = sg.tensor([1, 2, 3], { requiresGrad: true });
  const b = sg.tensor([4, 5], { requiresGrad: true });
  const opt = new sg.optim.Adam([a, b], { lr: 0.1 });
  a.grad = sg.tensor([1, -1, 0.5]);
  opt.step(); // b has no grad: skipped, no state (PyTorch's grad is None)
  let sd = opt.stateDict();
  assert.deepEqual(Object.keys(sd.state), ['0']);
  assert.deepEqual(Object.keys(sd.state[0]).sort(), ['exp_avg', 'exp_avg_sq', 'step']);
  sg.dispose(sd.state);
  // Adam's first step moves each coordinate by lr·sign(g) (m̂ = g, v̂ = g²).
  close(Array.from(a.dataSync()), [0.9, 2.1, 2.9], 1e-6);
  b.grad = sg.tensor([1, 1]);
  const before = sg.memory().tensors;
  for (let i = 0; i < 200; i++) opt.step();
  sd = opt.stateDict();
  assert.equal(sd.state[1].step.item(), 200);
  assert.equal(sd.state[0].step.item(), 201);
  sg.dispose(sd.state);
  assert.equal(sg.memory().tensors, before + 3, 'b\'s three entries, nothing else');
  // A disposed parameter: an Error saying so; the other parameter and the state do not move.
  const aWas = Array.from(a.dataSync());
  b.dispose();
  assert.throws(() => opt.step(), (e) => e instanceof Error && /disposed/.test(e.message));
  assert.deepEqual(Array.from(a.dataSync()), aWas);
  sd = opt.stateDict();
  assert.equal(sd.state[0].step.item(), 201);
  sg.dispose(sd.state);
  opt.dispose();
  sg.dispose([a, b]);
});

test('option errors (PyTorch checks, wording adapted)', () => {
  const p = sg.zeros([2], { requiresGrad: true });
  const { SGD, Adam, AdamW, RMSprop, Adagrad } = sg.optim;
  throwsWith(() => new SGD([p], { lr: 0.1, foo: 1 }), "SGD: unknown option 'foo'");
  throwsWith(() => new Adam([p], { learningRate: 0.1 }), "Adam: unknown option 'learningRate'");
  throwsWith(() => new SGD([p], {}), "didn't specify a value of required optimization parameter lr");
  throwsWith(() => new SGD([p], { lr: -0.1 }), 'SGD: invalid learning rate: -0.1');
  throwsWith(() => new SGD([p], { lr: 0.1, momentum: -1 }), 'SGD: invalid momentum value: -1');
  throwsWith(() => new SGD([p], { lr: 0.1, nesterov: true }), 'SGD: Nesterov momentum requires a momentum and zero dampening');
  throwsWith(() => new SGD([p], { lr: 0.1, momentum: 0.9, dampening: 0.1, nesterov: true }), 'Nesterov momentum requires');
  throwsWith(() => new SGD([p], { lr: 0.1, weightDecay: -1 }), 'invalid weightDecay value: -1');
  throwsWith(() => new Adam([p], { betas: [1, 0.999] }), 'Adam: invalid beta parameter at index 0: 1');
  throwsWith(() => new Adam([p], { betas: [0.9, -0.1] }), 'invalid beta parameter at index 1: -0.1');
  throwsWith(() => new Adam([p], { betas: 0.9 }), "option 'betas' must be an array of two numbers");
  throwsWith(() => new AdamW([p], { eps: -1e-8 }), 'AdamW: invalid epsilon value');
  throwsWith(() => new RMSprop([p], { alpha: -0.5 }), 'RMSprop: invalid alpha value');
  throwsWith(() => new Adagrad([p], { lrDecay: -1 }), 'Adagrad: invalid lrDecay value');
  throwsWith(() => new Adam([p], { lr: NaN }), "option 'lr' must be a finite number");
  throwsWith(() => new Adam([p], { amsgrad: 1 }), "option 'amsgrad' must be a boolean");
  throwsWith(() => new Adam([]), 'optimizer got an empty parameter list');
  throwsWith(() => new Adam(p), 'should be an iterable of Tensors');
  throwsWith(() => new Adam([p, p]), 'the same parameter twice');
  throwsWith(() => new Adam([{ params: [p] }, { params: [p] }]), 'more than one parameter group');
  throwsWith(() => new Adam([sg.zeros([2], { dtype: 'int32' })]), 'only floating point tensors (float32, float64, float16, bfloat16) can be optimized');
  const nonLeaf = sg.tidy(() => p.mul(2));
  throwsWith(() => new Adam([nonLeaf]), "can't optimize a non-leaf Tensor");
  throwsWith(() => new Adam([3]), 'optimizer can only optimize Tensors');
  // An lr made invalid after construction (e.g. by hand) is caught by the step itself.
  const opt = new SGD([p], { lr: 0.1 });
  opt.paramGroups[0].lr = -1;
  p.grad = sg.onesLike(p);
  throwsWith(() => opt.step(), 'SGD', 'learning rate');
  close(p.toArray(), [0, 0], 0);
  sg.dispose([p, nonLeaf]);
});
