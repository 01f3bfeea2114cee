// index_select, gather and pad: hand-computed values, naive independent loops, error messages,
// hand-computed gradients with repeated indices/border copies, and gradchecks. Then gather's
// inverses scatter, scatter_add and scatter_reduce (scatter.cpp).
#include <doctest/doctest.h>

#include <algorithm>

#include "core/copy.h"
#include "gradcheck.h"
#include "test_util.h"
#include "ops/ops.h"

using namespace sg;
using sgtest::expect_values;
using sgtest::from;
using sgtest::gradcheck;
using sgtest::ints;
using sgtest::iota;
using sgtest::leaf;
using sgtest::values;

namespace {

// Gradient of sum(f(x) * ones) w.r.t. a fresh leaf copy of x.
Tensor grad_of_ones(const Tensor& x_values, const std::function<Tensor(const Tensor&)>& f) {
  Tensor x = contiguous_copy(x_values);
  x.set_requires_grad(true);
  Tensor y = f(x);
  y.backward(ones(y.shape()));
  return x.grad();
}

}  // namespace

// ---------------------------------------------------------------- index_select

TEST_CASE("index: index_select values") {
  Tensor x = iota({3, 4});
  expect_values(index_select(x, 0, ints({3}, {2, 0, 2})), {3, 4}, {8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11});
  expect_values(index_select(x, 1, ints({2}, {3, 1})), {3, 2}, {3, 1, 7, 5, 11, 9});
  expect_values(index_select(x, -1, ints({1}, {0})), {3, 1}, {0, 4, 8});
  CHECK(index_select(x, 0, ints({0}, {})).shape() == Shape{0, 4});
  // a strided input: rows of the transpose are columns of x
  expect_values(index_select(transpose(x, 0, 1), 0, ints({2}, {1, 3})), {2, 3}, {1, 5, 9, 3, 7, 11});
  // 3-D, middle dim
  Tensor y = iota({2, 3, 2});
  expect_values(index_select(y, 1, ints({2}, {2, 2})), {2, 2, 2}, {4, 5, 4, 5, 10, 11, 10, 11});
  // int and bool inputs keep their dtype
  Tensor xi = ints({3}, {10, 20, 30});
  Tensor si = index_select(xi, 0, ints({2}, {2, 0}));
  CHECK(si.dtype() == DType::Int32);
  expect_values(si, {2}, {30, 10});
  Tensor b = cast(ints({3}, {0, 1, 0}), DType::Bool);
  expect_values(index_select(b, 0, ints({3}, {1, 1, 0})), {3}, {1, 1, 0});
  // a 0-d index selects one row
  expect_values(index_select(x, 0, scalar_tensor(1, DType::Int32)), {1, 4}, {4, 5, 6, 7});
}

TEST_CASE("index: index_select errors") {
  Tensor x = iota({3, 4});
  CHECK_ERROR(index_select(x, 0, ints({2}, {0, 5})),
              "indexSelect: index 5 is out of bounds for dim 0 with size 3");
  CHECK_ERROR(index_select(x, 0, ints({1}, {-1})), "indexSelect: index -1 is out of bounds");
  CHECK_ERROR(index_select(x, 1, ints({1}, {4})), "index 4 is out of bounds for dim 1 with size 4");
  CHECK_ERROR(index_select(x, 0, from({1}, {0})),
              "indexSelect: expected an int32 index tensor, got float32");
  CHECK_ERROR(index_select(x, 0, ints({1, 1}, {0})), "expected a 1-D index tensor");
  CHECK_ERROR(index_select(x, 2, ints({1}, {0})), "out of range");
}

TEST_CASE("index: index_select gradient accumulates repeated indices") {
  Tensor g = grad_of_ones(iota({3, 2}), [](const Tensor& x) {
    return index_select(x, 0, ints({4}, {0, 2, 0, 0}));
  });
  expect_values(g, {3, 2}, {3, 3, 0, 0, 1, 1});
  Tensor idx = ints({5}, {1, 1, 0, 3, 1});
  gradcheck("index_select dim 1 duplicates", [idx](auto& in) { return index_select(in[0], 1, idx); },
            {leaf({2, 4, 3})});
  gradcheck("index_select dim -1", [idx](auto& in) { return index_select(in[0], -1, idx); }, {leaf({3, 4})});
  CHECK(index_select(leaf({3}), 0, ints({1}, {0})).grad_fn() != nullptr);
}

