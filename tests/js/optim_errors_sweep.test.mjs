// Argument errors of sg.optim that no test triggered or whose message no test read (LBFGS,
// Optimizer.step / loadStateDict, the compile guards), each asserted with its distinctive words
// and the "got ..." part, and the optimizer still usable after. Also Optimizer.name,
// [Symbol.dispose] and LBFGS's closure returning a plain number. Oracles: PyTorch 1.13's
// semantics (a closure's loss may be a Python float; LBFGS has one param group) and the
// float64 LBFGS step of tests/data/optim_sched_defaults_ref.json (gen_optim_sched_defaults.py).
import test from 'node:test';
import assert from 'node:assert/strict';
import { sg, close, readRef, throwsWith } from './helpers.mjs';

const ref = readRef('optim_sched_defaults_ref.json').optim;
const A = () => sg.tensor([1, 2, 3], { dtype: 'float64' });
const f = (p) => sg.tidy(() => A().mul(p).mul(p).sum().add(p.sum()));
const p64 = () => sg.tensor([1, -2, 3], { dtype: 'float64', requiresGrad: true });

/** One SGD step on f from p = [1, -2, 3] with lr 0.1: p − 0.1·(2·[1, 2, 3]·p + 1), by hand. */
function sgdStepOk(opt, p) {
  opt.zeroGrad();
  f(p).backward();
  opt.step();
  close(Array.from(p.dataSync()), [1 - 0.1 * 3, -2 - 0.1 * -7, 3 - 0.1 * 19], 1e-12);
}

