// The backward engine: accumulation, shared subgraphs, retain_graph, hooks, capture mode.
#include <doctest/doctest.h>

#include "autograd/engine.h"
#include "autograd/record.h"
#include "gradcheck.h"
#include "ops/ops.h"

using sg::Tensor;
using sgtest::from;

TEST_CASE("autograd: a node reached by a path without gradient still runs for the others") {
  // y = x * 2 feeds two branches; one branch's op returns no gradient for y (a custom node),
  // the other is mul by 3. dL/dx must be 2 * 3 = 6 (the gradient-free path adds nothing).
  Tensor x = from({2}, {1.0f, 2.0f}, true);
  Tensor y = sg::mul(x, sg::scalar_tensor(2.0));
  Tensor dead = sg::record("no_grad_branch", sg::clone(y).detach(), {y},
                           [](const Tensor&) { return std::vector<Tensor>{Tensor()}; });
  Tensor live = sg::mul(y, sg::scalar_tensor(3.0));
  Tensor loss = sg::add(sg::sum(dead), sg::sum(live));
  loss.backward();
  REQUIRE(x.grad().defined());
  CHECK(x.grad().at(0) == doctest::Approx(6.0));
  CHECK(x.grad().at(1) == doctest::Approx(6.0));
}

TEST_CASE("autograd: a subgraph reached only through gradient-free paths is skipped") {
  Tensor x = from({1}, {3.0f}, true);
  Tensor y = sg::exp(x);
  Tensor dead = sg::record("no_grad_branch", sg::clone(y).detach(), {y},
                           [](const Tensor&) { return std::vector<Tensor>{Tensor()}; });
  sg::sum(dead).backward();
  CHECK_FALSE(x.grad().defined());
}

TEST_CASE("autograd: gradients accumulate across backward calls and shared inputs") {
  Tensor x = from({1}, {3.0f}, true);
  sg::mul(x, x).backward();  // d(x²) = 2x = 6
  sg::mul(x, x).backward();
  CHECK(x.grad().at(0) == doctest::Approx(12.0));
}

TEST_CASE("autograd: a second backward without retain_graph fails, with it succeeds") {
  Tensor x = from({1}, {2.0f}, true);
  Tensor y = sg::exp(x);
  y.backward(Tensor(), true);
  y.backward();
  CHECK(x.grad().at(0) == doctest::Approx(2 * std::exp(2.0)).epsilon(1e-5));
  CHECK_THROWS_WITH_AS(y.backward(), doctest::Contains("retainGraph"), sg::Error);
}

TEST_CASE("autograd: compute_grads leaves .grad untouched") {
  Tensor x = from({2}, {1.0f, -2.0f}, true);
  Tensor w = from({2}, {0.5f, 4.0f}, true);
  Tensor loss = sg::sum(sg::mul(x, w));
  auto g = sg::compute_grads(loss, Tensor(), {x}, false);
  CHECK(g[0].at(0) == doctest::Approx(0.5));
  CHECK(g[0].at(1) == doctest::Approx(4.0));
  CHECK_FALSE(x.grad().defined());
  CHECK_FALSE(w.grad().defined());
}
