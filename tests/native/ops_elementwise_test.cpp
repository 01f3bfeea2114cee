// Elementwise ops (unary, binary, activations, comparisons, where/masked_fill, clamp, sum_to):
// forward values against std:: math in double (or hand values), dtype promotion, broadcasting,
// error messages, and a gradcheck of every differentiable op — on both CPU backends. Then
// rounding, tan/atan/asin/acos/sinh/cosh/atan2 and hardtanh (their values against PyTorch are in
// ops_pytorch_ref_test.cpp), and the logical ops.
#include <doctest/doctest.h>

#include <climits>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/copy.h"
#include "gradcheck.h"
#include "test_util.h"
#include "kernels/backend.h"
#include "ops/ops.h"

using sg::DType;
using sg::Shape;
using sg::Tensor;
using sgtest::from;
using sgtest::gradcheck;
using sgtest::leaf;
using sgtest::on_each_backend;
using sgtest::ints;
using sgtest::error_of;
using sgtest::bools;
using sgtest::values;

namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
Tensor scalar(double v) { return from({}, {float(v)}); }

// Values not within `gap` of any kink at 0: |x| in [gap, hi] with a random sign.
Tensor away_leaf(const Shape& shape, double gap, double hi, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> mag(gap, hi);
  std::bernoulli_distribution neg_sign(0.5);
  Tensor t = Tensor::empty(shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.f32()[i] = float(neg_sign(gen) ? -mag(gen) : mag(gen));
  t.set_requires_grad(true);
  return t;
}

// `got` equals `want` (rounded to float) within atol + rtol·|want|; NaN and ±inf must match.
// Inexact checks (rtol > 0) also forgive subnormal results: below FLT_MIN float has few bits.
bool close(double got, double want, double rtol, double atol) {
  want = double(float(want));
  if (rtol > 0) atol = std::max(atol, double(std::numeric_limits<float>::min()));
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= atol + rtol * std::fabs(want);
}

void check_values(const Tensor& t, const std::vector<double>& want, double rtol = 0,
                  double atol = 0) {
  REQUIRE(t.numel() == int64_t(want.size()));
  const bool exact = t.dtype() != DType::Float32;  // int32/bool: no float rounding of `want`
  for (size_t i = 0; i < want.size(); ++i)
    CHECK_MESSAGE((exact ? t.at(int64_t(i)) == want[i] : close(t.at(int64_t(i)), want[i], rtol, atol)),
                  "element " << i << ": got " << t.at(int64_t(i)) << ", want " << want[i]);
}


// The row-major flat index, in a tensor of shape `in`, of the element that NumPy broadcasting
// maps to flat index `flat` of `out`. Written from the rules, independently of the library.
int64_t bcast_src(int64_t flat, const Shape& out, const Shape& in) {
  int64_t src = 0, mult = 1;
  for (size_t k = 0; k < out.size(); ++k) {
    const size_t d = out.size() - 1 - k;
    const int64_t i = flat % out[d];
    flat /= out[d];
    if (k < in.size()) {
      const size_t di = in.size() - 1 - k;
      src += (in[di] == 1 ? 0 : i) * mult;
      mult *= in[di];
    }
  }
  return src;
}

Shape bshape(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()));
  for (size_t k = 0; k < out.size(); ++k) {
    const int64_t da = k < a.size() ? a[a.size() - 1 - k] : 1;
    const int64_t db = k < b.size() ? b[b.size() - 1 - k] : 1;
    out[out.size() - 1 - k] = da == 1 ? db : da;
  }
  return out;
}

using Op2 = std::function<Tensor(const Tensor&, const Tensor&)>;
using Ref2 = std::function<double(double, double)>;

void check_binary(const Op2& op, const Ref2& ref, const Tensor& a, const Tensor& b, double rtol) {
  const Tensor out = op(a, b);
  const Shape want_shape = bshape(a.shape(), b.shape());
  REQUIRE(out.shape() == want_shape);
  REQUIRE(out.dtype() == DType::Float32);
  for (int64_t i = 0; i < out.numel(); ++i) {
    const double x = a.at(bcast_src(i, want_shape, a.shape()));
    const double y = b.at(bcast_src(i, want_shape, b.shape()));
    CHECK_MESSAGE(close(out.at(i), ref(x, y), rtol, 0),
                  "op(" << x << ", " << y << ") = " << out.at(i) << ", want " << ref(x, y));
  }
}

using Op1 = std::function<Tensor(const Tensor&)>;
using Ref1 = std::function<double(double)>;

void check_unary(const Op1& op, const Ref1& ref, const std::vector<float>& xs, double rtol,
                 double atol = 0) {
  const Tensor x = from({int64_t(xs.size())}, xs);
  const Tensor y = op(x);
  REQUIRE(y.shape() == x.shape());
  REQUIRE(y.dtype() == DType::Float32);
  for (size_t i = 0; i < xs.size(); ++i)
    CHECK_MESSAGE(close(y.at(int64_t(i)), ref(xs[i]), rtol, atol),
                  "f(" << xs[i] << ") = " << y.at(int64_t(i)) << ", want " << ref(xs[i]));
}

double sigmoid_d(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double softplus_d(double x, double beta, double threshold) {
  return beta * x > threshold ? x : std::log1p(std::exp(beta * x)) / beta;
}
const double kSeluAlpha = 1.6732632423543772848170429916717;
const double kSeluScale = 1.0507009873554804934193349852946;

const std::vector<float> kGeneral = {-7.f, -3.5f, -1.f, -0.3f, -1e-5f, 0.f,
                                     1e-5f, 0.25f, 1.f,  2.5f,  7.f};

}  // namespace

// ---------------------------------------------------------------- forward values

