// Kernel tests: every method and every Unary/Binary/Reduce op of the SIMD backend against the
// reference backend (the scalar oracle, itself checked against closed forms below), on empty,
// tiny, odd, lane-tail and large sizes, broadcast plans and extreme values.
//
// Natively each SIMD check runs once per Highway target compiled in and supported by this CPU
// (SSSE3/SSE4 have 4 lanes like wasm SIMD128, AVX2 8, AVX-512 16, plus the scalar fallback),
// by steering the dispatcher with hwy::SetSupportedTargetsForTest.
//
// Tolerances (|simd − ref| ≤ abs + rel·|ref| + xabs·|x|, ref computed in double and rounded once;
// NaN must match NaN and ±inf the same inf):
//   exact (0):    neg abs sign square reciprocal relu leaky_relu sqrt, add sub mul div
//                 maximum minimum relu_backward, max/min reductions
//   rel 2.4e-7:   rsqrt (2 ULP: two roundings), exp (Highway 1 ULP + reference rounding)
//   rel 6e-7:     log log2 log10 log1p expm1 tanh sigmoid silu softplus elu selu (≤ 5 ULP;
//                 Highway specifies 2–4 ULP, plus the division/multiplication on top);
//                 softplus with β ≠ 1 adds 6e-8·|βx| relative (β·x rounded to float first)
//   every inexact unary op: + abs 1e-37 (subnormal results have no relative precision)
//   sin/cos:      abs 4e-7 (Highway 3 ULP inside |x| ≤ 39000; std:: math beyond)
//   erf:          abs 5e-7 (Eigen rational; measured ≤ 3.8e-7 with FMA, 4.2e-7 without)
//   gelu (erf):   abs 2.5e-7·|x| + rel 4e-7 (x · Φ(x), Φ inherits half the erf error)
//   gelu (tanh):  abs 3e-7·|x| + rel 6e-7 (0.5 x (1 + tanh): cancellation near tanh = −1)
//   backward ops: abs c·|g|·(1 + |x|^p) + rel 1e-6, per op below
//   sum:          abs 1e-5·Σ|x| (float lanes over blocks of 2048, combined in double)
//   prod:         rel 2e-5 (float lanes; inputs near 1)
//   softmax:      abs 1e-6 + rel 2e-6; log-softmax and logsumexp: abs 2e-6 + rel 1e-6
//   gemm:         (k + 2)·1.2e-7·(|alpha| Σ_p |a_ip b_pj| + |beta c_ij|)  (the γ_k bound)
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/error.h"
#include "kernels/backend.h"
#include "kernels/reference/scalar_math.h"
#include "kernels/simd/simd_kernels.h"
#include "test_util.h"

#ifndef __EMSCRIPTEN__
#include "hwy/targets.h"
#endif

namespace {

using sg::Binary;
using sg::BroadcastPlan;
using sg::GemmAct;
using sg::Reduce;
using sg::Unary;

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

const sg::Backend& R() { return sg::reference_backend(); }
const sg::Backend& S() { return sg::simd_backend(); }

// Runs `body(best)` once per Highway target natively (once in wasm, where dispatch is
// static); `best` is true for the target used in production (the first: lower bits are
// better targets), which alone runs the large sizes to keep the suite fast.
void for_each_target(const std::function<void(bool best)>& body) {
#ifndef __EMSCRIPTEN__
  bool best = true;
  for (int64_t t : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(t);
    const std::string target = std::string(sg::simd::target_name()) + " (" +
                               std::to_string(sg::simd::lanes_f32()) + " lanes)";
    INFO("target " << target);
    body(best);
    best = false;
  }
  hwy::SetSupportedTargetsForTest(0);
#else
  const std::string target = sg::simd::target_name();
  INFO("target " << target);
  body(true);
#endif
}

// Sizes around the current target's vector tails plus the fixed odd/large ones.
std::vector<int64_t> test_sizes(bool large) {
  const int64_t n = sg::simd::lanes_f32();
  std::vector<int64_t> s = {0, 1, 3, 7, 17, 33, 1001};
  for (int64_t m : {n, 2 * n, 4 * n, 8 * n})
    for (int64_t dlt : {-1, 0, 1})
      if (m + dlt > 0) s.push_back(m + dlt);
  if (large) s.push_back(100000);
  return s;
}

using sgtest::uniform;

// A wide mix: uniform [-10, 10], log-uniform magnitudes 1e-6..1e6 of both signs, and the
// special values every kernel must treat like std:: math.
std::vector<float> wide_inputs(int64_t n, unsigned seed) {
  static const float specials[] = {0.0f, -0.0f, 1.0f, -1.0f, kInf, -kInf, kNaN,
                                   std::numeric_limits<float>::max(),
                                   -std::numeric_limits<float>::max(),
                                   std::numeric_limits<float>::denorm_min(),
                                   std::numeric_limits<float>::min(), 1e-30f, -1e-30f, 1e4f, -1e4f,
                                   88.7f, 88.72283172607421875f, 88.8f, 89.0f, -87.5f, -103.9f,
                                   -104.5f, 20.0f, 20.5f, -20.0f, 39000.0f, -39001.0f, 1e5f, 3.9f,
                                   -4.1f, 0.5f, -0.99999994f, -1.5f};
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> uni(-10.0f, 10.0f);
  std::uniform_real_distribution<float> expo(-6.0f, 6.0f);
  std::vector<float> v(static_cast<size_t>(n));
  const size_t ns = sizeof(specials) / sizeof(specials[0]);
  for (size_t i = 0; i < v.size(); ++i) {
    const unsigned pick = gen() % 4;
    if (pick == 0 && i % 3 == 0) v[i] = specials[gen() % ns];
    else if (pick == 1) v[i] = (gen() % 2 ? 1.0f : -1.0f) * std::pow(10.0f, expo(gen));
    else v[i] = uni(gen);
  }
  return v;
}

// bound = abs + rel·|y| + xabs·|x| + xrel·|x|·|y|; every inexact op also gets kSubnormal,
// because results below the normal range (|y| < 1.2e-38) carry no relative precision.
struct Tol {
  double abs = 0, rel = 0, xabs = 0, xrel = 0;
};
constexpr double kSubnormal = 1e-37;

bool close(float got, float want, double bound) {
  if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got);
  if (std::isinf(want) || std::isinf(got)) return got == want;
  return std::fabs(double(got) - double(want)) <= bound;
}

// Counts mismatches, reporting the first few; returns the count for one CHECK per case.
struct Mismatches {
  std::string what;
  int count = 0;
  void add(int64_t i, double x, float got, float want) {
    if (count++ < 5)
      MESSAGE(what << " [" << i << "] x=" << x << " simd=" << got << " ref=" << want
                   << " diff=" << std::fabs(double(got) - double(want)));
  }
};

