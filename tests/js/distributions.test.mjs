// sg.distributions (npm/src/distributions/distributions.ts) against PyTorch 1.13's torch.distributions
// (tests/data/distributions_ref.json, from gen_distributions.py): log-probabilities, entropies,
// cdfs, moments and KL divergences with their gradients, on every backend; sampling checked by
// its moments and by reparameterized gradients; errors; nothing leaks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';
import { forEachBackend } from './backends.mjs';
import { readRef } from './gradcheck_helpers.mjs';
import { assertCompiledStepEqualsEager, checkRefCases, checkRefCasesAsync } from './ref_cases.mjs';

const REF = readRef('distributions_ref.json');
const D = () => sg.distributions;

const CALLS = {
  'Normal logProb': (m, s, v) => new (D().Normal)(m, s).logProb(v),
  'Normal entropy': (m, s) => new (D().Normal)(m, s).entropy(),
  'Normal cdf': (m, s, v) => new (D().Normal)(m, s).cdf(v),
  'Normal moments': (m, s) => { const n = new (D().Normal)(m, s); return [n.mean, n.variance, n.stddev]; },
  'Uniform logProb': (a, b, v) => new (D().Uniform)(a, b).logProb(v),
  'Uniform entropy cdf': (a, b, v) => { const u = new (D().Uniform)(a, b); return [u.entropy(), u.cdf(v)]; },
  'Uniform moments': (a, b) => { const u = new (D().Uniform)(a, b); return [u.mean, u.variance]; },
  'Bernoulli probs logProb': (p, v) => new (D().Bernoulli)({ probs: p }).logProb(v),
  'Bernoulli logits logProb entropy': (l, v) => { const b = new (D().Bernoulli)({ logits: l }); return [b.logProb(v), b.entropy()]; },
  'Bernoulli probs grad': (p, v) => { const b = new (D().Bernoulli)({ probs: p }); return [b.logProb(v), b.entropy(), b.variance]; },
  'Categorical logits': (l, v) => { const c = new (D().Categorical)({ logits: l }); return [c.logProb(v), c.entropy(), c.probs, c.logits]; },
  'Categorical probs': (p, v) => { const c = new (D().Categorical)({ probs: p }); return [c.logProb(v), c.entropy()]; },
  'Categorical logProb broadcast': (l, v) => new (D().Categorical)({ logits: l }).logProb(v),
  'kl Normal': (m1, s1, m2, s2) => D().klDivergence(new (D().Normal)(m1, s1), new (D().Normal)(m2, s2)),
  'kl Bernoulli': (p, q) => D().klDivergence(new (D().Bernoulli)({ probs: p }), new (D().Bernoulli)({ probs: q })),
  'kl Bernoulli grad': (p, q) => D().klDivergence(new (D().Bernoulli)({ logits: p }), new (D().Bernoulli)({ logits: q })),
  'kl Categorical': (p, q) => D().klDivergence(new (D().Categorical)({ logits: p }), new (D().Categorical)({ logits: q })),
  'kl Categorical zeros': (p, q) => D().klDivergence(new (D().Categorical)({ probs: p }), new (D().Categorical)({ probs: q })),
  'kl Uniform': (a, b, c, d) => D().klDivergence(new (D().Uniform)(a, b), new (D().Uniform)(c, d)),
};

// The cases create distributions inside sg.tidy, which frees the handles they keep.
const TOLERANCE = () => 1e-5;

test('every formula equals PyTorch 1.13: values and gradients', () => {
  checkRefCases(REF, CALLS, TOLERANCE);
});

forEachBackend('the formulas equal PyTorch on the backend', async () => {
  await checkRefCasesAsync(REF, CALLS, TOLERANCE);
});

test('samples have the distribution\'s moments; rsample is differentiable in the parameters', () => {
  sg.manualSeed(5);
  sg.tidy(() => {
    const loc = sg.tensor([1, -2], { requiresGrad: true }), scale = sg.tensor([0.5, 2], { requiresGrad: true });
    const n = new sg.distributions.Normal(loc, scale);
    const x = n.rsample([20000]);
    assert.deepEqual(x.shape, [20000, 2]);
    const mean = Array.from(x.mean(0).dataSync()), sd = Array.from(x.std(0).dataSync());
    [1, -2].forEach((m, i) => assert.ok(Math.abs(mean[i] - m) < 4 * [0.5, 2][i] / Math.sqrt(20000), `mean ${mean[i]}`));
    [0.5, 2].forEach((s, i) => assert.ok(Math.abs(sd[i] - s) < 0.03 * s, `sd ${sd[i]}`));
    // d E[x] / d loc = 1 and d E[x] / d scale = E[eps] ≈ 0 (x = loc + eps·scale).
    x.mean(0).sum().backward();
    assert.deepEqual(Array.from(loc.grad.dataSync()), [1, 1]);
    Array.from(scale.grad.dataSync()).forEach((g) => assert.ok(Math.abs(g) < 0.05, `scale grad ${g}`));
    const b = new sg.distributions.Bernoulli({ probs: sg.tensor([0.1, 0.8]) }).sample([20000]);
    Array.from(b.mean(0).dataSync()).forEach((m, i) => assert.ok(Math.abs(m - [0.1, 0.8][i]) < 0.02, `bernoulli ${m}`));
    const c = new sg.distributions.Categorical({ probs: sg.tensor([0.2, 0.5, 0.3]) }).sample(30000);
    assert.equal(c.dtype, 'int32');
    const counts = [0, 1, 2].map((k) => c.eq(k).float().mean().item());
    counts.forEach((p, k) => assert.ok(Math.abs(p - [0.2, 0.5, 0.3][k]) < 0.015, `category ${k}: ${p}`));
    const u = new sg.distributions.Uniform(-1, 3).sample([10000]);
    assert.ok(u.min().item() >= -1 && u.max().item() < 3);
    assert.ok(Math.abs(u.mean().item() - 1) < 0.05);
  });
});