// ---------------------------------------------------------------- gather

TEST_CASE("index: gather values") {
  // PyTorch's documentation example.
  Tensor x = from({2, 2}, {1, 2, 3, 4});
  expect_values(gather(x, 1, ints({2, 2}, {0, 0, 1, 0})), {2, 2}, {1, 1, 4, 3});
  Tensor y = iota({3, 3});
  expect_values(gather(y, 0, ints({2, 3}, {0, 1, 2, 2, 0, 0})), {2, 3}, {0, 4, 8, 6, 1, 2});
  // index smaller than the input in the other dims
  expect_values(gather(iota({3, 4}), 1, ints({2, 2}, {3, 0, 1, 1})), {2, 2}, {3, 0, 5, 5});
  // against a naive loop: 3-D, gather along the middle dim, strided input
  Tensor z = permute(iota({4, 2, 3}), {1, 0, 2});  // [2, 4, 3]
  std::vector<int32_t> iv;
  for (int i = 0; i < 2 * 5 * 3; ++i) iv.push_back((i * 7 + 3) % 4);
  Tensor idx = ints({2, 5, 3}, iv);
  Tensor got = gather(z, 1, idx);
  REQUIRE(got.shape() == Shape{2, 5, 3});
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 5; ++b)
      for (int c = 0; c < 3; ++c) {
        int k = iv[(a * 5 + b) * 3 + c];
        double want = z.at((a * 4 + k) * 3 + c);
        CHECK(got.at((a * 5 + b) * 3 + c) == want);
      }
  Tensor gi = gather(ints({3}, {7, 8, 9}), 0, ints({4}, {2, 2, 0, 1}));
  CHECK(gi.dtype() == DType::Int32);
  expect_values(gi, {4}, {9, 9, 7, 8});
}

TEST_CASE("index: gather errors") {
  Tensor x = iota({3, 4});
  CHECK_ERROR(gather(x, 1, ints({1, 1}, {4})), "gather: index 4 is out of bounds for dim 1 with size 4");
  CHECK_ERROR(gather(x, 0, ints({1, 1}, {-2})), "gather: index -2 is out of bounds");
  CHECK_ERROR(gather(x, 1, ints({2}, {0, 0})), "index must have as many dims as the input");
  CHECK_ERROR(gather(x, 1, ints({4, 1}, {0, 0, 0, 0})), "is larger than input shape [3, 4] at dim 0");
  CHECK_ERROR(gather(x, 1, cast(ints({3, 1}, {0, 0, 0}), DType::Bool)),
              "expected an int32 index tensor, got bool");
}

TEST_CASE("index: gather gradient accumulates repeated indices") {
  Tensor g = grad_of_ones(iota({2, 3}), [](const Tensor& x) {
    return gather(x, 1, ints({2, 4}, {0, 0, 2, 0, 1, 1, 1, 2}));
  });
  expect_values(g, {2, 3}, {3, 0, 1, 0, 3, 1});
  Tensor idx = ints({2, 3, 2}, {0, 3, 3, 3, 1, 2, 0, 0, 2, 1, 3, 3});
  gradcheck("gather dim 1", [idx](auto& in) { return gather(in[0], 1, idx); }, {leaf({2, 4, 3})});
  gradcheck("gather dim -1 of a transpose",
            [idx](auto& in) { return gather(transpose(in[0], 0, 2), -1, idx); }, {leaf({4, 3, 2})});
}

// ---------------------------------------------------------------- pad