// ----------------------------------------------------------------------------- reference
TEST_CASE("kernels reference: closed forms") {
  auto u = [](Unary op, float x, float p = 0.0f) {
    float y;
    R().unary_f32(op, p, &x, &y, 1);
    return double(y);
  };
  CHECK(u(Unary::Sigmoid, 0) == 0.5);
  CHECK(u(Unary::Sigmoid, -1e4f) == 0.0);
  CHECK(u(Unary::Sigmoid, 1e4f) == 1.0);
  CHECK(u(Unary::GeluErf, 1) == doctest::Approx(0.8413447460685429).epsilon(1e-7));
  CHECK(u(Unary::GeluTanh, 1) == doctest::Approx(0.8411919906082768).epsilon(1e-7));
  CHECK(u(Unary::Softplus, 1e4f, 1.0f) == 1e4);
  CHECK(u(Unary::Softplus, -1e4f, 1.0f) == 0.0);
  CHECK(u(Unary::Softplus, 0.0f, 1.0f) == doctest::Approx(std::log(2.0)).epsilon(1e-7));
  CHECK(u(Unary::Softplus, 1.0f, 2.0f) ==
        doctest::Approx(std::log1p(std::exp(2.0)) / 2).epsilon(1e-7));
  CHECK(u(Unary::Softplus, 10.5f, 2.0f) == 10.5);  // beta·x = 21 > 20: identity
  CHECK(u(Unary::Erf, 0.5f) == doctest::Approx(0.5204998778130465).epsilon(1e-7));
  CHECK(u(Unary::Sign, 0) == 0.0);
  CHECK(u(Unary::Sign, -3) == -1.0);
  CHECK(u(Unary::Relu, 0) == 0.0);
  CHECK(u(Unary::Relu, -2) == 0.0);
  CHECK(u(Unary::Relu, 2) == 2.0);
  CHECK(u(Unary::Selu, 1) == doctest::Approx(1.0507009873554805).epsilon(1e-7));
  CHECK(u(Unary::Selu, -1) ==
        doctest::Approx(1.0507009873554805 * 1.6732632423543772 * (std::exp(-1.0) - 1))
            .epsilon(1e-7));
  CHECK(u(Unary::Elu, -1, 0.5f) == doctest::Approx(0.5 * (std::exp(-1.0) - 1)).epsilon(1e-7));
  CHECK(u(Unary::LeakyRelu, -2, 0.01f) == doctest::Approx(-0.02).epsilon(1e-7));
  CHECK(u(Unary::Silu, 1) == doctest::Approx(0.7310585786300049).epsilon(1e-7));
  CHECK(u(Unary::Tanh, 0.5f) == doctest::Approx(0.46211715726000974).epsilon(1e-7));
  CHECK(u(Unary::Rsqrt, 4) == 0.5);
  CHECK(std::isnan(u(Unary::Log, -1)));
  CHECK(u(Unary::Log, 0) == -std::numeric_limits<double>::infinity());

  auto b = [](Binary op, float x, float y) {
    BroadcastPlan p{{1}, {1}, {1}};
    float out;
    R().binary_f32(op, p, &x, &y, &out);
    return double(out);
  };
  CHECK(b(Binary::Pow, 2, 10) == 1024.0);
  CHECK(b(Binary::Pow, -2, 3) == -8.0);
  CHECK(std::isnan(b(Binary::Pow, -2, 0.5f)));
  CHECK(std::isnan(b(Binary::Maximum, kNaN, 1)));
  CHECK(std::isnan(b(Binary::Minimum, 1, kNaN)));
  CHECK(b(Binary::Maximum, -1, 2) == 2.0);
  CHECK(b(Binary::ReluBackward, 0, 5) == 0.0);
  CHECK(b(Binary::ReluBackward, 1, 5) == 5.0);
  CHECK(b(Binary::SigmoidBackward, 0.5f, 2) == 0.5);
  CHECK(b(Binary::TanhBackward, 0.5f, 2) == 1.5);
  // Φ(1) + φ(1) = 0.8413447460685429 + 0.24197072451914337
  CHECK(b(Binary::GeluErfBackward, 1, 1) == doctest::Approx(1.0833154705876864).epsilon(1e-7));
  // s(1 + x(1 − s)) at x = 1, s = 0.7310585786300049
  CHECK(b(Binary::SiluBackward, 1, 1) == doctest::Approx(0.9276705118714866).epsilon(1e-7));
  // Selection: IEEE comparisons (NaN: false), and −0 for the side not kept.
  CHECK(b(Binary::Greater, 2, 1) == 1.0);
  CHECK(b(Binary::Greater, 1, 1) == 0.0);
  CHECK(b(Binary::GreaterEqual, 1, 1) == 1.0);
  CHECK(b(Binary::Less, kNaN, 1) == 0.0);
  CHECK(b(Binary::LessEqual, -kInf, -kInf) == 1.0);
  CHECK(b(Binary::Equal, 0.0f, -0.0f) == 1.0);
  CHECK(b(Binary::Equal, kNaN, kNaN) == 0.0);
  CHECK(b(Binary::KeepIf, 1, 5) == 5.0);
  CHECK(std::signbit(b(Binary::KeepIf, 0, 5)));
  CHECK(b(Binary::KeepIf, kNaN, 5) == 5.0);  // NaN ≠ 0
  CHECK(std::signbit(b(Binary::KeepUnless, 1, 5)));
  CHECK(b(Binary::KeepUnless, 0, -3) == -3.0);
  // GeluTanhBackward vs a central difference of the reference GeluTanh.
  {
    const double x = 0.7, h = 1e-4;
    const double fd = (sg::scalar::gelu_tanh_d(x + h) - sg::scalar::gelu_tanh_d(x - h)) / (2 * h);
    CHECK(b(Binary::GeluTanhBackward, 0.7f, 1) == doctest::Approx(fd).epsilon(1e-6));
  }
  // Broadcast odometer: [2, 3] + [3] and [2, 1] · [1, 3].
  {
    const float a[6] = {1, 2, 3, 4, 5, 6}, r[3] = {10, 20, 30};
    float out[6];
    R().binary_f32(Binary::Add, BroadcastPlan{{2, 3}, {3, 1}, {0, 1}}, a, r, out);
    const float want[6] = {11, 22, 33, 14, 25, 36};
    for (int i = 0; i < 6; ++i) CHECK(out[i] == want[i]);
    const float col[2] = {2, 3};
    R().binary_f32(Binary::Mul, BroadcastPlan{{2, 3}, {1, 0}, {0, 1}}, col, r, out);
    const float outer[6] = {20, 40, 60, 30, 60, 90};
    for (int i = 0; i < 6; ++i) CHECK(out[i] == outer[i]);
  }
}

