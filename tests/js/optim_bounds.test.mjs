// Boundaries and single disjuncts of sg.optim's argument guards: LinearLR's factors (0, a tiny
// positive, 1, just past 1), the betas' [0, 1) interval, SGD's Nesterov condition (momentum 0
// alone, dampening alone), OneCycleLR's momentum check (an optimizer with betas only, one with
// momentum only) and its last allowed step, the composed schedulers' state length, and the parts of
// Optimizer / LBFGS loadStateDict's shape checks each alone. Accept/refuse follows torch 1.13
// (/usr/bin/python3, checked by hand), except LinearLR's startFactor 0, which torch accepts and
// then divides by zero on: refused here on purpose (lr_scheduler.ts comment). Messages: the source's.
import test from 'node:test';
import assert from 'node:assert/strict';
import { sg, close, throwsWith } from './helpers.mjs';

const L = sg.optim.lrScheduler;
const p = () => sg.zeros([2], { requiresGrad: true });
const sgd = (o = {}) => new sg.optim.SGD([p()], { lr: 1, ...o });

test('LinearLR: startFactor in (0, 1], endFactor in [0, 1], both ends and just past them', () => {
  throwsWith(() => new L.LinearLR(sgd(), { startFactor: 0 }),
    /^LinearLR: starting multiplicative factor expected to be greater than 0 and less or equal to 1, got 0$/);
  throwsWith(() => new L.LinearLR(sgd(), { startFactor: 1.0001 }), /^LinearLR: starting multiplicative factor .* got 1\.0001$/);
  throwsWith(() => new L.LinearLR(sgd(), { startFactor: -0.5 }), /^LinearLR: starting .* got -0\.5$/);
  const o1 = sgd();
  new L.LinearLR(o1, { startFactor: 1e-9 });
  close(o1.paramGroups[0].lr, 1e-9, 1e-12);
  const o2 = sgd();
  new L.LinearLR(o2, { startFactor: 1 });
  assert.equal(o2.paramGroups[0].lr, 1);
  throwsWith(() => new L.LinearLR(sgd(), { endFactor: -1e-9 }),
    /^LinearLR: ending multiplicative factor expected to be between 0 and 1, got -1e-9$/);
  throwsWith(() => new L.LinearLR(sgd(), { endFactor: 1.0001 }), /^LinearLR: ending multiplicative factor expected to be between 0 and 1, got 1\.0001$/);
  for (const end of [0, 1]) {
    const o = sgd();
    const s = new L.LinearLR(o, { startFactor: 0.5, endFactor: end, totalIters: 2 });
    s.step();
    s.step();
    assert.equal(o.paramGroups[0].lr, end);
  }
});

test('betas[0] and betas[1] in [0, 1): 0 and 0.999999 pass, -1e-9 and 1 are refused (Adam, Adamax)', () => {
  for (const Opt of [sg.optim.Adam, sg.optim.Adamax]) {
    const name = Opt === sg.optim.Adam ? 'Adam' : 'Adamax';
    for (const ok of [0, 0.999999]) {
      new Opt([p()], { betas: [ok, 0.9] });
      new Opt([p()], { betas: [0.9, ok] });
    }
    throwsWith(() => new Opt([p()], { betas: [-1e-9, 0.9] }), new RegExp(`^${name}: invalid beta parameter at index 0: -1e-9 \\(expected a number in \\[0, 1\\)\\)$`));
    throwsWith(() => new Opt([p()], { betas: [1, 0.9] }), new RegExp(`^${name}: invalid beta parameter at index 0: 1 \\(`));
    throwsWith(() => new Opt([p()], { betas: [0.9, -1e-9] }), new RegExp(`^${name}: invalid beta parameter at index 1: -1e-9 \\(`));
    throwsWith(() => new Opt([p()], { betas: [0.9, 1] }), new RegExp(`^${name}: invalid beta parameter at index 1: 1 \\(`));
  }
});