test('LBFGS refuses parameter groups, mixed dtypes, and names both dtypes', () => {
  const [a, b] = [p64(), p64()];
  throwsWith(() => new sg.optim.LBFGS([{ params: [a] }, { params: [b] }]), /^LBFGS: doesn't support per-parameter options \(parameter groups\)$/);
  const c = sg.zeros([2], { requiresGrad: true });
  throwsWith(() => new sg.optim.LBFGS([a, c]),
    /^LBFGS: expected every parameter of one dtype \(the flat vector's\), got params\[0\] float64 and params\[1\] float32$/);
  // One group is fine, and the same parameters still optimize.
  const opt = new sg.optim.LBFGS([{ params: [a] }]);
  opt.dispose();
});

test("LBFGS.step: a closure returning a number is the loss; anything else is refused with what it returned", () => {
  const p = p64();
  const opt = new sg.optim.LBFGS([p]);
  throwsWith(() => opt.step(() => 'loss'), /^LBFGS\.step: the closure must return the loss \(a Tensor or a number\), got 'loss'$/);
  throwsWith(() => opt.step(() => undefined), /must return the loss .*, got undefined$/);
  close(Array.from(p.dataSync()), [1, -2, 3], 0); // nothing moved
  // A later evaluation (in the iterations) is checked too.
  let calls = 0;
  throwsWith(() => opt.step(() => {
    opt.zeroGrad();
    const l = f(p);
    l.backward();
    return ++calls === 1 ? l : null;
  }), /^LBFGS\.step: the closure must return the loss \(a Tensor or a number\), got null$/);
  assert.equal(calls, 2);
  opt.dispose();
  // torch.optim.LBFGS takes a float from the closure: the same step as with a Tensor loss.
  const q = p64();
  const fresh = new sg.optim.LBFGS([q]);
  const s = ref.LBFGS.steps[0];
  const loss = fresh.step(() => {
    fresh.zeroGrad();
    const l = f(q);
    l.backward();
    const v = l.item();
    l.dispose();
    return v;
  });
  assert.equal(loss, s.loss);
  close(Array.from(q.dataSync()), s.params, 1e-9);
  fresh.dispose();
});

test('LBFGS.loadStateDict / Optimizer.loadStateDict name what they got when it is not a state dict', () => {
  const p = p64();
  const lb = new sg.optim.LBFGS([p]);
  for (const [bad, got] of [[null, 'null'], [{ state: {} }, 'an object'], [{ state: 1, param_groups: [] }, 'an object'], [[], '\\[\\]']]) {
    throwsWith(() => lb.loadStateDict(bad), new RegExp(`^LBFGS\\.loadStateDict: expected \\{ state: \\{\\.\\.\\.\\}, param_groups: \\[\\.\\.\\.\\] \\} as returned by stateDict\\(\\), got ${got}$`));
  }
  lb.loadStateDict(lb.stateDict()); // still loads its own
  lb.dispose();
  const q = p64();
  const adam = new sg.optim.Adam([q], { lr: 0.1 });
  throwsWith(() => adam.loadStateDict(5), /^Adam\.loadStateDict: expected \{ state: \{\.\.\.\}, param_groups: \[\.\.\.\] \} as returned by stateDict\(\), got 5$/);
  throwsWith(() => adam.loadStateDict({ state: {}, param_groups: 'x' }), /as returned by stateDict\(\), got an object$/);
  // A bad hyper-parameter in a saved group is reported with the optimizer's name and the group.
  const sd = adam.stateDict();
  sd.param_groups[0].lr = -1;
  throwsWith(() => adam.loadStateDict(sd), /^Adam\.loadStateDict: Adam: invalid learning rate: -1/);
  sd.param_groups[0].lr = 0.2;
  sd.param_groups[0].amsgrad = 'yes';
  throwsWith(() => adam.loadStateDict(sd), /^Adam\.loadStateDict: param_groups\[0\]: .*'amsgrad'.*'yes'/);
  assert.equal(adam.paramGroups[0].lr, 0.1); // nothing loaded
  adam.dispose();
});

test("Optimizer.name is the algorithm's name; [Symbol.dispose] frees the state", () => {
  const p = p64();
  for (const [k, name] of [['SGD', 'SGD'], ['Adam', 'Adam'], ['AdamW', 'AdamW'], ['RMSprop', 'RMSprop'], ['LBFGS', 'LBFGS']]) {
    const o = new sg.optim[k]([p], { lr: 0.1 });
    assert.equal(o.name, name);
    o.dispose();
  }
  const opt = new sg.optim.Adam([p], { lr: 0.1 });
  opt.zeroGrad();
  f(p).backward();
  opt.step();
  p.grad.dispose?.();
  opt.zeroGrad();
  const live = sg.memory().tensors;
  opt[Symbol.dispose]();
  assert.equal(sg.memory().tensors, live - 3); // step, exp_avg, exp_avg_sq
  assert.equal(opt.stateDict().state[0], undefined);
});

test('inside sg.compile: an optimizer step with a closure and ReduceLROnPlateau.step are refused', () => {
  const p = p64();
  const opt = new sg.optim.SGD([p], { lr: 0.1 });
  const withClosure = sg.compile(() => {
    opt.step(() => f(p));
    return p.add(0);
  });
  throwsWith(() => withClosure(), /SGD\.step: a closure cannot be compiled; call step\(\) without one inside sg\.compile/);
  const plateau = new sg.optim.lrScheduler.ReduceLROnPlateau(opt);
  const withPlateau = sg.compile(() => {
    const l = f(p);
    plateau.step(l);
    return l;
  });
  throwsWith(() => withPlateau(), /ReduceLROnPlateau\.step: depends on the metric's value, which a compiled function cannot read; call it outside sg\.compile/);
  // Outside compile both work, and the optimizer still steps correctly.
  sgdStepOk(opt, p);
  plateau.step(1);
  assert.equal(opt.paramGroups[0].lr, 0.1);
});

test('optimizer and scheduler messages in full (tests matched only some words), then correct calls work', () => {
  const L = sg.optim.lrScheduler;
  const p = () => sg.zeros([2], { requiresGrad: true });
  const sgd = () => new sg.optim.SGD([p()], { lr: 0.1, momentum: 0.9 });
  const cases = [
    [() => new sg.optim.LBFGS([sg.zeros([2], { dtype: 'float16', requiresGrad: true })]), /^LBFGS: expected float32 or float64 parameters, got params\[0\] of dtype float16$/],
    [() => new sg.optim.LBFGS([p()]).step(), /^LBFGS\.step: expected a closure that computes the loss \(L-BFGS needs one\), got undefined$/],
    [() => new L.CosineAnnealingWarmRestarts(sgd(), 3).step(-1), /^CosineAnnealingWarmRestarts\.step: expected a non-negative epoch, got -1$/],
    [() => new L.CosineAnnealingWarmRestarts(sgd(), 3).step('1'), /^CosineAnnealingWarmRestarts\.step: expected a non-negative epoch, got '1'$/],
    [() => new L.CyclicLR(sgd(), 0.01, 0.1, { stepSizeUp: 2, stepSizeDown: -1 }), /^CyclicLR: expected stepSizeUp > 0 and stepSizeDown >= 0, got 2 and -1$/],
    [() => new L.CyclicLR(new sg.optim.Adam([p()]), 0.01, 0.1), /^CyclicLR: optimizer must support momentum with the cycleMomentum option enabled \(SGD, RMSprop; or pass cycleMomentum: false\)$/],
    [() => new L.LambdaLR(sgd(), 5), /^LambdaLR: expected lrLambda to be a function \(epoch → factor\) or an array of them, got 5$/],
    [() => new L.StepLR({}, 2), /^StepLR: expected an optimizer \(sg\.optim\.SGD, Adam, \.\.\.\), got an object$/],
    [() => new L.StepLR(sgd(), 2, 5), /^StepLR: expected an options object, got 5$/],
    [() => new L.StepLR(sgd(), 2).step(3), /^StepLR\.step: takes no arguments \(PyTorch's deprecated epoch argument is not supported\)$/],
    [() => new L.StepLR(sgd(), 2).loadStateDict({ foo: 1 }), /^StepLR\.loadStateDict: unknown key 'foo'$/],
    [() => new L.StepLR(sgd(), 2).loadStateDict({ optimizer: 1 }), /^StepLR\.loadStateDict: unknown key 'optimizer'$/],
    [() => new L.OneCycleLR(new sg.optim.Adagrad([p()]), 0.1, { totalSteps: 5 }),
      /^OneCycleLR: optimizer must support momentum with the cycleMomentum option enabled \(SGD, RMSprop, Adam, AdamW; or pass cycleMomentum: false\)$/],
    [() => new L.ReduceLROnPlateau(sgd(), { factor: 1 }), /^ReduceLROnPlateau: factor should be < 1\.0, got 1$/],
    [() => new L.ReduceLROnPlateau(sgd()).step('1'), /^ReduceLROnPlateau\.step: expected the metric as a number or a one-element Tensor, got '1'$/],
    [() => new L.ReduceLROnPlateau(sgd()).step(sg.ones([2])), /^item: expected a tensor with one element, got shape \[2\]$/],
    [() => new sg.optim.SGD([5], { lr: 0.1 }), /^SGD: optimizer can only optimize Tensors, but params\[0\] is 5$/],
    [() => sgd().addParamGroup(5), /^SGD: expected a parameter group object \{ params, \.\.\. \}, got 5$/],
    [() => new sg.optim.SGD([p(), 5], { lr: 0.1 }), /^SGD: optimizer can only optimize Tensors, but params\[1\] is 5$/],
    [() => { const q = p(); new sg.optim.SGD([q, q], { lr: 0.1 }); }, /^SGD: a parameter group contains the same parameter twice \(params\[1\]\)$/],
    [() => sgd().step(5), /^SGD\.step: expected a closure function or nothing, got 5$/],
    [() => { const o = sgd(); o.loadStateDict({ state: { 7: {} }, param_groups: o.stateDict().param_groups }); }, /^SGD\.loadStateDict: state for parameter index 7, which no param group lists$/],
  ];
  for (const [call, msg] of cases) throwsWith(call, msg);
  // Correct calls: CosineAnnealingWarmRestarts(t0 3).step(1.5) is (1 + cos(π/2))/2 · 0.1 = 0.05 (etaMin 0);
  const o = sgd();
  const w = new L.CosineAnnealingWarmRestarts(o, 3);
  w.step(1.5);
  assert.ok(Math.abs(o.paramGroups[0].lr - 0.05) < 1e-15);
  // ReduceLROnPlateau(factor 0.5, patience 0) halves the lr at the first epoch that is not better.
  const o2 = sgd();
  const r = new L.ReduceLROnPlateau(o2, { factor: 0.5, patience: 0 });
  r.step(sg.tensor([1]));
  r.step(1);
  assert.equal(o2.paramGroups[0].lr, 0.05);
  new L.OneCycleLR(new sg.optim.Adagrad([p()]), 0.1, { totalSteps: 5, cycleMomentum: false });
  const s = new L.StepLR(sgd(), 2);
  s.loadStateDict(s.stateDict());
});