namespace {
// Independent naive pad of the trailing dims of a float tensor (ndim ≤ 3 here), by mode.
double naive_at(const Tensor& x, const std::vector<int64_t>& pads, const std::string& mode, double value,
                std::vector<int64_t> out_idx) {
  int64_t nd = x.ndim();
  for (size_t j = 0; j < pads.size() / 2; ++j) {
    int64_t d = nd - 1 - int64_t(j), n = x.shape()[d];
    int64_t i = out_idx[d] - pads[2 * j];
    if (mode == "constant" && (i < 0 || i >= n)) return value;
    if (mode == "reflect") {
      if (i < 0) i = -i;
      if (i >= n) i = 2 * (n - 1) - i;
    }
    if (mode == "replicate") i = std::min<int64_t>(std::max<int64_t>(i, 0), n - 1);
    out_idx[d] = i;
  }
  int64_t flat = 0;
  for (int64_t d = 0; d < nd; ++d) flat = flat * x.shape()[d] + out_idx[d];
  return x.at(flat);
}

void check_against_naive(const Tensor& x, const std::vector<int64_t>& pads, const std::string& mode,
                         double value = 0) {
  Tensor out = pad(x, pads, mode, value);
  Shape want_shape = x.shape();
  for (size_t j = 0; j < pads.size() / 2; ++j) want_shape[x.ndim() - 1 - j] += pads[2 * j] + pads[2 * j + 1];
  REQUIRE(out.shape() == want_shape);
  for (int64_t f = 0; f < out.numel(); ++f) {
    std::vector<int64_t> idx(out.ndim());
    for (int64_t d = out.ndim(), r = f; d-- > 0;) {
      idx[d] = r % want_shape[d];
      r /= want_shape[d];
    }
    CHECK_MESSAGE(out.at(f) == naive_at(x, pads, mode, value, idx), mode << " at " << f);
  }
}
}  // namespace

TEST_CASE("pad: constant mode values and negative crops") {
  Tensor x = from({3}, {1, 2, 3});
  expect_values(pad(x, {2, 1}, "constant", 9), {6}, {9, 9, 1, 2, 3, 9});
  expect_values(pad(iota({2, 2}), {1, 0, 0, 2}), {4, 3}, {0, 0, 1, 0, 2, 3, 0, 0, 0, 0, 0, 0});
  Tensor y = from({4}, {1, 2, 3, 4});
  expect_values(pad(y, {-1, 2}), {5}, {2, 3, 4, 0, 0});
  expect_values(pad(y, {-1, -2}), {1}, {2});
  expect_values(pad(x, {2, -4}, "constant", 7), {1}, {7});  // [7 7 1 2 3] cropped by 4 on the right
  expect_values(pad(x, {}), {3}, {1, 2, 3});
  Tensor pi = pad(cast(x, DType::Int32), {1, 1}, "constant", -2);
  CHECK(pi.dtype() == DType::Int32);
  expect_values(pi, {5}, {-2, 1, 2, 3, -2});
  check_against_naive(iota({2, 3, 4}), {1, 2, 0, 1, 2, 0}, "constant", -1);
  check_against_naive(transpose(iota({3, 4}), 0, 1), {2, 1, 1, 3}, "constant", 5);
}

TEST_CASE("pad: reflect and replicate values") {
  Tensor y = from({4}, {1, 2, 3, 4});
  expect_values(pad(y, {2, 3}, "reflect"), {9}, {3, 2, 1, 2, 3, 4, 3, 2, 1});
  expect_values(pad(from({3}, {1, 2, 3}), {2, 1}, "replicate"), {6}, {1, 1, 1, 2, 3, 3});
  // 2-D reflect, worked out by hand: rows and cols both map [1, 0, 1, 2, 1]
  expect_values(pad(iota({3, 3}), {1, 1, 1, 0}, "reflect"), {4, 5},
                {4, 3, 4, 5, 4, 1, 0, 1, 2, 1, 4, 3, 4, 5, 4, 7, 6, 7, 8, 7});
  check_against_naive(iota({2, 3, 4}), {3, 1, 2, 0}, "reflect");
  check_against_naive(iota({2, 3, 4}), {1, 3, 2, 2, 1, 0}, "replicate");
  check_against_naive(iota({3, 5}), {-1, 2}, "reflect");
  check_against_naive(permute(iota({4, 3, 2}), {2, 1, 0}), {2, 2, 1, 1}, "replicate");
  check_against_naive(iota({2, 1, 3}), {0, 0, 2, 3}, "replicate");
}

TEST_CASE("pad: errors") {
  Tensor x = iota({2, 3});
  CHECK_ERROR(pad(x, {1}), "pad: padding length must be even");
  CHECK_ERROR(pad(x, {1, 1, 1, 1, 1, 1}), "is too large for a tensor with 2 dims");
  CHECK_ERROR(pad(x, {3, 0}, "reflect"),
              "pad: reflect padding (3, 0) must be less than the size of the padded dim (3");
  CHECK_ERROR(pad(x, {0, 0, 2, 0}, "reflect"), "must be less than the size of the padded dim (2 at dim 0");
  CHECK_ERROR(pad(x, {1, 1}, "circular"), "pad: unknown mode 'circular'");
  CHECK_ERROR(pad(x, {-2, -2}), "the padded size of dim 1 would be -1");
  CHECK_ERROR(pad(zeros({2, 0}), {1, 1}, "replicate"), "replicate padding needs a non-empty dim");
}

