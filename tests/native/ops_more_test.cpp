// The ops of ops/ops_more.h beyond the PyTorch reference cases (ops_more_ref_test.cpp): gradients
// against central differences, the semantics PyTorch fixes (rounding half to even, NaN order,
// stability, wrapping, empty inputs, duplicate indices), sampling statistics and reproducibility,
// and the error messages of bad arguments.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/rng.h"
#include "gradcheck.h"
#include "ops/ops.h"
#include "ops/ops_more.h"
#include "ops/registry.h"
#include "test_util.h"

using namespace sg;
using sgtest::check_error;
using sgtest::from;
using sgtest::gradcheck;
using sgtest::ints;
using sgtest::leaf;

namespace {

using Ins = std::vector<Tensor>;

std::vector<double> values(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.at(i));
  return v;
}

// A leaf from explicit values.
Tensor vals(const Shape& shape, const std::vector<float>& v) { return from(shape, v, true); }

Attrs attrs(std::initializer_list<std::pair<std::string, AttrValue>> kv) {
  Attrs a;
  for (const auto& [k, v] : kv) a.set(k, v);
  return a;
}

std::string error_of(const std::string& op, const Ins& in, const Attrs& a) {
  return sgtest::error_of([&] { call_op(op, in, a); });
}

}  // namespace

TEST_CASE("ops_more: elementwise gradients match central differences") {
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
      gradcheck("rounding", [fn](Ins& in) { return fn(in[0]); }, {vals({4}, {-1.3f, -0.2f, 0.7f, 2.4f})});
    gradcheck("hardtanh inside and beyond the bounds", [](Ins& in) { return hardtanh(in[0], -0.5, 1.5); },
              {vals({5}, {-1.0f, -0.3f, 0.4f, 1.2f, 2.0f})});
  });
}

TEST_CASE("ops_more: hardtanh's gradient is 0 exactly at min and max (PyTorch's hardtanh_backward)") {
  Tensor x = vals({5}, {-1.0f, -0.5f, 0.0f, 1.0f, 6.0f});
  sum(hardtanh(x)).backward();
  CHECK(values(x.grad()) == std::vector<double>{0, 1, 1, 0, 0});
  Tensor y = vals({4}, {0.0f, 3.0f, 6.0f, 7.0f});
  sum(hardtanh(y, 0, 6)).backward();  // relu6
  CHECK(values(y.grad()) == std::vector<double>{0, 1, 0, 0});
  CHECK(values(hardtanh(ints({3}, {-4, 0, 9}), -2, 5)) == std::vector<double>{-2, 0, 5});
}

