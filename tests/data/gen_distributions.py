#!/usr/bin/env python3
"""Reference values for npm/src/distributions/distributions.ts (tests/js/distributions.test.mjs), computed by
PyTorch. Run with Debian's PyTorch (1.13, CPU):

    /usr/bin/python3 tests/data/gen_distributions.py   # writes tests/data/distributions_ref.json

The case format is gen_ops_compose.py's (ref_json.grad_case): log-probabilities, entropies, cdfs,
moments and KL divergences with their gradients in the parameters (and the value).
"""
import torch
from torch import distributions as D

from ref_json import Cases, i32, inf, nan, randn as f, write

# Values outside the support give their formula's value (−inf for Uniform), as sg's, which does not validate.
D.Distribution.set_default_validate_args(False)
CASES = Cases(20261129)
case = CASES.case

loc, scale = f(3), torch.rand(3) + 0.5
case("Normal logProb", lambda m, s, v: D.Normal(m, s).log_prob(v), [loc, scale, f(4, 3)], grad=(0, 1, 2))
case("Normal entropy", lambda m, s: D.Normal(m, s).entropy(), [loc, scale], grad=(1,))
case("Normal cdf", lambda m, s, v: D.Normal(m, s).cdf(v), [loc, scale, f(3)], grad=(0, 1, 2))
case("Normal moments", lambda m, s: (D.Normal(m, s).mean, D.Normal(m, s).variance, D.Normal(m, s).stddev), [loc, scale], grad=(0, 1))
case("Uniform logProb", lambda a, b, v: D.Uniform(a, b).log_prob(v), [torch.tensor([0.0, -1.0]), torch.tensor([2.0, 3.0]), torch.tensor([[1.0, 2.5], [-0.5, -1.0], [2.0, 3.5]])], grad=(0, 1))
case("Uniform entropy cdf", lambda a, b, v: (D.Uniform(a, b).entropy(), D.Uniform(a, b).cdf(v)), [torch.tensor([0.0, -1.0]), torch.tensor([2.0, 3.0]), torch.tensor([2.5, 0.5])], grad=(0, 1, 2))
case("Uniform moments", lambda a, b: (D.Uniform(a, b).mean, D.Uniform(a, b).variance), [torch.tensor([0.0, -1.0]), torch.tensor([2.0, 3.0])], grad=(0, 1))
probs = torch.tensor([0.0, 0.2, 0.5, 0.9, 1.0])
case("Bernoulli probs logProb", lambda p, v: D.Bernoulli(probs=p).log_prob(v), [probs, torch.tensor([0.0, 1.0, 1.0, 0.0, 1.0])])
case("Bernoulli logits logProb entropy", lambda l, v: (D.Bernoulli(logits=l).log_prob(v), D.Bernoulli(logits=l).entropy()), [f(5) * 3, torch.tensor([0.0, 1.0, 1.0, 0.0, 1.0])], grad=(0,))
case("Bernoulli probs grad", lambda p, v: (D.Bernoulli(probs=p).log_prob(v), D.Bernoulli(probs=p).entropy(), D.Bernoulli(probs=p).variance), [torch.rand(4) * 0.8 + 0.1, torch.tensor([1.0, 0.0, 1.0, 1.0])], grad=(0,))
cat_logits = f(2, 4)
case("Categorical logits", lambda l, v: (D.Categorical(logits=l).log_prob(v.long()), D.Categorical(logits=l).entropy(), D.Categorical(logits=l).probs, D.Categorical(logits=l).logits), [cat_logits, i32(3, 0)], grad=(0,))
case("Categorical probs", lambda p, v: (D.Categorical(probs=p).log_prob(v.long()), D.Categorical(probs=p).entropy()), [torch.tensor([[0.2, 0.0, 0.6, 0.2], [1.0, 1.0, 2.0, 4.0]]), i32(2, 3)], grad=(0,))
case("Categorical logProb broadcast", lambda l, v: D.Categorical(logits=l).log_prob(v.long()), [cat_logits, i32(1, 2, 0, 3, 3, 1).reshape(3, 2)], grad=(0,))
case("kl Normal", lambda m1, s1, m2, s2: D.kl_divergence(D.Normal(m1, s1), D.Normal(m2, s2)), [f(3), torch.rand(3) + 0.5, f(3), torch.rand(3) + 0.5], grad=(0, 1, 2, 3))
case("kl Bernoulli", lambda p, q: D.kl_divergence(D.Bernoulli(probs=p), D.Bernoulli(probs=q)), [torch.tensor([0.0, 0.3, 1.0, 0.5, 0.7]), torch.tensor([0.4, 0.0, 0.5, 1.0, 0.2])])
case("kl Bernoulli grad", lambda p, q: D.kl_divergence(D.Bernoulli(logits=p), D.Bernoulli(logits=q)), [f(4), f(4)], grad=(0, 1))
case("kl Categorical", lambda p, q: D.kl_divergence(D.Categorical(logits=p), D.Categorical(logits=q)), [f(2, 3), f(2, 3)], grad=(0, 1))
case("kl Categorical zeros", lambda p, q: D.kl_divergence(D.Categorical(probs=p), D.Categorical(probs=q)), [torch.tensor([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]]), torch.tensor([[0.1, 0.0, 0.9], [0.3, 0.3, 0.4]])])
case("kl Uniform", lambda a, b, c, d: D.kl_divergence(D.Uniform(a, b), D.Uniform(c, d)), [torch.tensor([0.0, 0.0]), torch.tensor([1.0, 1.0]), torch.tensor([-1.0, 0.5]), torch.tensor([2.0, 2.0])], grad=(0, 1, 2, 3))

write("gen_distributions.py", "distributions_ref.json", {"cases": CASES})