TEST_CASE("kernels reference: reduce, softmax, logsumexp, gemm closed forms") {
  const float x[6] = {1, 2, 3, 4, 5, 6};  // [2, 3]
  float out[3];
  R().reduce_f32(Reduce::Sum, x, 1, 2, 3, out);  // over dim 0
  CHECK(out[0] == 5);
  CHECK(out[1] == 7);
  CHECK(out[2] == 9);
  R().reduce_f32(Reduce::Prod, x, 2, 3, 1, out);  // over dim 1
  CHECK(out[0] == 6);
  CHECK(out[1] == 120);
  R().reduce_f32(Reduce::Max, x, 2, 3, 1, out);
  CHECK(out[0] == 3);
  CHECK(out[1] == 6);
  R().reduce_f32(Reduce::Sum, x, 2, 0, 1, out);
  CHECK(out[0] == 0);
  R().reduce_f32(Reduce::Prod, x, 2, 0, 1, out);
  CHECK(out[1] == 1);
  const float xn[3] = {1, kNaN, 3};
  R().reduce_f32(Reduce::Min, xn, 1, 3, 1, out);
  CHECK(std::isnan(out[0]));

  const float row[3] = {1, 2, 3};
  float y[3];
  R().softmax_rows_f32(row, y, 1, 3, false);
  const double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  CHECK(y[2] == doctest::Approx(std::exp(3.0) / z).epsilon(1e-7));
  R().softmax_rows_f32(row, y, 1, 3, true);
  CHECK(y[0] == doctest::Approx(1.0 - std::log(z)).epsilon(1e-7));
  const float big[2] = {1e4f, 1e4f};
  R().softmax_rows_f32(big, y, 1, 2, false);
  CHECK(y[0] == 0.5);
  const float ninf[2] = {-kInf, -kInf};
  R().logsumexp_rows_f32(ninf, out, 1, 2);
  CHECK(out[0] == -kInf);
  R().logsumexp_rows_f32(row, out, 1, 3);
  CHECK(out[0] == doctest::Approx(std::log(z)).epsilon(1e-7));
  R().logsumexp_rows_f32(row, out, 1, 0);
  CHECK(out[0] == -kInf);

  // [[1, 2], [3, 4]] · [[5, 6], [7, 8]] = [[19, 22], [43, 50]], then the variants.
  const float A[4] = {1, 2, 3, 4}, B[4] = {5, 6, 7, 8};
  float C[4] = {kNaN, kNaN, kNaN, kNaN};
  R().gemm_f32(false, false, 2, 2, 2, 1.0f, A, 2, B, 2, 0.0f, C, 2);  // beta 0 ignores NaN
  CHECK(C[0] == 19);
  CHECK(C[1] == 22);
  CHECK(C[2] == 43);
  CHECK(C[3] == 50);
  R().gemm_f32(true, false, 2, 2, 2, 1.0f, A, 2, B, 2, 0.0f, C, 2);  // Aᵀ = [[1,3],[2,4]]
  CHECK(C[0] == 26);
  CHECK(C[3] == 44);
  R().gemm_f32(false, true, 2, 2, 2, 2.0f, A, 2, B, 2, 1.0f, C, 2);  // 2·A·Bᵀ + C
  CHECK(C[0] == 2 * 17 + 26);
  CHECK(C[1] == 2 * 23 + 30);
  // With a bias per column: A·B + [100, 200]; with K = 0 only beta · C + bias remains.
  const float bias[2] = {100, 200};
  R().gemm_f32_bias(false, false, 2, 2, 2, 1.0f, A, 2, B, 2, 0.0f, bias, GemmAct::None, C, 2);
  CHECK(C[0] == 119);
  CHECK(C[1] == 222);
  CHECK(C[2] == 143);
  CHECK(C[3] == 250);
  R().gemm_f32_bias(false, false, 2, 2, 0, 1.0f, A, 2, B, 2, 0.5f, bias, GemmAct::None, C, 2);
  CHECK(C[0] == 0.5f * 119 + 100);
  CHECK(C[3] == 0.5f * 250 + 200);
}

TEST_CASE("kernels backend registry") {
  CHECK(std::string(sg::backend().name()) == "wasm");  // default: the SIMD backend
  CHECK(&sg::backend_named("simd") == &S());
  CHECK(&sg::backend_named("wasm") == &S());
  CHECK(&sg::backend_named("reference") == &R());
  CHECK(sg::backend_names() == std::vector<std::string>{"reference", "wasm"});
  sg::set_backend("reference");
  CHECK(&sg::backend() == &R());
  sg::set_backend("wasm");
  CHECK(&sg::backend() == &S());
  CHECK_THROWS_WITH_AS(sg::set_backend("cuda"),
                       "setBackend: unknown backend 'cuda' (expected one of: reference, wasm)",
                       sg::Error);
  CHECK(&sg::backend() == &S());  // a failed set leaves the active backend alone
}

// ----------------------------------------------------------------------------- unary
struct UnaryCase {
  Unary op;
  const char* name;
  float param;
  Tol tol;
};

const UnaryCase kUnaryCases[] = {
    {Unary::Neg, "neg", 0, {}},
    {Unary::Exp, "exp", 0, {0, 2.4e-7}},
    {Unary::Log, "log", 0, {0, 6e-7}},
    {Unary::Log2, "log2", 0, {0, 6e-7}},
    {Unary::Log10, "log10", 0, {0, 6e-7}},
    {Unary::Log1p, "log1p", 0, {0, 6e-7}},
    {Unary::Expm1, "expm1", 0, {0, 6e-7}},
    {Unary::Sqrt, "sqrt", 0, {}},
    {Unary::Rsqrt, "rsqrt", 0, {0, 2.4e-7}},
    {Unary::Abs, "abs", 0, {}},
    {Unary::Sign, "sign", 0, {}},
    {Unary::Sin, "sin", 0, {4e-7, 0}},
    {Unary::Cos, "cos", 0, {4e-7, 0}},
    {Unary::Erf, "erf", 0, {5e-7, 0}},
    {Unary::Square, "square", 0, {}},
    {Unary::Reciprocal, "reciprocal", 0, {}},
    {Unary::Relu, "relu", 0, {}},
    {Unary::Sigmoid, "sigmoid", 0, {0, 6e-7}},
    {Unary::Tanh, "tanh", 0, {0, 6e-7}},
    {Unary::Silu, "silu", 0, {0, 6e-7}},
    {Unary::GeluErf, "gelu_erf", 0, {0, 4e-7, 2.5e-7}},
    {Unary::GeluTanh, "gelu_tanh", 0, {0, 6e-7, 3e-7}},
    {Unary::Softplus, "softplus(beta=1)", 1.0f, {0, 6e-7}},
    // β·x is rounded to float before exp (as in PyTorch), adding |βx|·2^-24 relative error.
    {Unary::Softplus, "softplus(beta=2.5)", 2.5f, {0, 6e-7, 0, 2.5 * 6e-8}},
    {Unary::Elu, "elu(alpha=1)", 1.0f, {0, 6e-7}},
    {Unary::Elu, "elu(alpha=0.3)", 0.3f, {0, 6e-7}},
    {Unary::Selu, "selu", 0, {0, 6e-7}},
    {Unary::LeakyRelu, "leaky_relu(0.01)", 0.01f, {}},
};

void check_unary(const UnaryCase& c, const std::vector<float>& x, bool in_place) {
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<float> want(x.size()), got(x.size());
  R().unary_f32(c.op, c.param, x.data(), want.data(), n);
  if (in_place) {
    got = x;
    S().unary_f32(c.op, c.param, got.data(), got.data(), n);
  } else {
    S().unary_f32(c.op, c.param, x.data(), got.data(), n);
  }
  Mismatches mm{std::string(c.name) + " n=" + std::to_string(n) + (in_place ? " in-place" : "")};
  for (int64_t i = 0; i < n; ++i) {
    double bound = c.tol.abs + c.tol.rel * std::fabs(double(want[i]));
    if (bound > 0) bound += kSubnormal;
    // (0·inf would be NaN: x terms only where they apply)
    if (std::isfinite(x[i])) {
      bound += c.tol.xabs * std::fabs(double(x[i]));
      bound += c.tol.xrel * std::fabs(double(x[i])) * std::fabs(double(want[i]));
    }
    if (!close(got[i], want[i], bound)) mm.add(i, x[i], got[i], want[i]);
  }
  CHECK_MESSAGE(mm.count == 0, mm.what << ": " << mm.count << " mismatches");
}

TEST_CASE("kernels simd unary: every op vs reference, all sizes and special values") {
  for_each_target([](bool best) {
    for (const UnaryCase& c : kUnaryCases) {
      for (int64_t n : test_sizes(best)) check_unary(c, wide_inputs(n, unsigned(n)), false);
      check_unary(c, wide_inputs(257, 99), true);
    }
  });
}

TEST_CASE("kernels simd unary: dense sweeps of the transcendental ranges") {
  // Every op over a fine grid of its interesting range, where approximation errors peak.
  std::vector<float> grid;
  for (double v = -30.0; v <= 30.0; v += 1.0 / 256) grid.push_back(float(v));
  for (double e = -40; e <= 38; e += 0.02) {
    grid.push_back(float(std::pow(10.0, e)));
    grid.push_back(-float(std::pow(10.0, e)));
  }
  for_each_target([&](bool) {
    for (const UnaryCase& c : kUnaryCases) check_unary(c, grid, false);
  });
}

