// sg.amp.GradScaler's accessors as torch.cuda.amp.GradScaler's (PyTorch 1.13): each set_* changes
// what the matching get_* returns, what state_dict() holds and how update() moves the scale
// (backoff on an inf step, growth after growth_interval good ones); a disabled scaler's
// state_dict() is {} and get_scale() is 1. The expected scales are worked by hand from
// torch/cuda/amp/grad_scaler.py's update rule, not read from the code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';

/** One scaled step of a one-parameter model whose gradient is g (Infinity makes it skipped). */
function step(scaler, p, opt, g) {
  sg.tidy(() => scaler.scale(p.mul(g).sum()).backward());
  scaler.step(opt);
  scaler.update();
  opt.zeroGrad();
}

test('setGrowthFactor / setBackoffFactor / setGrowthInterval: returned by the getters, kept in stateDict, used by update()', () => {
  const p = new sg.nn.Parameter(sg.ones([1]));
  const opt = new sg.optim.SGD([p], { lr: 0 });
  const scaler = new sg.amp.GradScaler({ initScale: 1024, growthFactor: 2, backoffFactor: 0.5, growthInterval: 2000 });
  scaler.setGrowthFactor(3);
  scaler.setBackoffFactor(0.25);
  scaler.setGrowthInterval(2);
  assert.deepEqual([scaler.getGrowthFactor(), scaler.getBackoffFactor(), scaler.getGrowthInterval()], [3, 0.25, 2]);
  assert.deepEqual(scaler.stateDict(), { scale: 1024, growth_factor: 3, backoff_factor: 0.25, growth_interval: 2, _growth_tracker: 0 });
  step(scaler, p, opt, Infinity); // skipped: 1024 · 0.25
  assert.equal(scaler.getScale(), 256);
  step(scaler, p, opt, 1); // one good step of 2: no growth yet
  assert.equal(scaler.getScale(), 256);
  assert.equal(scaler.stateDict()._growth_tracker, 1);
  step(scaler, p, opt, 1); // the second: 256 · 3
  assert.equal(scaler.getScale(), 768);
  scaler.setBackoffFactor(0.125);
  step(scaler, p, opt, NaN); // skipped: 768 · 0.125
  assert.equal(scaler.getScale(), 96);
  scaler.setGrowthInterval(1);
  step(scaler, p, opt, 1); // every good step grows now: 96 · 3
  assert.equal(scaler.getScale(), 288);
  p.dispose();
});

test('a disabled GradScaler: stateDict() is {}, getScale() 1, isEnabled() false; loadStateDict refuses', () => {
  const scaler = new sg.amp.GradScaler({ enabled: false, initScale: 1024 });
  assert.deepEqual(scaler.stateDict(), {});
  assert.equal(scaler.getScale(), 1);
  assert.equal(scaler.isEnabled(), false);
  assert.throws(() => scaler.loadStateDict({ scale: 2 }), { message: 'GradScaler.loadStateDict: attempted to load state for a disabled instance' });
  const on = new sg.amp.GradScaler({ initScale: 1024 });
  assert.equal(on.isEnabled(), true);
  assert.deepEqual(on.stateDict(), { scale: 1024, growth_factor: 2, backoff_factor: 0.5, growth_interval: 2000, _growth_tracker: 0 });
});
