// The Adadelta, Adamax, NAdam and RAdam kernels: the SIMD kernels against their scalar twins on
// sizes around the vector width (tails included) for every variant, and NaN propagation of
// Adamax's max as torch.amax. Trajectories against PyTorch: tests/js/optim_more.test.mjs.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "optim/optim.h"
#include "optim/optim_kernels.h"

namespace {

using Buffers = std::vector<std::vector<float>>;  // p, state a, state b

// Runs `kernel(simd?, p, a, b)` on two copies of the buffers; they must agree to a few ulps
// (natively the SIMD path may fuse a multiply and an add that the scalar twin rounds twice).
template <class Kernel>
void twins_agree(const Buffers& start, const Kernel& kernel) {
  Buffers simd = start, scalar = start;
  kernel(true, simd[0].data(), simd[1].data(), simd[2].data());
  kernel(false, scalar[0].data(), scalar[1].data(), scalar[2].data());
  for (size_t b = 0; b < start.size(); ++b)
    for (size_t i = 0; i < start[b].size(); ++i) {
      const float u = simd[b][i], v = scalar[b][i];
      if (std::isnan(u) && std::isnan(v)) continue;
      CHECK_MESSAGE(std::fabs(u - v) <= 1e-6f * (1.0f + std::fabs(v)),
                    "buffer " << b << " element " << i << ": simd " << u << " vs scalar " << v);
    }
}

}  // namespace

TEST_CASE("optim more: SIMD kernels agree with their scalar twins, tails included") {
  using namespace sg::optim;
  std::mt19937 gen(17);
  std::normal_distribution<float> normal;
  for (int64_t n : {0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 100}) {
    CAPTURE(n);
    std::vector<float> g(n);
    Buffers start(3, std::vector<float>(n));
    for (int64_t i = 0; i < n; ++i) {
      g[i] = normal(gen);
      start[0][i] = normal(gen);
      start[1][i] = normal(gen) * 0.1f;
      start[2][i] = std::fabs(normal(gen)) * 0.1f;  // second moments are non-negative
    }
    for (int variant = 0; variant < 4; ++variant) {
      const bool x = variant & 1, y = variant & 2;
      CAPTURE(variant);
      AdadeltaScalars ad;
      ad.sign = x ? -1 : 1, ad.has_weight_decay = y, ad.weight_decay = 0.1f, ad.rho = 0.9f;
      ad.one_minus_rho = 0.1f, ad.eps = 1e-6f, ad.neg_lr = -1.0f;
      twins_agree(Buffers{start[0], start[2], start[2]}, [&](bool simd, float* p, float* a, float* b) {
        (simd ? simd::adadelta_f32 : ref::adadelta_f32)(p, g.data(), a, b, n, ad);
      });
      AdamaxScalars am;
      am.sign = x ? -1 : 1, am.has_weight_decay = y, am.weight_decay = 0.1f, am.beta1 = 0.9f;
      am.one_minus_beta1 = 0.1f, am.beta2 = 0.999f, am.eps = 1e-8f, am.neg_clr = -0.02f;
      twins_agree(start, [&](bool simd, float* p, float* a, float* b) {
        (simd ? simd::adamax_f32 : ref::adamax_f32)(p, g.data(), a, b, n, am);
      });
      MomentsScalars mo;
      mo.has_weight_decay = y, mo.weight_decay = 0.1f, mo.beta1 = 0.9f, mo.one_minus_beta1 = 0.1f;
      mo.beta2 = 0.999f, mo.one_minus_beta2 = 0.001f, mo.eps = 1e-8f;
      NadamScalars na;
      na.moments = mo, na.bias_correction2 = 0.003f, na.grad_coef = -0.011f, na.avg_coef = -0.02f;
      twins_agree(start, [&](bool simd, float* p, float* a, float* b) {
        (simd ? simd::nadam_f32 : ref::nadam_f32)(p, g.data(), a, b, n, na);
      });
      RadamScalars ra;
      ra.moments = mo, ra.bias_correction1 = 0.52f, ra.lr = 0.01f;
      ra.bias_correction2_sqrt = 0.08f, ra.rect = 0.03f, ra.rectified = x;
      twins_agree(start, [&](bool simd, float* p, float* a, float* b) {
        (simd ? simd::radam_f32 : ref::radam_f32)(p, g.data(), a, b, n, ra);
      });
    }
  }
}

