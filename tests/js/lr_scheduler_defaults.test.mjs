// The lr schedulers against PyTorch 1.13 (tests/data/optim_sched_defaults_ref.json from
// gen_optim_sched_defaults.py), on an SGD group (lr 0.1, momentum 0.9): each made with only its
// required arguments (the defaults: StepLR/MultiStepLR gamma 0.1, LinearLR 1/3 over 5, ConstantLR
// 1/3 for 5, PolynomialLR 5 and power 1, CyclicLR stepSizeUp 2000 and momentum 0.8..0.9,
// OneCycleLR's pctStart/divFactor/momentum, ReduceLROnPlateau's patience 10 / factor 0.1, ...);
// custom CyclicLR scale functions in both scale modes; SequentialLR restarting its later
// scheduler with the closed form; CosineAnnealingLR resumed at lastEpoch 3;
// CosineAnnealingWarmRestarts.step(epoch) with tMult 1.
import test from 'node:test';
import assert from 'node:assert/strict';
import { sg, close, readRef } from './helpers.mjs';

const ref = readRef('optim_sched_defaults_ref.json').sched;
const L = sg.optim.lrScheduler;

function run(name, make, { n = 12, momentum = false, pre, metric } = {}) {
  const p = sg.zeros([2], { requiresGrad: true });
  const opt = new sg.optim.SGD([p], { lr: 0.1, momentum: 0.9 });
  pre?.(opt);
  const s = make(opt);
  const lrs = [opt.paramGroups[0].lr];
  const ms = [opt.paramGroups[0].momentum];
  for (let i = 0; i < n; i++) {
    opt.step();
    if (metric === undefined) s.step();
    else s.step(metric);
    lrs.push(opt.paramGroups[0].lr);
    ms.push(opt.paramGroups[0].momentum);
  }
  const r = ref[name];
  close(lrs, r.lrs, 1e-12, `${name} lrs`);
  if (momentum) close(ms, r.momentum, 1e-12, `${name} momentum`);
  opt.dispose();
}

test('every scheduler made with only its required arguments follows torch 1.13 defaults', () => {
  run('StepLR', (o) => new L.StepLR(o, 2));
  run('MultiStepLR', (o) => new L.MultiStepLR(o, [2, 4]));
  run('CosineAnnealingLR', (o) => new L.CosineAnnealingLR(o, 4));
  run('LinearLR', (o) => new L.LinearLR(o));
  run('ConstantLR', (o) => new L.ConstantLR(o));
  run('PolynomialLR', (o) => new L.PolynomialLR(o));
  run('CosineAnnealingWarmRestarts', (o) => new L.CosineAnnealingWarmRestarts(o, 3));
  run('CyclicLR', (o) => new L.CyclicLR(o, 0.01, 0.1), { momentum: true });
  run('OneCycleLR', (o) => new L.OneCycleLR(o, 0.1, { totalSteps: 12 }), { n: 11, momentum: true });
  run('ReduceLROnPlateau', (o) => new L.ReduceLROnPlateau(o), { n: 30, metric: 1.0 });
});

test('CyclicLR with a custom scaleFn: per cycle (the default scaleMode) and per iteration', () => {
  run('CyclicLR_scaleFn_cycle', (o) => new L.CyclicLR(o, 0.01, 0.1, { stepSizeUp: 2, scaleFn: (x) => 0.5 ** x }));
  run('CyclicLR_scaleFn_iterations', (o) => new L.CyclicLR(o, 0.01, 0.1, { stepSizeUp: 2, scaleFn: (x) => 1 / (1 + x), scaleMode: 'iterations' }));
});

test('SequentialLR restarts its later scheduler at the milestone with the closed form (MultiStepLR, LinearLR, ConstantLR, ExponentialLR, CosineAnnealingLR)', () => {
  run('Seq_Constant_MultiStep', (o) => new L.SequentialLR(o, [new L.ConstantLR(o, { factor: 0.5, totalIters: 2 }), new L.MultiStepLR(o, [0, 0, 2], { gamma: 0.5 })], [3]), { n: 8 });
  run('Seq_Exp_Linear', (o) => new L.SequentialLR(o, [new L.ExponentialLR(o, 0.9), new L.LinearLR(o, { startFactor: 0.5, totalIters: 4 })], [2]), { n: 8 });
  run('Seq_Exp_Constant', (o) => new L.SequentialLR(o, [new L.ExponentialLR(o, 0.9), new L.ConstantLR(o, { factor: 0.25, totalIters: 3 })], [2]), { n: 8 });
  run('Seq_Exp_Constant0', (o) => new L.SequentialLR(o, [new L.ExponentialLR(o, 0.9), new L.ConstantLR(o, { factor: 0.25, totalIters: 0 })], [2]), { n: 6 });
  run('Seq_Linear_Exp', (o) => new L.SequentialLR(o, [new L.LinearLR(o, { totalIters: 2 }), new L.ExponentialLR(o, 0.5)], [3]), { n: 8 });
  run('Seq_Const_Cosine', (o) => new L.SequentialLR(o, [new L.ConstantLR(o, { factor: 0.5, totalIters: 1 }), new L.CosineAnnealingLR(o, 3, { etaMin: 0.01 })], [2]), { n: 8 });
});

test('CosineAnnealingLR resumed at lastEpoch 3 (initialLr 0.2) starts from the closed form', () => {
  run('Cosine_resume', (o) => new L.CosineAnnealingLR(o, 5, { lastEpoch: 3 }), { n: 6, pre: (o) => (o.paramGroups[0].initialLr = 0.2) });
});

test('CosineAnnealingWarmRestarts.step(epoch) with tMult 1 takes the epoch modulo t0', () => {
  const p = sg.zeros([2], { requiresGrad: true });
  const opt = new sg.optim.SGD([p], { lr: 0.1 });
  const s = new L.CosineAnnealingWarmRestarts(opt, 3, { etaMin: 0.01 });
  const lrs = ref.CAWR_epochs.epochs.map((e) => (s.step(e), opt.paramGroups[0].lr));
  close(lrs, ref.CAWR_epochs.lrs, 1e-12);
  assert.deepEqual(s.getLastLr(), [opt.paramGroups[0].lr]);
});
