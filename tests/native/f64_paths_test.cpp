// The float64 paths of the layer ops, special functions, rearranging ops, creation draws and the
// optimizers (issue 27), natively on every CPU backend. PyTorch's float64 values and gradients are
// tests/js/float64.test.mjs's and optim_dtypes.test.mjs's; here each float64 path is run on inputs
// that are exact in float32 and held against the op's float32 path (itself checked against PyTorch
// elsewhere): results and gradients float64, equal to float32 precision. A float64 path that fell
// back to float32 arithmetic still passes that, so the draws and sums that only double resolves
// are checked against closed forms too.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <vector>

#include "autograd/engine.h"
#include "core/copy.h"
#include "core/half.h"
#include "core/rng.h"
#include "nn/conv.h"
#include "nn/embedding.h"
#include "nn/loss.h"
#include "nn/pool.h"
#include "nn/rnn.h"
#include "ops/ops.h"
#include "ops/special.h"
#include "optim/optim.h"
#include "test_util.h"

using sg::DType;
using sg::Tensor;

namespace {

using Build = std::function<Tensor(const std::vector<Tensor>&)>;

// A float32 tensor of `shape` from U[lo, hi) (a local generator), exact in float32.
Tensor draw(const sg::Shape& shape, float lo, float hi, unsigned seed) {
  const std::vector<float> v = sgtest::uniform(sg::numel_of(shape), lo, hi, seed);
  Tensor t = Tensor::empty(shape);
  for (size_t i = 0; i < v.size(); ++i) t.f32()[i] = v[i];
  return t;
}

std::vector<double> values(const Tensor& t) {
  const Tensor c = sg::as_contiguous(t, DType::Float64);
  return std::vector<double>(c.f64(), c.f64() + c.numel());
}

// fn on float32 leaves and on their float64 casts: the float64 result and every gradient of
// sum(out · r) are float64 and equal the float32 ones to `tol` (relative to max(1, |value|)).
void twin(const char* name, const Build& fn, const std::vector<Tensor>& inputs, double tol = 2e-5) {
  CAPTURE(name);
  std::vector<Tensor> f32, f64;
  for (const Tensor& t : inputs) {
    Tensor a = t.detach(), b = sg::cast(t, DType::Float64).detach();
    if (sg::is_floating(t.dtype())) {
      a.set_requires_grad(true);
      b.set_requires_grad(true);
    } else {
      b = a;  // indices stay int32
    }
    f32.push_back(a);
    f64.push_back(b);
  }
  const Tensor y32 = fn(f32), y64 = fn(f64);
  REQUIRE(y64.dtype() == DType::Float64);
  REQUIRE(y64.shape() == y32.shape());
  const std::vector<double> a = values(y32), b = values(y64);
  for (size_t i = 0; i < a.size(); ++i) CHECK(std::fabs(a[i] - b[i]) <= tol * std::max(1.0, std::fabs(a[i])));
  const Tensor r32 = draw(y32.shape(), -1, 1, 99), r64 = sg::cast(r32, DType::Float64);
  y32.backward(r32);
  y64.backward(r64);
  for (size_t k = 0; k < f32.size(); ++k) {
    if (!f32[k].requires_grad() || !f32[k].grad().defined()) continue;  // an input the op ignores (c0 of a GRU)
    CAPTURE(k);
    REQUIRE(f64[k].grad().defined());
    CHECK(f64[k].grad().dtype() == DType::Float64);
    const std::vector<double> ga = values(f32[k].grad()), gb = values(f64[k].grad());
    for (size_t i = 0; i < ga.size(); ++i) CHECK(std::fabs(ga[i] - gb[i]) <= tol * std::max(1.0, std::fabs(ga[i])));
  }
}

Tensor ints(const sg::Shape& shape, const std::vector<int32_t>& v) {
  Tensor t = Tensor::empty(shape, DType::Int32);
  for (size_t i = 0; i < v.size(); ++i) t.i32()[i] = v[i];
  return t;
}

}  // namespace

