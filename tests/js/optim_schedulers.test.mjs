// sg.optim.lrScheduler: every scheduler's lr sequence (two param groups, ≥ 30 steps) against
// PyTorch 1.13's, from tests/data/schedulers_ref.json (gen_schedulers.py); OneCycleLR's
// momentum / beta1 cycling too. Plus closed forms, argument forms, state dicts and errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { sg, close, throwsWith } from './helpers.mjs';

const ref = JSON.parse(readFileSync(new URL('../data/schedulers_ref.json', import.meta.url), 'utf8'));
const L = sg.optim.lrScheduler;
// Python and V8 compute cos and pow in doubles with possibly different last bits.
const TOL = 1e-12;

function makeOptimizer(spec) {
  const ps = [sg.zeros([3], { requiresGrad: true }), sg.zeros([2], { requiresGrad: true })];
  const opt = new sg.optim[spec.algorithm](ps.map((p, i) => ({ params: [p], lr: spec.groupLrs[i] })), spec.options);
  return { ps, opt };
}

function makeScheduler(kind, opt, o) {
  switch (kind) {
    case 'StepLR': {
      const { stepSize, ...rest } = o;
      return new L.StepLR(opt, stepSize, rest);
    }
    case 'MultiStepLR': {
      const { milestones, ...rest } = o;
      return new L.MultiStepLR(opt, milestones, rest);
    }
    case 'ExponentialLR':
      return new L.ExponentialLR(opt, o.gamma);
    case 'CosineAnnealingLR': {
      const { tMax, ...rest } = o;
      return new L.CosineAnnealingLR(opt, tMax, rest);
    }
    case 'LinearLR':
      return new L.LinearLR(opt, o);
    case 'OneCycleLR': {
      const { maxLr, ...rest } = o;
      return new L.OneCycleLR(opt, maxLr, rest);
    }
    case 'ReduceLROnPlateau':
      return new L.ReduceLROnPlateau(opt, o);
    default:
      throw new Error(kind);
  }
}

const momentumOf = (g) => (Array.isArray(g.betas) ? g.betas[0] : g.momentum);

for (const c of ref.cases) {
  test(`${c.name}: ${c.lrs.length - 1} steps match PyTorch`, () => {
    const { ps, opt } = makeOptimizer(c.optimizer);
    const sched = makeScheduler(c.scheduler, opt, c.options);
    const lrs = [opt.paramGroups.map((g) => g.lr)];
    const momenta = [opt.paramGroups.map(momentumOf)];
    for (let k = 1; k < c.lrs.length; k++) {
      for (const p of ps) {
        p.grad = sg.fullLike(p, 0.1);
        p.grad.dispose();
      }
      opt.step();
      if (c.scheduler === 'ReduceLROnPlateau') sched.step(c.metrics[k - 1]);
      else sched.step();
      lrs.push(opt.paramGroups.map((g) => g.lr));
      momenta.push(opt.paramGroups.map(momentumOf));
      assert.deepEqual(sched.getLastLr(), lrs[k]);
    }
    close(lrs, c.lrs, TOL);
    if (c.momenta) close(momenta, c.momenta, TOL);
    sg.dispose(ps);
    opt.dispose();
  });
}

test('closed forms: StepLR, ExponentialLR, CosineAnnealingLR within its first period, LinearLR', () => {
  const p = sg.zeros([1], { requiresGrad: true });
  const check = (make, closed, steps = 30) => {
    const opt = new sg.optim.SGD([p], { lr: 0.5 });
    const s = make(opt);
    for (let e = 0; e <= steps; e++) {
      close(s.getLastLr()[0], closed(e), 1e-12, `epoch ${e}`);
      s.step();
    }
  };
  check((o) => new L.StepLR(o, 4, { gamma: 0.3 }), (e) => 0.5 * 0.3 ** Math.floor(e / 4));
  check((o) => new L.StepLR(o, { stepSize: 4, gamma: 0.3 }), (e) => 0.5 * 0.3 ** Math.floor(e / 4));
  check((o) => new L.ExponentialLR(o, 0.95), (e) => 0.5 * 0.95 ** e);
  check((o) => new L.MultiStepLR(o, [3, 10], { gamma: 0.1 }), (e) => 0.5 * 0.1 ** ((e >= 3) + (e >= 10)));
  check((o) => new L.CosineAnnealingLR(o, 30, { etaMin: 0.01 }), (e) => 0.01 + ((0.5 - 0.01) * (1 + Math.cos((Math.PI * e) / 30))) / 2);
  check((o) => new L.LinearLR(o, { startFactor: 0.1, totalIters: 10 }), (e) => 0.5 * (0.1 + (0.9 * Math.min(e, 10)) / 10));
  p.dispose();
});