TEST_CASE("elementwise: math functions match std:: math in double, including domain edges") {
  on_each_backend([] {
    const double r = 2e-6;  // a few float ulps: room for vectorized approximations
    check_unary(sg::neg, [](double x) { return -x; }, kGeneral, 0);
    check_unary(sg::exp, [](double x) { return std::exp(x); },
                {-100.f, -87.f, -3.5f, -1.f, -1e-5f, 0.f, 1e-5f, 0.5f, 1.f, 20.f, 88.f, 89.f,
                 float(-kInf), float(kInf)}, r);
    const std::vector<float> pos = {0.f, 1e-30f, 1e-5f, 0.5f, 1.f, 2.f, 10.f, 1e20f,
                                    float(kInf), -1.f, float(kNaN)};
    check_unary(sg::log, [](double x) { return std::log(x); }, pos, r);  // log 0 = −inf, log −1 = NaN
    check_unary(sg::log2, [](double x) { return std::log2(x); }, pos, r);
    check_unary(sg::log10, [](double x) { return std::log10(x); }, pos, r);
    check_unary(sg::log1p, [](double x) { return std::log1p(x); },
                {-2.f, -1.f, -0.999f, -1e-6f, 0.f, 1e-6f, 0.5f, 100.f, 1e30f}, r);
    check_unary(sg::expm1, [](double x) { return std::expm1(x); },
                {-20.f, -1.f, -1e-5f, 0.f, 1e-6f, 0.5f, 10.f, 89.f}, r);
    check_unary(sg::sqrt, [](double x) { return std::sqrt(x); },
                {0.f, 1e-20f, 0.25f, 2.f, 1e30f, float(kInf), -1.f}, 0);  // √−1 = NaN, exact IEEE
    check_unary(sg::rsqrt, [](double x) { return 1.0 / std::sqrt(x); },
                {0.f, 1e-20f, 0.25f, 2.f, 1e30f, float(kInf), -1.f}, r);
    check_unary(sg::abs, [](double x) { return std::fabs(x); }, kGeneral, 0);
    check_unary(sg::sign, [](double x) { return double((x > 0) - (x < 0)); }, kGeneral, 0);
    check_unary(sg::sin, [](double x) { return std::sin(x); },
                {-10.f, -3.14159f, -1.f, 0.f, 1e-5f, 0.5f, 2.f, 3.14159f, 100.f}, r, 1e-6);
    check_unary(sg::cos, [](double x) { return std::cos(x); },
                {-10.f, -3.14159f, -1.f, 0.f, 0.5f, 1.5707964f, 2.f, 100.f}, r, 1e-6);
    check_unary(sg::erf, [](double x) { return std::erf(x); }, kGeneral, r, 1e-7);
    check_unary(sg::square, [](double x) { return x * x; }, kGeneral, 0);
    check_unary(sg::reciprocal, [](double x) { return 1.0 / x; },
                {-3.5f, -1e-5f, 0.25f, 1.f, 7.f, 0.f, -0.f}, 2.5e-7);  // 1/±0 = ±inf
  });
}

TEST_CASE("elementwise: activations match double formulas, finite and exact at ±1e4") {
  on_each_backend([] {
    const double r = 2e-6;
    std::vector<float> xs = kGeneral;
    for (float v : {-1e4f, -100.f, -20.f, 20.f, 100.f, 1e4f}) xs.push_back(v);
    check_unary(sg::relu, [](double x) { return x > 0 ? x : 0.0; }, xs, 0);
    check_unary([](const Tensor& x) { return sg::leaky_relu(x, 0.2); },
                [](double x) { return x > 0 ? x : 0.2 * x; }, xs, 1.2e-7);
    check_unary([](const Tensor& x) { return sg::elu(x, 1.5); },
                [](double x) { return x > 0 ? x : 1.5 * std::expm1(x); }, xs, r);
    check_unary(sg::selu,
                [](double x) { return kSeluScale * (x > 0 ? x : kSeluAlpha * std::expm1(x)); }, xs, r);
    check_unary([](const Tensor& x) { return sg::gelu(x); },
                [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }, xs, r, 1e-7);
    check_unary([](const Tensor& x) { return sg::gelu(x, "tanh"); },
                [](double x) {
                  const double u = std::sqrt(2 / 3.14159265358979323846) * (x + 0.044715 * x * x * x);
                  return 0.5 * x * (1 + std::tanh(u));
                },
                xs, r, 1e-7);
    check_unary(sg::sigmoid, sigmoid_d, xs, r);
    check_unary(sg::tanh, [](double x) { return std::tanh(x); }, xs, r);
    check_unary(sg::silu, [](double x) { return x * sigmoid_d(x); }, xs, r);
    check_unary([](const Tensor& x) { return sg::softplus(x); },
                [](double x) { return softplus_d(x, 1, 20); }, xs, r);
    check_unary([](const Tensor& x) { return sg::softplus(x, 2.0, 5.0); },
                [](double x) { return softplus_d(x, 2, 5); },
                {-1e4f, -3.f, -0.5f, 0.f, 1.f, 2.4f, 2.6f, 3.f, 1e4f}, r);
    check_unary([](const Tensor& x) { return sg::softplus(x, 0.5, 30.0); },
                [](double x) { return softplus_d(x, 0.5, 30); }, {-1e4f, -3.f, 0.f, 45.f, 70.f, 1e4f}, r);

    // The extremes exactly, not just within tolerance.
    const Tensor big = from({2}, {1e4f, -1e4f});
    check_values(sg::sigmoid(big), {1, 0});
    check_values(sg::tanh(big), {1, -1});
    check_values(sg::softplus(big), {1e4, 0});
    check_values(sg::silu(big), {1e4, 0});
    check_values(sg::gelu(big), {1e4, 0});
    check_values(sg::gelu(big, "tanh"), {1e4, 0});
  });
}

TEST_CASE("elementwise: binary ops broadcast (0-d, [3,1]x[1,4], [2,1,3]x[4,1], views)") {
  on_each_backend([] {
    // A transposed (non-contiguous) view and a view with an offset.
    const Tensor base = leaf({4, 3}, -2, 2, 11, false);
    const Tensor transposed = Tensor::view_of(base, {3, 4}, {1, 3}, 0);
    const Tensor row1 = Tensor::view_of(base, {3}, {1}, 3);
    const std::vector<std::pair<Tensor, Tensor>> pairs = {
        {leaf({3, 1}, -2, 2, 1, false), leaf({1, 4}, 0.5, 2, 2, false)},
        {leaf({2, 1, 3}, -2, 2, 3, false), leaf({4, 1}, 0.5, 2, 4, false)},
        {scalar(1.75), leaf({2, 3}, 0.5, 2, 5, false)},
        {leaf({2, 3}, -2, 2, 6, false), scalar(-0.625)},
        {scalar(3.0), scalar(-1.5)},
        {leaf({7}, -2, 2, 7, false), leaf({7}, 0.5, 2, 8, false)},
        {leaf({2, 3, 5}, -2, 2, 9, false), leaf({3, 5}, 0.5, 2, 10, false)},
        {transposed, leaf({4}, 0.5, 2, 12, false)},
        {transposed, leaf({3, 1}, 0.5, 2, 13, false)},
        {row1, leaf({2, 1}, 0.5, 2, 14, false)},
        {leaf({0, 3}, -1, 1, 15, false), leaf({1, 3}, -1, 1, 16, false)},
    };
    for (const auto& pair : pairs) {
      const Tensor& a = pair.first;
      const Tensor& b = pair.second;
      CAPTURE(sg::shape_str(a.shape()));
      CAPTURE(sg::shape_str(b.shape()));
      check_binary(sg::add, [](double x, double y) { return x + y; }, a, b, 0);
      check_binary(sg::sub, [](double x, double y) { return x - y; }, a, b, 0);
      check_binary(sg::mul, [](double x, double y) { return x * y; }, a, b, 0);
      check_binary(sg::div, [](double x, double y) { return x / y; }, a, b, 0);
      check_binary(sg::maximum, [](double x, double y) { return std::max(x, y); }, a, b, 0);
      check_binary(sg::minimum, [](double x, double y) { return std::min(x, y); }, a, b, 0);
      check_binary(sg::pow, [](double x, double y) { return std::pow(x, y); }, b, a, 2e-6);
      check_binary(sg::pow, [](double x, double y) { return std::pow(x, y); }, a, b, 2e-6);
    }
    // pow special values (PyTorch / C pow): negative base, zero base, zero exponent.
    check_values(sg::pow(from({6}, {-2, -2, 0, 0, 0, 5}), from({6}, {3, 0.5, -1, 0, 2, 0})),
                 {-8, kNaN, kInf, 1, 0, 1});
    // NaN propagates through maximum/minimum from either side (torch.maximum).
    check_values(sg::maximum(from({3}, {float(kNaN), 1, 2}), from({3}, {1, float(kNaN), 1})),
                 {kNaN, kNaN, 2});
    check_values(sg::minimum(from({3}, {float(kNaN), 1, 2}), from({3}, {1, float(kNaN), 1})),
                 {kNaN, kNaN, 1});
    // Division by zero follows IEEE.
    check_values(sg::div(from({3}, {1, -1, 0}), scalar(0)), {kInf, -kInf, kNaN});
    // 0-d op 0-d stays 0-d.
    CHECK(sg::add(scalar(1), scalar(2)).shape() == Shape{});
  });
}