TEST_CASE("pad: gradients") {
  // reflect [2, 3] on 4 values reads sources [2 1 0 1 2 3 2 1 0]: counts 2, 3, 3, 1
  Tensor gr = grad_of_ones(from({4}, {1, 2, 3, 4}), [](const Tensor& x) {
    return pad(x, {2, 3}, "reflect");
  });
  expect_values(gr, {4}, {2, 3, 3, 1});
  // replicate [2, 1] on 3 values reads [0 0 0 1 2 2]: counts 3, 1, 2
  Tensor gp = grad_of_ones(from({3}, {1, 2, 3}), [](const Tensor& x) { return pad(x, {2, 1}, "replicate"); });
  expect_values(gp, {3}, {3, 1, 2});
  // constant with a crop: only the kept elements get gradient
  Tensor gc = grad_of_ones(from({4}, {1, 2, 3, 4}), [](const Tensor& x) {
    return pad(x, {-1, 2}, "constant", 5);
  });
  expect_values(gc, {4}, {0, 1, 1, 1});

  gradcheck("pad constant",
            [](auto& in) {
              return pad(in[0], {1, 2, -1, 1}, "constant", 0.5);
            },
            {leaf({2, 3, 4})});
  gradcheck("pad reflect 2 dims",
            [](auto& in) {
              return pad(in[0], {2, 1, 1, 2}, "reflect");
            },
            {leaf({2, 3, 4})});
  gradcheck("pad reflect crop", [](auto& in) { return pad(in[0], {-1, 2}, "reflect"); }, {leaf({2, 4})});
  gradcheck("pad replicate 3 dims",
            [](auto& in) {
              return pad(in[0], {1, 2, 2, 0, 1, 1}, "replicate");
            },
            {leaf({2, 2, 3})});
  gradcheck("pad reflect of a transpose",
            [](auto& in) {
              return pad(transpose(in[0], 0, 1), {1, 1}, "reflect");
            },
            {leaf({3, 4})});
}

TEST_CASE("index: scatter and scatter_add: gradients, duplicates, values") {
  using Ins = std::vector<Tensor>;
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

TEST_CASE("index: scatter_reduce: gradients of every reduction, values by hand") {
  using Ins = std::vector<Tensor>;
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

TEST_CASE("index: scatter_reduce prod: second derivatives, one zero a position, and PyTorch's error for two") {
  using Ins = std::vector<Tensor>;
  const Tensor idx = ints({2, 3}, {2, 0, 2, 0, 2, 2});
  sgtest::on_each_backend([&] {
    for (const bool self : {true, false})
      sgtest::gradgradcheck(std::string("scatterReduce prod") + (self ? "" : " without self"),
                            [&](Ins& in) { return scatter_reduce(in[0], 0, idx, in[1], "prod", self); },
                            {leaf({3, 3}, 0.5, 1.5, 18), leaf({2, 4}, -1.5, -0.5, 19)});
    // torch 1.13: x = [1, 2, 3], src = [0, 3, 2] to positions [0, 0, 1]: the gradient of
    // sum(d sum(out) / d src) with respect to src is [1, 1, 0] (d²(x0·s0·s1)/ds0 ds1 = x0 = 1).
    const Tensor x = from({3}, {1, 2, 3}, true), i = ints({3}, {0, 0, 1});
    const Tensor one_zero = from({3}, {0, 3, 2}, true);
    const Tensor g = compute_grads(sum(scatter_reduce(x, 0, i, one_zero, "prod")), Tensor(), {one_zero}, true, true)[0];
    CHECK(values(compute_grads(sum(g), Tensor(), {one_zero}, false)[0]) == std::vector<double>{1, 1, 0});
    // Two zeros to one position: torch 1.13 refuses the double backward ("Double backward is
    // unsupported for src when >1 zeros in src are scattered to the same position"); here already
    // when the first backward is recorded.
    const Tensor two_zeros = from({3}, {0, 0, 2}, true);
    CHECK_THROWS_WITH_AS(compute_grads(sum(scatter_reduce(x, 0, i, two_zeros, "prod")), Tensor(), {two_zeros}, true, true),
                         doctest::Contains("double backward of 'prod' is unsupported for src when more than one zero"), sg::Error);
  });
}