TEST_CASE("f64 paths: convolutions and pools compute in double, as their float32 twins") {
  sgtest::on_each_backend([] {
    twin("conv2d", [](auto& t) { return sg::conv2d(t[0], t[1], t[2], {1, 2}, sg::ConvPadding{1, 0}, {1, 1}, 1); },
         {draw({2, 4, 5, 6}, -1, 1, 1), draw({6, 4, 3, 2}, -1, 1, 2), draw({6}, -1, 1, 3)});
    twin("conv2d relu groups", [](auto& t) { return sg::conv2d(t[0], t[1], Tensor(), {2}, sg::ConvPadding{1}, {1}, 2, "relu"); },
         {draw({1, 4, 6, 5}, -1, 1, 4), draw({4, 2, 3, 3}, -1, 1, 5)});
    twin("conv1d", [](auto& t) { return sg::conv1d(t[0], t[1], t[2], {2}, sg::ConvPadding{1}, {2}, 1); },
         {draw({2, 3, 9}, -1, 1, 6), draw({4, 3, 3}, -1, 1, 7), draw({4}, -1, 1, 8)});
    twin("conv_transpose2d", [](auto& t) { return sg::conv_transpose2d(t[0], t[1], t[2], {2}, {1}, {1}, 1, {1}); },
         {draw({2, 3, 4, 4}, -1, 1, 9), draw({3, 2, 3, 3}, -1, 1, 10), draw({2}, -1, 1, 11)});
    twin("max_pool2d", [](auto& t) { return sg::max_pool2d(t[0], {3, 2}, {2}, {1}, {1}, true); },
         {draw({2, 3, 6, 7}, -2, 2, 12)});
    twin("max_pool1d", [](auto& t) { return sg::max_pool1d(t[0], {3}, {2}, {1}, {2}, false); }, {draw({2, 3, 11}, -2, 2, 13)});
    twin("avg_pool2d", [](auto& t) { return sg::avg_pool2d(t[0], {3}, {2}, {1}, false, false); }, {draw({2, 3, 6, 7}, -2, 2, 14)});
    twin("adaptive_avg_pool2d", [](auto& t) { return sg::adaptive_avg_pool2d(t[0], {3, 2}); }, {draw({2, 3, 7, 5}, -2, 2, 15)});
    // The fused conv + relu + max pool is float32's kernel: float64 is refused by name.
    const Tensor x = sg::cast(draw({1, 2, 5, 5}, -1, 1, 16), DType::Float64), w = sg::cast(draw({2, 2, 3, 3}, -1, 1, 17), DType::Float64);
    CHECK_ERROR(sg::conv2d_relu_max_pool2d(x, w, Tensor(), {1}, sg::ConvPadding{1}, {1}, 1, {2}, {}, {0}, {1}, false),
                "the fused kernel is float32's, got a float64 input");
    CHECK_ERROR(sg::conv2d(x, draw({2, 2, 3, 3}, -1, 1, 17)), "expected a weight of the input's dtype (float64), got float32");
  });
}

