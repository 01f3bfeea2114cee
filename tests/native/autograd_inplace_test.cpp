// In-place ops (ops/inplace.h) and the autograd rules around them: storage versions checked at
// backward, the leaf rule, history rebased onto the out-of-place node, views refused; and the
// engine's iterative teardown of long graphs.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "core/rng.h"
#include "gradcheck.h"
#include "ops/inplace.h"
#include "ops/ops.h"

using sg::Tensor;
using sgtest::from;
using sgtest::gradcheck;
using sgtest::leaf;
using In = std::vector<Tensor>;

namespace {
uint32_t version(const Tensor& t) { return t.impl()->storage->version(); }
Tensor s(double v) { return sg::scalar_tensor(v); }
}  // namespace

TEST_CASE("inplace: values, versions shared by views, dtype rules") {
  Tensor x = from({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor v = sg::transpose(x, 0, 1);
  sg::add_(x, from({3}, {1, 1, 1}));
  sg::mul_(x, s(2.0));
  CHECK(x.at(0) == 4.0);
  CHECK(x.at(5) == 14.0);
  CHECK(v.at(1) == 10.0);  // the view sees the change ([1][0] of the transpose = x[0][1])
  CHECK(version(x) == 2);
  CHECK(version(v) == 2);
  sg::sub_(v, s(1.0));  // through a non-contiguous view
  CHECK(x.at(0) == 3.0);
  sg::add_(x, from({3}, {1, 2, 3}), 0.5);
  CHECK(x.at(2) == doctest::Approx(8.5));
  sg::clamp_(x, std::nullopt, 10.0);
  CHECK(x.at(5) == 10.0);
  sg::fill_(v, 0.25);
  CHECK(x.at(3) == 0.25);
  sg::zero_(x);
  CHECK(x.at(4) == 0.0);
  sg::copy_(x, from({3}, {1, -2, 3}));
  CHECK(x.at(4) == -2.0);
  sg::unary_("abs_", x);
  sg::unary_("sqrt_", x);
  CHECK(x.at(4) == doctest::Approx(std::sqrt(2.0)));
  sg::addcmul_(x, x, x, 2.0);  // x + 2x² (same storage, same layout)
  CHECK(x.at(0) == doctest::Approx(3.0));
  sg::addcdiv_(x, from({3}, {1, 1, 1}), from({3}, {2, 2, 2}), -2.0);  // x − 1
  CHECK(x.at(0) == doctest::Approx(2.0));
  Tensor mask = Tensor::empty({3}, sg::DType::Bool);
  mask.u8()[1] = 1;
  sg::masked_fill_(x, mask, -1.0);
  CHECK(x.at(4) == -1.0);
  // An operand that overlaps x in another layout is read before x changes.
  Tensor sq = from({2, 2}, {1, 2, 3, 4});
  sg::add_(sq, sg::transpose(sq, 0, 1));
  CHECK(sq.at(1) == 5.0);
  CHECK(sq.at(2) == 5.0);
  Tensor xi = Tensor::empty({3}, sg::DType::Int32);
  sg::add_(xi, sg::scalar_tensor(2, sg::DType::Int32));
  CHECK(xi.at(1) == 2.0);
  CHECK_THROWS_WITH_AS(sg::add_(xi, s(0.5)), doctest::Contains("result type float32 can't be cast to the desired output type int32"), sg::Error);
  CHECK_THROWS_WITH_AS(sg::unary_("exp_", xi), doctest::Contains("can't be cast"), sg::Error);
  // A float32 x and an operand of another dtype: the in-place kernel reads a float32 copy of it
  // (PyTorch 1.13: ones(3).add_(tensor([1, 2, 3], dtype=int32)) is [2, 3, 4], ones(3).mul_ of
  // float64 [0.5, 2, 4] is [0.5, 2, 4]).
  Tensor ones3 = from({3}, {1, 1, 1});
  Tensor ints = Tensor::empty({3}, sg::DType::Int32);
  for (int i = 0; i < 3; ++i) ints.i32()[i] = i + 1;
  sg::add_(ones3, ints);
  CHECK(ones3.dtype() == sg::DType::Float32);
  CHECK((ones3.at(0) == 2.0 && ones3.at(1) == 3.0 && ones3.at(2) == 4.0));
  Tensor ones3b = from({3}, {1, 1, 1});
  Tensor doubles = Tensor::empty({3}, sg::DType::Float64);
  const double halves[] = {0.5, 2, 4};
  std::copy(halves, halves + 3, doubles.f64());
  sg::mul_(ones3b, doubles);
  CHECK((ones3b.at(0) == 0.5 && ones3b.at(1) == 2.0 && ones3b.at(2) == 4.0));
  CHECK_THROWS_WITH_AS(sg::add_(from({3}, {1, 2, 3}), from({2, 3}, {1, 2, 3, 4, 5, 6})),
                       doctest::Contains("doesn't match the broadcast shape"), sg::Error);
  sg::copy_(xi, from({3}, {1.7f, -2.7f, 3.2f}));  // copy_ casts (truncates)
  CHECK(xi.at(1) == -2.0);
  sg::manual_seed(5);
  Tensor r = from({4000}, std::vector<float>(4000, 0.0f));
  sg::normal_(r, 3.0, 0.5);
  CHECK(sg::mean(r).item() == doctest::Approx(3.0).epsilon(0.01));
  sg::uniform_(r, -1.0, 2.0);
  CHECK(sg::amin(r).item() >= -1.0);
  CHECK(sg::amax(r).item() < 2.0);
}

TEST_CASE("inplace: a leaf that requires grad is refused unless grad mode is off") {
  Tensor a = leaf({3});
  CHECK_THROWS_WITH_AS(sg::add_(a, s(1.0)), doctest::Contains("a leaf Variable that requires grad is being used in an in-place operation"), sg::Error);
  const double before = a.at(0);
  {
    sg::NoGradGuard no_grad;
    sg::add_(a, s(1.0));
  }
  CHECK(a.at(0) == doctest::Approx(before + 1.0));
  CHECK(a.is_leaf());
}

TEST_CASE("inplace: a tensor saved for backward and changed afterwards fails at backward") {
  Tensor a = leaf({3});
  Tensor x = sg::mul(a, s(2.0));
  Tensor y = sg::mul(x, x);  // saves x
  sg::add_(x, s(1.0));
  CHECK_THROWS_WITH_AS(sg::sum(y).backward(),
                       doctest::Contains("one of the variables needed for gradient computation has been modified by an "
                                         "inplace operation: [float32 [3]], which is output 0 of 'add'"),
                       sg::Error);
  Tensor z = sg::sigmoid(sg::mul(a, s(1.0)));  // saves its output
  sg::mul_(z, s(2.0));
  CHECK_THROWS_WITH_AS(sg::sum(z).backward(), doctest::Contains("output 0 of 'sigmoid', is at version 1; expected version 0"),
                       sg::Error);
  // Changed under noGrad: the version still counts.
  Tensor w = sg::mul(a, s(3.0));
  Tensor e = sg::exp(w);
  {
    sg::NoGradGuard no_grad;
    sg::zero_(w);
  }
  CHECK_THROWS_WITH_AS(sg::sum(e).backward(), doctest::Contains("is at version 1; expected version 0"), sg::Error);
}

TEST_CASE("inplace: history is rebased onto the out-of-place op") {
  Tensor a = from({3}, {1, 2, 3}, true), b = from({3}, {0.5, -1, 2}, true);
  Tensor h = sg::mul(a, s(1.0));
  sg::mul_(h, a);  // a²: its formula needs h from before the change
  sg::add_(h, b);
  sg::unary_("exp_", h);
  CHECK(h.grad_fn()->name == "exp");
  sg::sum(h).backward();
  for (int i = 0; i < 3; ++i) {
    const double av = a.at(i), bv = b.at(i);
    CHECK(a.grad().at(i) == doctest::Approx(2 * av * std::exp(av * av + bv)).epsilon(1e-5));
    CHECK(b.grad().at(i) == doctest::Approx(std::exp(av * av + bv)).epsilon(1e-5));
  }
  // A tensor without history joins the graph (PyTorch: ones(3).mul_(w)).
  Tensor t = from({3}, {2, 2, 2});
  Tensor w = leaf({3});
  sg::mul_(t, w);
  CHECK(t.requires_grad());
  sg::sum(t).backward();
  CHECK(w.grad().at(0) == doctest::Approx(2.0));
}

TEST_CASE("inplace: views in the graph are refused when the change would be recorded") {
  Tensor a = leaf({2, 3});
  Tensor h = sg::mul(a, s(1.0));
  Tensor v = sg::transpose(h, 0, 1);
  CHECK_THROWS_WITH_AS(sg::add_(v, s(1.0)), doctest::Contains("a view in the autograd graph"), sg::Error);
  CHECK_THROWS_WITH_AS(sg::add_(h, s(1.0)), doctest::Contains("a view in the autograd graph"), sg::Error);
  sg::NoGradGuard no_grad;  // not recorded: allowed, and counted
  sg::add_(v, s(1.0));
  CHECK(version(h) == 1);
}

TEST_CASE("inplace: gradients through each in-place op match central differences") {
  const auto through = [](auto change) {
    return [change](In& in) {
      Tensor h = sg::mul(in[0], s(1.0));  // a non-leaf to change
      change(h, in);
      return h;
    };
  };
  const auto x = [] { return leaf({2, 3}, 0.5, 1.5, 1); };
  const auto y = [] { return leaf({3}, 0.5, 1.5, 2); };
  gradcheck("add_", through([](Tensor& h, In& in) { sg::add_(h, in[1], -0.5); }), {x(), y()});
  gradcheck("sub_", through([](Tensor& h, In& in) { sg::sub_(h, in[1]); }), {x(), y()});
  gradcheck("mul_", through([](Tensor& h, In& in) { sg::mul_(h, in[1]); }), {x(), y()});
  gradcheck("div_", through([](Tensor& h, In& in) { sg::div_(h, in[1]); }), {x(), y()});
  gradcheck("pow_", through([](Tensor& h, In& in) { sg::pow_(h, in[1]); }), {x(), y()});
  gradcheck("addcmul_", through([](Tensor& h, In& in) { sg::addcmul_(h, in[1], in[1], 0.5); }), {x(), y()});
  gradcheck("addcdiv_", through([](Tensor& h, In& in) { sg::addcdiv_(h, in[1], sg::add(in[1], s(1.0)), 2.0); }),
            {x(), y()});
  gradcheck("copy_", through([](Tensor& h, In& in) { sg::copy_(h, sg::mul(in[1], in[1])); }),
            {leaf({2, 3}, 0.5, 1.5, 1, false), y()});
  gradcheck("clamp_", through([](Tensor& h, In&) { sg::clamp_(h, 0.7, 1.3); }), {x()});
  Tensor mask = Tensor::empty({3}, sg::DType::Bool);
  mask.u8()[0] = 1;
  gradcheck("maskedFill_", through([mask](Tensor& h, In&) { sg::masked_fill_(h, mask, 3.0); }), {x()});
  for (const char* op : {"neg_", "exp_", "log_", "sqrt_", "abs_", "sigmoid_", "tanh_", "relu_"})
    gradcheck(op, through([op](Tensor& h, In&) { sg::unary_(op, h); }), {x()});
}

TEST_CASE("autograd: a 200,000-node graph is freed without deep recursion") {
  Tensor a = leaf({1});
  Tensor h = a;
  for (int i = 0; i < 200000; ++i) h = sg::mul(h, s(1.0));  // each node saves the previous output
  h = Tensor();  // the whole chain goes here: recursively, this overflowed the stack
  CHECK(a.is_leaf());
}
