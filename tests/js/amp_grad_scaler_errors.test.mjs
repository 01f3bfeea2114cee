// sg.amp.GradScaler's Errors and the paths no other file reaches, as torch.cuda.amp.GradScaler
// (PyTorch 1.13, grad_scaler.py): the constructor's factor checks (PyTorch's "The growth factor
// must be > 1.0" / "The backoff factor must be < 1.0"), scale() of nested lists / dicts of
// tensors (each times the scale) and of a non-tensor, update(new_scale) (sets the scale),
// update() with no inf check recorded, step() with a closure, unscale_ of float16 gradients,
// load_state_dict (round trip, empty dict, disabled instance). Expected scales and values are
// worked by hand from PyTorch's update rule; the messages are the module's contract.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';

test('GradScaler constructor: growth factor, backoff factor, growth interval, initScale checks name the value', () => {
  assert.throws(() => new sg.amp.GradScaler({ growthFactor: 1 }), { message: 'GradScaler: the growth factor must be > 1.0, got 1' });
  assert.throws(() => new sg.amp.GradScaler({ growthFactor: NaN }), /GradScaler: option 'growthFactor' must be a finite number, got NaN/);
  assert.throws(() => new sg.amp.GradScaler({ backoffFactor: 1 }), { message: 'GradScaler: the backoff factor must be < 1.0, got 1' });
  assert.throws(() => new sg.amp.GradScaler({ growthInterval: 0 }), { message: 'GradScaler: the growth interval must be > 0, got 0' });
  assert.throws(() => new sg.amp.GradScaler({ growthInterval: -3 }), /growth interval must be > 0, got -3/);
  assert.throws(() => new sg.amp.GradScaler({ initScale: 0 }), { message: 'GradScaler: initScale must be a positive finite number, got 0' });
  assert.throws(() => new sg.amp.GradScaler({ initScale: -2 }), /initScale must be a positive finite number, got -2/);
  // The boundary values just inside are accepted.
  const ok = new sg.amp.GradScaler({ growthFactor: 1.0001, backoffFactor: 0.9999, growthInterval: 1, initScale: 1e-3 });
  assert.deepEqual([ok.getGrowthFactor(), ok.getBackoffFactor(), ok.getGrowthInterval()], [1.0001, 0.9999, 1]);
});

test('GradScaler defaults: init_scale 2**16, growth_factor 2.0, backoff_factor 0.5, growth_interval 2000, enabled', () => {
  const s = new sg.amp.GradScaler();
  assert.equal(s.isEnabled(), true);
  assert.deepEqual(s.stateDict(), { scale: 65536, growth_factor: 2, backoff_factor: 0.5, growth_interval: 2000, _growth_tracker: 0 });
});

test('GradScaler.scale: nested arrays and objects of tensors are each multiplied by the scale; other leaves throw', () => {
  const scaler = new sg.amp.GradScaler({ initScale: 4 });
  sg.tidy(() => {
    const a = sg.tensor([1, 2]), b = sg.tensor([3]), c = sg.tensor([-0.5]);
    const out = scaler.scale([a, { b, inner: [c] }]);
    assert.ok(Array.isArray(out) && out.length === 2);
    assert.deepEqual(Array.from(out[0].dataSync()), [4, 8]);
    assert.deepEqual(Object.keys(out[1]), ['b', 'inner']);
    assert.deepEqual(Array.from(out[1].b.dataSync()), [12]);
    assert.deepEqual(Array.from(out[1].inner[0].dataSync()), [-2]);
    assert.throws(() => scaler.scale(3), /GradScaler\.scale: expected a Tensor or arrays \/ objects of Tensors, got 3\b/);
    assert.throws(() => scaler.scale([a, 'x']), /GradScaler\.scale: expected a Tensor or arrays \/ objects of Tensors, got .*x/);
    assert.throws(() => scaler.scale({ k: null }), /GradScaler\.scale: expected a Tensor .*got null/);
    // Still usable after.
    assert.deepEqual(Array.from(scaler.scale(a).dataSync()), [4, 8]);
  });
});

test('GradScaler.update(newScale) sets the scale (PyTorch update(new_scale)); a non-number throws', () => {
  const p = new sg.nn.Parameter(sg.ones([1]));
  const opt = new sg.optim.SGD([p], { lr: 0 });
  const scaler = new sg.amp.GradScaler({ initScale: 1024 });
  assert.throws(() => scaler.update(), /GradScaler\.update: attempted update but the scale is not set yet/);
  assert.throws(() => scaler.step(opt), /GradScaler\.step: attempted step but the scale is not set yet/);
  sg.tidy(() => scaler.scale(p.sum()).backward());
  assert.throws(() => scaler.update(), { message: 'GradScaler.update: no inf checks were recorded prior to update()' });
  assert.throws(() => scaler.update('8'), { message: "GradScaler.update: expected newScale to be a number, got '8'" });
  assert.equal(scaler.getScale(), 1024);
  scaler.step(opt);
  scaler.update(8);
  assert.equal(scaler.getScale(), 8);
  assert.equal(scaler.stateDict()._growth_tracker, 0);
  // float32 rounding of the new scale, as PyTorch's scale tensor: 0.1 -> Math.fround(0.1).
  scaler.update(0.1);
  assert.equal(scaler.getScale(), 0.10000000149011612);
  // After update() the per-optimizer stages reset: step is allowed again.
  opt.zeroGrad();
  sg.tidy(() => scaler.scale(p.sum()).backward());
  scaler.step(opt);
  scaler.update();
  assert.equal(scaler.getScale(), 0.10000000149011612);
  p.dispose();
});