TEST_CASE("f64 paths: recurrent layers, losses, embedding, special functions and rearranging ops") {
  sgtest::on_each_backend([] {
    using sg::RnnMode;
    const auto layer = [](RnnMode mode, bool reverse) {
      return [mode, reverse](auto& t) {
        const bool lstm = mode == RnnMode::Lstm;
        return sg::rnn_layer_packed(mode, t[0], t[1], lstm ? t[2] : Tensor(), t[3], t[4], t[5], t[6], Tensor(), reverse);
      };
    };
    for (RnnMode mode : {RnnMode::Lstm, RnnMode::Gru, RnnMode::RnnTanh, RnnMode::RnnRelu}) {
      const int64_t G = mode == RnnMode::Lstm ? 4 : mode == RnnMode::Gru ? 3 : 1;
      twin("rnn layer", layer(mode, mode == RnnMode::Gru),
           {draw({4, 2, 3}, -1, 1, 20), draw({2, 5}, -1, 1, 21), draw({2, 5}, -1, 1, 22), draw({G * 5, 3}, -0.5, 0.5, 23),
            draw({G * 5, 5}, -0.5, 0.5, 24), draw({G * 5}, -0.5, 0.5, 25), draw({G * 5}, -0.5, 0.5, 26)});
    }
    twin("lstm projection",
         [](auto& t) { return sg::rnn_layer_packed(RnnMode::Lstm, t[0], t[1], t[2], t[3], t[4], Tensor(), Tensor(), t[5], false); },
         {draw({3, 2, 3}, -1, 1, 27), draw({2, 2}, -1, 1, 28), draw({2, 4}, -1, 1, 29), draw({16, 3}, -0.5, 0.5, 30),
          draw({16, 2}, -0.5, 0.5, 31), draw({2, 4}, -0.5, 0.5, 32)});

    const Tensor target = ints({4}, {1, 0, 4, 2});
    twin("nll_loss", [&](auto& t) { return sg::nll_loss(t[0], target, Tensor(), -100, "mean"); }, {draw({4, 5}, -3, 0, 33)});
    twin("binary_cross_entropy", [](auto& t) { return sg::binary_cross_entropy(t[0], t[1], Tensor(), "sum"); },
         {draw({3, 4}, 0.05f, 0.95f, 34), draw({3, 4}, 0, 1, 35)});
    twin("bce with logits", [](auto& t) { return sg::binary_cross_entropy_with_logits(t[0], t[1], Tensor(), t[2], "mean"); },
         {draw({3, 4}, -3, 3, 36), draw({3, 4}, 0, 1, 37), draw({4}, 0.5, 2, 38)});
    twin("kl_div", [](auto& t) { return sg::kl_div(t[0], t[1], "batchmean", false); },
         {draw({3, 4}, -3, -0.1f, 39), draw({3, 4}, 0.05f, 1, 40)});
    const Tensor idx = ints({3, 2}, {0, 4, 2, 2, 1, 4});
    twin("embedding", [&](auto& t) { return sg::embedding(t[0], idx, 2); }, {draw({5, 3}, -2, 2, 41)});
    twin("flip roll tile pad", [](auto& t) {
      const Tensor a = sg::tile(sg::roll(sg::flip(t[0], {0, 1}), {1, -2}, {0, 1}), {2, 1});
      return sg::add(sg::pad(a, {1, 2}, "reflect"), sg::pad(a, {2, 1}, "replicate"));
    }, {draw({3, 4}, -2, 2, 42)});
    twin("special functions", [](auto& t) {
      return sg::add(sg::add(sg::erfinv(t[0]), sg::erfc(t[0])),
                     sg::add(sg::add(sg::lgamma(t[1]), sg::digamma(t[1])), sg::add(sg::polygamma(2, t[1]), sg::i0(t[0]))));
    }, {draw({3, 4}, -0.9f, 0.9f, 43), draw({3, 4}, 0.5f, 3, 44)}, 1e-4);
    // float64 holds what float32 cannot: erfinv at 1 − 2^-40 (float32 rounds the input to 1: inf).
    const Tensor near_one = sg::full({1}, 1 - std::ldexp(1.0, -40), DType::Float64);
    const double e = values(sg::erfinv(near_one))[0];
    CHECK(std::isfinite(e));
    CHECK(std::erf(e) == doctest::Approx(1 - std::ldexp(1.0, -40)).epsilon(1e-15));
  });
}

