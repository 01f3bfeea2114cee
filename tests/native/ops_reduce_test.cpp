// Reductions and the softmax family (src/ops/reduce.cpp, src/ops/softmax.cpp), then the scans
// and sorting (scan.cpp, sort.cpp: along one dim, as these).
// Values are checked against an independent double-precision oracle (groups of elements
// gathered by plain index arithmetic through Tensor::at) and hand-computed numbers, on every
// backend; gradients by central differences (gradcheck.h) and exact hand values for ties and
// zeros.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"
#include "gradcheck.h"
#include "test_util.h"
#include "kernels/backend.h"
#include "ops/ops.h"

using namespace sg;
using sgtest::from;
using sgtest::gradcheck;
using sgtest::ints;
using sgtest::leaf;
using sgtest::on_each_backend;
using sgtest::values;

namespace {

using V = std::vector<double>;
const double kInf = std::numeric_limits<double>::infinity();

// Runs fn once per backend, restoring the active one afterwards.

bool close(double got, double want, double tol = 1e-5) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= tol * (1.0 + std::fabs(want));
}

void check_values(const Tensor& t, const V& want, double tol = 1e-5) {
  REQUIRE(t.numel() == static_cast<int64_t>(want.size()));
  for (int64_t i = 0; i < t.numel(); ++i)
    CHECK_MESSAGE(close(t.at(i), want[i], tol), "element " << i << ": got " << t.at(i) << ", want " << want[i]);
}

// The elements of each reduction group, in row-major order of the kept dims (groups) and
// of the reduced dims (within a group). The oracle every reduction is compared with.
std::vector<V> groups(const Tensor& x, const std::set<int64_t>& reduced) {
  const Shape& s = x.shape();
  int64_t n_out = 1;
  for (size_t d = 0; d < s.size(); ++d)
    if (!reduced.count(d)) n_out *= s[d];
  std::vector<V> out(n_out);
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t rest = i, kept = 0, mult = 1;
    for (size_t d = s.size(); d-- > 0;) {
      const int64_t c = rest % s[d];
      rest /= s[d];
      if (!reduced.count(d)) {
        kept += c * mult;
        mult *= s[d];
      }
    }
    out[kept].push_back(x.at(i));
  }
  return out;
}

double g_sum(const V& v) { double s = 0; for (double x : v) s += x; return s; }
double g_prod(const V& v) { double s = 1; for (double x : v) s *= x; return s; }
double g_max(const V& v) { return *std::max_element(v.begin(), v.end()); }
double g_min(const V& v) { return *std::min_element(v.begin(), v.end()); }
double g_mean(const V& v) { return g_sum(v) / double(v.size()); }
double g_var(const V& v, int ddof) {
  double m = g_mean(v), s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / double(int64_t(v.size()) - ddof);
}
double g_lse(const V& v) {
  double m = g_max(v), s = 0;
  for (double x : v) s += std::exp(x - m);
  return m + std::log(s);
}
double g_norm(const V& v, double p) {
  if (std::isinf(p)) {
    double m = p > 0 ? 0 : kInf;
    for (double x : v) m = p > 0 ? std::max(m, std::fabs(x)) : std::min(m, std::fabs(x));
    return m;
  }
  if (p == 0) { double c = 0; for (double x : v) c += x != 0; return c; }
  double s = 0;
  for (double x : v) s += std::pow(std::fabs(x), p);
  return std::pow(s, 1.0 / p);
}

template <class F>
V expected(const Tensor& x, const std::set<int64_t>& reduced, F f) {
  V out;
  for (const V& g : groups(x, reduced)) out.push_back(f(g));
  return out;
}