TEST_CASE("kernels simd exp, sigmoid, silu: range ends in vectors that mix them with ordinary lanes") {
  // exp, sigmoid and silu have no range branch: lanes past the fast range (subnormal results,
  // overflow, ±inf, NaN) go through the same arithmetic as their neighbours. Every other lane
  // here is ordinary (|x| ≤ 3), so each vector mixes the two, on every target and lane count.
  // Checked against the closed forms in double, where subnormal results must keep their
  // precision: within 2 units of the smallest subnormal (measured ≤ 1.82), not just kSubnormal.
  const double tiny = std::numeric_limits<float>::denorm_min();
  std::vector<float> x;
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> ordinary(-3.0f, 3.0f);
  auto push = [&](float v) {
    x.push_back(v);
    x.push_back(ordinary(gen));
  };
  for (double v = -106.0; v <= -80.0; v += 1.0 / 1024) push(float(v));
  for (double v = 80.0; v <= 90.0; v += 1.0 / 1024) push(float(v));
  const float overflow = 88.72283172607421875f;  // the largest float whose exp is finite
  for (float v : {overflow, std::nextafter(overflow, kInf), std::nextafter(overflow, 0.0f), -103.97208f,
                  -104.0f, -104.5f, -87.0f, -87.33654f, 1e30f, -1e30f, kInf, -kInf, kNaN, 0.0f, -0.0f})
    push(v);
  const int64_t n = static_cast<int64_t>(x.size());
  auto sigmoid = [](double v) { return v >= 0 ? 1 / (1 + std::exp(-v)) : std::exp(v) / (1 + std::exp(v)); };
  struct Case {
    Unary op;
    const char* name;
    std::function<double(double)> f;
    double rel, tiny_units, tiny_units_per_x;  // bound: rel·|y| + (units + per_x·|x|)·denorm_min
  };
  const Case cases[] = {
      {Unary::Exp, "exp", [](double v) { return std::exp(v); }, 2.4e-7, 1, 0},
      {Unary::Sigmoid, "sigmoid", sigmoid, 6e-7, 2, 0},
      {Unary::Silu, "silu", [&](double v) { return v * sigmoid(v); }, 6e-7, 1, 2},
  };
  for_each_target([&](bool) {
    for (const Case& c : cases) {
      std::vector<float> y(x.size());
      S().unary_f32(c.op, 0, x.data(), y.data(), n);
      Mismatches mm{std::string(c.name) + " range ends"};
      for (int64_t i = 0; i < n; ++i) {
        const double xi = x[size_t(i)];
        const double w = std::isnan(xi) ? xi : std::isinf(xi) && c.op == Unary::Silu ? (xi > 0 ? xi : NAN) : c.f(xi);
        const float want = float(w);  // rounds to ±inf past FLT_MAX, to 0 below half a subnormal
        double bound = c.rel * std::fabs(w) + c.tiny_units * tiny;
        if (std::isfinite(xi)) bound += c.tiny_units_per_x * std::fabs(xi) * tiny;
        if (!close(y[size_t(i)], want, bound)) mm.add(i, xi, y[size_t(i)], want);
      }
      CHECK_MESSAGE(mm.count == 0, mm.what << ": " << mm.count << " mismatches");
    }
    // The exact ends: the largest finite exp and the first overflow, and the zero below.
    const float ends[] = {overflow, std::nextafter(overflow, kInf), -104.5f, -kInf};
    float got[4];
    S().unary_f32(Unary::Exp, 0, ends, got, 4);
    CHECK(std::isfinite(got[0]));
    CHECK(got[1] == kInf);
    CHECK(got[2] == 0.0f);
    CHECK(got[3] == 0.0f);
  });
}

TEST_CASE("kernels simd gelu (erf form): relative accuracy in the negative tail") {
  // Closed form in double: gelu(x) = x·Φ(x) = x/2·erfc(−x/√2), and its derivative
  // Φ(x) + x·φ(x). Far left both are tiny: an absolute error bound would accept any answer
  // there, so this checks relative error. The float path rounds z = x/√2 and z² before its
  // exp, which costs up to ≈ z²·2^-23 relative; 2e-6 + 2e-7·x² covers that with room.
  std::vector<float> x;
  for (double v = -12.0; v <= 0.0; v += 1.0 / 1024) x.push_back(float(v));
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<float> ones(x.size(), 1.0f);
  const BroadcastPlan plan{{n}, {1}, {1}};
  for_each_target([&](bool) {
    std::vector<float> y(x.size()), dy(x.size());
    S().unary_f32(Unary::GeluErf, 0, x.data(), y.data(), n);
    S().binary_f32(Binary::GeluErfBackward, plan, x.data(), ones.data(), dy.data());
    Mismatches fwd{"gelu_erf tail"}, bwd{"gelu_erf_backward tail"};
    for (int64_t i = 0; i < n; ++i) {
      const double xi = x[size_t(i)];
      const double cdf = 0.5 * std::erfc(-xi / std::sqrt(2.0));
      const double pdf = std::exp(-0.5 * xi * xi) / std::sqrt(2.0 * M_PI);
      const double want = xi * cdf, dwant = cdf + xi * pdf;
      const double rel = 2e-6 + 2e-7 * xi * xi;
      if (!close(y[size_t(i)], float(want), rel * std::fabs(want) + kSubnormal)) fwd.add(i, x[size_t(i)], y[size_t(i)], float(want));
      // The derivative is a sum that crosses 0 (near x = −0.75): relative to its terms.
      const double terms = cdf + std::fabs(xi) * pdf;
      if (!close(dy[size_t(i)], float(dwant), rel * terms + kSubnormal)) bwd.add(i, x[size_t(i)], dy[size_t(i)], float(dwant));
    }
    CHECK_MESSAGE(fwd.count == 0, fwd.what << ": " << fwd.count << " mismatches");
    CHECK_MESSAGE(bwd.count == 0, bwd.what << ": " << bwd.count << " mismatches");
  });
}

// ----------------------------------------------------------------------------- binary
struct BinaryCase {
  Binary op;
  const char* name;
  float a_lo, a_hi, b_lo, b_hi;
  // tolerance: abs_g·|b|·(1 + |a|^p) + rel·|ref|
  double abs_g, p, rel;
};

const BinaryCase kBinaryCases[] = {
    {Binary::Add, "add", -10, 10, -10, 10, 0, 0, 0},
    {Binary::Sub, "sub", -10, 10, -10, 10, 0, 0, 0},
    {Binary::Mul, "mul", -10, 10, -10, 10, 0, 0, 0},
    {Binary::Div, "div", -10, 10, -10, 10, 0, 0, 0},
    {Binary::Pow, "pow", 0.01f, 4, -4, 4, 0, 0, 0},
    {Binary::Maximum, "maximum", -10, 10, -10, 10, 0, 0, 0},
    {Binary::Minimum, "minimum", -10, 10, -10, 10, 0, 0, 0},
    {Binary::ReluBackward, "relu_backward", -2, 2, -3, 3, 0, 0, 0},
    {Binary::SigmoidBackward, "sigmoid_backward", 0, 1, -3, 3, 1.2e-7, 0, 4e-7},
    {Binary::TanhBackward, "tanh_backward", -1, 1, -3, 3, 1.2e-7, 0, 4e-7},
    {Binary::GeluErfBackward, "gelu_erf_backward", -6, 6, -3, 3, 4e-7, 1, 1e-6},
    {Binary::GeluTanhBackward, "gelu_tanh_backward", -6, 6, -3, 3, 2e-7, 2, 1e-6},
    {Binary::SiluBackward, "silu_backward", -20, 20, -3, 3, 2e-7, 1, 1e-6},
    // Selection (narrow ranges, so that ties and zeros occur).
    {Binary::Greater, "greater", -2, 2, -2, 2, 0, 0, 0},
    {Binary::GreaterEqual, "greater_equal", -2, 2, -2, 2, 0, 0, 0},
    {Binary::Less, "less", -2, 2, -2, 2, 0, 0, 0},
    {Binary::LessEqual, "less_equal", -2, 2, -2, 2, 0, 0, 0},
    {Binary::Equal, "equal", -2, 2, -2, 2, 0, 0, 0},
    {Binary::KeepIf, "keep_if", -1, 1, -3, 3, 0, 0, 0},
    {Binary::KeepUnless, "keep_unless", -1, 1, -3, 3, 0, 0, 0},
};

