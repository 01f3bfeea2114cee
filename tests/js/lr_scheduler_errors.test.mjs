// Argument errors of sg.optim.lrScheduler that no test triggered or whose message no test read
// (SequentialLR / ChainedScheduler, CyclicLR's scaleFn result, loadStateDict, OneCycleLR's
// maxLr), each with its distinctive words and "got ...", and the scheduler still usable after;
// SequentialLR's options-object form (never run); MultiplicativeLR's state dict without its
// lambdas (as torch 1.13 leaves plain functions out of state_dict()). Expected lrs: hand values
// or tests/data/optim_sched_defaults_ref.json (gen_optim_sched_defaults.py, torch 1.13).
import test from 'node:test';
import assert from 'node:assert/strict';
import { sg, close, readRef, throwsWith } from './helpers.mjs';

const ref = readRef('optim_sched_defaults_ref.json').sched;
const L = sg.optim.lrScheduler;
const sgd = () => new sg.optim.SGD([sg.zeros([2], { requiresGrad: true })], { lr: 0.1, momentum: 0.9 });

test('SequentialLR in the options-object form follows torch; given milestones twice it refuses', () => {
  const opt = sgd();
  const s = new L.SequentialLR(opt, { schedulers: [new L.ExponentialLR(opt, 0.9), new L.LinearLR(opt, { startFactor: 0.5, totalIters: 4 })], milestones: [2] });
  const lrs = [opt.paramGroups[0].lr];
  for (let i = 0; i < 8; i++) (s.step(), lrs.push(opt.paramGroups[0].lr));
  close(lrs, ref.Seq_Exp_Linear.lrs, 1e-12);
  const opt2 = sgd();
  const a = new L.ExponentialLR(opt2, 0.9);
  const b = new L.StepLR(opt2, 2);
  throwsWith(() => new L.SequentialLR(opt2, { schedulers: [a, b], milestones: [2] }, [2]),
    /^SequentialLR: got an options object and then \[2\]; pass schedulers and milestones positionally or in the options, not both$/);
  new L.SequentialLR(opt2, [a, b], [2]).step();
});

test('SequentialLR / ChainedScheduler name the entry that is not an epoch scheduler', () => {
  const opt = sgd();
  const a = new L.StepLR(opt, 2);
  const plateau = new L.ReduceLROnPlateau(opt);
  const msg = (fn, i, got) => new RegExp(`^${fn}: schedulers\\[${i}\\] is ${got}, expected an epoch-based scheduler \\(sg\\.optim\\.lrScheduler\\.StepLR, LinearLR, \\.\\.\\.; not ReduceLROnPlateau\\)$`);
  throwsWith(() => new L.SequentialLR(opt, [a, plateau], [2]), msg('SequentialLR', 1, 'a ReduceLROnPlateau'));
  throwsWith(() => new L.ChainedScheduler([a, 5]), msg('ChainedScheduler', 1, '5'));
  throwsWith(() => new L.ChainedScheduler([{}]), msg('ChainedScheduler', 0, 'an object'));
  const c = new L.ChainedScheduler([a]);
  c.step();
  assert.deepEqual(c.getLastLr(), [0.1]); // StepLR(2) at epoch 1: still 0.1
});

test("SequentialLR refuses a group without initialLr (schedulers made first set it)", () => {
  const opt = sgd();
  const a = new L.StepLR(opt, 2);
  const b = new L.StepLR(opt, 3);
  delete opt.paramGroups[0].initialLr;
  throwsWith(() => new L.SequentialLR(opt, [a, b], [2]), /^SequentialLR: paramGroups\[0\] has no initialLr \(make the schedulers first\)$/);
  opt.paramGroups[0].initialLr = 0.1;
  const s = new L.SequentialLR(opt, [a, b], [2]);
  assert.deepEqual(s.getLastLr(), [0.1]);
});

test("loadStateDict of SequentialLR / ChainedScheduler checks the count of inner states; an LRScheduler's wants an object", () => {
  const opt = sgd();
  const a = new L.ExponentialLR(opt, 0.5);
  const b = new L.StepLR(opt, 2);
  const seq = new L.SequentialLR(opt, [a, b], [2]);
  const sd = seq.stateDict();
  throwsWith(() => seq.loadStateDict({ ...sd, schedulers: [sd.schedulers[0]] }),
    /^SequentialLR\.loadStateDict: expected 'schedulers' to hold 2 states, got \[an object\]$/);
  const chain = new L.ChainedScheduler([a, b]);
  throwsWith(() => chain.loadStateDict({ schedulers: [] }), /^ChainedScheduler\.loadStateDict: expected 'schedulers' to hold 2 states, got \[\]$/);
  for (const [bad, got] of [[null, 'null'], [3, '3'], [[], '\\[\\]']]) {
    throwsWith(() => a.loadStateDict(bad), new RegExp(`^ExponentialLR\\.loadStateDict: expected an object from stateDict\\(\\), got ${got}$`));
  }
  seq.loadStateDict(sd); // its own still loads
  seq.step();
  assert.deepEqual(seq.getLastLr(), [0.05]); // ExponentialLR(0.5) at epoch 1
});