test('GradScaler.step: a closure is refused when enabled, passed through when disabled', () => {
  const p = new sg.nn.Parameter(sg.ones([1]));
  const opt = new sg.optim.SGD([p], { lr: 0.5 });
  const scaler = new sg.amp.GradScaler({ initScale: 2 });
  sg.tidy(() => scaler.scale(p.sum()).backward());
  assert.throws(() => scaler.step(opt, () => 0), { message: 'GradScaler.step: closure use is not currently supported if GradScaler is enabled (as in PyTorch)' });
  scaler.step(opt); // still usable: grad 2 / 2 = 1, p = 1 - 0.5
  assert.deepEqual(Array.from(p.dataSync()), [0.5]);
  assert.throws(() => scaler.unscale_(opt), { message: 'GradScaler.unscale_: unscale_() is being called after step()' });
  const off = new sg.amp.GradScaler({ enabled: false });
  let calls = 0;
  opt.zeroGrad();
  off.step(opt, () => { calls++; return sg.tidy(() => { const l = p.sum(); l.backward(); return l; }); });
  assert.equal(calls, 1);
  off.update(); // a no-op when disabled
  off.unscale_(opt);
  assert.equal(off.getScale(), 1);
  p.dispose();
});

test('GradScaler.unscale_ of float16 gradients throws as PyTorch ("Attempting to unscale FP16 gradients")', () => {
  const p = new sg.nn.Parameter(sg.ones([2], { dtype: 'float16' }));
  const opt = new sg.optim.SGD([p], { lr: 0 });
  const scaler = new sg.amp.GradScaler({ initScale: 2 });
  sg.tidy(() => scaler.scale(p.sum()).backward());
  assert.equal(p.grad.dtype, 'float16');
  assert.throws(() => scaler.unscale_(opt), /GradScaler\.unscale_: attempting to unscale float16 gradients/);
  p.dispose();
});

test('GradScaler.loadStateDict: restores scale, factors, interval and tracker; an empty dict throws', () => {
  const src = { scale: 3, growth_factor: 4, backoff_factor: 0.25, growth_interval: 3, _growth_tracker: 2 };
  const scaler = new sg.amp.GradScaler();
  assert.throws(() => scaler.loadStateDict({}), { message: 'GradScaler.loadStateDict: the source state dict is empty, possibly because it was saved from a disabled instance' });
  assert.equal(scaler.getScale(), 65536);
  scaler.loadStateDict(src);
  assert.deepEqual(scaler.stateDict(), src);
  assert.deepEqual([scaler.getGrowthFactor(), scaler.getBackoffFactor(), scaler.getGrowthInterval()], [4, 0.25, 3]);
  // The loaded tracker counts: one good step reaches the interval 3, so the scale grows 3 · 4 = 12.
  const p = new sg.nn.Parameter(sg.ones([1]));
  const opt = new sg.optim.SGD([p], { lr: 0 });
  sg.tidy(() => scaler.scale(p.sum()).backward());
  scaler.step(opt);
  scaler.update();
  assert.equal(scaler.getScale(), 12);
  assert.equal(scaler.stateDict()._growth_tracker, 0);
  // A skipped step backs off by the loaded factor: 12 · 0.25.
  opt.zeroGrad();
  sg.tidy(() => scaler.scale(p.mul(Infinity).sum()).backward());
  scaler.step(opt);
  scaler.update();
  assert.equal(scaler.getScale(), 3);
  p.dispose();
});

test("GradScaler.step returns the optimizer's step result (undefined when skipped) and passes its arguments", () => {
  const p = new sg.nn.Parameter(sg.ones([1]));
  const calls = [];
  const opt = { paramGroups: [{ params: [p] }], step: (...a) => (calls.push(a), 42) };
  const scaler = new sg.amp.GradScaler({ initScale: 2 });
  sg.tidy(() => scaler.scale(p.sum()).backward());
  assert.equal(scaler.step(opt, 'a', 7), 42);
  assert.deepEqual(calls, [['a', 7]]);
  scaler.update();
  p.grad = null;
  sg.tidy(() => scaler.scale(p.mul(NaN).sum()).backward());
  assert.equal(scaler.step(opt, 'b'), undefined); // skipped: an inf/NaN gradient
  assert.equal(calls.length, 1);
  scaler.update();
  assert.equal(scaler.getScale(), 1); // 2 · 0.5
  const off = new sg.amp.GradScaler({ enabled: false });
  assert.equal(off.step(opt, 'c'), 42);
  assert.deepEqual(calls.at(-1), ['c']);
  p.dispose();
});