int64_t plan_numel(const BroadcastPlan& p) {
  int64_t n = 1;
  for (int64_t s : p.shape) n *= s;
  return n;
}

// Buffer length an operand needs to back `strides` over `shape`.
int64_t extent(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides) {
  int64_t e = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) return 0;
    e += (shape[d] - 1) * strides[d];
  }
  return e;
}

void check_binary(const BinaryCase& c, const BroadcastPlan& plan, const std::string& label,
                  unsigned seed, bool specials = false) {
  std::vector<float> a = uniform(extent(plan.shape, plan.a_strides), c.a_lo, c.a_hi, seed);
  std::vector<float> b = uniform(extent(plan.shape, plan.b_strides), c.b_lo, c.b_hi, seed + 1);
  if (specials) {  // NaN/inf in both operands (NaN propagation of maximum/minimum)
    for (size_t i = 0; i < a.size(); i += 5) a[i] = (i % 2) ? kNaN : kInf;
    for (size_t i = 2; i < b.size(); i += 7) b[i] = (i % 2) ? kNaN : -kInf;
  }
  if (c.op == Binary::Pow && !specials) {  // negative bases with integer exponents too
    for (size_t i = 0; i < a.size(); i += 4) a[i] = -a[i];
    for (size_t i = 0; i < b.size(); i += 3) b[i] = std::round(b[i]);
  }
  const int64_t n = plan_numel(plan);
  std::vector<float> want(static_cast<size_t>(n)), got(static_cast<size_t>(n), -12345.0f);
  R().binary_f32(c.op, plan, a.data(), b.data(), want.data());
  S().binary_f32(c.op, plan, a.data(), b.data(), got.data());
  Mismatches mm{std::string(c.name) + " " + label};
  // Recover each output's operands by walking the plan like the reference does.
  std::vector<int64_t> idx(plan.shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t ao = 0, bo = 0;
    for (size_t d = 0; d < idx.size(); ++d) {
      ao += idx[d] * plan.a_strides[d];
      bo += idx[d] * plan.b_strides[d];
    }
    const double av = a[ao], bv = b[bo];
    double bound = c.rel * std::fabs(double(want[i]));
    if (c.abs_g > 0) bound += c.abs_g * std::fabs(bv) * (1 + std::pow(std::fabs(av), c.p));
    if (!close(got[i], want[i], bound)) mm.add(i, av, got[i], want[i]);
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < plan.shape[d]) break;
      idx[d] = 0;
    }
  }
  CHECK_MESSAGE(mm.count == 0, mm.what << ": " << mm.count << " mismatches");
}

std::vector<std::pair<std::string, BroadcastPlan>> broadcast_plans(bool large) {
  std::vector<std::pair<std::string, BroadcastPlan>> p;
  p.push_back({"scalar⊕vector [37]", {{37}, {0}, {1}}});
  p.push_back({"vector⊕scalar [37]", {{37}, {1}, {0}}});
  p.push_back({"0-d", {{}, {}, {}}});
  p.push_back({"scalar⊕scalar [5]", {{5}, {0}, {0}}});
  p.push_back({"row broadcast [13,19]+[19]", {{13, 19}, {19, 1}, {0, 1}}});
  p.push_back({"column broadcast [13,19]+[13,1]", {{13, 19}, {19, 1}, {1, 0}}});
  p.push_back({"outer [13,1]⊕[1,19]", {{13, 19}, {1, 0}, {0, 1}}});
  p.push_back({"middle dim [3,5,33]+[1,5,1]", {{3, 5, 33}, {165, 33, 1}, {0, 1, 0}}});
  p.push_back({"middle dim [4,6,7,9]+[4,1,7,9]", {{4, 6, 7, 9}, {378, 63, 9, 1}, {63, 0, 9, 1}}});
  p.push_back({"size-1 dims [1,7,1,9]", {{1, 7, 1, 9}, {63, 9, 9, 1}, {63, 9, 9, 1}}});
  p.push_back({"transposed a [11,17]", {{11, 17}, {1, 11}, {17, 1}}});
  p.push_back({"strided both [9,10]", {{9, 10}, {30, 3}, {1, 9}}});
  p.push_back({"zero-size [4,0,3]", {{4, 0, 3}, {0, 3, 1}, {0, 3, 1}}});
  if (large) p.push_back({"large row broadcast [300,333]", {{300, 333}, {333, 1}, {0, 1}}});
  return p;
}

TEST_CASE("kernels simd binary: every op vs reference, contiguous sizes and broadcast plans") {
  for_each_target([](bool best) {
    for (const BinaryCase& c : kBinaryCases) {
      unsigned seed = 10;
      for (int64_t n : test_sizes(best))
        check_binary(c, BroadcastPlan{{n}, {1}, {1}}, "contiguous n=" + std::to_string(n), seed++);
      for (const auto& [label, plan] : broadcast_plans(best)) check_binary(c, plan, label, seed++);
      if (c.op == Binary::Maximum || c.op == Binary::Minimum || c.op == Binary::Add ||
          c.op == Binary::Mul || c.op == Binary::Div) {
        check_binary(c, BroadcastPlan{{101}, {1}, {1}}, "NaN/inf n=101", seed++, true);
        check_binary(c, BroadcastPlan{{7, 13}, {13, 1}, {0, 1}}, "NaN/inf row", seed++, true);
      }
    }
  });
}

// binary_run_f32 (a fused kernel's block) must give binary_f32's bits on the same 1-D plan: the
// compiled graph promises results bit-equal to the op-by-op run (NaN for NaN).
TEST_CASE("kernels binary_run_f32: bit-identical to binary_f32 for every op, operand pattern and size") {
  for_each_target([](bool best) {
    for (const sg::Backend* be : {&R(), &S()}) {
      unsigned seed = 70;
      for (const BinaryCase& c : kBinaryCases) {
        for (int64_t n : test_sizes(best)) {
          for (int pattern = 0; pattern < 4; ++pattern) {
            const bool sa = pattern & 1, sb = pattern & 2;
            const int64_t m = sa && sb ? 1 : n;
            std::vector<float> a = uniform(sa ? 1 : n, c.a_lo, c.a_hi, seed++);
            std::vector<float> b = uniform(sb ? 1 : n, c.b_lo, c.b_hi, seed++);
            if (!a.empty()) a[0] = kNaN;  // NaN propagation goes the same way
            std::vector<float> want(static_cast<size_t>(m)), got(static_cast<size_t>(m), -12345.0f);
            be->binary_f32(c.op, BroadcastPlan{{m}, {sa ? 0 : 1}, {sb ? 0 : 1}}, a.data(), b.data(), want.data());
            be->binary_run_f32(c.op, a.data(), sa, b.data(), sb, got.data(), m);
            // Bit for bit, except a NaN's sign (x86 takes it from whichever operand the compiler
            // put first in a commutative op, which may differ between two inlinings).
            bool same = true;
            for (size_t i = 0; i < want.size(); ++i)
              same = same && (std::isnan(want[i]) ? std::isnan(got[i])
                                                  : std::memcmp(&want[i], &got[i], sizeof(float)) == 0);
            CHECK_MESSAGE(same, std::string(be->name()) << " " << std::string(c.name) << " n=" << n << " pattern "
                                                        << pattern << " first: " << want[0] << " vs " << got[0]
                                                        << ", last: " << want.back() << " vs " << got.back());
          }
        }
      }
    }
  });
}