TEST_CASE("ops_more: rounding is half to even and keeps integers; math of int32 is float32") {
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

TEST_CASE("ops_more: logical ops treat nonzero and NaN as true; any/all of empty tensors") {
  const Tensor a = from({4}, {0.0f, NAN, -0.0f, 2.0f});
  const Tensor b = sgtest::bools({4}, {1, 1, 1, 0});
  CHECK(values(logical_and(a, b)) == std::vector<double>{0, 1, 0, 0});
  CHECK(values(logical_or(a, b)) == std::vector<double>{1, 1, 1, 1});
  CHECK(values(logical_xor(a, b)) == std::vector<double>{1, 0, 1, 1});
  CHECK(values(logical_not(a)) == std::vector<double>{1, 0, 1, 0});
  CHECK(logical_not(ints({2}, {0, 5})).dtype() == DType::Bool);
  CHECK(any(zeros({0})).item() == 0);
  CHECK(all(zeros({0})).item() == 1);
  CHECK(values(all(zeros({2, 0}), {1})) == std::vector<double>{1, 1});
  CHECK(values(any(from({2, 2}, {0, 1, 0, 0}), {1}, true)) == std::vector<double>{1, 0});
  CHECK(any(from({2, 2}, {0, 1, 0, 0}), {1}, true).shape() == Shape{2, 1});
}

TEST_CASE("ops_more: scans: gradients, exact zeros in cumprod, int32 wrapping") {
  sgtest::on_each_backend([] {
    gradcheck("cumsum dim 1", [](Ins& in) { return cumsum(in[0], 1); }, {leaf({2, 4, 3}, -1, 1, 9)});
    gradcheck("cumsum dim 0", [](Ins& in) { return cumsum(in[0], -3); }, {leaf({3, 2, 2}, -1, 1, 10)});
    gradcheck("cumprod", [](Ins& in) { return cumprod(in[0], 1); }, {leaf({2, 5}, 0.5, 1.5, 11)});
    // cumprod is a polynomial: central differences are exact at zeros, one or several.
    gradcheck("cumprod with zeros", [](Ins& in) { return cumprod(in[0], 1); },
              {vals({3, 4}, {2, 0, 3, 0.5f, 0, 0, 2, 1, 1.5f, -2, 0, 4})});
  });
  const Tensor big = ints({3}, {2147483647, 1, 5});
  CHECK(values(cumsum(big, 0)) == std::vector<double>{2147483647, -2147483648.0, -2147483643.0});
  CHECK(cumsum(sgtest::bools({3}, {1, 0, 1}), 0).dtype() == DType::Int32);
  CHECK(values(cumprod(ints({4}, {65536, 65536, 3, 0}), 0)) == std::vector<double>{65536, 0, 0, 0});
  CHECK(cumsum(scalar_tensor(2.5), 0).item() == 2.5);
  CHECK(cumsum(zeros({2, 0}), 1).shape() == Shape{2, 0});
}

TEST_CASE("ops_more: sort is stable both ways, NaN above every number; topk and argsort") {
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

TEST_CASE("ops_more: scatter and scatterAdd: gradients, duplicates, values") {
  const Tensor idx = ints({2, 3}, {2, 0, 1, 0, 2, 2});
  sgtest::on_each_backend([&] {
    gradcheck("scatter", [&](Ins& in) { return scatter(in[0], 0, idx, in[1]); },
              {leaf({3, 3}, -1, 1, 14), leaf({2, 4}, -1, 1, 15)});
    gradcheck("scatterAdd", [&](Ins& in) { return scatter_add(in[0], 0, idx, in[1]); },
              {leaf({3, 3}, -1, 1, 16), leaf({3, 3}, -1, 1, 17)});
  });
  // Duplicates: the last write (row-major) wins; scatterAdd accumulates.
  const Tensor dup = ints({3}, {1, 1, 1});
  CHECK(values(scatter(zeros({3}), 0, dup, from({3}, {4, 5, 6}))) == std::vector<double>{0, 6, 0});
  CHECK(values(scatter_add(zeros({3}), 0, dup, from({3}, {4, 5, 6}))) == std::vector<double>{0, 15, 0});
  // A 0-d src is one value for every index.
  CHECK(values(scatter(zeros({2, 2}), 1, ints({2, 1}, {1, 0}), scalar_tensor(7))) == std::vector<double>{0, 7, 7, 0});
  CHECK(values(scatter_add(ints({2}, {1, 2}), 0, ints({2}, {1, 1}), ints({2}, {3, 4}))) == std::vector<double>{1, 9});
}

TEST_CASE("ops_more: scatterReduce: gradients of every reduction, values by hand") {
  const Tensor idx = ints({2, 3}, {2, 0, 2, 0, 2, 2});  // no ties: the random values are distinct
  sgtest::on_each_backend([&] {
    for (const char* reduce : {"sum", "prod", "mean", "amax", "amin"})
      for (const bool self : {true, false})
        gradcheck((std::string("scatterReduce ") + reduce + (self ? "" : " without self")).c_str(),
                  [&](Ins& in) { return scatter_reduce(in[0], 0, idx, in[1], reduce, self); },
                  {leaf({3, 3}, 0.5, 1.5, 18), leaf({2, 4}, -1.5, -0.5, 19)});
  });
  // Computed by hand (and by torch 1.13): int32 mean rounds down; without self the input's value
  // is left out where values arrive, kept where none do.
  const Tensor x = ints({4}, {5, -7, 3, 0}), i = ints({5}, {0, 0, 1, 1, 2}), s = ints({5}, {2, 4, -4, 1, 9});
  CHECK(values(scatter_reduce(x, 0, i, s, "mean")) == std::vector<double>{3, -4, 6, 0});
  CHECK(values(scatter_reduce(x, 0, i, s, "mean", false)) == std::vector<double>{3, -2, 9, 0});
  CHECK(values(scatter_reduce(x, 0, i, s, "prod")) == std::vector<double>{40, 28, 27, 0});
  CHECK(values(scatter_reduce(x, 0, i, s, "amax", false)) == std::vector<double>{4, 1, 9, 0});
  CHECK(values(scatter_reduce(from({3}, {1, 2, 3}), -1, ints({2}, {2, 2}), from({2}, {0.5, 0.25}), "amin")) ==
        std::vector<double>{1, 2, 0.25});
}

TEST_CASE("ops_more: triangles, diagonals, outer: gradients and dtypes") {
  sgtest::on_each_backend([] {
    for (int64_t k : {-1, 0, 2}) {
      gradcheck("tril", [k](Ins& in) { return tril(in[0], k); }, {leaf({2, 3, 4}, -1, 1, 18)});
      gradcheck("triu", [k](Ins& in) { return triu(in[0], k); }, {leaf({3, 4}, -1, 1, 19)});
      gradcheck("diag 1-D", [k](Ins& in) { return diag(in[0], k); }, {leaf({3}, -1, 1, 20)});
      gradcheck("diag 2-D", [k](Ins& in) { return diag(in[0], k); }, {leaf({3, 4}, -1, 1, 21)});
    }
    gradcheck("outer", [](Ins& in) { return outer(in[0], in[1]); }, {leaf({3}, -1, 1, 22), leaf({2}, -1, 1, 23)});
  });
  CHECK(tril(sgtest::bools({2, 2}, {1, 1, 1, 1})).dtype() == DType::Bool);
  CHECK(values(triu(ints({2, 2}, {1, 2, 3, 4}))) == std::vector<double>{1, 2, 0, 4});
  CHECK(values(diag(ints({2}, {5, 6}), 1)) == std::vector<double>{0, 5, 0, 0, 0, 6, 0, 0, 0});
  CHECK(diag(zeros({2, 3}), 3).shape() == Shape{0});
  CHECK(diag(zeros({0}), 2).shape() == Shape{2, 2});
  // diag of a matrix is a new tensor, not a view.
  const Tensor m = from({2, 2}, {1, 2, 3, 4});
  CHECK(diag(m).impl()->storage != m.impl()->storage);
}

TEST_CASE("ops_more: einsum's forms against matmul, and their gradients") {
  const Tensor a = leaf({3, 4}, -1, 1, 24, false), b = leaf({4, 5}, -1, 1, 25, false);
  const Tensor want = matmul(a, b), got = einsum("ij,jk->ik", {a, b});
  REQUIRE(got.shape() == want.shape());
  for (int64_t i = 0; i < got.numel(); ++i) CHECK(got.at(i) == doctest::Approx(want.at(i)).epsilon(1e-6));
  CHECK(einsum("ii", {from({2, 2}, {1, 2, 3, 4})}).item() == 5);  // the trace
  CHECK(einsum(" i j -> j i ", {a}).shape() == Shape{4, 3});
  CHECK(einsum("ij->ji", {a}).impl()->storage != a.impl()->storage);
  sgtest::on_each_backend([] {
    const std::vector<std::pair<std::string, std::vector<Shape>>> forms = {
        {"bij,bjk->bik", {{2, 3, 4}, {2, 4, 2}}},
        {"bhqd,bhkd->bhqk", {{1, 2, 3, 2}, {1, 2, 4, 2}}},
        {"ii->i", {{3, 3}}},
        {"iji->j", {{2, 3, 2}}},
        {"...ij,...jk", {{2, 1, 2, 3}, {3, 3, 2}}},
        {"bn,anm,bm->ba", {{2, 3}, {2, 3, 2}, {2, 2}}},
        {"i,j", {{3}, {2}}},
        {"ij,ij->", {{2, 3}, {1, 3}}},
    };
    unsigned seed = 30;
    for (const auto& [eq, shapes] : forms) {
      Ins in;
      for (const Shape& s : shapes) in.push_back(leaf(s, -1, 1, seed++));
      gradcheck("einsum " + eq, [eq = eq](Ins& t) { return einsum(eq, t); }, in);
    }
  });
}

TEST_CASE("ops_more: flip, roll, repeat, tile: values, gradients, fresh tensors") {
  const Tensor x = from({2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(values(flip(x, {0, 1})) == std::vector<double>{6, 5, 4, 3, 2, 1});
  CHECK(values(roll(x, {1})) == std::vector<double>{6, 1, 2, 3, 4, 5});
  CHECK(values(roll(x, {-1, 4}, {0, 1})) == std::vector<double>{6, 4, 5, 3, 1, 2});
  CHECK(values(repeat(from({2}, {1, 2}), {2, 2})) == std::vector<double>{1, 2, 1, 2, 1, 2, 1, 2});
  CHECK(repeat(x, {2, 0}).shape() == Shape{4, 0});
  CHECK(tile(x, {2}).shape() == Shape{2, 6});
  for (const Tensor& t : {flip(x, {}), roll(x, {0}), repeat(x, {1, 1}), roll(x, {3}, {1})})
    CHECK(t.impl()->storage != x.impl()->storage);
  sgtest::on_each_backend([] {
    gradcheck("flip", [](Ins& in) { return flip(in[0], {0, -1}); }, {leaf({2, 3, 2}, -1, 1, 40)});
    gradcheck("roll", [](Ins& in) { return roll(in[0], {2, -1}, {1, 0}); }, {leaf({3, 4}, -1, 1, 41)});
    gradcheck("roll flat", [](Ins& in) { return roll(in[0], {-4}); }, {leaf({3, 2}, -1, 1, 42)});
    gradcheck("repeat", [](Ins& in) { return repeat(in[0], {2, 1, 3}); }, {leaf({2, 2}, -1, 1, 43)});
    gradcheck("tile", [](Ins& in) { return tile(in[0], {3}); }, {leaf({2, 2}, -1, 1, 44)});
  });
}

TEST_CASE("ops_more: select and index are views with slice semantics") {
  using K = IndexItem::Kind;
  const Tensor x = leaf({2, 3, 4}, -1, 1, 50, false);
  const Tensor s = select(x, 1, -1);
  CHECK(s.shape() == Shape{2, 4});
  CHECK(s.impl()->storage == x.impl()->storage);
  // x[:, -1, :3]
  const Tensor v = index(x, {{K::All}, {K::At, -1}, {K::Range, 0, std::nullopt, 3}});
  CHECK(v.shape() == Shape{2, 3});
  CHECK(v.at(4) == x.at(1 * 12 + 2 * 4 + 1));
  // x[..., ::2], x[1], x[-9:99] (clamped), x[...]
  CHECK(index(x, {{K::Ellipsis}, {K::Range, 0, std::nullopt, std::nullopt, 2}}).shape() == Shape{2, 3, 2});
  CHECK(index(x, {{K::At, 1}}).shape() == Shape{3, 4});
  CHECK(index(x, {{K::Range, 0, -9, 99}}).shape() == Shape{2, 3, 4});
  CHECK(index(x, {{K::Ellipsis}}).shape() == Shape{2, 3, 4});
  CHECK_FALSE(index(x, {}).same(x));  // a view of x, not x itself
  CHECK(index(x, {}).impl()->storage == x.impl()->storage);
  CHECK(index(x, {{K::Range, 0, 0, 1}, {K::Ellipsis}, {K::At, 0}}).shape() == Shape{1, 3});
  sgtest::on_each_backend([] {
    gradcheck("select", [](Ins& in) { return select(in[0], 0, 1); }, {leaf({2, 3}, -1, 1, 51)});
    gradcheck("index", [](Ins& in) {
      return index(in[0], {{K::Range, 0, 1, std::nullopt, 1}, {K::At, -1}, {K::Range, 0, std::nullopt, std::nullopt, 2}});
    }, {leaf({2, 3, 4}, -1, 1, 52)});
  });
}

TEST_CASE("ops_more: bernoulli: seeded, exact at 0 and 1, frequencies, gradient zero") {
  manual_seed(5);
  const Tensor p = full({20000}, 0.3);
  const Tensor a = bernoulli(p);
  manual_seed(5);
  const Tensor b = bernoulli(p);
  CHECK(values(a) == values(b));
  double ones = 0;
  for (double v : values(a)) {
    CHECK((v == 0 || v == 1));
    ones += v;
  }
  // Binomial(20000, 0.3): sd ≈ 64.8; 5 sd.
  CHECK(std::fabs(ones - 6000) < 325);
  CHECK(values(bernoulli(from({4}, {0, 1, 0, 1}))) == std::vector<double>{0, 1, 0, 1});
  double with_p = 0;
  for (double v : values(bernoulli(zeros({10000}), 0.75))) with_p += v;
  CHECK(std::fabs(with_p - 7500) < 5 * 43.3);
  Tensor q = from({3}, {0.2f, 0.5f, 0.9f}, true);
  const Tensor draw = bernoulli(q);
  CHECK(draw.requires_grad());
  sum(draw).backward();
  CHECK(values(q.grad()) == std::vector<double>{0, 0, 0});
  CHECK(sgtest::error_of([] { bernoulli(from({2}, {0.5f, 1.5f})); }) ==
        "bernoulli: expected probabilities in [0, 1], got 1.5");
}

TEST_CASE("ops_more: multinomial: seeded, frequencies, zero weights, without replacement") {
  const Tensor w = from({2, 4}, {1, 0, 3, 4, 0, 0, 5, 0});
  manual_seed(9);
  const Tensor a = multinomial(w, 6000, true);
  manual_seed(9);
  CHECK(values(multinomial(w, 6000, true)) == values(a));
  CHECK(a.shape() == Shape{2, 6000});
  CHECK(a.dtype() == DType::Int32);
  std::map<int, int> row0;
  for (int64_t i = 0; i < 6000; ++i) {
    ++row0[int(a.at(i))];
    CHECK(a.at(6000 + i) == 2);  // the only category with weight in row 1
  }
  CHECK(row0.count(1) == 0);
  // Expected 750, 2250, 3000 (weights 1:3:4 of 8): within 5 binomial sds.
  CHECK(std::fabs(row0[0] - 750) < 5 * 25.6);
  CHECK(std::fabs(row0[2] - 2250) < 5 * 37.5);
  CHECK(std::fabs(row0[3] - 3000) < 5 * 38.7);
  // Without replacement: distinct, nonzero-weight categories; over many draws the first pick
  // follows the weights.
  std::map<int, int> first;
  for (int rep = 0; rep < 4000; ++rep) {
    const Tensor d = multinomial(from({4}, {1, 0, 3, 4}), 3, false);
    std::set<int> seen;
    for (int64_t i = 0; i < 3; ++i) seen.insert(int(d.at(i)));
    CHECK(seen == std::set<int>{0, 2, 3});
    ++first[int(d.at(0))];
  }
  CHECK(std::fabs(first[3] - 2000) < 5 * 31.6);
  CHECK(std::fabs(first[0] - 500) < 5 * 20.9);
}

TEST_CASE("ops_more: bad arguments are errors naming the op, what was expected and what was got") {
  const Tensor x = from({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor idx = ints({1, 2}, {0, 3});
  check_error([&] { call_op("scatter", {x, idx, x}, attrs({{"dim", 1.0}})); },
              "scatter: index 3 is out of bounds for dim 1 with size 3");
  check_error([&] { call_op("scatterAdd", {x, ints({1, 1}, {-1}), x}, attrs({{"dim", 0.0}})); },
              "scatterAdd: index -1 is out of bounds for dim 0 with size 2");
  check_error([&] { call_op("scatterReduce", {x, idx, x}, attrs({{"dim", 1.0}, {"reduce", std::string("amax")}})); },
              "scatterReduce: index 3 is out of bounds for dim 1 with size 3");
  check_error([&] { call_op("scatterReduce", {x, ints({1, 1}, {0}), x}, attrs({{"dim", 1.0}, {"reduce", std::string("max")}})); },
              "scatterReduce: expected reduce 'sum', 'prod', 'mean', 'amax' or 'amin', got 'max'");
  check_error([&] { call_op("scatter", {x, from({1, 1}, {0}), x}, attrs({{"dim", 0.0}})); },
              "scatter: expected an int32 index tensor, got float32");
  check_error([&] { call_op("scatter", {x, ints({2}, {0, 1}), x}, attrs({{"dim", 0.0}})); },
              "scatter: index must have as many dims as the input (2), got shape [2] for input shape [2, 3]");
  check_error([&] { call_op("scatter", {x, ints({1, 1}, {0}), ints({1, 1}, {0})}, attrs({{"dim", 0.0}})); },
              "scatter: expected src of the input's dtype (float32), got int32");
  check_error([&] { call_op("topk", {x}, attrs({{"k", 4.0}})); },
              "topk: k (4) is out of range for dim 1 of size 3 (expected k in [0, 3])");
  check_error([&] { call_op("cumsum", {x}, attrs({{"dim", 2.0}})); },
              "cumsum: dim 2 is out of range for a tensor with 2 dims (expected a dim in [-2, 1])");
  CHECK(error_of("cumsum", {x}, {}) == "cumsum: missing argument 'dim'");
  check_error([&] { call_op("tril", {from({3}, {1, 2, 3})}, {}); },
              "tril: expected a tensor of at least 2 dims, got shape [3]");
  check_error([&] { call_op("diag", {zeros({2, 2, 2})}, {}); }, "diag: expected a 1-D or 2-D tensor, got shape [2, 2, 2]");
  check_error([&] { call_op("outer", {x, x}, {}); }, "outer: expected two 1-D tensors, got shapes [2, 3] and [2, 3]");
  check_error([&] { call_op("flip", {x}, attrs({{"dims", std::vector<double>{1, -1}}})); },
              "flip: dim 1 appears more than once in dims [1, -1]");
  check_error([&] { call_op("roll", {x}, attrs({{"shifts", std::vector<double>{1, 2}}})); },
              "roll: without dims, expected one shift (over the flattened tensor), got [1, 2]");
  check_error([&] { call_op("repeat", {x}, attrs({{"repeats", std::vector<double>{2}}})); },
              "repeat: expected at least as many repeat counts as the tensor has dims (2), got 1 ([2])");
  check_error([&] { call_op("tile", {x}, attrs({{"repeats", std::vector<double>{2, -1}}})); },
              "tile: expected non-negative repeat counts, got [2, -1]");
  check_error([&] { call_op("select", {x}, attrs({{"dim", 1.0}, {"index", 3.0}})); },
              "select: index 3 is out of range for dim 1 of size 3 (expected an index in [-3, 2])");
  check_error([&] { call_op("index", {x}, attrs({{"items", std::vector<double>{1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1}}})); },
              "index: too many indices for a tensor of 2 dims (shape [2, 3]): got 3");
  check_error([&] { call_op("index", {x}, attrs({{"items", std::vector<double>{0, 0, 0, 1, 1, -4, 0, 1}}})); },
              "index: index -4 is out of range for dim 1 of size 3 (expected an index in [-3, 2])");
  check_error([&] { call_op("index", {x}, attrs({{"items", std::vector<double>{2, 0, 5, 0}}})); },
              "index: expected a positive step in the range for dim 0, got 0");
  check_error([&] { call_op("index", {x}, attrs({{"items", std::vector<double>{3, 0, 0, 1, 3, 0, 0, 1}}})); },
              "index: expected at most one '...', got 2");
  check_error([&] { call_op("einsum", {x, x}, attrs({{"equation", std::string("ij,jk->ik")}})); },
              "einsum: label 'j' has sizes 3 and 2 in 'ij,jk->ik' (expected equal sizes, or 1 to broadcast)");
  check_error([&] { call_op("einsum", {x}, attrs({{"equation", std::string("ij,jk")}})); },
              "einsum: the equation 'ij,jk' has 2 operand terms but 1 tensors were given");
  check_error([&] { call_op("einsum", {x}, attrs({{"equation", std::string("i2")}})); },
              "einsum: invalid character '2' in equation 'i2' (expected letters, ',', '->' and '...')");
  check_error([&] { call_op("einsum", {x}, attrs({{"equation", std::string("ijk")}})); },
              "einsum: operand 0 has 2 dims but its term in 'ijk' names 3");
  check_error([&] { call_op("einsum", {x}, attrs({{"equation", std::string("ij->k")}})); },
              "einsum: output label 'k' does not occur in any operand of 'ij->k'");
  check_error([&] { call_op("einsum", {ints({2}, {1, 2})}, attrs({{"equation", std::string("i")}})); },
              "einsum: expected float32 operands, got int32 (operand 0)");
  check_error([&] { call_op("multinomial", {from({3}, {0, 1, 0})}, attrs({{"numSamples", 2.0}})); },
              "multinomial: cannot draw 2 samples without replacement from row 0, which has only 1 categories of "
              "nonzero probability");
  check_error([&] { call_op("multinomial", {from({2}, {0, 0})}, attrs({{"numSamples", 1.0}})); },
              "multinomial: invalid distribution in row 0: the probabilities sum to 0");
  check_error([&] { call_op("multinomial", {from({2}, {1, -1})}, attrs({{"numSamples", 1.0}})); },
              "multinomial: expected finite, non-negative probabilities, got -1 (row 0, category 1)");
  check_error([&] { call_op("multinomial", {x}, attrs({{"numSamples", 4.0}})); },
              "multinomial: cannot draw 4 samples without replacement from 3 categories");
  check_error([&] { call_op("multinomial", {x}, attrs({{"numSamples", 0.0}})); },
              "multinomial: expected a positive number of samples, got 0");
  check_error([&] { call_op("bernoulli", {x}, attrs({{"p", 2.0}})); }, "bernoulli: expected p in [0, 1], got 2");
  check_error([&] { call_op("hardtanh", {x}, attrs({{"minVal", 2.0}, {"maxVal", 1.0}})); },
              "hardtanh: expected minVal <= maxVal, got minVal 2 and maxVal 1");
  check_error([&] { call_op("logicalAnd", {x, from({2}, {1, 1})}, {}); },
              "logicalAnd: shapes [2, 3] and [2] cannot be broadcast together (3 vs 2 at dim 1)");
  check_error([&] { call_op("any", {x}, attrs({{"dim", 2.0}})); },
              "any: dim 2 is out of range for a tensor with 2 dims (expected a dim in [-2, 1])");
  // The module still computes after every failure above.
  CHECK(sum(x).item() == 21);
}