TEST_CASE("optim more: Adamax's infinity norm keeps a NaN as torch.amax does") {
  using namespace sg::optim;
  for (bool simd : {true, false}) {
    CAPTURE(simd);
    std::vector<float> p(5, 1.0f), m(5, 0.0f), u(5, 0.5f), g = {1, NAN, -2, 0, 3};
    u[3] = NAN;
    AdamaxScalars s;
    s.beta1 = 0.9f, s.one_minus_beta1 = 0.1f, s.beta2 = 0.5f, s.eps = 1e-8f, s.neg_clr = -0.1f;
    (simd ? simd::adamax_f32 : ref::adamax_f32)(p.data(), g.data(), m.data(), u.data(), 5, s);
    CHECK(u[0] == doctest::Approx(1.0f));
    CHECK(std::isnan(u[1]));
    CHECK(u[2] == doctest::Approx(2.0f));
    CHECK(std::isnan(u[3]));
    CHECK(u[4] == doctest::Approx(3.0f));
  }
}

TEST_CASE("optim more: one step of each rule against its formula in double") {
  // One parameter element, first step, so each formula is short enough to write out here.
  const double p0 = 0.5, g0 = -0.8;
  auto step = [&](const std::string& algorithm, const sg::Attrs& attrs) {
    sg::Tensor p = sg::Tensor::empty({1});
    *p.f32() = static_cast<float>(p0);
    p.set_requires_grad(true);
    sg::Tensor g = sg::Tensor::empty({1});
    *g.f32() = static_cast<float>(g0);
    std::vector<sg::optim::ParamState> states(1);
    sg::optim::optimizer_step(algorithm, attrs, {p}, {g}, states);
    return static_cast<double>(*p.f32());
  };
  sg::Attrs a;
  a.set("lr", 1.0);
  // Adadelta: sq = 0.1·g², delta = √eps / √(sq + eps) · g
  const double sq = 0.1 * g0 * g0;
  CHECK(step("Adadelta", a) == doctest::Approx(p0 - std::sqrt(1e-6) / std::sqrt(sq + 1e-6) * g0).epsilon(1e-6));
  sg::Attrs b;
  b.set("lr", 0.1);
  // Adamax: m = 0.1·g, u = |g| + eps, p −= lr / 0.1 · m / u
  CHECK(step("Adamax", b) == doctest::Approx(p0 - 0.1 / 0.1 * (0.1 * g0) / (std::fabs(g0) + 1e-8)).epsilon(1e-6));
  // RAdam, step 1 (not rectified): p −= lr·m/(1 − β1) = lr·g
  CHECK(step("RAdam", b) == doctest::Approx(p0 - 0.1 * g0).epsilon(1e-6));
  // NAdam, step 1: μ1, μ2; d = √(v / (1 − β2)) + eps = |g| + eps; the product is μ1 and the
  // "next" product μ1·μ1·μ2, as PyTorch 1.13 computes it (mu_product * mu * mu_next).
  const double mu1 = 0.9 * (1 - 0.5 * std::pow(0.96, 0.004)), mu2 = 0.9 * (1 - 0.5 * std::pow(0.96, 0.008));
  const double d = std::fabs(g0) + 1e-8;
  const double want = p0 - 0.1 * g0 / d - 0.1 * mu2 / (1 - mu1 * mu1 * mu2) * (0.1 * g0) / d;
  CHECK(step("NAdam", b) == doctest::Approx(want).epsilon(1e-6));
}