// ----------------------------------------------------------------------------- reduce
void check_reduce(Reduce op, int64_t outer, int64_t r, int64_t inner, unsigned seed,
                  bool specials) {
  const int64_t n = outer * r * inner;
  std::vector<float> x = op == Reduce::Prod ? uniform(n, 0.9f, 1.1f, seed)
                                            : uniform(n, -1.0f, 1.0f, seed);
  if (specials && n > 0) {
    x[static_cast<size_t>(n / 2)] = kNaN;
    x[static_cast<size_t>(n / 3)] = -kInf;
    x[static_cast<size_t>(n - 1)] = kInf;
  }
  std::vector<float> want(static_cast<size_t>(outer * inner)), got(want.size(), -12345.0f);
  R().reduce_f32(op, x.data(), outer, r, inner, want.data());
  S().reduce_f32(op, x.data(), outer, r, inner, got.data());
  static const char* names[] = {"sum", "max", "min", "prod"};
  Mismatches mm{std::string(names[int(op)]) + " [" + std::to_string(outer) + "," +
                std::to_string(r) + "," + std::to_string(inner) + "]" +
                (specials ? " with NaN/inf" : "")};
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      double sabs = 0;
      for (int64_t i = 0; i < r; ++i) sabs += std::fabs(double(x[(o * r + i) * inner + j]));
      const size_t k = static_cast<size_t>(o * inner + j);
      double bound = 0;
      if (op == Reduce::Sum) bound = 1e-5 * sabs;
      if (op == Reduce::Prod) bound = 2e-5 * std::fabs(double(want[k]));
      if (!close(got[k], want[k], bound)) mm.add(int64_t(k), 0, got[k], want[k]);
    }
  }
  CHECK_MESSAGE(mm.count == 0, mm.what << ": " << mm.count << " mismatches");
}

TEST_CASE("kernels simd reduce: every op, inner == 1 and > 1, r == 0, NaN") {
  for_each_target([](bool) {
    const int64_t L = sg::simd::lanes_f32();
    std::vector<std::array<int64_t, 3>> shapes = {
        {1, 0, 1},     {3, 0, 5},      {2, 0, 4 * L + 3}, {1, 1, 1},   {1, 3, 1},
        {5, 7, 1},     {2, 17, 1},     {3, 33, 1},        {2, 1001, 1}, {1, 100000, 1},
        {1, L - 1, 1}, {1, L + 1, 1},  {2, 4 * L + 1, 1}, {2, 5, 3},   {2, 7, L - 1},
        {3, 3, L},     {2, 9, L + 1},  {2, 17, 4 * L},    {2, 6, 4 * L + 1}, {4, 33, 5 * L + 3},
        {1, 1000, 64}, {3, 1, 17},     {1, 5000, 2 * L},  {7, 1, 1},
    };
    unsigned seed = 100;
    for (Reduce op : {Reduce::Sum, Reduce::Max, Reduce::Min, Reduce::Prod}) {
      for (const auto& s : shapes) {
        if (op == Reduce::Prod && s[1] > 2000) continue;  // a product of 1e5 factors under/overflows
        check_reduce(op, s[0], s[1], s[2], seed++, false);
        if (op != Reduce::Prod) check_reduce(op, s[0], s[1], s[2], seed++, true);
      }
    }
  });
}

// ----------------------------------------------------------------------------- softmax
void check_rows(const std::vector<float>& x, int64_t rows, int64_t cols, const std::string& label) {
  for (bool log_ : {false, true}) {
    std::vector<float> want(x.size()), got(x.size(), -12345.0f);
    R().softmax_rows_f32(x.data(), want.data(), rows, cols, log_);
    S().softmax_rows_f32(x.data(), got.data(), rows, cols, log_);
    Mismatches mm{std::string(log_ ? "log_softmax " : "softmax ") + label};
    for (size_t i = 0; i < x.size(); ++i) {
      const double bound = log_ ? 2e-6 + 1e-6 * std::fabs(double(want[i]))
                                : 1e-6 + 2e-6 * std::fabs(double(want[i]));
      if (!close(got[i], want[i], bound)) mm.add(int64_t(i), x[i], got[i], want[i]);
    }
    CHECK_MESSAGE(mm.count == 0, mm.what << ": " << mm.count << " mismatches");
    // In place (y == x) must give the same.
    std::vector<float> inplace = x;
    S().softmax_rows_f32(inplace.data(), inplace.data(), rows, cols, log_);
    int diff = 0;
    for (size_t i = 0; i < x.size(); ++i)
      if (!(inplace[i] == got[i] || (std::isnan(inplace[i]) && std::isnan(got[i])))) ++diff;
    CHECK_MESSAGE(diff == 0, mm.what << " in-place differs");
  }
  std::vector<float> want(static_cast<size_t>(rows)), got(want.size(), -12345.0f);
  R().logsumexp_rows_f32(x.data(), want.data(), rows, cols);
  S().logsumexp_rows_f32(x.data(), got.data(), rows, cols);
  Mismatches mm{"logsumexp " + label};
  for (size_t i = 0; i < want.size(); ++i)
    if (!close(got[i], want[i], 2e-6 + 1e-6 * std::fabs(double(want[i]))))
      mm.add(int64_t(i), 0, got[i], want[i]);
  CHECK_MESSAGE(mm.count == 0, mm.what << ": " << mm.count << " mismatches");
}

TEST_CASE("kernels simd softmax/logsumexp: sizes and extreme rows") {
  for_each_target([](bool best) {
    unsigned seed = 500;
    for (int64_t cols : test_sizes(false)) {
      const int64_t rows = 3;
      check_rows(uniform(rows * cols, -5, 5, seed++), rows, cols, "cols=" + std::to_string(cols));
    }
    if (best) check_rows(uniform(100000, -20, 20, seed++), 1, 100000, "one row of 100000");
    check_rows(uniform(0, 0, 1, seed++), 0, 5, "zero rows");
    // Extreme rows, 7 values each.
    const float ninf = -kInf;
    std::vector<float> ext = {
        1e4f,  -1e4f, 0,     1e4f,  -1e4f, 1,     2,      // ±1e4
        1e4f,  1e4f - 1, 1e4f - 2, 1e4f, 1e4f, 1e4f, 1e4f,  // large equal-ish values
        -1e4f, -1e4f, -1e4f, -1e4f, -1e4f, -1e4f, -1e4f,    // all −1e4
        ninf,  0,     1,     ninf,  2,     ninf,  3,      // some −inf
        ninf,  ninf,  ninf,  ninf,  ninf,  ninf,  ninf,   // all −inf → NaN / −inf
        kInf,  0,     1,     2,     3,     4,     5,      // +inf → NaN / +inf
        kNaN,  0,     1,     2,     3,     4,     5,      // NaN
        0,     0,     0,     0,     0,     0,     0,      // uniform
    };
    check_rows(ext, int64_t(ext.size() / 7), 7, "extreme rows");
    // Rows narrower than a vector (one row per lane, groups padded): the same extremes, 2 and 3
    // wide, 9 rows (a group and a part of one at 4 or 8 lanes).
    const std::vector<float> ext2 = {1e4f, -1e4f, 1e4f, 1e4f - 1, -1e4f, -1e4f, ninf, 2, ninf, ninf,
                                     kInf, 0,     kNaN, 1,        0,     0,     3,    -3};
    check_rows(ext2, 9, 2, "extreme rows, 2 wide");
    const std::vector<float> ext3 = {1e4f, -1e4f, 0, 1e4f, 1e4f - 1, 1e4f - 2, -1e4f, -1e4f, -1e4f,
                                     ninf, 0,     1, ninf, ninf,     ninf,     kInf,  0,     1,
                                     kNaN, 0,     1, 0,    0,        0,        -2,    5,     0.5f};
    check_rows(ext3, 9, 3, "extreme rows, 3 wide");
    check_rows(uniform(37 * 2, -5, 5, seed++), 37, 2, "37 rows, 2 wide");
  });
}

