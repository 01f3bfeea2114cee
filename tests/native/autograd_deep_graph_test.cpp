// A graph as deep as a long recurrent sequence: a 1,000,000-node chain is built, run backward and
// freed with no recursion as deep as the chain (the wasm stack, ~64 KiB of frames here, overflowed
// at ~24,000 nested node destructors when they freed their inputs recursively). Node::~Node frees
// the graph below it iteratively; the engine walks it with explicit stacks.
#include <doctest/doctest.h>

#include "core/sanitizers.h"
#include "gradcheck.h"
#include "ops/ops.h"

namespace {

using sg::Tensor;

// Under AddressSanitizer 100,000 nodes: it looks for memory errors, which a shorter chain meets
// the same way (a million took 67 of that stage's 113 s). The depth itself is proved by the
// plain native and wasm runs, which keep the million.
#ifdef SG_UNDER_ASAN
constexpr int kChain = 100000;
#else
constexpr int kChain = 1000000;
#endif

// h ← h·1 + 0 alternately: mul saves its inputs (the saved-tensor node kind), add keeps none.
Tensor chain(const Tensor& a) {
  const Tensor one = sg::scalar_tensor(1.0), zero = sg::scalar_tensor(0.0);
  Tensor h = a;
  for (int i = 0; i < kChain; ++i) h = i % 2 ? sg::add(h, zero) : sg::mul(h, one);
  return h;
}

}  // namespace

TEST_CASE("autograd: a 1,000,000-node chain is freed without running backward") {
  Tensor a = sgtest::leaf({2});
  Tensor h = chain(a);
  CHECK(h.grad_fn() != nullptr);
  h = Tensor();  // the last owner of the whole chain
  CHECK(a.is_leaf());
  CHECK(!a.grad().defined());
}

TEST_CASE("autograd: a 1,000,000-node chain runs backward (d/da of a·1+0·… is 1) and is freed") {
  Tensor a = sgtest::leaf({2});
  {
    Tensor h = chain(a);
    sg::sum(h).backward();  // frees the formulas as it goes (no retain_graph)
  }
  REQUIRE(a.grad().defined());
  CHECK(a.grad().f32()[0] == 1.0f);
  CHECK(a.grad().f32()[1] == 1.0f);
  {
    Tensor h = chain(a);
    sg::sum(h).backward(Tensor(), /*retain_graph=*/true);  // the graph stays whole until h goes
  }
  CHECK(a.grad().f32()[0] == 2.0f);
}