TEST_CASE("elementwise: dtype promotion table") {
  const Tensor f = from({2}, {1.5f, 2.f});
  const Tensor i = ints({2}, {3, 2});
  const Tensor b = bools({2}, {1, 0});
  const std::vector<std::pair<const char*, Tensor>> ops_in = {{"f", f}, {"i", i}, {"b", b}};
  auto kind = [](DType t) { return t == DType::Float32 ? 'f' : t == DType::Int32 ? 'i' : 'b'; };
  struct Row {
    const char* name;
    Op2 op;
    const char* table;  // result kinds for (f,f) (f,i) (f,b) (i,f) (i,i) (i,b) (b,f) (b,i) (b,b); x = error
  };
  const std::vector<Row> rows = {
      {"add", sg::add, "ffffiifib"},     {"sub", sg::sub, "ffffiifix"},  // bool + bool: or (torch)
      {"mul", sg::mul, "ffffiifib"},     {"div", sg::div, "fffffffff"},  // bool · bool: and
      {"pow", sg::pow, "ffffiifii"},     {"maximum", sg::maximum, "ffffiifib"},
      {"minimum", sg::minimum, "ffffiifib"}, {"eq", sg::eq, "bbbbbbbbb"},
      {"lt", sg::lt, "bbbbbbbbb"},
  };
  for (const Row& row : rows) {
    int k = 0;
    for (const auto& in_a : ops_in) {
      const auto& na = in_a.first;
      const auto& a = in_a.second;
      for (const auto& in_b : ops_in) {
        const auto& nb = in_b.first;
        const auto& bb = in_b.second;
        CAPTURE(row.name);
        CAPTURE(na);
        CAPTURE(nb);
        const char want = row.table[k++];
        if (want == 'x') {
          CHECK(error_of([&] { row.op(a, bb); }).find(row.name) == 0);
        } else {
          CHECK(kind(row.op(a, bb).dtype()) == want);
        }
      }
    }
  }
  // Math functions compute int/bool in float32; neg/abs/sign/square/relu keep int32.
  for (const Op1& op : std::vector<Op1>{sg::exp, sg::log, sg::sqrt, sg::sin, sg::sigmoid, sg::tanh,
                                        sg::erf, sg::reciprocal, [](const Tensor& x) { return sg::gelu(x); },
                                        [](const Tensor& x) { return sg::softplus(x); }, sg::silu})
    CHECK(op(i).dtype() == DType::Float32);
  for (const Op1& op : std::vector<Op1>{sg::neg, sg::abs, sg::sign, sg::square, sg::relu})
    CHECK(op(i).dtype() == DType::Int32);
  CHECK(sg::sign(b).dtype() == DType::Bool);
  CHECK(error_of([&] { sg::neg(b); }).find("neg: negation of a bool tensor") == 0);
}

TEST_CASE("elementwise: int32 arithmetic is integral and wraps like int32") {
  const Tensor a = ints({5}, {INT_MAX, -7, 7, 65536, -3});
  const Tensor c = ints({5}, {1, 2, -2, 65536, 0});
  check_values(sg::add(a, c), {double(INT_MIN), -5, 5, 131072, -3});
  check_values(sg::sub(a, c), {INT_MAX - 1, -9, 9, 0, -3});
  check_values(sg::mul(a, c), {INT_MAX, -14, -14, 0, 0});  // 65536² wraps to 0
  check_values(sg::div(a, c), {double(INT_MAX), -3.5, -3.5, 1, -kInf});  // true division
  CHECK(sg::div(a, c).dtype() == DType::Float32);
  check_values(sg::maximum(a, c), {INT_MAX, 2, 7, 65536, 0});
  check_values(sg::minimum(a, c), {1, -7, -2, 65536, -3});
  check_values(sg::neg(ints({3}, {INT_MIN, -4, 5})), {double(INT_MIN), 4, -5});
  check_values(sg::abs(ints({3}, {-4, 0, 5})), {4, 0, 5});
  check_values(sg::sign(ints({3}, {-4, 0, 5})), {-1, 0, 1});
  check_values(sg::square(ints({3}, {-4, 0, 46341})), {16, 0, double(int32_t(uint32_t(46341u * 46341u)))});
  check_values(sg::relu(ints({3}, {-4, 0, 5})), {0, 0, 5});
  check_values(sg::pow(ints({5}, {3, -2, 2, 0, 7}), ints({5}, {4, 3, 31, 0, 1})),
               {81, -8, double(INT_MIN), 1, 7});
  CHECK(sg::pow(ints({1}, {2}), ints({1}, {3})).dtype() == DType::Int32);
  CHECK(error_of([] { sg::pow(ints({2}, {2, 3}), ints({2}, {1, -1})); })
            .find("pow: integers to negative integer powers are not allowed") == 0);
  // bool + bool is bool, a logical or, as torch.add (torch.result_type(bool, bool) is bool).
  check_values(sg::add(bools({3}, {1, 1, 0}), bools({3}, {1, 0, 0})), {1, 1, 0});
  CHECK(sg::add(bools({1}, {1}), bools({1}, {1})).dtype() == DType::Bool);
  check_values(sg::sqrt(ints({2}, {4, 2})), {2, std::sqrt(2.0)}, 1e-7);
  // Mixed int/float computes in float32.
  check_values(sg::add(ints({2}, {1, 2}), scalar(0.5)), {1.5, 2.5});
}