test('OneCycleLR: starts at maxLr/divFactor, peaks at maxLr after pctStart, ends at initial/finalDivFactor', () => {
  const p = sg.zeros([1], { requiresGrad: true });
  const opt = new sg.optim.Adam([p]);
  const s = new L.OneCycleLR(opt, 0.1, { totalSteps: 100, pctStart: 0.25 });
  const lrs = [s.getLastLr()[0]];
  for (let k = 1; k < 100; k++) {
    s.step();
    lrs.push(s.getLastLr()[0]);
  }
  close(lrs[0], 0.1 / 25, 1e-12);
  assert.equal(Math.max(...lrs), lrs[24]);
  close(lrs[24], 0.1, 1e-12);
  close(lrs[99], 0.1 / 25 / 1e4, 1e-9);
  assert.equal(opt.paramGroups[0].maxLr, 0.1);
  close(opt.paramGroups[0].betas[0], 0.95, 1e-12); // beta1 cycled back to maxMomentum
  s.step(); // step 100 = totalSteps is still allowed, one more is not (as in PyTorch)
  throwsWith(() => s.step(), 'OneCycleLR: tried to step 102 times; the specified number of total steps is 100');
  p.dispose();
});

test('ReduceLROnPlateau: waits patience epochs, honours cooldown and minLr, accepts a Tensor metric', () => {
  const p = sg.zeros([1], { requiresGrad: true });
  const opt = new sg.optim.SGD([p], { lr: 1 });
  const s = new L.ReduceLROnPlateau(opt, { patience: 1, factor: 0.5, cooldown: 1, minLr: 0.2 });
  const seq = [];
  for (let k = 0; k < 12; k++) {
    const m = 1; // never improves
    const t = sg.tensor(m);
    s.step(t);
    t.dispose();
    seq.push(opt.paramGroups[0].lr);
  }
  // Reductions after 2 bad epochs (patience 1), a cooldown epoch after each, floored at minLr.
  assert.deepEqual(seq, [1, 1, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.2, 0.2, 0.2, 0.2]);
  throwsWith(() => s.step('x'), 'ReduceLROnPlateau.step: expected the metric');
  p.dispose();
});

test("ReduceLROnPlateau's state dict holds best, the bad-epoch and cooldown counts, the epoch and the lrs, and resumes the schedule", () => {
  const p = sg.zeros([1], { requiresGrad: true });
  const optA = new sg.optim.SGD([p], { lr: 1 });
  const a = new L.ReduceLROnPlateau(optA, { patience: 1, factor: 0.5, cooldown: 1 });
  for (const m of [1, 1, 1]) a.step(m);
  // By PyTorch 1.13's rules, hand-derived: 1 is the best (from inf); the second 1 is one bad epoch;
  // the third is two > patience, so lr 1 -> 0.5, the cooldown starts (1) and the bad count resets.
  const sd = a.stateDict();
  assert.deepEqual(sd, { best: 1, numBadEpochs: 0, cooldownCounter: 1, lastEpoch: 3, lastLr: [0.5] });
  const optB = new sg.optim.SGD([p], { lr: 0.5 });
  const b = new L.ReduceLROnPlateau(optB, { patience: 1, factor: 0.5, cooldown: 1 });
  b.loadStateDict(sd);
  assert.deepEqual(b.getLastLr(), [0.5]);
  for (const m of [2, 0.5, 0.7, 0.9, 0.9, 0.9]) {
    a.step(m);
    b.step(m);
    assert.deepEqual(b.getLastLr(), a.getLastLr());
    assert.equal(optB.paramGroups[0].lr, optA.paramGroups[0].lr);
  }
  assert.equal(optA.paramGroups[0].lr, 0.25); // 0.5 improved on 1, then three bad epochs: one reduction
  // The arrays handed out are copies: changing them changes nothing in the scheduler.
  a.getLastLr()[0] = 9;
  a.stateDict().lastLr[0] = 9;
  sd.lastLr[0] = 9;
  assert.deepEqual(a.getLastLr(), [0.25]);
  assert.deepEqual(b.getLastLr(), [0.25]);
  assert.deepEqual(a.stateDict().lastLr, [0.25]);
  p.dispose();
});