test('errors; a distribution frees only its own handles', () => {
  const live = sg.memory().tensors;
  const loc = sg.zeros([2]);
  const n = new sg.distributions.Normal(loc, 1);
  n.dispose();
  assert.ok(!loc.isDisposed, 'the caller\'s tensor stays usable');
  assert.equal(sg.memory().tensors, live + 1);
  for (const options of [{ probs: loc.add(1) }, { logits: loc }]) {
    const c = new sg.distributions.Categorical(options);
    c.dispose();
    if (options.probs) options.probs.dispose();
  }
  const b = new sg.distributions.Bernoulli({ logits: loc });
  b.dispose();
  assert.equal(sg.memory().tensors, live + 1, 'Categorical and Bernoulli free what they made');
  throwsWith(() => new sg.distributions.Bernoulli({}), 'Bernoulli: expected exactly one of { probs } and { logits }');
  throwsWith(() => sg.tidy(() => new sg.distributions.Categorical({ probs: sg.tensor([1, 2]), logits: sg.tensor([1, 2]) })), 'Categorical: expected exactly one of');
  throwsWith(() => new sg.distributions.Normal(0, 'wide'), "Normal: expected 'scale' to be a Tensor", "'wide'");
  throwsWith(() => sg.tidy(() => new sg.distributions.Normal(sg.zeros([2]), sg.ones([3]))), 'Normal: shapes [2], [3] do not broadcast');
  throwsWith(() => sg.tidy(() => new sg.distributions.Bernoulli({ probs: 0.5 }).rsample()), 'Bernoulli.rsample: this distribution has no reparameterized sampling');
  throwsWith(() => sg.tidy(() => new sg.distributions.Normal(0, 1).sample([-1])), 'Normal.sample: expected a shape');
  throwsWith(() => sg.tidy(() => new sg.distributions.Normal(sg.zeros([2], { dtype: 'int32' }), 1)), "Normal: expected 'loc' to be float32, got int32");
  throwsWith(() => sg.tidy(() => new sg.distributions.Categorical({ logits: sg.zeros([3]) }).logProb(sg.zeros([1]))), 'Categorical.logProb: expected int32 category indices');
  throwsWith(() => sg.tidy(() => sg.distributions.klDivergence(new sg.distributions.Normal(0, 1), new sg.distributions.Uniform(0, 1))), 'klDivergence: no formula for Normal and Uniform');
  loc.dispose();
  assert.equal(sg.memory().tensors, live);
});

test('a REINFORCE-style step inside sg.compile equals the eager one', () => {
  const logits = sg.tensor([[0.1, 0.5, -0.2], [1, 0, 0]], { requiresGrad: true });
  const actions = sg.tensor([2, 0], { dtype: 'int32' }), reward = sg.tensor([1.5, -0.5]);
  const step = () => {
    const pi = new sg.distributions.Categorical({ logits });
    const loss = pi.logProb(actions).mul(reward).neg().mean().sub(pi.entropy().mean().mul(0.01));
    loss.backward();
    return loss;
  };
  assertCompiledStepEqualsEager(step, logits);
  sg.dispose([logits, actions, reward]);
});

test("Categorical's mean and variance are NaN of the batch shape, as PyTorch 1.13's", () => {
  // torch.distributions.Categorical(probs=torch.rand(2, 3, 4)).mean is torch.full([2, 3], nan), and
  // a 1-D one's is a 0-d nan: the categories are labels, with no mean. Three dims, so that the sum
  // over the categories (the last dim) cannot be mistaken for one over another.
  sg.tidy(() => {
    for (const [options, batch] of [[{ probs: sg.rand([2, 3, 4]).add(0.1) }, [2, 3]], [{ logits: sg.randn([4]) }, []]]) {
      const c = new sg.distributions.Categorical(options);
      for (const moment of [c.mean, c.variance]) {
        assert.deepEqual(moment.shape, batch);
        assert.ok(Array.from(moment.dataSync()).every(Number.isNaN), String(moment.dataSync()));
      }
    }
  });
});