TEST_CASE("elementwise: comparisons give bool, broadcast, promote, and treat NaN as IEEE") {
  on_each_backend([] {
    const Tensor a = from({3, 1}, {1, 2, float(kNaN)});
    const Tensor b = from({1, 4}, {0, 1, 2, float(kNaN)});
    struct C {
      Op2 op;
      std::function<bool(double, double)> ref;
    };
    for (const C& c : std::vector<C>{{sg::eq, [](double x, double y) { return x == y; }},
                                     {sg::ne, [](double x, double y) { return x != y; }},
                                     {sg::lt, [](double x, double y) { return x < y; }},
                                     {sg::le, [](double x, double y) { return x <= y; }},
                                     {sg::gt, [](double x, double y) { return x > y; }},
                                     {sg::ge, [](double x, double y) { return x >= y; }}}) {
      const Tensor r = c.op(a, b);
      REQUIRE(r.dtype() == DType::Bool);
      REQUIRE(r.shape() == Shape{3, 4});
      for (int64_t i = 0; i < 12; ++i)
        CHECK(r.at(i) == double(c.ref(a.at(i / 4), b.at(i % 4))));
    }
    check_values(sg::eq(ints({3}, {1, 2, 3}), from({3}, {1, 2.5, 3})), {1, 0, 1});
    check_values(sg::lt(ints({3}, {1, 2, 3}), scalar(2)), {1, 0, 0});
    check_values(sg::eq(bools({2}, {1, 0}), bools({2}, {1, 1})), {1, 0});
    check_values(sg::gt(ints({2}, {-1, 1}), bools({2}, {0, 0})), {0, 1});
    CHECK(error_of([] { sg::lt(from({2}, {1, 2}), from({3}, {1, 2, 3})); })
              .find("lt: shapes [2] and [3] cannot be broadcast together") == 0);
  });
}

TEST_CASE("elementwise: where and masked_fill values, dtypes and errors") {
  on_each_backend([] {
    const Tensor cond = bools({3, 1}, {1, 0, 1});
    const Tensor a = from({1, 4}, {1, 2, 3, 4});
    const Tensor r = sg::where(cond, a, scalar(-1));
    REQUIRE(r.shape() == Shape{3, 4});
    check_values(r, {1, 2, 3, 4, -1, -1, -1, -1, 1, 2, 3, 4});
    CHECK(sg::where(cond, ints({1}, {1}), ints({1}, {2})).dtype() == DType::Int32);
    CHECK(sg::where(cond, ints({1}, {1}), scalar(2.5)).dtype() == DType::Float32);
    check_values(sg::where(bools({2}, {0, 1}), ints({2}, {5, 6}), scalar(2.5)), {2.5, 6});
    CHECK(error_of([] { sg::where(from({1}, {1}), scalar(1), scalar(2)); })
              .find("where: expected condition of dtype bool, got float32") == 0);
    CHECK(error_of([] { sg::where(bools({2}, {1, 0}), from({3}, {1, 2, 3}), scalar(2)); })
              .find("where: shapes") == 0);

    const Tensor x = from({2, 3}, {1, 2, 3, 4, 5, 6});
    check_values(sg::masked_fill(x, bools({3}, {0, 1, 0}), -9), {1, -9, 3, 4, -9, 6});
    check_values(sg::masked_fill(x, bools({2, 1}, {1, 0}), kInf), {kInf, kInf, kInf, 4, 5, 6});
    check_values(sg::masked_fill(x, bools({}, {1}), 0.5), {0.5, 0.5, 0.5, 0.5, 0.5, 0.5});
    const Tensor xi = sg::masked_fill(ints({3}, {1, 2, 3}), bools({3}, {1, 0, 1}), 7);
    CHECK(xi.dtype() == DType::Int32);
    check_values(xi, {7, 2, 7});
    CHECK(error_of([&] { sg::masked_fill(x, from({3}, {0, 1, 0}), 1); })
              .find("masked_fill: expected mask of dtype bool, got float32") == 0);
    CHECK(error_of([&] { sg::masked_fill(x, bools({2, 2, 3}, std::vector<int>(12, 1)), 1); })
              .find("masked_fill: mask of shape [2, 2, 3] cannot be broadcast to the input's shape [2, 3]") == 0);
    CHECK(error_of([&] { sg::masked_fill(x, bools({4}, {1, 1, 1, 1}), 1); })
              .find("masked_fill: shapes [2, 3] and [4] cannot be broadcast together") == 0);
  });
}

TEST_CASE("elementwise: clamp values, dtypes and errors") {
  on_each_backend([] {
    const Tensor x = from({6}, {-3, -1, 0, 1, 3, float(kNaN)});
    check_values(sg::clamp(x, -1.0, 1.0), {-1, -1, 0, 1, 1, kNaN});
    check_values(sg::clamp(x, 0.5, std::nullopt), {0.5, 0.5, 0.5, 1, 3, kNaN});
    check_values(sg::clamp(x, std::nullopt, -2.0), {-3, -2, -2, -2, -2, kNaN});
    check_values(sg::clamp(x, 2.0, 1.0), {1, 1, 1, 1, 1, kNaN});  // min > max → max (PyTorch)
    const Tensor ci = sg::clamp(ints({4}, {-5, 0, 3, 9}), 0.0, 4.0);
    CHECK(ci.dtype() == DType::Int32);
    check_values(ci, {0, 0, 3, 4});
    const Tensor cf = sg::clamp(ints({3}, {-5, 0, 3}), 0.5, std::nullopt);
    CHECK(cf.dtype() == DType::Float32);
    check_values(cf, {0.5, 0.5, 3});
    CHECK(error_of([&] { sg::clamp(x, std::nullopt, std::nullopt); })
              .find("clamp: at least one of 'min' or 'max' must be given") == 0);
  });
}