test('SGD nesterov: momentum 0 alone, dampening alone each refused; a tiny momentum with dampening 0 passes', () => {
  const msg = /^SGD: Nesterov momentum requires a momentum and zero dampening$/;
  throwsWith(() => sgd({ nesterov: true, momentum: 0 }), msg);
  throwsWith(() => sgd({ nesterov: true, momentum: 0.1, dampening: 0.1 }), msg);
  sgd({ nesterov: true, momentum: 1e-9 });
  sgd({ nesterov: true, momentum: 0.1, dampening: 0 });
  sgd({ nesterov: false, momentum: 0, dampening: 0.5 });
});

test('OneCycleLR: betas alone or momentum alone satisfy cycleMomentum; step totalSteps is the last allowed', () => {
  const adam = new sg.optim.Adam([p()], { lr: 0.1 });
  new L.OneCycleLR(adam, 0.1, { totalSteps: 3 });
  assert.equal(adam.paramGroups[0].maxMomentum, 0.95);
  assert.equal(adam.paramGroups[0].betas[1], 0.999);
  const rms = new sg.optim.RMSprop([p()], { lr: 0.1 });
  new L.OneCycleLR(rms, 0.1, { totalSteps: 3 });
  assert.equal(rms.paramGroups[0].maxMomentum, 0.95);
  throwsWith(() => new L.OneCycleLR(new sg.optim.Adagrad([p()]), 0.1, { totalSteps: 3 }), /^OneCycleLR: optimizer must support momentum/);
  // torch 1.13: total_steps=3 takes 3 step() calls, the 4th raises "Tried to step 5 times".
  const o = sgd({ momentum: 0.9 });
  const s = new L.OneCycleLR(o, 0.1, { totalSteps: 3 });
  const ref = [0.046263710266697504, 4e-7, 0.04626371026669753];
  for (let i = 0; i < 3; i++) {
    s.step();
    close(o.paramGroups[0].lr, ref[i], 1e-9);
  }
  throwsWith(() => s.step(), /^OneCycleLR: tried to step 5 times; the specified number of total steps is 3$/);
});

// (a non-array 'schedulers' is refused earlier, by checkOptions: loadInner's !Array.isArray is unreachable)
test('SequentialLR / ChainedScheduler loadStateDict: an array of the wrong length is refused', () => {
  const o = sgd();
  const seq = new L.SequentialLR(o, [new L.ExponentialLR(o, 0.9), new L.StepLR(o, 2)], [2]);
  const sd = seq.stateDict();
  throwsWith(() => seq.loadStateDict({ ...sd, schedulers: [sd.schedulers[0]] }), /^SequentialLR\.loadStateDict: expected 'schedulers' to hold 2 states, got /);
  throwsWith(() => seq.loadStateDict({ ...sd, schedulers: [...sd.schedulers, sd.schedulers[0]] }), /^SequentialLR\.loadStateDict: expected 'schedulers' to hold 2 states, got /);
  seq.loadStateDict(sd);
  const ch = new L.ChainedScheduler([new L.ExponentialLR(o, 0.9), new L.StepLR(o, 2)]);
  const csd = ch.stateDict();
  throwsWith(() => ch.loadStateDict({ ...csd, schedulers: [csd.schedulers[0]] }), /^ChainedScheduler\.loadStateDict: expected 'schedulers' to hold 2 states, got /);
  ch.loadStateDict(csd);
});