TEST_CASE("f64 paths: linspace, rand and randn compute in double; bool + bool is a bool") {
  const Tensor l = sg::linspace(-1.3, 2.9, 7, sg::Device::CPU, DType::Float64);
  REQUIRE(l.dtype() == DType::Float64);
  for (int64_t i = 0; i < 7; ++i) {
    const double want = i < 3 ? -1.3 + 0.7 * double(i) : 2.9 - 0.7 * double(6 - i);  // PyTorch's two halves
    CHECK(std::fabs(l.f64()[i] - want) <= 4e-16 * 3);
  }
  sg::manual_seed(5);
  const Tensor u = sg::rand({2000}, sg::Device::CPU, DType::Float64), z = sg::randn({2001}, sg::Device::CPU, DType::Float64);
  int not_float = 0;
  double mean = 0;
  for (int64_t i = 0; i < 2000; ++i) {
    CHECK((u.f64()[i] >= 0 && u.f64()[i] < 1));
    not_float += double(float(u.f64()[i])) != u.f64()[i];
    mean += u.f64()[i] / 2000;
  }
  CHECK(not_float > 1980);  // 53 random bits: a float32 value only by chance
  CHECK(std::fabs(mean - 0.5) < 0.03);
  double m2 = 0;
  for (int64_t i = 0; i < 2001; ++i) m2 += z.f64()[i] * z.f64()[i] / 2001;
  CHECK(std::fabs(m2 - 1) < 0.1);
  sg::manual_seed(5);
  CHECK(values(sg::rand({2000}, sg::Device::CPU, DType::Float64)) == values(u));
  CHECK_ERROR(sg::rand({2}, sg::Device::CPU, DType::Int32), "rand: expected dtype float32 or float64, got int32");
  CHECK_ERROR(sg::linspace(0, 1, 3, sg::Device::CPU, DType::Int32), "linspace: expected dtype float32 or float64");

  Tensor a = Tensor::empty({3}, DType::Bool), b = Tensor::empty({3}, DType::Bool);
  const uint8_t av[] = {1, 0, 1}, bv[] = {1, 1, 0};
  for (int i = 0; i < 3; ++i) {
    static_cast<uint8_t*>(a.raw())[i] = av[i];
    static_cast<uint8_t*>(b.raw())[i] = bv[i];
  }
  const Tensor s = sg::add(a, b), p = sg::mul(a, b);
  REQUIRE(s.dtype() == DType::Bool);
  REQUIRE(p.dtype() == DType::Bool);
  for (int i = 0; i < 3; ++i) {
    CHECK(static_cast<const uint8_t*>(s.raw())[i] == (av[i] | bv[i]));
    CHECK(static_cast<const uint8_t*>(p.raw())[i] == (av[i] & bv[i]));
  }
}