TEST_CASE("elementwise: broadcast and argument errors name the op and the shapes") {
  const Tensor a = from({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor b = from({4}, {1, 2, 3, 4});
  const std::vector<std::pair<std::string, Op2>> ops = {
      {"add", sg::add}, {"sub", sg::sub}, {"mul", sg::mul}, {"div", sg::div},
      {"pow", sg::pow}, {"maximum", sg::maximum}, {"minimum", sg::minimum}, {"eq", sg::eq}};
  for (const auto& named : ops) {
    const std::string& name = named.first;
    const Op2& op = named.second;
    CAPTURE(name);
    const std::string msg = error_of([&] { op(a, b); });
    CHECK(msg.find(name + ": shapes [2, 3] and [4] cannot be broadcast together") == 0);
  }
  CHECK(error_of([&] { sg::gelu(a, "exact"); })
            .find("gelu: expected approximate to be 'none' or 'tanh', got 'exact'") == 0);
  CHECK(error_of([&] { sg::prelu(a, from({2}, {1, 2})); }).find("prelu: weight has 2 elements") == 0);
  CHECK(error_of([&] { sg::prelu(from({3}, {1, 2, 3}), from({3}, {1, 2, 3})); })
            .find("prelu: weight has 3 elements") == 0);
  CHECK(error_of([&] { sg::prelu(a, ints({3}, {1, 2, 3})); })
            .find("prelu: expected weight of dtype float32, got int32") == 0);
  CHECK(error_of([&] { sg::prelu(a, from({1, 3}, {1, 2, 3})); })
            .find("prelu: expected weight to be a scalar or 1-D tensor") == 0);
  CHECK(error_of([&] { sg::sum_to(a, {4}); }).find("sum_to: cannot sum a tensor of shape [2, 3] to shape [4]") == 0);
  CHECK(error_of([&] { sg::sum_to(a, {1, 2, 3}); }).find("sum_to: cannot sum") == 0);
}

TEST_CASE("elementwise: sum_to sums exactly the broadcast dims") {
  on_each_backend([] {
    std::vector<float> v(24);
    for (int i = 0; i < 24; ++i) v[i] = float(i);
    const Tensor g = from({2, 3, 4}, v);  // g[i][j][k] = 12i + 4j + k
    auto expect = [&](const Shape& shape, const std::function<bool(int, int, int, int64_t)>& in) {
      const Tensor s = sg::sum_to(g, shape);
      REQUIRE(s.shape() == shape);
      for (int64_t o = 0; o < s.numel(); ++o) {
        double want = 0;
        for (int i = 0; i < 2; ++i)
          for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 4; ++k)
              if (in(i, j, k, o)) want += 12 * i + 4 * j + k;
        CHECK(s.at(o) == want);
      }
    };
    expect({}, [](int, int, int, int64_t) { return true; });
    expect({3, 1}, [](int, int j, int, int64_t o) { return j == o; });
    expect({1, 4}, [](int, int, int k, int64_t o) { return k == o; });
    expect({2, 1, 4}, [](int i, int, int k, int64_t o) { return i * 4 + k == o; });
    expect({2, 3, 1}, [](int i, int j, int, int64_t o) { return i * 3 + j == o; });
    expect({1, 3, 1}, [](int, int j, int, int64_t o) { return j == o; });
    expect({4}, [](int, int, int k, int64_t o) { return k == o; });
    expect({1, 1, 1}, [](int, int, int, int64_t) { return true; });
    CHECK(sg::sum_to(g, {2, 3, 4}).same(g));
    // Non-contiguous input: the transpose of a [4, 3] as [3, 4], summed to [3, 1].
    const Tensor base = from({4, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
    const Tensor t = Tensor::view_of(base, {3, 4}, {1, 3}, 0);
    check_values(sg::sum_to(t, {3, 1}), {0 + 3 + 6 + 9, 1 + 4 + 7 + 10, 2 + 5 + 8 + 11});
    check_values(sg::sum_to(t, {4}), {3, 12, 21, 30});
    // An empty dim sums to zeros.
    check_values(sg::sum_to(Tensor::empty({0, 3}), {1, 3}), {0, 0, 0});
  });
}

TEST_CASE("elementwise: prelu and softplus parameters") {
  on_each_backend([] {
    const Tensor x = from({2, 3, 2}, {-1, 2, -3, 4, -5, 6, 1, -2, 3, -4, 5, -6});
    const Tensor w = from({3}, {0.5f, 0.25f, 2});
    check_values(sg::prelu(x, w), {-0.5, 2, -0.75, 4, -10, 6, 1, -1, 3, -1, 5, -12});
    check_values(sg::prelu(x, from({1}, {0.5f})),
                 {-0.5, 2, -1.5, 4, -2.5, 6, 1, -1, 3, -2, 5, -3});
    check_values(sg::prelu(from({3}, {-2, 0, 2}), from({}, {0.25f})), {-0.5, 0, 2});
    CHECK(sg::prelu(x, w).shape() == x.shape());
  });
}

TEST_CASE("elementwise: long, odd-length inputs exercise the vector loops and their tails") {
  on_each_backend([] {
    const int64_t n = 1031;  // not a multiple of any vector width
    std::vector<float> xs(n), pos(n);
    std::mt19937 gen(99);
    std::uniform_real_distribution<double> wide(-12, 12), positive(1e-3, 50);
    for (int64_t i = 0; i < n; ++i) {
      xs[size_t(i)] = float(wide(gen));
      pos[size_t(i)] = float(positive(gen));
    }
    const double r = 2e-6;
    check_unary(sg::exp, [](double x) { return std::exp(x); }, xs, r);
    check_unary(sg::expm1, [](double x) { return std::expm1(x); }, xs, r);
    check_unary(sg::log, [](double x) { return std::log(x); }, pos, r);
    check_unary(sg::log2, [](double x) { return std::log2(x); }, pos, r);
    check_unary(sg::log10, [](double x) { return std::log10(x); }, pos, r);
    check_unary(sg::log1p, [](double x) { return std::log1p(x); }, pos, r);
    check_unary(sg::sqrt, [](double x) { return std::sqrt(x); }, pos, 0);
    check_unary(sg::rsqrt, [](double x) { return 1 / std::sqrt(x); }, pos, r);
    check_unary(sg::reciprocal, [](double x) { return 1 / x; }, xs, 2.5e-7);
    check_unary(sg::sin, [](double x) { return std::sin(x); }, xs, r, 1e-6);
    check_unary(sg::cos, [](double x) { return std::cos(x); }, xs, r, 1e-6);
    check_unary(sg::erf, [](double x) { return std::erf(x); }, xs, r, 1e-7);
    check_unary(sg::sigmoid, sigmoid_d, xs, r);
    check_unary(sg::tanh, [](double x) { return std::tanh(x); }, xs, r);
    check_unary(sg::silu, [](double x) { return x * sigmoid_d(x); }, xs, r, 1e-7);
    // gelu = ½x(1 + erf(x/√2)): for x ≪ 0, 1 + erf cancels, so float32 (PyTorch's too) keeps an
    // absolute error of about ½|x|·ulp(1), not a relative one.
    check_unary([](const Tensor& x) { return sg::gelu(x); },
                [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }, xs, r, 2e-6);
    check_unary([](const Tensor& x) { return sg::softplus(x, 1.5, 20.0); },
                [](double x) { return softplus_d(x, 1.5, 20); }, xs, r, 1e-7);
    check_unary([](const Tensor& x) { return sg::elu(x, 0.7); },
                [](double x) { return x > 0 ? x : 0.7 * std::expm1(x); }, xs, r, 1e-7);
    check_unary(sg::selu,
                [](double x) { return kSeluScale * (x > 0 ? x : kSeluAlpha * std::expm1(x)); }, xs, r, 1e-7);
    check_unary(sg::abs, [](double x) { return std::fabs(x); }, xs, 0);
    check_unary(sg::relu, [](double x) { return x > 0 ? x : 0.0; }, xs, 0);
    // Broadcast stride patterns: same shape, row vector, column vector, 0-d on either side.
    const Tensor a = leaf({37, 29}, -3, 3, 61, false);
    for (const Tensor& b : {leaf({37, 29}, 0.5, 3, 62, false), leaf({29}, 0.5, 3, 63, false),
                            leaf({37, 1}, 0.5, 3, 64, false), scalar(1.25)}) {
      CAPTURE(sg::shape_str(b.shape()));
      for (int swap = 0; swap < 2; ++swap) {
        const Tensor& x = swap ? b : a;
        const Tensor& y = swap ? a : b;
        check_binary(sg::add, [](double u, double v) { return u + v; }, x, y, 0);
        check_binary(sg::sub, [](double u, double v) { return u - v; }, x, y, 0);
        check_binary(sg::mul, [](double u, double v) { return u * v; }, x, y, 0);
        check_binary(sg::div, [](double u, double v) { return u / v; }, x, y, 0);
        check_binary(sg::maximum, [](double u, double v) { return std::max(u, v); }, x, y, 0);
        check_binary(sg::minimum, [](double u, double v) { return std::min(u, v); }, x, y, 0);
      }
      check_binary(sg::pow, [](double u, double v) { return std::pow(u, v); }, b, a, 2e-6);
    }
  });
}

// ---------------------------------------------------------------- gradients

TEST_CASE("elementwise: gradcheck of binary ops with broadcasting") {
  on_each_backend([] {
    struct Case {
      Shape sa, sb;
    };
    const std::vector<Case> cases = {{{3, 1}, {1, 4}}, {{2, 1, 3}, {4, 1}}, {{5}, {}}, {{}, {2, 3}},
                                     {{2, 3, 5}, {3, 5}}, {{7}, {7}}};
    for (const Case& c : cases) {
      CAPTURE(sg::shape_str(c.sa));
      CAPTURE(sg::shape_str(c.sb));
      gradcheck("add", [](auto& in) { return sg::add(in[0], in[1]); }, {leaf(c.sa, -1, 1, 1), leaf(c.sb, -1, 1, 2)});
      gradcheck("sub", [](auto& in) { return sg::sub(in[0], in[1]); }, {leaf(c.sa, -1, 1, 3), leaf(c.sb, -1, 1, 4)});
      gradcheck("mul", [](auto& in) { return sg::mul(in[0], in[1]); }, {leaf(c.sa, -1, 1, 5), leaf(c.sb, -1, 1, 6)});
      gradcheck("div", [](auto& in) { return sg::div(in[0], in[1]); },
                {leaf(c.sa, -1, 1, 7), away_leaf(c.sb, 0.5, 2, 8)});
      gradcheck("pow", [](auto& in) { return sg::pow(in[0], in[1]); },
                {leaf(c.sa, 0.5, 2, 9), leaf(c.sb, -2, 2, 10)});
      // One operand requiring grad, the other not.
      gradcheck("mul(a, const)", [](auto& in) { return sg::mul(in[0], in[1]); },
                {leaf(c.sa, -1, 1, 11), leaf(c.sb, -1, 1, 12, false)});
      gradcheck("div(const, b)", [](auto& in) { return sg::div(in[0], in[1]); },
                {leaf(c.sa, -1, 1, 13, false), away_leaf(c.sb, 0.5, 2, 14)});
    }
    // maximum/minimum away from ties (|a − b| ≥ 0.2 for every broadcast pair).
    for (auto op : {sg::maximum, sg::minimum}) {
      gradcheck("max/min", [op](auto& in) { return op(in[0], in[1]); },
                {from({3, 1}, {0.1f, 0.5f, 0.9f}, true), from({1, 4}, {0.3f, 0.7f, -0.2f, 1.2f}, true)});
      gradcheck("max/min 0-d", [op](auto& in) { return op(in[0], in[1]); },
                {from({2, 3}, {-1, -0.5f, 0.1f, 0.6f, 1, 2}, true), from({}, {0.3f}, true)});
    }
    // A float operand times an int32 one: the gradient flows to the float side only.
    gradcheck("mul(float, int)", [](auto& in) { return sg::mul(in[0], ints({1, 3}, {2, -3, 5})); },
              {leaf({2, 3}, -1, 1, 15)});
    gradcheck("pow(a, int)", [](auto& in) { return sg::pow(in[0], ints({}, {3})); },
              {leaf({4}, -1, 1, 16)});
  });
}

TEST_CASE("elementwise: gradcheck of math functions") {
  on_each_backend([] {
    const Shape s = {2, 3, 5};
    const std::vector<std::pair<std::string, Op1>> general = {
        {"neg", sg::neg}, {"exp", sg::exp}, {"expm1", sg::expm1}, {"sin", sg::sin},
        {"cos", sg::cos}, {"erf", sg::erf}, {"square", sg::square},
        {"log1p", sg::log1p}};
    for (const auto& [name, op] : general)
      gradcheck(name, [op = op](auto& in) { return op(in[0]); }, {leaf(s, -0.9, 0.9, 21)});
    const std::vector<std::pair<std::string, Op1>> positive = {
        {"log", sg::log}, {"log2", sg::log2}, {"log10", sg::log10}, {"sqrt", sg::sqrt},
        {"rsqrt", sg::rsqrt}};
    for (const auto& [name, op] : positive)
      gradcheck(name, [op = op](auto& in) { return op(in[0]); }, {leaf(s, 0.5, 2, 22)});
    gradcheck("abs", [](auto& in) { return sg::abs(in[0]); }, {away_leaf(s, 0.1, 1, 23)});
    gradcheck("sign", [](auto& in) { return sg::sign(in[0]); }, {away_leaf(s, 0.1, 1, 26)});
    gradcheck("reciprocal", [](auto& in) { return sg::reciprocal(in[0]); }, {away_leaf(s, 0.5, 2, 24)});
    gradcheck("clamp", [](auto& in) { return sg::clamp(in[0], -0.5, 0.5); },
              {from({7}, {-0.9f, -0.51f, -0.49f, 0.f, 0.3f, 0.52f, 0.8f}, true)});
    gradcheck("clamp min", [](auto& in) { return sg::clamp(in[0], 0.2, std::nullopt); },
              {from({4}, {-0.9f, 0.1f, 0.3f, 0.8f}, true)});
    gradcheck("clamp max", [](auto& in) { return sg::clamp(in[0], std::nullopt, 0.2); },
              {from({4}, {-0.9f, 0.1f, 0.3f, 0.8f}, true)});
    // Chained ops on a non-contiguous input: exp of a transposed view.
    gradcheck("exp(view)", [](auto& in) { return sg::exp(sg::transpose(in[0], 0, 1)); },
              {leaf({4, 3}, -1, 1, 25)});
  });
}

TEST_CASE("elementwise: gradcheck of activations") {
  on_each_backend([] {
    const Shape s = {3, 7};
    const std::vector<std::pair<std::string, Op1>> smooth = {
        {"sigmoid", sg::sigmoid},
        {"tanh", sg::tanh},
        {"silu", sg::silu},
        {"gelu", [](const Tensor& x) { return sg::gelu(x); }},
        {"gelu tanh", [](const Tensor& x) { return sg::gelu(x, "tanh"); }},
        {"softplus", [](const Tensor& x) { return sg::softplus(x); }},
        {"softplus beta", [](const Tensor& x) { return sg::softplus(x, 2.0, 20.0); }}};
    for (const auto& [name, op] : smooth)
      gradcheck(name, [op = op](auto& in) { return op(in[0]); }, {leaf(s, -3, 3, 31)});
    const std::vector<std::pair<std::string, Op1>> kinked = {
        {"relu", sg::relu},
        {"leaky_relu", [](const Tensor& x) { return sg::leaky_relu(x, 0.2); }},
        {"elu", [](const Tensor& x) { return sg::elu(x, 1.5); }},
        {"selu", sg::selu}};
    for (const auto& [name, op] : kinked)
      gradcheck(name, [op = op](auto& in) { return op(in[0]); }, {away_leaf(s, 0.05, 2, 32)});
    // softplus with a low threshold: both the log1p branch and the linear branch (βx = 1 switches).
    gradcheck("softplus threshold", [](auto& in) { return sg::softplus(in[0], 2.0, 1.0); },
              {from({6}, {-2, -0.5f, 0.1f, 0.45f, 0.55f, 2}, true)});
    // prelu: per-channel weight on [N, C, L], single weight, 1-D input.
    gradcheck("prelu C", [](auto& in) { return sg::prelu(in[0], in[1]); },
              {away_leaf({2, 3, 5}, 0.05, 1, 33), leaf({3}, 0.1, 0.5, 34)});
    gradcheck("prelu 1", [](auto& in) { return sg::prelu(in[0], in[1]); },
              {away_leaf({2, 3, 2}, 0.05, 1, 35), leaf({1}, 0.1, 0.5, 36)});
    gradcheck("prelu 1-D", [](auto& in) { return sg::prelu(in[0], in[1]); },
              {away_leaf({5}, 0.05, 1, 37), leaf({}, 0.1, 0.5, 38)});
    gradcheck("prelu 2-D", [](auto& in) { return sg::prelu(in[0], in[1]); },
              {away_leaf({4, 3}, 0.05, 1, 39), leaf({3}, 0.1, 0.5, 40)});
  });
}

TEST_CASE("elementwise: gradcheck of where, masked_fill and sum_to") {
  on_each_backend([] {
    const Tensor cond = bools({3, 1}, {1, 0, 1});
    gradcheck("where", [cond](auto& in) { return sg::where(cond, in[0], in[1]); },
              {leaf({1, 4}, -1, 1, 41), leaf({3, 4}, -1, 1, 42)});
    gradcheck("where 0-d", [cond](auto& in) { return sg::where(cond, in[0], in[1]); },
              {leaf({}, -1, 1, 43), leaf({2, 1, 1}, -1, 1, 44)});
    const Tensor mask = bools({1, 4}, {0, 1, 1, 0});
    gradcheck("masked_fill", [mask](auto& in) { return sg::masked_fill(in[0], mask, 3.0); },
              {leaf({3, 4}, -1, 1, 45)});
    gradcheck("sum_to", [](auto& in) { return sg::sum_to(in[0], {3, 1}); }, {leaf({2, 3, 4}, -1, 1, 46)});
    gradcheck("sum_to 0-d", [](auto& in) { return sg::sum_to(in[0], {}); }, {leaf({2, 3}, -1, 1, 47)});
  });
}

TEST_CASE("elementwise: gradients at ties, kinks and extremes by hand") {
  on_each_backend([] {
    auto grad_of = [](const Tensor& x, const Tensor& out) {
      out.backward(from(out.shape(), std::vector<float>(size_t(out.numel()), 1.f)));
      return x.grad();
    };
    // maximum/minimum: ties split equally; broadcast sums.
    {
      Tensor a = from({4}, {1, 2, 3, 2}, true), b = from({4}, {1, 0, 5, 2}, true);
      sg::sum_to(sg::maximum(a, b), {}).backward();
      check_values(a.grad(), {0.5, 1, 0, 0.5});
      check_values(b.grad(), {0.5, 0, 1, 0.5});
      a.set_grad(Tensor());
      b.set_grad(Tensor());
      sg::sum_to(sg::minimum(a, b), {}).backward();
      check_values(a.grad(), {0.5, 0, 1, 0.5});
      check_values(b.grad(), {0.5, 1, 0, 0.5});
      Tensor c = from({3}, {1, 2, 3}, true), s = from({}, {2}, true);
      sg::sum_to(sg::maximum(c, s), {}).backward();
      check_values(c.grad(), {0, 0.5, 1});
      check_values(s.grad(), {1.5});  // wins once, ties once
    }
    // abs'(0) = 0, relu'(0) = 0, sign' = 0.
    {
      Tensor x = from({3}, {-2, 0, 3}, true);
      check_values(grad_of(x, sg::abs(x)), {-1, 0, 1});
      x.set_grad(Tensor());
      check_values(grad_of(x, sg::relu(x)), {0, 0, 1});
      x.set_grad(Tensor());
      check_values(grad_of(x, sg::sign(x)), {0, 0, 0});
    }
    // clamp passes the gradient at both bounds (inclusive) and blocks it outside.
    {
      Tensor x = from({5}, {-2, -1, 0, 1, 2}, true);
      check_values(grad_of(x, sg::clamp(x, -1.0, 1.0)), {0, 1, 1, 1, 0});
    }
    // pow at a = 0: d/da = 0 where b = 0; d/db = 0 where a = 0 and b ≥ 0.
    {
      Tensor a = from({4}, {0, 0, 2, 0}, true), b = from({4}, {0, 2, 3, 1}, true);
      sg::sum_to(sg::pow(a, b), {}).backward();
      check_values(a.grad(), {0, 0, 12, 1});
      check_values(b.grad(), {0, 0, 8 * std::log(2.0), 0}, 1e-6);
    }
    // Saturated sigmoid/tanh/softplus/silu/gelu: gradients finite and exact at ±1e4.
    {
      Tensor x = from({2}, {1e4f, -1e4f}, true);
      check_values(grad_of(x, sg::sigmoid(x)), {0, 0});
      x.set_grad(Tensor());
      check_values(grad_of(x, sg::tanh(x)), {0, 0});
      x.set_grad(Tensor());
      check_values(grad_of(x, sg::softplus(x)), {1, 0});
      x.set_grad(Tensor());
      check_values(grad_of(x, sg::softplus(x, 0.5, 30.0)), {1, 0});
      x.set_grad(Tensor());
      check_values(grad_of(x, sg::silu(x)), {1, 0});
      x.set_grad(Tensor());
      check_values(grad_of(x, sg::gelu(x)), {1, 0});
      x.set_grad(Tensor());
      check_values(grad_of(x, sg::gelu(x, "tanh")), {1, 0});
    }
    // where: the gradient goes to a where cond, to b elsewhere, summed over broadcasting.
    {
      Tensor a = from({}, {1}, true), b = from({3}, {1, 2, 3}, true);
      sg::sum_to(sg::where(bools({3}, {1, 0, 1}), a, b), {}).backward();
      check_values(a.grad(), {2});
      check_values(b.grad(), {0, 1, 0});
    }
    // masked_fill blocks the gradient where the mask is set.
    {
      Tensor x = from({2, 2}, {1, 2, 3, 4}, true);
      check_values(grad_of(x, sg::masked_fill(x, bools({2}, {1, 0}), 0)), {0, 1, 0, 1});
    }
  });
}

TEST_CASE("elementwise: ops on tensors without grad record nothing") {
  const Tensor a = leaf({2, 3}, -1, 1, 51, false);
  CHECK_FALSE(sg::add(a, a).requires_grad());
  CHECK_FALSE(sg::sigmoid(a).requires_grad());
  const Tensor w = leaf({2, 3}, -1, 1, 52);
  CHECK(sg::add(a, w).requires_grad());
  CHECK(sg::where(sg::gt(a, scalar(0)), a, w).requires_grad());
  CHECK_FALSE(sg::gt(w, scalar(0)).requires_grad());  // comparisons are not differentiable
}

TEST_CASE("elementwise: gradcheck of rounding, tan, the inverse trigonometric and hyperbolic functions, atan2 and hardtanh") {
  using Ins = std::vector<Tensor>;
  sgtest::on_each_backend([] {
    gradcheck("tan", [](Ins& in) { return tan(in[0]); }, {leaf({2, 3}, -1.2, 1.2, 1)});
    gradcheck("atan", [](Ins& in) { return atan(in[0]); }, {leaf({2, 3}, -3, 3, 2)});
    gradcheck("asin", [](Ins& in) { return asin(in[0]); }, {leaf({2, 3}, -0.9, 0.9, 3)});
    gradcheck("acos", [](Ins& in) { return acos(in[0]); }, {leaf({2, 3}, -0.9, 0.9, 4)});
    gradcheck("sinh", [](Ins& in) { return sinh(in[0]); }, {leaf({2, 3}, -2, 2, 5)});
    gradcheck("cosh", [](Ins& in) { return cosh(in[0]); }, {leaf({2, 3}, -2, 2, 6)});
    gradcheck("atan2 broadcast", [](Ins& in) { return atan2(in[0], in[1]); },
              {leaf({2, 1, 3}, -2, 2, 7), leaf({4, 3}, 0.2, 2, 8)});
    // Piecewise constant away from the integers: gradient 0, recorded so backward reaches x.
    for (auto fn : {&sg::floor, &sg::ceil, &sg::round, &sg::trunc})
      gradcheck("rounding", [fn](Ins& in) { return fn(in[0]); }, {from({4}, {-1.3f, -0.2f, 0.7f, 2.4f}, true)});
    gradcheck("hardtanh inside and beyond the bounds", [](Ins& in) { return hardtanh(in[0], -0.5, 1.5); },
              {from({5}, {-1.0f, -0.3f, 0.4f, 1.2f, 2.0f}, true)});
  });
}

TEST_CASE("elementwise: hardtanh's gradient is 0 exactly at min and max (PyTorch's hardtanh_backward)") {
  Tensor x = from({5}, {-1.0f, -0.5f, 0.0f, 1.0f, 6.0f}, true);
  sum(hardtanh(x)).backward();
  CHECK(values(x.grad()) == std::vector<double>{0, 1, 1, 0, 0});
  Tensor y = from({4}, {0.0f, 3.0f, 6.0f, 7.0f}, true);
  sum(hardtanh(y, 0, 6)).backward();  // relu6
  CHECK(values(y.grad()) == std::vector<double>{0, 1, 0, 0});
  CHECK(values(hardtanh(ints({3}, {-4, 0, 9}), -2, 5)) == std::vector<double>{-2, 0, 5});
}

TEST_CASE("elementwise: rounding is half to even and keeps integers; math of int32 is float32") {
  const Tensor h = from({8}, {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 3.5f, -0.0f});
  CHECK(values(round(h)) == std::vector<double>{-2, -2, -0, 0, 2, 2, 4, 0});
  CHECK(std::signbit(round(h).at(2)));  // −0.5 rounds to −0, as PyTorch
  const Tensor i = ints({3}, {-3, 0, 7});
  for (auto fn : {&sg::floor, &sg::ceil, &sg::round, &sg::trunc}) {
    const Tensor r = fn(i);
    CHECK(r.dtype() == DType::Int32);
    CHECK(values(r) == std::vector<double>{-3, 0, 7});
  }
  CHECK(tan(i).dtype() == DType::Float32);
  CHECK(std::isnan(asin(from({1}, {1.5f})).at(0)));
}

TEST_CASE("elementwise: logical ops treat nonzero and NaN as true; any/all of empty tensors") {
  const Tensor a = from({4}, {0.0f, NAN, -0.0f, 2.0f});
  const Tensor b = sgtest::bools({4}, {1, 1, 1, 0});
  CHECK(values(logical_and(a, b)) == std::vector<double>{0, 1, 0, 0});
  CHECK(values(logical_or(a, b)) == std::vector<double>{1, 1, 1, 1});
  CHECK(values(logical_xor(a, b)) == std::vector<double>{1, 0, 1, 1});
  CHECK(values(logical_not(a)) == std::vector<double>{1, 0, 1, 0});
  CHECK(logical_not(ints({2}, {0, 5})).dtype() == DType::Bool);
  CHECK(any(sg::zeros({0})).item() == 0);
  CHECK(all(sg::zeros({0})).item() == 1);
  CHECK(values(all(sg::zeros({2, 0}), {1})) == std::vector<double>{1, 1});
  CHECK(values(any(from({2, 2}, {0, 1, 0, 0}), {1}, true)) == std::vector<double>{1, 0});
  CHECK(any(from({2, 2}, {0, 1, 0, 0}), {1}, true).shape() == Shape{2, 1});
}