// ----------------------------------------------------------------------------- gemm
// SIMD gemm_f32_bias (gemm_f32 when bias is false and there is no activation) against the
// reference on random operands with every leading dimension `pad` floats wider than its
// matrix (strided views), C's padding columns checked untouched.
void check_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, float beta,
                bool with_bias, int64_t pad, unsigned seed, GemmAct act = GemmAct::None) {
  const int64_t lda = (ta ? m : k) + pad, ldb = (tb ? k : n) + pad, ldc = n + pad;
  const int64_t arows = ta ? k : m, brows = tb ? n : k;
  const std::vector<float> a = uniform(arows * lda, -1, 1, seed);
  const std::vector<float> b = uniform(brows * ldb, -1, 1, seed + 1);
  const std::vector<float> bias = uniform(n, -1, 1, seed + 3);
  std::vector<float> c0 = uniform(m * ldc, -1, 1, seed + 2);
  if (beta == 0.0f)  // beta = 0 must ignore C entirely, NaN included
    for (size_t i = 0; i < c0.size(); i += 3) c0[i] = kNaN;
  std::vector<float> want = c0, got = c0;
  const float* bp = with_bias ? bias.data() : nullptr;
  R().gemm_f32_bias(ta, tb, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, bp, act, want.data(), ldc);
  if (with_bias || act != GemmAct::None)
    S().gemm_f32_bias(ta, tb, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, bp, act, got.data(), ldc);
  else
    S().gemm_f32(ta, tb, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, got.data(), ldc);
  Mismatches mm{"gemm ta=" + std::to_string(ta) + " tb=" + std::to_string(tb) + " m,n,k=" +
                std::to_string(m) + "," + std::to_string(n) + "," + std::to_string(k) +
                " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta) +
                " bias=" + std::to_string(with_bias) + " pad=" + std::to_string(pad) +
                " act=" + std::to_string(int(act))};
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < ldc; ++j) {
      const size_t at = static_cast<size_t>(i * ldc + j);
      if (j >= n) {  // padding columns of C must be untouched
        if (!(got[at] == c0[at] || (std::isnan(got[at]) && std::isnan(c0[at]))))
          mm.add(int64_t(at), 0, got[at], c0[at]);
        continue;
      }
      double sabs = 0;
      for (int64_t p = 0; p < k; ++p) {
        const double av = ta ? a[size_t(p * lda + i)] : a[size_t(i * lda + p)];
        const double bv = tb ? b[size_t(j * ldb + p)] : b[size_t(p * ldb + j)];
        sabs += std::fabs(av * bv);
      }
      const double cterm = beta == 0.0f ? 0.0 : std::fabs(double(beta) * c0[at]);
      const double bterm = with_bias ? std::fabs(double(bias[size_t(j)])) : 0.0;
      double bound = double(k + 2) * 1.2e-7 * (std::fabs(double(alpha)) * sabs + cterm + bterm);
      // An activation moves that error by at most its slope (≤ 1.13 for GELU) and adds its
      // own (the unary kernels' bounds: 6e-7 relative, 2.5e-7·|x| absolute for GELU).
      if (act != GemmAct::None) bound = 1.13 * bound + 6e-7 * std::fabs(double(want[at])) + 3e-7;
      if (!close(got[at], want[at], bound)) mm.add(int64_t(at), 0, got[at], want[at]);
    }
  }
  CHECK_MESSAGE(mm.count == 0, mm.what << ": " << mm.count << " mismatches");
}

TEST_CASE("kernels simd gemm: transpose variants, odd sizes, alpha/beta, bias, padded leading dims") {
  struct Scale {
    float alpha, beta;
    bool bias;
  };
  // beta 0 with and without the bias (linear layers, plain products), beta ≠ 0, 1, alpha ≠ 1.
  const std::vector<Scale> scales = {{1, 0, false}, {1, 0, true}, {0.5f, 2, false}, {-1.5f, 1, true}};
  for_each_target([&](bool best) {
    // The production target runs every combination; the others (same code, other lane
    // counts and tiles) a subset that still covers each transpose variant, tail shape and
    // alpha/beta/bias. Sizes: 1, odd, primes, one past and one short of the tiles (6 or 12
    // rows × 2 vectors of 4, 8 or 16 lanes), every remainder of M, K = 0 and empty outputs.
    const std::vector<std::array<int64_t, 3>> mnk_all = {
        {1, 1, 1},   {3, 3, 3},       {7, 7, 7},    {1, 129, 7},  {129, 1, 33}, {33, 65, 129},
        {65, 33, 1}, {129, 129, 129}, {7, 65, 33},  {17, 3, 65},  {6, 16, 5},   {13, 17, 3},
        {12, 32, 4}, {11, 31, 13},    {25, 33, 17}, {0, 5, 3},    {5, 0, 3},    {5, 3, 0},
        // M leaving 2, 4, 8 or 10 rows in the last panel (the narrower kernels)
        {16, 19, 9}, {32, 17, 40},    {10, 40, 5},  {20, 7, 13},  {22, 9, 3},
    };
    const std::vector<std::array<int64_t, 3>> mnk_some = {
        {1, 1, 1},   {7, 7, 7},   {1, 33, 7}, {33, 1, 17}, {17, 3, 65},
        {13, 37, 9}, {25, 33, 17}, {5, 3, 0}, {16, 19, 9}, {32, 17, 40},
    };
    unsigned seed = 900;
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (const auto& s : best ? mnk_all : mnk_some)
          for (size_t i = 0; i < scales.size(); ++i)
            for (int64_t pad : {0, 3}) {
              if (!best && (i + size_t(pad)) % 2 == 1) continue;  // half the (scale, pad) grid
              check_gemm(ta, tb, s[0], s[1], s[2], scales[i].alpha, scales[i].beta, scales[i].bias,
                         pad, seed++);
            }
    // Past every block size (kMC = 16 tile rows ≤ 192, kDenseNC = 256, kDenseKC = 512: K = 600 runs as
    // two depth blocks, K = 1100 as three; N = 300 as a full and a partial column block), so the
    // first-block and accumulating write-backs and partial A and B blocks all run; on each target
    // (the tiles differ). N = 300 rather than 600, and 67 with K = 1100: the same blocks at a
    // fraction of CI's ASan time.
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        check_gemm(ta, tb, 201, 300, 600, 0.75f, 0.5f, true, 1, seed++);
        if (best) check_gemm(ta, tb, 97, 67, 1100, 1.0f, 0.0f, false, 2, seed++);  // three depth blocks
      }
    // The fused activations: after the last depth block only (K = 600 runs two), on full and
    // partial tiles, with and without bias and beta, and with K = 0 (act of beta·C + bias).
    for (GemmAct act : {GemmAct::Relu, GemmAct::GeluErf, GemmAct::GeluTanh})
      for (bool ta : {false, true})
        for (bool tb : {false, true}) {
          check_gemm(ta, tb, 13, 37, 9, 1.0f, 0.0f, true, 0, seed++, act);
          check_gemm(ta, tb, 33, 65, 600, 0.5f, 1.0f, true, 1, seed++, act);
          if (best) check_gemm(ta, tb, 201, 70, 129, 1.0f, 0.0f, false, 3, seed++, act);
          if (best) check_gemm(ta, tb, 7, 9, 0, 1.0f, 2.0f, true, 0, seed++, act);
        }
  });
}

