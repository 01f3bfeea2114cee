// sg.distributions paths no test ran: Uniform.rsample (reparameterized, as torch.distributions.
// Uniform: low + U·(high − low), so d/dlow Σx = Σ(1 − U) and d/dhigh Σx = ΣU: the two gradients sum
// to the sample count), Uniform.dispose (frees its own handles only), Bernoulli.mean (= probs, as
// PyTorch; sigmoid(0) = 1/2 from logits), Categorical.rsample (an Error, as PyTorch's
// has_rsample False), Categorical's mean/variance (NaN, as PyTorch's Categorical) and the
// Distribution.stddev default (√variance). Values hand-computed.
import assert from 'node:assert/strict';
import test from 'node:test';
import { close, sg, throwsWith } from './helpers.mjs';

const D = sg.distributions;

test('Uniform.rsample is differentiable in low and high, and inside [low, high)', () => {
  const low = sg.tensor([-1, 2]).requiresGrad_();
  const high = sg.tensor([1, 5]).requiresGrad_();
  const u = new D.Uniform(low, high);
  const x = u.rsample([50]);
  assert.deepEqual(x.shape, [50, 2]);
  assert.equal(x.requiresGrad, true);
  const v = x.toArray();
  for (const [a, b] of v) {
    assert.ok(a >= -1 && a < 1, `${a}`);
    assert.ok(b >= 2 && b < 5, `${b}`);
  }
  x.sum().backward();
  const gl = low.grad.toArray(), gh = high.grad.toArray();
  close([gl[0] + gh[0], gl[1] + gh[1]], [50, 50], 1e-4);
  // d/dhigh Σx = ΣU = Σ (x − low)/(high − low).
  const sumU = [v.reduce((s, r) => s + (r[0] + 1) / 2, 0), v.reduce((s, r) => s + (r[1] - 2) / 3, 0)];
  close(gh, sumU, 1e-4);
  // sample() draws without a graph.
  assert.equal(u.sample([3]).requiresGrad, false);
  u.dispose();
});

test('Uniform.dispose frees its own handles, not the caller\'s tensors', () => {
  const low = sg.tensor([0, 1]), high = sg.tensor([2, 3]);
  const before = sg.memory().tensors;
  const u = new D.Uniform(low, high);
  close(u.mean.toArray(), [1, 2]);
  u.dispose();
  assert.equal(u.low.isDisposed, true);
  assert.equal(u.high.isDisposed, true);
  assert.equal(low.isDisposed, false);
  close(high.toArray(), [2, 3]);
  assert.equal(sg.memory().tensors, before + 1, 'only the mean read above remains');
});

test('Bernoulli.mean is probs (a copy); from logits 0 it is 1/2; stddev is sqrt(p(1 - p))', () => {
  const probs = sg.tensor([0.2, 0.9]);
  const b = new D.Bernoulli({ probs });
  const m = b.mean;
  close(m.toArray(), [0.2, 0.9]);
  m.mul_(0);
  close(b.probs.toArray(), [0.2, 0.9]);
  close(b.stddev.toArray(), [Math.sqrt(0.16), Math.sqrt(0.09)], 1e-6);
  close(new D.Bernoulli({ logits: sg.zeros([3]) }).mean.toArray(), [0.5, 0.5, 0.5]);
});

test('Categorical has no rsample (an Error naming it) and NaN mean and variance, as PyTorch', () => {
  const c = new D.Categorical({ probs: sg.tensor([[1, 3], [1, 1]]) });
  throwsWith(() => c.rsample(), /^Categorical\.rsample: this distribution has no reparameterized sampling; use sample \(and a score-function estimator such as REINFORCE\)$/);
  close(c.probs.toArray(), [[0.25, 0.75], [0.5, 0.5]]);
  close(c.mean.toArray(), [NaN, NaN]);
  close(c.variance.toArray(), [NaN, NaN]);
  assert.deepEqual(c.sample([4]).shape, [4, 2]);
});