test('Optimizer.loadStateDict: each part of the top-level shape check, and of the state tensor check, alone', () => {
  const q = sg.zeros([2, 3], { requiresGrad: true });
  const opt = new sg.optim.Adam([q], { lr: 0.01 });
  q.grad = sg.onesLike(q);
  opt.step();
  const good = opt.stateDict();
  const top = /^Adam\.loadStateDict: expected \{ state: \{\.\.\.\}, param_groups: \[\.\.\.\] \} as returned by stateDict\(\), got /;
  throwsWith(() => opt.loadStateDict(null), top);
  throwsWith(() => opt.loadStateDict({ state: 5, param_groups: good.param_groups }), top);
  throwsWith(() => opt.loadStateDict({ state: good.state, param_groups: {} }), top);
  const withAvg = (t) => ({ ...good, state: { 0: { ...good.state[0], exp_avg: t } } });
  const shape = /^Adam\.loadStateDict: state\[0\]\.exp_avg is .*, expected a floating tensor of the parameter's shape \[2, 3\]$/;
  throwsWith(() => opt.loadStateDict(withAvg(sg.zeros([2, 3], { dtype: 'int32' }))), shape);
  throwsWith(() => opt.loadStateDict(withAvg(sg.zeros([2, 3, 1]))), shape);
  throwsWith(() => opt.loadStateDict(withAvg(sg.zeros([2]))), shape);
  throwsWith(() => opt.loadStateDict(withAvg(sg.zeros([2, 4]))), shape);
  throwsWith(() => opt.loadStateDict(withAvg(sg.zeros([3, 2]))), shape);
  opt.loadStateDict(withAvg(sg.ones([2, 3])));
  close(opt.stateDict().state[0].exp_avg.toArray(), [[1, 1, 1], [1, 1, 1]]);
});

test('LBFGS.loadStateDict: the top-level check, each vector check and each count of the stored pairs alone', () => {
  const x = sg.tensor([1, 2], { requiresGrad: true });
  const lb = new sg.optim.LBFGS([x], { lr: 1, maxIter: 3 });
  lb.step(() => {
    lb.zeroGrad();
    const l = x.mul(x).sum();
    l.backward();
    return l;
  });
  const good = lb.stateDict();
  const st = good.state[0];
  assert.ok(st.old_dirs.length >= 1);
  const top = /^LBFGS\.loadStateDict: expected \{ state: \{\.\.\.\}, param_groups: \[\.\.\.\] \} as returned by stateDict\(\), got /;
  throwsWith(() => lb.loadStateDict(null), top);
  throwsWith(() => lb.loadStateDict({ state: 5, param_groups: good.param_groups }), top);
  throwsWith(() => lb.loadStateDict({ state: good.state, param_groups: {} }), top);
  const withState = (patch) => ({ ...good, state: { 0: { ...st, ...patch } } });
  const vec = /^LBFGS\.loadStateDict: state\[0\]\.d must be a float32 Tensor of shape \[2\] \(the parameters as one vector\), got /;
  const gone = sg.zeros([2]);
  gone.dispose();
  throwsWith(() => lb.loadStateDict(withState({ d: gone })), vec);
  throwsWith(() => lb.loadStateDict(withState({ d: sg.zeros([2], { dtype: 'float64' }) })), vec);
  throwsWith(() => lb.loadStateDict(withState({ d: sg.zeros([1, 2]) })), vec);
  throwsWith(() => lb.loadStateDict(withState({ d: sg.zeros([3]) })), vec);
  const n = st.old_dirs.length;
  const pairs = new RegExp(`^LBFGS\\.loadStateDict: state\\[0\\]\\.old_dirs, old_stps and ro must have one entry per stored pair \\(got ${n}, `);
  throwsWith(() => lb.loadStateDict(withState({ ro: 3 })), pairs);
  throwsWith(() => lb.loadStateDict(withState({ ro: st.ro.map(() => 'a') })), pairs);
  throwsWith(() => lb.loadStateDict(withState({ ro: [...st.ro, 1] })), pairs);
  throwsWith(() => lb.loadStateDict(withState({ old_stps: [...st.old_stps, st.old_stps[0]] })), pairs);
  lb.loadStateDict(good);
});

test('LinearLR names itself in the base scheduler\'s checks (resuming without initialLr, not an optimizer)', () => {
  throwsWith(() => new L.LinearLR(sgd(), { lastEpoch: 3 }), /^LinearLR: param 'initialLr' is not specified in paramGroups\[0\] when resuming \(lastEpoch 3\)$/);
  throwsWith(() => new L.LinearLR(5), /^LinearLR: /);
});