test('scheduler state dicts resume the schedule', () => {
  const p = sg.zeros([1], { requiresGrad: true });
  const optA = new sg.optim.SGD([p], { lr: 1, momentum: 0.9 });
  const a = new L.OneCycleLR(optA, 1, { totalSteps: 40 });
  for (let k = 0; k < 15; k++) a.step();
  const optB = new sg.optim.SGD([p], { lr: 1, momentum: 0.9 });
  const osd = optA.stateDict();
  optB.loadStateDict(osd);
  const b = new L.OneCycleLR(optB, 1, { totalSteps: 40 });
  b.loadStateDict(a.stateDict());
  optB.loadStateDict(osd); // the groups' lr and momentum as they were
  for (let k = 0; k < 20; k++) {
    a.step();
    b.step();
    assert.equal(optB.paramGroups[0].lr, optA.paramGroups[0].lr);
    assert.equal(optB.paramGroups[0].momentum, optA.paramGroups[0].momentum);
  }
  sg.dispose(osd.state);
  p.dispose();
});

test('scheduler errors', () => {
  const p = sg.zeros([1], { requiresGrad: true });
  const sgd = new sg.optim.SGD([p], { lr: 0.1 });
  const adagrad = new sg.optim.Adagrad([p]);
  throwsWith(() => new L.StepLR({}, 3), 'StepLR: expected an optimizer');
  throwsWith(() => new L.StepLR(sgd, 0), 'StepLR: expected stepSize to be a positive integer');
  throwsWith(() => new L.StepLR(sgd, 3, { gama: 0.1 }), "StepLR: unknown option 'gama'");
  throwsWith(() => new L.MultiStepLR(sgd, 3), 'MultiStepLR: expected milestones to be an array of integers');
  throwsWith(() => new L.ExponentialLR(sgd), 'ExponentialLR: expected gamma');
  throwsWith(() => new L.CosineAnnealingLR(sgd, 10, { eta_min: 0 }), "unknown option 'eta_min'");
  throwsWith(() => new L.LinearLR(sgd, { startFactor: 2 }), 'LinearLR: starting multiplicative factor');
  throwsWith(() => new L.LinearLR(sgd, { endFactor: -1 }), 'LinearLR: ending multiplicative factor');
  throwsWith(() => new L.OneCycleLR(sgd, 0.1), 'you must define either totalSteps OR (epochs AND stepsPerEpoch)');
  throwsWith(() => new L.OneCycleLR(sgd, 0.1, { totalSteps: 0 }), "option 'totalSteps' must be an integer >= 1");
  throwsWith(() => new L.OneCycleLR(sgd, 0.1, { totalSteps: 10, pctStart: 1.5 }), 'pctStart');
  throwsWith(() => new L.OneCycleLR(sgd, 0.1, { totalSteps: 10, annealStrategy: 'exp' }), "option 'annealStrategy' must be one of 'cos', 'linear'");
  throwsWith(() => new L.OneCycleLR(sgd, [0.1, 0.2], { totalSteps: 10 }), 'expected 1 values for maxLr');
  throwsWith(() => new L.OneCycleLR(adagrad, 0.1, { totalSteps: 10 }), 'optimizer must support momentum');
  throwsWith(() => new L.ReduceLROnPlateau(sgd, { factor: 1 }), 'factor should be < 1.0');
  throwsWith(() => new L.ReduceLROnPlateau(sgd, { mode: 'avg' }), "option 'mode' must be one of 'min', 'max'");
  throwsWith(() => new L.ReduceLROnPlateau(sgd, { minLr: [0, 0] }), 'expected 1 values for minLr');
  throwsWith(() => new L.StepLR(sgd, 3, { lastEpoch: 5 }).step(), "param 'initialLr' is not specified");
  throwsWith(() => new L.StepLR(sgd, 3).step(4), 'takes no arguments');
  adagrad.dispose();
  p.dispose();
});