Shape expected_shape(const Shape& s, const std::set<int64_t>& reduced, bool keepdim) {
  Shape out;
  for (size_t d = 0; d < s.size(); ++d) {
    if (!reduced.count(d)) out.push_back(s[d]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

// Every subset of the dims of an nd tensor (the empty one meaning "all").
std::vector<std::set<int64_t>> all_dim_sets(int64_t nd) {
  std::vector<std::set<int64_t>> out;
  for (int64_t mask = 0; mask < (int64_t(1) << nd); ++mask) {
    std::set<int64_t> s;
    for (int64_t d = 0; d < nd; ++d)
      if (mask & (int64_t(1) << d)) s.insert(d);
    out.push_back(s);
  }
  return out;
}

// Dims as the op takes them: with `negative`, counted from the end.
Dims as_dims(const std::set<int64_t>& s, int64_t nd, bool negative) {
  Dims out;
  for (int64_t d : s) out.push_back(negative ? d - nd : d);
  if (negative) std::reverse(out.begin(), out.end());  // order must not matter
  return out;
}

// Values far apart from each other (steps of 0.1, shuffled, both signs, distinct |x|),
// so that small perturbations never change which element is the max or min.
Tensor distinct(const Shape& shape, unsigned seed, bool requires_grad = true) {
  Tensor t = Tensor::empty(shape);
  const int64_t n = t.numel();
  std::vector<double> vals;
  for (int64_t i = 0; i < n; ++i) vals.push_back((i % 2 ? -1.0 : 1.0) * (0.2 + 0.1 * double(i)));
  std::mt19937 gen(seed);
  std::shuffle(vals.begin(), vals.end(), gen);
  for (int64_t i = 0; i < n; ++i) t.f32()[i] = static_cast<float>(vals[i]);
  if (requires_grad) t.set_requires_grad(true);
  return t;
}

Tensor grad_of(const std::function<Tensor(const Tensor&)>& f, Tensor x) {
  x.set_grad(Tensor());
  Tensor y = f(x);
  y.backward(ones(y.shape()));
  return x.grad();
}

}  // namespace

TEST_CASE("reduce: every reduction over every dim set, negative dims and keepdim, vs double") {
  on_each_backend([] {
    for (const Shape& shape : {Shape{2, 3, 4}, Shape{3, 1, 2, 5}, Shape{5}}) {
      Tensor x = leaf(shape, -1.0, 1.0, 11, false);
      Tensor pos = add(abs(x), scalar_tensor(0.5));  // prod: keep magnitudes near 1
      const int64_t nd = static_cast<int64_t>(shape.size());
      for (const auto& red : all_dim_sets(nd)) {
        std::set<int64_t> all_red = red;  // the empty set means every dim
        if (red.empty())
          for (int64_t d = 0; d < nd; ++d) all_red.insert(d);
        for (bool keepdim : {false, true})
          for (bool negative : {false, true}) {
            Dims dims = as_dims(red, nd, negative);
            CAPTURE(shape_str(shape));
            CAPTURE(shape_str(dims));
            CAPTURE(keepdim);
            const Shape want_shape = expected_shape(shape, all_red, keepdim);
            auto run = [&](const Tensor& out, const V& want, double tol = 1e-5) {
              CHECK(out.shape() == want_shape);
              CHECK(out.dtype() == DType::Float32);
              check_values(out, want, tol);
            };
            run(sum(x, dims, keepdim), expected(x, all_red, g_sum));
            run(mean(x, dims, keepdim), expected(x, all_red, g_mean));
            run(prod(pos, dims, keepdim), expected(pos, all_red, g_prod), 1e-4);
            run(amax(x, dims, keepdim), expected(x, all_red, g_max));
            run(amin(x, dims, keepdim), expected(x, all_red, g_min));
            run(var(x, dims, keepdim, false), expected(x, all_red, [](const V& v) { return g_var(v, 0); }), 1e-4);
            run(sg::std(x, dims, keepdim, false),
                expected(x, all_red, [](const V& v) { return std::sqrt(g_var(v, 0)); }), 1e-4);
            run(logsumexp(x, dims, keepdim), expected(x, all_red, g_lse));
            for (double p : {2.0, 1.0, kInf, -kInf, 3.0, 0.5, 0.0})
              run(norm(x, p, dims, keepdim), expected(x, all_red, [p](const V& v) { return g_norm(v, p); }), 1e-4);
          }
      }
    }
  });
}

TEST_CASE("reduce: unbiased var and std (default) vs the n-1 formula; n = 1 gives NaN") {
  on_each_backend([] {
    Tensor x = leaf({4, 6}, -2.0, 3.0, 5, false);
    for (int64_t d : {0, 1, -1}) {
      std::set<int64_t> red{d < 0 ? d + 2 : d};
      check_values(var(x, {d}), expected(x, red, [](const V& v) { return g_var(v, 1); }), 1e-4);
      check_values(sg::std(x, {d}), expected(x, red, [](const V& v) { return std::sqrt(g_var(v, 1)); }), 1e-4);
    }
    // Hand value: [1, 2, 3, 4] has mean 2.5, Σ dev² = 5: var = 5/3 (unbiased) and 5/4.
    Tensor h = from({4}, {1, 2, 3, 4});
    CHECK(var(h).item() == doctest::Approx(5.0 / 3.0).epsilon(1e-6));
    CHECK(var(h, {}, false, false).item() == doctest::Approx(1.25).epsilon(1e-6));
    CHECK(sg::std(h).item() == doctest::Approx(std::sqrt(5.0 / 3.0)).epsilon(1e-6));
    Tensor one = from({1}, {3});
    CHECK(std::isnan(var(one).item()));
    CHECK(std::isnan(sg::std(one).item()));
    CHECK(var(one, {}, false, false).item() == 0.0);
  });
}

TEST_CASE("reduce: hand values, 0-d results and reducing a 0-d tensor") {
  on_each_backend([] {
    Tensor x = from({2, 3}, {1, 2, 3, 4, 5, 6});
    Tensor s = sum(x);
    CHECK(s.shape() == Shape{});
    CHECK(s.item() == 21.0);
    check_values(sum(x, {0}), {5, 7, 9});
    check_values(sum(x, {-1}), {6, 15});
    CHECK(sum(x, {1}, true).shape() == Shape{2, 1});
    CHECK(sum(x, {}, true).shape() == Shape{1, 1});
    CHECK(mean(x).item() == 3.5);
    CHECK(prod(x).item() == 720.0);
    check_values(prod(x, {1}), {6, 120});
    CHECK(amax(x).item() == 6.0);
    CHECK(amin(x, {0, 1}).item() == 1.0);
    CHECK(norm(from({2}, {3, -4})).item() == doctest::Approx(5.0));
    CHECK(logsumexp(from({2}, {0, 0})).item() == doctest::Approx(std::log(2.0)));
    Tensor z = scalar_tensor(2.5);
    for (const Dims& d : {Dims{}, Dims{0}, Dims{-1}}) {
      CHECK(sum(z, d).shape() == Shape{});
      CHECK(sum(z, d).item() == 2.5);
      CHECK(mean(z, d, true).item() == 2.5);
      CHECK(amax(z, d).item() == 2.5);
      CHECK(logsumexp(z, d).item() == doctest::Approx(2.5));
    }
    CHECK(argmax(z).item() == 0.0);
  });
}

TEST_CASE("reduce: non-contiguous inputs (transposed, sliced views)") {
  on_each_backend([] {
    Tensor base = leaf({4, 5, 3}, -1.0, 1.0, 3, false);
    Tensor t = transpose(base, 0, 2);  // [3, 5, 4], strides permuted
    Tensor sl = slice(base, 1, 1, 5, 2);  // [4, 2, 3], stepped
    for (const Tensor& v : {t, sl}) {
      for (const std::set<int64_t>& red : {std::set<int64_t>{0}, {1}, {2}, {0, 2}, {0, 1, 2}}) {
        Dims dims(red.begin(), red.end());
        check_values(sum(v, dims), expected(v, red, g_sum));
        check_values(amax(v, dims), expected(v, red, g_max));
        check_values(logsumexp(v, dims), expected(v, red, g_lse));
        check_values(var(v, dims), expected(v, red, [](const V& g) { return g_var(g, 1); }), 1e-4);
      }
    }
  });
}

TEST_CASE("reduce: empty tensors") {
  on_each_backend([] {
    Tensor e = Tensor::empty({0, 3});
    Tensor s = sum(e, {0});
    CHECK(s.shape() == Shape{3});
    check_values(s, {0, 0, 0});
    check_values(prod(e, {0}), {1, 1, 1});
    Tensor m = mean(e, {0});
    CHECK(m.shape() == Shape{3});
    CHECK(std::isnan(m.at(0)));
    CHECK(sum(e).item() == 0.0);
    CHECK(std::isnan(mean(e).item()));
    CHECK(sum(e, {1}).shape() == Shape{0});
    CHECK(amax(e, {1}).shape() == Shape{0});  // reduces over 3, not over the empty dim
    CHECK(logsumexp(e, {0}).at(0) == -kInf);
    CHECK(norm(e, 2, {0}).at(1) == 0.0);
    CHECK_ERROR(amax(e, {0}), "max: cannot reduce over a zero-size dim");
    CHECK_ERROR(amin(e), "min: cannot reduce over a zero-size dim");
    CHECK_ERROR(argmax(e), "argmax: cannot reduce over a zero-size dim");
    // Gradients through empty reductions are empty.
    Tensor el = Tensor::empty({0, 3});
    el.set_requires_grad(true);
    sum(mul(sum(el, {0}), scalar_tensor(2.0))).backward();
    CHECK(el.grad().shape() == Shape{0, 3});
  });
}

TEST_CASE("reduce: int32 and bool inputs") {
  Tensor x = ints({2, 3}, {1, -2, 3, 4, 5, 2147483000});
  Tensor s = sum(x, {1});
  CHECK(s.dtype() == DType::Int32);
  CHECK(s.at(0) == 2);
  CHECK(s.at(1) == double(int32_t(uint32_t(2147483009u))));  // wraps like int32
  Tensor s0 = sum(x, {0});
  CHECK(s0.dtype() == DType::Int32);
  CHECK(s0.at(0) == 5);
  CHECK(s0.at(1) == 3);
  CHECK(sum(ints({2, 2}, {1, 2, 3, 4})).item() == 10);
  CHECK(prod(ints({3}, {2, -3, 4})).item() == -24);
  CHECK(prod(ints({3}, {2, -3, 4})).dtype() == DType::Int32);
  Tensor mx = amax(x, {0});
  CHECK(mx.dtype() == DType::Int32);
  CHECK(mx.at(0) == 4);
  CHECK(mx.at(1) == 5);
  CHECK(mx.at(2) == 2147483000);
  CHECK(amin(x).item() == -2);
  Tensor b = gt(x, scalar_tensor(2.0, DType::Int32));  // [F, F, T, T, T, T]
  REQUIRE(b.dtype() == DType::Bool);
  Tensor bs = sum(b, {1});
  CHECK(bs.dtype() == DType::Int32);
  CHECK(bs.at(0) == 1);
  CHECK(bs.at(1) == 3);
  CHECK(amax(b, {1}).dtype() == DType::Bool);
  CHECK(amin(b, {1}).at(1) == 1);
  CHECK(amin(b, {1}).at(0) == 0);
  CHECK(logsumexp(ints({2}, {0, 0})).item() == doctest::Approx(std::log(2.0)));
  CHECK_ERROR(mean(x), "mean: could not infer output dtype");
  CHECK_ERROR(var(x), "var: expected a floating point");
  CHECK_ERROR(norm(x), "norm: expected a floating point");
}

TEST_CASE("reduce: argmax and argmin (ties, dims, keepdim, flattened, NaN)") {
  Tensor x = from({2, 4}, {1, 5, 5, 0, 7, 7, -1, -1});
  Tensor a = argmax(x);
  CHECK(a.dtype() == DType::Int32);
  CHECK(a.shape() == Shape{});
  CHECK(a.item() == 4);  // flattened, first of the tied 7s
  CHECK(argmin(x).item() == 6);
  Tensor a1 = argmax(x, 1);
  CHECK(a1.shape() == Shape{2});
  CHECK(a1.at(0) == 1);
  CHECK(a1.at(1) == 0);
  Tensor m1 = argmin(x, -1, true);
  CHECK(m1.shape() == Shape{2, 1});
  CHECK(m1.at(0) == 3);
  CHECK(m1.at(1) == 2);
  Tensor a0 = argmax(x, 0);
  CHECK(a0.shape() == Shape{4});
  V want0{1, 1, 0, 0};
  for (int i = 0; i < 4; ++i) CHECK(a0.at(i) == want0[i]);
  CHECK(argmax(x, std::nullopt, true).shape() == Shape{1, 1});
  CHECK(argmax(ints({5}, {3, 9, 2, 9, 1})).item() == 1);
  CHECK(argmin(ints({5}, {3, 9, 1, 9, 1})).item() == 2);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(argmax(from({4}, {1, nan, 9, nan})).item() == 1);
  CHECK(argmin(from({4}, {1, 2, nan, -5})).item() == 2);
  // A strided view: argmax of its own elements, not the base's.
  Tensor t = transpose(x, 0, 1);  // [4, 2]
  Tensor at = argmax(t, 0);
  CHECK(at.at(0) == 1);
  CHECK(at.at(1) == 0);
  CHECK_ERROR(argmax(x, 2), "argmax: dim 2 is out of range");
}

TEST_CASE("reduce: dims are validated") {
  Tensor x = leaf({2, 3}, -1, 1, 1, false);
  CHECK_ERROR(sum(x, {0, -2}), "sum: dim");
  CHECK_ERROR(sum(x, {0, -2}), "repeats a dim");
  CHECK_ERROR(mean(x, {2}), "mean: dim 2 is out of range");
  CHECK_ERROR(amax(x, {-3}), "max: dim -3 is out of range");
  CHECK_ERROR(norm(x, -1.0), "norm: p must be");
}

TEST_CASE("reduce: max/min gradients split equally between tied elements") {
  Tensor x = from({3}, {1, 3, 3}, true);
  check_values(grad_of([](const Tensor& t) { return amax(t); }, x), {0, 0.5, 0.5}, 0);
  Tensor y = from({4}, {2, 1, 1, 5}, true);
  check_values(grad_of([](const Tensor& t) { return amin(t); }, y), {0, 0.5, 0.5, 0}, 0);
  // Per row (dim 1) and per column (dim 0) of [[4, 4, 4], [1, 9, 2]].
  Tensor m = from({2, 3}, {4, 4, 4, 1, 9, 2}, true);
  check_values(grad_of([](const Tensor& t) { return amax(t, {1}); }, m),
               {1.0 / 3, 1.0 / 3, 1.0 / 3, 0, 1, 0}, 1e-7);
  check_values(grad_of([](const Tensor& t) { return amin(t, {0}, true); }, m), {0, 1, 0, 1, 0, 1}, 0);
  check_values(grad_of([](const Tensor& t) { return amax(t); }, m), {0, 0, 0, 0, 1, 0}, 0);
  // The inf-norm splits like max of |x| and carries the sign.
  Tensor n = from({4}, {-3, 1, 3, 2}, true);
  check_values(grad_of([](const Tensor& t) { return norm(t, kInf); }, n), {-0.5, 0, 0.5, 0}, 0);
}

TEST_CASE("reduce: prod gradient with zeros is the product of the others") {
  Tensor a = from({3}, {2, 3, 4}, true);
  check_values(grad_of([](const Tensor& t) { return prod(t); }, a), {12, 8, 6}, 0);
  Tensor b = from({3}, {2, 0, 3}, true);
  check_values(grad_of([](const Tensor& t) { return prod(t); }, b), {0, 6, 0}, 0);
  Tensor c = from({3}, {0, 5, 0}, true);
  check_values(grad_of([](const Tensor& t) { return prod(t); }, c), {0, 0, 0}, 0);
  Tensor d = from({2, 2}, {0, 7, 3, 5}, true);
  check_values(grad_of([](const Tensor& t) { return prod(t, {0}); }, d), {3, 5, 0, 7}, 0);
}

TEST_CASE("reduce: gradients at special points") {
  // Zero vector: the 2-norm's subgradient is 0 (not NaN), as PyTorch's.
  Tensor z = from({3}, {0, 0, 0}, true);
  check_values(grad_of([](const Tensor& t) { return norm(t); }, z), {0, 0, 0}, 0);
  // Constant input: std = 0 gives gradient 0.
  Tensor c = from({3}, {2, 2, 2}, true);
  check_values(grad_of([](const Tensor& t) { return sg::std(t); }, c), {0, 0, 0}, 0);
  // Hand values: d/dx Σ = 1, mean = 1/n, var (unbiased) = 2(x − m)/(n − 1).
  Tensor h = from({4}, {1, 2, 3, 6}, true);  // mean 3
  check_values(grad_of([](const Tensor& t) { return mean(t); }, h), {0.25, 0.25, 0.25, 0.25}, 0);
  check_values(grad_of([](const Tensor& t) { return var(t); }, h), {-4.0 / 3, -2.0 / 3, 0, 2}, 1e-6);
  check_values(grad_of([](const Tensor& t) { return norm(t, 1); }, from({3}, {-2, 0, 5}, true)), {-1, 0, 1}, 0);
}

TEST_CASE("reduce: gradchecks (single/several/negative dims, keepdim, odd sizes)") {
  using Ins = std::vector<Tensor>;
  struct Case {
    Dims dims;
    bool keepdim;
  };
  const std::vector<Case> cases{{{}, false}, {{0}, false}, {{-1}, true}, {{0, 2}, false},
                                {{-2}, true}, {{1, -1}, true}};
  for (const Case& c : cases) {
    CAPTURE(shape_str(c.dims));
    CAPTURE(c.keepdim);
    const Dims d = c.dims;
    const bool k = c.keepdim;
    gradcheck("sum", [d, k](Ins& in) { return sum(in[0], d, k); }, {leaf({3, 5, 2})});
    gradcheck("mean", [d, k](Ins& in) { return mean(in[0], d, k); }, {leaf({3, 5, 2})});
    gradcheck("prod", [d, k](Ins& in) { return prod(in[0], d, k); }, {leaf({3, 5, 2}, 0.5, 1.5)});
    gradcheck("prod_signed", [d, k](Ins& in) { return prod(in[0], d, k); }, {leaf({3, 5, 2}, -1.5, 1.5, 4)});
    gradcheck("amax", [d, k](Ins& in) { return amax(in[0], d, k); }, {distinct({3, 5, 2}, 1)});
    gradcheck("amin", [d, k](Ins& in) { return amin(in[0], d, k); }, {distinct({3, 5, 2}, 2)});
    gradcheck("var", [d, k](Ins& in) { return var(in[0], d, k); }, {leaf({3, 5, 2})});
    gradcheck("var_biased", [d, k](Ins& in) { return var(in[0], d, k, false); }, {leaf({3, 5, 2})});
    gradcheck("std", [d, k](Ins& in) { return sg::std(in[0], d, k); }, {leaf({3, 5, 2})});
    gradcheck("std_biased", [d, k](Ins& in) { return sg::std(in[0], d, k, false); }, {leaf({3, 5, 2})});
    gradcheck("logsumexp", [d, k](Ins& in) { return logsumexp(in[0], d, k); }, {leaf({3, 5, 2}, -3, 3)});
    for (double p : {2.0, 1.0, 3.0, 1.5, 0.7, kInf, -kInf}) {
      CAPTURE(p);
      gradcheck("norm", [d, k, p](Ins& in) { return norm(in[0], p, d, k); }, {distinct({3, 5, 2}, 3)});
    }
  }
  // Through a non-contiguous view and composed with other ops.
  gradcheck("sum_of_transpose", [](Ins& in) { return sum(transpose(in[0], 0, 1), {0}); }, {leaf({4, 3})});
  gradcheck("mean_times", [](Ins& in) { return mul(mean(in[0], {1}, true), in[0]); }, {leaf({3, 4})});
}

// ---- softmax family ----

namespace {

// Softmax of each line along `dim`, in double, from the groups oracle (dim reduced).
V softmax_ref(const Tensor& x, int64_t dim, bool log_) {
  const int64_t nd = x.ndim();
  const int64_t d = dim < 0 ? dim + nd : dim;
  std::vector<V> gs = groups(x, {d});
  // Walk x in row-major order, finding each element's group and position within it.
  V out(x.numel());
  std::vector<int64_t> seen(gs.size(), 0);
  const Shape& s = x.shape();
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t rest = i, kept = 0, mult = 1;
    for (int64_t k = nd; k-- > 0;) {
      const int64_t c = rest % s[k];
      rest /= s[k];
      if (k != d) {
        kept += c * mult;
        mult *= s[k];
      }
    }
    const V& g = gs[kept];
    const double lse = g_lse(g);
    const double v = g[seen[kept]++];
    out[i] = log_ ? v - lse : std::exp(v - lse);
  }
  return out;
}

}  // namespace

TEST_CASE("softmax: dims 0/1/-1 of a 3-D tensor vs double; rows sum to 1") {
  on_each_backend([] {
    Tensor x = leaf({3, 4, 5}, -4.0, 4.0, 21, false);
    for (int64_t d : {0, 1, 2, -1, -2, -3}) {
      CAPTURE(d);
      Tensor y = softmax(x, d);
      CHECK(y.shape() == x.shape());
      check_values(y, softmax_ref(x, d, false));
      check_values(log_softmax(x, d), softmax_ref(x, d, true));
      const int64_t dn = d < 0 ? d + 3 : d;
      for (const V& g : groups(y, {dn})) CHECK(g_sum(g) == doctest::Approx(1.0).epsilon(1e-5));
    }
    // Non-contiguous input.
    Tensor t = transpose(x, 0, 2);
    check_values(softmax(t, 1), softmax_ref(t, 1, false));
    check_values(log_softmax(t, -1), softmax_ref(t, -1, true));
  });
}

TEST_CASE("softmax: extreme logits, -inf entries, 0-d and empty inputs") {
  on_each_backend([] {
    Tensor big = from({2, 3}, {1e4f, -1e4f, 0, -1e4f, -1e4f, -1e4f});
    Tensor y = softmax(big, 1);
    for (int64_t i = 0; i < 6; ++i) CHECK(std::isfinite(y.at(i)));
    check_values(y, {1, 0, 0, 1.0 / 3, 1.0 / 3, 1.0 / 3}, 1e-6);
    Tensor ly = log_softmax(big, 1);
    for (int64_t i = 0; i < 6; ++i) CHECK(std::isfinite(ly.at(i)));
    check_values(ly, {0, -2e4, -1e4, -std::log(3.0), -std::log(3.0), -std::log(3.0)}, 1e-6);
    const float ninf = -std::numeric_limits<float>::infinity();
    Tensor mixed = from({1, 3}, {ninf, 0, 0});
    check_values(softmax(mixed, -1), {0, 0.5, 0.5});
    check_values(log_softmax(mixed, -1), {-kInf, -std::log(2.0), -std::log(2.0)});
    CHECK(softmax(scalar_tensor(3.0), 0).item() == 1.0);
    CHECK(log_softmax(scalar_tensor(3.0), -1).item() == 0.0);
    CHECK(softmax(Tensor::empty({0, 4}), 1).shape() == Shape{0, 4});
    CHECK(softmax(Tensor::empty({2, 0}), 1).shape() == Shape{2, 0});
    CHECK_ERROR(softmax(big, 2), "softmax: dim 2 is out of range");
    CHECK_ERROR(log_softmax(ints({2}, {1, 2}), 0), "logSoftmax: expected a floating point");
  });
}

TEST_CASE("softmax: gradchecks over every dim of a 3-D tensor") {
  using Ins = std::vector<Tensor>;
  for (int64_t d : {0, 1, 2, -1}) {
    CAPTURE(d);
    gradcheck("softmax", [d](Ins& in) { return softmax(in[0], d); }, {leaf({3, 4, 5}, -2, 2)});
    gradcheck("log_softmax", [d](Ins& in) { return log_softmax(in[0], d); }, {leaf({3, 4, 5}, -2, 2)});
  }
  gradcheck("softmax_1d", [](Ins& in) { return softmax(in[0], 0); }, {leaf({7}, -2, 2)});
  gradcheck("log_softmax_view", [](Ins& in) { return log_softmax(transpose(in[0], 0, 1), 1); },
            {leaf({5, 3}, -2, 2)});
  // The gradient of Σ softmax is 0 (hand value).
  Tensor x = leaf({2, 3}, -1, 1, 9);
  Tensor g = grad_of([](const Tensor& t) { return sum(softmax(t, 1)); }, x);
  for (int64_t i = 0; i < 6; ++i) CHECK(std::fabs(g.at(i)) < 1e-6);
}

TEST_CASE("scan: cumsum and cumprod: gradients, exact zeros in cumprod, int32 wrapping") {
  using Ins = std::vector<Tensor>;
  sgtest::on_each_backend([] {
    gradcheck("cumsum dim 1", [](Ins& in) { return cumsum(in[0], 1); }, {leaf({2, 4, 3}, -1, 1, 9)});
    gradcheck("cumsum dim 0", [](Ins& in) { return cumsum(in[0], -3); }, {leaf({3, 2, 2}, -1, 1, 10)});
    gradcheck("cumprod", [](Ins& in) { return cumprod(in[0], 1); }, {leaf({2, 5}, 0.5, 1.5, 11)});
    // cumprod is a polynomial: central differences are exact at zeros, one or several.
    gradcheck("cumprod with zeros", [](Ins& in) { return cumprod(in[0], 1); },
              {from({3, 4}, {2, 0, 3, 0.5f, 0, 0, 2, 1, 1.5f, -2, 0, 4}, true)});
  });
  const Tensor big = ints({3}, {2147483647, 1, 5});
  CHECK(values(cumsum(big, 0)) == std::vector<double>{2147483647, -2147483648.0, -2147483643.0});
  CHECK(cumsum(sgtest::bools({3}, {1, 0, 1}), 0).dtype() == DType::Int32);
  CHECK(values(cumprod(ints({4}, {65536, 65536, 3, 0}), 0)) == std::vector<double>{65536, 0, 0, 0});
  CHECK(cumsum(scalar_tensor(2.5), 0).item() == 2.5);
  CHECK(cumsum(zeros({2, 0}), 1).shape() == Shape{2, 0});
}

TEST_CASE("sort: stable both ways, NaN above every number; topk and argsort") {
  using Ins = std::vector<Tensor>;
  const Tensor x = from({7}, {1, NAN, 0, 1, NAN, -1, 0});
  const Sorted up = sort(x);
  CHECK(values(up.indices) == std::vector<double>{5, 2, 6, 0, 3, 1, 4});
  const Sorted down = sort(x, -1, true);
  CHECK(values(down.indices) == std::vector<double>{1, 4, 0, 3, 2, 6, 5});
  CHECK(std::isnan(down.values.at(0)));
  CHECK(values(argsort(sgtest::bools({4}, {1, 0, 1, 0}))) == std::vector<double>{1, 3, 0, 2});
  const Tensor m = from({2, 3}, {3, 1, 2, 0, 5, 5});
  CHECK(values(topk(m, 2, 1).indices) == std::vector<double>{0, 2, 1, 2});
  CHECK(values(topk(m, 1, 0, false).values) == std::vector<double>{0, 1, 2});
  CHECK(topk(m, 0).values.shape() == Shape{2, 0});
  CHECK(values(argsort(ints({2, 2}, {5, -1, 2, 9}), 0, true)) == std::vector<double>{0, 1, 1, 0});
  sgtest::on_each_backend([] {
    gradcheck("sort values", [](Ins& in) { return sort(in[0], 1, true).values; }, {leaf({3, 5}, -1, 1, 12)});
    gradcheck("topk values", [](Ins& in) { return topk(in[0], 2, 0).values; }, {leaf({4, 3}, -1, 1, 13)});
  });
}