test('CyclicLR: a scaleFn that returns no number is refused with x and what it returned', () => {
  const opt = sgd();
  throwsWith(() => new L.CyclicLR(opt, 0.01, 0.1, { stepSizeUp: 2, scaleFn: () => 'big' }), /^CyclicLR: scaleFn\(1\) must return a number, got 'big'$/);
  throwsWith(() => new L.CyclicLR(opt, 0.01, 0.1, { stepSizeUp: 2, scaleFn: () => NaN }), /^CyclicLR: scaleFn\(1\) must return a number, got NaN$/);
  let x = null;
  new L.CyclicLR(opt, 0.01, 0.1, { stepSizeUp: 2, scaleFn: (v) => ((x = v), 1) });
  assert.equal(x, 1); // cycle 1 at the first step (scaleMode 'cycle')
  assert.equal(opt.paramGroups[0].lr, 0.01);
});

test('OneCycleLR names a maxLr that is not a number or a list', () => {
  const opt = sgd();
  for (const [bad, got] of [['0.1', "'0.1'"], [[0.1, 'x'], "\\[0\\.1, 'x'\\]"], [Infinity, 'Infinity']]) {
    throwsWith(() => new L.OneCycleLR(opt, bad, { totalSteps: 10 }),
      new RegExp(`^OneCycleLR: expected maxLr to be a number or an array of numbers \\(one per param group\\), got ${got}$`));
  }
  const s = new L.OneCycleLR(opt, 0.1, { totalSteps: 12 });
  close(s.getLastLr(), [ref.OneCycleLR.lrs[0]], 1e-12);
});

test('MultiplicativeLR.stateDict leaves the lambdas out (torch keeps plain functions out too) and loads back', () => {
  const opt = sgd();
  const s = new L.MultiplicativeLR(opt, () => 0.5);
  s.step();
  const sd = s.stateDict();
  assert.ok(!('lrLambdas' in sd));
  assert.equal(sd.lastEpoch, 1);
  const opt2 = sgd();
  const t = new L.MultiplicativeLR(opt2, () => 0.5);
  t.loadStateDict(sd);
  assert.equal(t.lastEpoch, 1);
  t.step();
  close(opt2.paramGroups[0].lr, 0.05, 1e-15); // 0.1 · 0.5 at epoch 2 (the group's lr was 0.1)
});

test('SequentialLR / ChainedScheduler: empty lists, another optimizer, bad milestones, lastEpoch, step arguments', () => {
  const o = sgd();
  const [a, b] = [new L.StepLR(o, 2), new L.StepLR(o, 3)];
  const o2 = sgd();
  const c = new L.StepLR(o2, 2);
  throwsWith(() => new L.SequentialLR(o, [], []), /^SequentialLR: expected a non-empty array of schedulers, got \[\]$/);
  throwsWith(() => new L.ChainedScheduler(5), /^ChainedScheduler: expected a non-empty array of schedulers, got 5$/);
  throwsWith(() => new L.SequentialLR(o, [a, c], [2]), /^SequentialLR: expects all schedulers to belong to the same optimizer, but schedulers\[1\] has a different one than the optimizer passed in$/);
  throwsWith(() => new L.SequentialLR(o2, [a, b], [2]), /^SequentialLR: expects all schedulers .* but schedulers\[0\] has a different one than the optimizer passed in$/);
  throwsWith(() => new L.ChainedScheduler([a, c]), /^ChainedScheduler: expects all schedulers to belong to the same optimizer, but schedulers\[1\] has a different one than schedulers\[0\]$/);
  throwsWith(() => new L.SequentialLR(o, [a, b], [2], { lastEpoch: -2 }), /^SequentialLR: option 'lastEpoch' must be an integer >= -1, got -2$/);
  throwsWith(() => new L.SequentialLR(o, [a, b], [2.5]), /^SequentialLR: expected milestones to be an array of integers, got \[2\.5\]$/);
  throwsWith(() => new L.SequentialLR(o, [a, b], 2), /^SequentialLR: expected milestones to be an array of integers, got 2$/);
  throwsWith(() => new L.SequentialLR(o, [a, b], [2, 3]),
    /^SequentialLR: expects the number of schedulers provided to be one more than the number of milestone points, but got 2 schedulers and 2 milestones$/);
  // lastEpoch -1 given explicitly is the default; the milestones are copied.
  const ms = [2];
  const s = new L.SequentialLR(o, [a, b], ms, { lastEpoch: -1 });
  ms[0] = 100;
  assert.deepEqual(s.milestones, [2]);
  assert.equal(s.lastEpoch, 0);
  throwsWith(() => s.step(1), /^SequentialLR\.step: takes no arguments$/);
  throwsWith(() => new L.ChainedScheduler([a]).step(1), /^ChainedScheduler\.step: takes no arguments$/);
  // StepLR(2) until milestone 2, then StepLR(3) restarted there; torch 1.13 gives [0.1, 0.1, 0.1, 0.1, 0.01]
  const lrs = [];
  for (let i = 0; i < 5; i++) (s.step(), lrs.push(o.paramGroups[0].lr));
  close(lrs, [0.1, 0.1, 0.1, 0.1, 0.01], 1e-15);
});

test('SequentialLR.loadStateDict loads each inner scheduler', () => {
  const mk = () => {
    const o = sgd();
    const s = new L.SequentialLR(o, [new L.ExponentialLR(o, 0.5), new L.StepLR(o, 2)], [3]);
    return { o, s };
  };
  const x = mk();
  for (let i = 0; i < 4; i++) x.s.step();
  const y = mk();
  y.s.loadStateDict(x.s.stateDict());
  assert.deepEqual(y.s.schedulers.map((t) => t.lastEpoch), x.s.schedulers.map((t) => t.lastEpoch));
  assert.equal(y.s.lastEpoch, 4);
});