TEST_CASE("f64 paths: every optimizer steps float64 parameters in double and 16-bit ones in float32, rounded once") {
  namespace optim = sg::optim;
  sgtest::on_each_backend([] {
    const std::vector<std::pair<std::string, sg::Attrs>> algorithms = {
        {"SGD", sgtest::attrs({{"lr", 0.1}, {"momentum", 0.9}, {"nesterov", true}, {"weightDecay", 0.1}})},
        {"Adam", sgtest::attrs({{"lr", 0.01}, {"amsgrad", true}})},
        {"AdamW", sgtest::attrs({{"lr", 0.01}})},
        {"RMSprop", sgtest::attrs({{"lr", 0.01}, {"centered", true}, {"momentum", 0.5}})},
        {"Adagrad", sgtest::attrs({{"lr", 0.1}, {"initialAccumulatorValue", 0.25}})},
        {"Adadelta", sgtest::attrs({{"lr", 1.0}})},
        {"Adamax", sgtest::attrs({{"lr", 0.02}})},
        {"NAdam", sgtest::attrs({{"lr", 0.02}})},
        {"RAdam", sgtest::attrs({{"lr", 0.02}})},
    };
    for (const auto& [name, hyper] : algorithms) {
      const std::string algorithm = name;  // clang 14 cannot capture a structured binding (CAPTURE)
      CAPTURE(algorithm);
      const Tensor p0 = draw({3, 5}, -1, 1, 50);
      std::vector<Tensor> ps;
      std::vector<std::vector<optim::ParamState>> states(4, std::vector<optim::ParamState>(1));
      for (DType d : {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16}) ps.push_back(sg::cast(p0, d).detach());
      for (int step = 0; step < 4; ++step) {
        const Tensor g = draw({3, 5}, -1, 1, 60 + unsigned(step));
        for (size_t k = 0; k < ps.size(); ++k) {
          optim::optimizer_step(name, hyper, {ps[k]}, {sg::cast(g, ps[k].dtype()).detach()}, states[k]);
          CHECK(ps[k].dtype() == (k == 0 ? DType::Float32 : k == 1 ? DType::Float64 : k == 2 ? DType::Float16 : DType::BFloat16));
        }
      }
      const std::vector<double> want = values(ps[0]), f64 = values(ps[1]), f16 = values(ps[2]), bf16 = values(ps[3]);
      for (size_t i = 0; i < want.size(); ++i) {
        CHECK(std::fabs(f64[i] - want[i]) <= 1e-5 * std::max(1.0, std::fabs(want[i])));
        // 4 steps, each rounded once to the 16-bit dtype: within a few of its ulps of float32's.
        CHECK(std::fabs(f16[i] - want[i]) <= 8 * std::ldexp(1.0, -10) * std::max(0.25, std::fabs(want[i])));
        CHECK(std::fabs(bf16[i] - want[i]) <= 8 * std::ldexp(1.0, -7) * std::max(0.25, std::fabs(want[i])));
      }
      for (const auto& [key, t] : states[1][0])
        if (key != "step" && key != "mu_product") CHECK(t.dtype() == DType::Float64);
      for (const auto& [key, t] : states[3][0])
        if (key != "step" && key != "mu_product") CHECK(t.dtype() == DType::BFloat16);
    }
    // A grad of another dtype than its parameter, and integer parameters, are refused by name.
    std::vector<optim::ParamState> st(1);
    const Tensor p = sg::cast(draw({2}, -1, 1, 70), DType::Float64).detach();
    CHECK_ERROR(optim::sgd_step({p}, {draw({2}, -1, 1, 71)}, st, optim::SGDOptions{0.1}),
                "SGD: parameter 0: grad must be float64, got float32 (the parameter's dtype)");
  });
}

TEST_CASE("f64 paths: clip_grad_norm_ and clip_grad_value_ on float64 and bfloat16 grads") {
  namespace optim = sg::optim;
  // float64: the norm in double, the coefficient max_norm / (total + 1e-6) in double.
  const Tensor a = sg::cast(draw({7}, -1, 1, 80), DType::Float64), b = sg::cast(draw({5}, -2, 2, 81), DType::Float64);
  const std::vector<double> va = values(a), vb = values(b);
  long double sq = 0;
  for (double v : va) sq += (long double)v * v;
  for (double v : vb) sq += (long double)v * v;
  const double total = optim::clip_grad_norm_({a, b}, 0.5);
  CHECK(total == doctest::Approx(double(std::sqrt(sq))).epsilon(1e-15));
  const double coef = 0.5 / (total + 1e-6);
  for (size_t i = 0; i < va.size(); ++i) CHECK(a.f64()[i] == va[i] * coef);
  const std::vector<double> scaled = values(b);  // b was clipped by the norm above too
  for (size_t i = 0; i < vb.size(); ++i) CHECK(scaled[i] == vb[i] * coef);
  optim::clip_grad_value_({b}, 0.1);
  for (size_t i = 0; i < vb.size(); ++i) CHECK(b.f64()[i] == std::fmin(std::fmax(scaled[i], -0.1), 0.1));
  // bfloat16: the total is a bfloat16 value (PyTorch's norm of bfloat16 tensors), grads stay bfloat16.
  const Tensor h = sg::cast(draw({9}, -1, 1, 82), DType::BFloat16);
  const double th = optim::clip_grad_norm_({h}, 0.25, INFINITY);
  CHECK(double(sg::bf16_to_f32(sg::f32_to_bf16(float(th)))) == th);
  CHECK(h.dtype() == DType::BFloat16);
  for (double v : values(h)) CHECK(std::fabs(v) <= 0.25 * 1.01);
}