TEST_CASE("kernels simd gemm: every wasm tile (5 and 6 rows) on odd sizes and remainders") {
  // The wasm build picks its tile by the engine's instruction set (gemm-inl.h); both must be
  // right whichever this machine picks. Natively set_wasm_tile_rows changes nothing and this
  // repeats part of the case above on the dispatched target.
  unsigned seed = 5000;
  for (int rows : {5, 6}) {
    sg::simd::set_wasm_tile_rows(rows);
    INFO("tile rows " << rows << " (" << sg::simd::gemm_tile_name() << ")");
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (const auto& s : std::vector<std::array<int64_t, 3>>{
                 {1, 1, 1}, {4, 9, 7}, {5, 16, 3}, {6, 17, 9}, {11, 33, 65}, {16, 19, 9}, {32, 17, 40},
                 {83, 40, 600}, {128, 70, 129}})
          check_gemm(ta, tb, s[0], s[1], s[2], 1.0f, 0.5f, true, 1, seed++, GemmAct::Relu);
    check_gemm(false, false, 201, 530, 600, 0.75f, 0.0f, true, 0, seed++);  // 3 column, 2 depth blocks
  }
  sg::simd::set_wasm_tile_rows(0);  // back to the engine's choice
}

TEST_CASE("kernels simd gemm: op(A) packed whole equals op(A) packed per column block bit for bit") {
  // Past one column block of op(B) (kDenseNC = 256) the dense GEMM packs op(A) once for the whole
  // product when it fits (gemm-inl.h, kPackedAWhole) instead of once per column block: the same
  // tiles summed in the same order, so the results must be equal exactly. Compared with the
  // limit set to 0 (per block, the older path), on each target and wasm tile, both transposes
  // of A and B, partial last panels of M, several depth blocks (K = 600, 1100), padded leading
  // dimensions, alpha/beta, bias and an activation; both paths' values against the reference.
  unsigned seed = 7600;
  const std::vector<std::array<int64_t, 3>> shapes = {{7, 1030, 600}, {33, 515, 1100}, {64, 1024, 64}, {1, 600, 9}};
  for_each_target([&](bool best) {
    for (int rows : {5, 6}) {
      sg::simd::set_wasm_tile_rows(rows);
      for (bool ta : {false, true})
        for (bool tb : {false, true})
          for (const auto& s : shapes) {
            const int64_t m = s[0], n = s[1], k = s[2], pad = seed % 3;
            const int64_t lda = (ta ? m : k) + pad, ldb = (tb ? k : n) + pad, ldc = n + pad;
            const std::vector<float> a = uniform((ta ? k : m) * lda, -1, 1, seed);
            const std::vector<float> b = uniform((tb ? n : k) * ldb, -1, 1, seed + 1);
            const std::vector<float> bias = uniform(n, -1, 1, seed + 2);
            const std::vector<float> c0 = uniform(m * ldc, -1, 1, seed + 3);
            const float alpha = seed % 2 ? 0.75f : 1.0f, beta = seed % 4 < 2 ? 0.5f : 0.0f;
            const GemmAct act = seed % 8 < 4 ? GemmAct::None : GemmAct::GeluTanh;
            seed += 4;
            std::vector<float> whole = c0, per_block = c0;
            S().gemm_f32_bias(ta, tb, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, bias.data(), act, whole.data(), ldc);
            sg::simd::set_packed_a_whole_limit(0);
            S().gemm_f32_bias(ta, tb, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, bias.data(), act, per_block.data(), ldc);
            sg::simd::set_packed_a_whole_limit(-1);
            INFO("tile rows " << rows << " ta=" << ta << " tb=" << tb << " m,n,k=" << m << "," << n << "," << k);
            CHECK(std::memcmp(whole.data(), per_block.data(), whole.size() * sizeof(float)) == 0);
          }
      if (best) {  // the values of both paths (check_gemm compares with the reference GEMM)
        check_gemm(false, true, 13, 1030, 600, 1.0f, 0.0f, true, 1, seed++);
        sg::simd::set_packed_a_whole_limit(0);
        check_gemm(false, true, 13, 1030, 600, 1.0f, 0.0f, true, 1, seed++);
        sg::simd::set_packed_a_whole_limit(-1);
      }
    }
    sg::simd::set_wasm_tile_rows(0);
  });
}

TEST_CASE("kernels simd gemm: small products (A read in place) equal the packed path bit for bit") {
  // Below sg::simd's small-product bound the dense GEMM skips packing A (gemm-inl.h); it sums
  // every C entry in the same order, so its results are the packed path's exactly: compared
  // here with the bound set to 0 (every product packed), on every target and wasm tile, on
  // every partial tile height, padded leading dimensions, bias, beta and the activations. The
  // values themselves are checked against the reference by the cases above, whose small shapes
  // take this path.
  unsigned seed = 7000;
  const std::vector<std::array<int64_t, 3>> shapes = {
      {1, 1, 1}, {2, 3, 5}, {3, 17, 2}, {4, 9, 16}, {5, 16, 3}, {6, 8, 7}, {7, 15, 64}, {11, 2, 33},
      {16, 64, 32}, {64, 2, 16}, {64, 16, 2}, {13, 10, 64}, {64, 64, 64}, {90, 70, 80}};
  for_each_target([&](bool) {
    for (int rows : {5, 6}) {
      sg::simd::set_wasm_tile_rows(rows);
      for (bool tb : {false, true})
        for (const auto& s : shapes)
          for (GemmAct act : {GemmAct::None, GemmAct::Relu, GemmAct::GeluTanh}) {
            const int64_t m = s[0], n = s[1], k = s[2], pad = (seed % 3);
            const int64_t lda = k + pad, ldb = (tb ? k : n) + pad, ldc = n + pad;
            const std::vector<float> a = uniform(m * lda, -1, 1, seed);
            const std::vector<float> b = uniform((tb ? n : k) * ldb, -1, 1, seed + 1);
            const std::vector<float> bias = uniform(n, -1, 1, seed + 2);
            const std::vector<float> c0 = uniform(m * ldc, -1, 1, seed + 3);
            const float beta = seed % 2 ? 0.5f : 0.0f;
            const float* bp = seed % 4 < 2 ? bias.data() : nullptr;
            seed += 4;
            std::vector<float> small = c0, packed = c0;
            S().gemm_f32_bias(false, tb, m, n, k, 1.0f, a.data(), lda, b.data(), ldb, beta, bp, act, small.data(), ldc);
            sg::simd::set_small_gemm_limit(0);
            S().gemm_f32_bias(false, tb, m, n, k, 1.0f, a.data(), lda, b.data(), ldb, beta, bp, act, packed.data(), ldc);
            sg::simd::set_small_gemm_limit(-1);
            INFO("tile rows " << rows << " tb=" << tb << " m,n,k=" << m << "," << n << "," << k << " act=" << int(act));
            CHECK(std::memcmp(small.data(), packed.data(), small.size() * sizeof(float)) == 0);
          }
    }
    sg::simd::set_wasm_tile_rows(0);
  });
}

}  // namespace
