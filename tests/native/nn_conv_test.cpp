// conv1d / conv2d / conv_transpose2d (src/nn/conv.cpp, conv_gemm.cpp):
//  - PyTorch's outputs and input/weight/bias gradients (tests/data/conv_pool_ref.json, written
//    by tests/data/gen_conv_pool.py) through the op registry, on every backend;
//  - hand-worked tiny cases;
//  - a sweep of stride/padding/dilation/groups/'same' configs against a naive double loop
//    written from the definition (gather form for conv, scatter form for the transpose);
//  - gradchecks per op and per option; error messages; the registry's attrs.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "conv_pool_ref.h"
#include "core/copy.h"
#include "core/error.h"
#include "autograd/grad_mode.h"
#include "gradcheck.h"
#include "test_util.h"
#include "kernels/backend.h"
#include "nn/conv.h"
#include "nn/pool.h"
#include "ops/ops.h"
#include "ops/registry.h"

using namespace sg;
using sgtest::from;
using sgtest::gradcheck;
using sgtest::leaf;
using sgtest::on_each_backend;
using sgtest::check_error;

namespace {

using V = std::vector<float>;
using Ints = std::vector<int64_t>;


void check_values(const Tensor& t, const Shape& shape, const V& want, double tol = 1e-5) {
  REQUIRE(t.shape() == shape);
  for (size_t i = 0; i < want.size(); ++i)
    CHECK_MESSAGE(std::fabs(t.at(static_cast<int64_t>(i)) - want[i]) <= tol,
                  "[" << i << "] got " << t.at(static_cast<int64_t>(i)) << ", want " << want[i]);
}

double get(const Tensor& t, const Ints& idx) {
  int64_t flat = 0;
  for (size_t d = 0; d < idx.size(); ++d) flat = flat * t.shape()[d] + idx[d];
  return t.at(flat);
}

// conv2d from its definition, in double: y[n,o,i,j] = b[o] + Σ w[o,c,a,e] · x[n, g·Cg + c,
// i·s − p_top + a·d, j·s − p_left + e·d] over the group's channels (out of range → 0).
std::vector<double> naive_conv2d(const Tensor& x, const Tensor& w, const Tensor& b, Ints s, Ints p_top_left,
                                 Ints d, int64_t groups, int64_t oH, int64_t oW) {
  const int64_t N = x.shape()[0], C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
  const int64_t O = w.shape()[0], Cg = w.shape()[1], kH = w.shape()[2], kW = w.shape()[3];
  const int64_t Og = O / groups;
  REQUIRE(Cg * groups == C);
  std::vector<double> y;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t i = 0; i < oH; ++i)
        for (int64_t j = 0; j < oW; ++j) {
          double acc = b.defined() ? b.at(o) : 0.0;
          const int64_t g = o / Og;
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t a = 0; a < kH; ++a)
              for (int64_t e = 0; e < kW; ++e) {
                const int64_t h = i * s[0] - p_top_left[0] + a * d[0], v = j * s[1] - p_top_left[1] + e * d[1];
                if (h < 0 || h >= H || v < 0 || v >= W) continue;
                acc += get(w, {o, c, a, e}) * get(x, {n, g * Cg + c, h, v});
              }
          y.push_back(acc);
        }
  return y;
}

// conv_transpose2d from its definition, in double: every input element scatters x · w into
// the output at i·s − p + a·d (PyTorch's docs), output size from the formula.
std::vector<double> naive_conv_transpose2d(const Tensor& x, const Tensor& w, const Tensor& b, Ints s, Ints p,
                                           Ints op, Ints d, int64_t groups, Shape& shape) {
  const int64_t N = x.shape()[0], C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
  const int64_t Og = w.shape()[1], kH = w.shape()[2], kW = w.shape()[3];
  const int64_t O = Og * groups, Cg = C / groups;
  const int64_t oH = (H - 1) * s[0] - 2 * p[0] + d[0] * (kH - 1) + op[0] + 1;
  const int64_t oW = (W - 1) * s[1] - 2 * p[1] + d[1] * (kW - 1) + op[1] + 1;
  shape = {N, O, oH, oW};
  std::vector<double> y(N * O * oH * oW, 0.0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < H; ++i)
        for (int64_t j = 0; j < W; ++j)
          for (int64_t o = 0; o < Og; ++o)
            for (int64_t a = 0; a < kH; ++a)
              for (int64_t e = 0; e < kW; ++e) {
                const int64_t h = i * s[0] - p[0] + a * d[0], v = j * s[1] - p[1] + e * d[1];
                if (h < 0 || h >= oH || v < 0 || v >= oW) continue;
                const int64_t oc = (c / Cg) * Og + o;
                y[((n * O + oc) * oH + h) * oW + v] += get(x, {n, c, i, j}) * get(w, {c, o, a, e});
              }
  if (b.defined())
    for (int64_t n = 0; n < N; ++n)
      for (int64_t o = 0; o < O; ++o)
        for (int64_t k = 0; k < oH * oW; ++k) y[(n * O + o) * oH * oW + k] += b.at(o);
  return y;
}

void check_close(const Tensor& got, const std::vector<double>& want, double tol = 1e-4) {
  REQUIRE(got.numel() == static_cast<int64_t>(want.size()));
  int bad = 0;
  for (size_t i = 0; i < want.size(); ++i)
    if (!(std::fabs(got.at(static_cast<int64_t>(i)) - want[i]) <= tol * (1 + std::fabs(want[i]))))
      if (++bad <= 3) CHECK_MESSAGE(false, "[" << i << "] got " << got.at(static_cast<int64_t>(i)) << ", want " << want[i]);
  CHECK(bad == 0);
}


}  // namespace

// ---------------------------------------------------------------- PyTorch's values

TEST_CASE("conv: PyTorch reference values (output, dx, dw, db) through the registry") {
  on_each_backend([] {
    CHECK(sgtest::check_reference_cases("conv1d") == 3);
    CHECK(sgtest::check_reference_cases("conv2d") == 8);
    CHECK(sgtest::check_reference_cases("convTranspose2d") == 4);
  });
}

// ---------------------------------------------------------------- hand-worked

TEST_CASE("conv: hand-worked tiny cases") {
  on_each_backend([] {
    // 2×2 box of ones over 1..9: sums of each 2×2 block, plus the bias.
    Tensor x = from({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    check_values(conv2d(x, from({1, 1, 2, 2}, {1, 1, 1, 1}), from({1}, {0.5f})), {1, 1, 2, 2},
                 {12.5f, 16.5f, 24.5f, 28.5f});
    // Stride 2 with padding 1: corners of the padded 5×5 grid.
    check_values(conv2d(x, from({1, 1, 1, 1}, {2}), Tensor(), {2}, {1}), {1, 1, 3, 3},
                 {0, 0, 0, 0, 10, 0, 0, 0, 0});
    // Dilation 2 on a 3×3 kernel over a 5×5 input: one output, the 9 spread taps.
    Tensor x5 = from({1, 1, 5, 5}, V(25, 1.0f));
    check_values(conv2d(x5, from({1, 1, 3, 3}, V(9, 1.0f)), Tensor(), {1}, {0}, {2}), {1, 1, 1, 1}, {9});
    // conv1d: first difference with zero padding on both sides.
    check_values(conv1d(from({1, 1, 4}, {1, 2, 3, 4}), from({1, 1, 2}, {1, -1}), Tensor(), {1}, {1}), {1, 1, 5},
                 {-1, -1, -1, -1, 4});
    // 'same' with an even kernel pads (0, 1): the extra zero goes on the right.
    check_values(conv1d(from({1, 1, 5}, {0, 1, 2, 3, 4}), from({1, 1, 2}, {1, 1}), Tensor(), {1}, "same"),
                 {1, 1, 5}, {1, 3, 5, 7, 4});
    // Groups = channels: each channel scaled by its own weight.
    check_values(conv2d(from({2, 1, 2}, {1, 2, 3, 4}), from({2, 1, 1, 1}, {2, 3}), Tensor(), {1}, {0}, {1}, 2),
                 {2, 1, 2}, {2, 4, 9, 12});
    // Transposed, stride 2, 2×2 ones: each input element becomes a 2×2 block.
    Tensor x2 = from({1, 1, 2, 2}, {1, 2, 3, 4});
    Tensor ones = from({1, 1, 2, 2}, {1, 1, 1, 1});
    check_values(conv_transpose2d(x2, ones, Tensor(), {2}), {1, 1, 4, 4},
                 {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
    // Transposed, stride 1: overlapping blocks add up; the bias is added once per element.
    check_values(conv_transpose2d(x2, ones, from({1}, {1})), {1, 1, 3, 3}, {2, 4, 3, 5, 11, 7, 4, 8, 5});
    // output_padding adds a last row/column that only the bias reaches.
    check_values(conv_transpose2d(x2, ones, from({1}, {1}), {2}, {0}, {1}), {1, 1, 5, 5},
                 {2, 2, 3, 3, 1, 2, 2, 3, 3, 1, 4, 4, 5, 5, 1, 4, 4, 5, 5, 1, 1, 1, 1, 1, 1});
    // No input channels: each output is an empty sum plus the bias (then the activation), in
    // every group (the SIMD kernel's K == 0 branch; torch 1.13 returns a zero-channel output here
    // instead). Two images, two groups: a row written past its group lands in the next one's, and
    // past the last image outside the output (which ASan reports).
    const Tensor none = Tensor::empty({2, 0, 2, 2});
    check_values(conv2d(none, Tensor::empty({4, 0, 1, 1}), from({4}, {-1, 2, 3, 4}), {1}, {0}, {1}, 2), {2, 4, 2, 2},
                 {-1, -1, -1, -1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, -1, -1, -1, -1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4});
    check_values(conv2d(none, Tensor::empty({2, 0, 1, 1}), from({2}, {-1, 2}), {1}, {0}, {1}, 1, "relu"), {2, 2, 2, 2},
                 {0, 0, 0, 0, 2, 2, 2, 2, 0, 0, 0, 0, 2, 2, 2, 2});
  });
}

TEST_CASE("conv: hand-worked gradients") {
  on_each_backend([] {
    // y = Σ of 2×2 blocks of a 3×3 input; with dy = 1 everywhere, dx counts the blocks each
    // element is in, dw sums the 2×2 block-sums' inputs, db counts the outputs.
    Tensor x = from({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}, true);
    Tensor w = from({1, 1, 2, 2}, {1, 1, 1, 1}, true);
    Tensor b = from({1}, {0}, true);
    Tensor y = conv2d(x, w, b);
    y.backward(ones({1, 1, 2, 2}));
    check_values(x.grad(), {1, 1, 3, 3}, {1, 2, 1, 2, 4, 2, 1, 2, 1});
    check_values(w.grad(), {1, 1, 2, 2}, {12, 16, 24, 28});
    check_values(b.grad(), {1}, {4});
  });
}

// ---------------------------------------------------------------- sweep vs definition

TEST_CASE("conv: conv2d and conv_transpose2d match their definitions over a sweep of options") {
  struct Cfg {
    Shape x, w;
    Ints s, p, d;
    int64_t groups;
    bool bias;
  };
  const Cfg cfgs[] = {
      {{2, 3, 6, 5}, {4, 3, 3, 3}, {1, 1}, {0, 0}, {1, 1}, 1, true},
      {{1, 4, 7, 7}, {6, 2, 3, 2}, {2, 1}, {1, 0}, {1, 2}, 2, false},
      {{2, 2, 5, 8}, {2, 1, 2, 3}, {1, 3}, {1, 1}, {2, 1}, 2, true},
      {{1, 3, 9, 4}, {3, 3, 1, 1}, {2, 2}, {0, 0}, {1, 1}, 1, true},
      {{1, 6, 4, 4}, {6, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 6, false},
      {{3, 1, 6, 6}, {2, 1, 4, 4}, {3, 2}, {2, 2}, {1, 1}, 1, true},
  };
  on_each_backend([&] {
    for (const Cfg& c : cfgs) {
      CAPTURE(shape_str(c.x));
      CAPTURE(shape_str(c.w));
      Tensor x = leaf(c.x, -1, 1, 3, false), w = leaf(c.w, -1, 1, 4, false);
      Tensor b = c.bias ? leaf({c.w[0]}, -1, 1, 5, false) : Tensor();
      Tensor y = conv2d(x, w, b, c.s, c.p, c.d, c.groups);
      const int64_t oH = (c.x[2] + 2 * c.p[0] - c.d[0] * (c.w[2] - 1) - 1) / c.s[0] + 1;
      const int64_t oW = (c.x[3] + 2 * c.p[1] - c.d[1] * (c.w[3] - 1) - 1) / c.s[1] + 1;
      CHECK(y.shape() == Shape{c.x[0], c.w[0], oH, oW});
      check_close(y, naive_conv2d(x, w, b, c.s, c.p, c.d, c.groups, oH, oW));

      // The same weights read as a transposed convolution (in = w[0] channels).
      Tensor xt = leaf({c.x[0], c.w[0], 3, 4}, -1, 1, 6, false);
      Tensor bt = c.bias ? leaf({c.w[1] * c.groups}, -1, 1, 8, false) : Tensor();
      Ints op = {std::max(c.s[0], c.d[0]) - 1, std::max(c.s[1], c.d[1]) - 1};  // the largest allowed
      Ints pt = {std::min<int64_t>(c.p[0], 1), std::min<int64_t>(c.p[1], 1)};
      Shape shape;
      std::vector<double> want = naive_conv_transpose2d(xt, w, bt, c.s, pt, op, c.d, c.groups, shape);
      Tensor yt = conv_transpose2d(xt, w, bt, c.s, pt, op, c.groups, c.d);
      CHECK(yt.shape() == shape);
      check_close(yt, want);
    }
  });
}

TEST_CASE("conv: 'same' and 'valid' padding, strided and non-contiguous inputs") {
  on_each_backend([] {
    // 'same' = explicit padding when the total is even; asymmetric (extra at the end) when odd.
    Tensor x = leaf({2, 2, 6, 5}, -1, 1, 11, false), w = leaf({3, 2, 3, 3}, -1, 1, 12, false);
    check_close(conv2d(x, w, Tensor(), {1}, "same"), naive_conv2d(x, w, Tensor(), {1, 1}, {1, 1}, {1, 1}, 1, 6, 5));
    Tensor we = leaf({3, 2, 4, 2}, -1, 1, 13, false);
    Tensor y = conv2d(x, we, Tensor(), {1}, "same", {1, 3});
    CHECK(y.shape() == Shape{2, 3, 6, 5});
    // totals: 3 rows (1 top, 2 bottom), 3 columns (1 left, 2 right).
    check_close(y, naive_conv2d(x, we, Tensor(), {1, 1}, {1, 1}, {1, 3}, 1, 6, 5));
    check_close(conv2d(x, w, Tensor(), {1}, "valid"), naive_conv2d(x, w, Tensor(), {1, 1}, {0, 0}, {1, 1}, 1, 4, 3));

    // A transposed (non-contiguous) input and weight give the same result as copies.
    Tensor xt = transpose(leaf({2, 2, 5, 6}, -1, 1, 14, false), 2, 3);
    Tensor wt = transpose(leaf({3, 2, 3, 3}, -1, 1, 15, false), 2, 3);
    check_close(conv2d(xt, wt, Tensor(), {2}, {1}),
                naive_conv2d(contiguous_copy(xt), contiguous_copy(wt), Tensor(), {2, 2}, {1, 1}, {1, 1}, 1, 3, 3));

    // An empty batch gives an empty output.
    CHECK(conv2d(zeros({0, 2, 6, 5}), w).shape() == Shape{0, 3, 4, 3});
  });
}

// ---------------------------------------------------------------- gradchecks

TEST_CASE("conv: gradchecks for conv2d, each option") {
  on_each_backend([] {
    auto check_conv2d = [](const char* name, Shape xs, Shape ws, bool bias, Ints s, ConvPadding p, Ints d,
                           int64_t g) {
      std::vector<Tensor> in = {leaf(xs, -1, 1, 21), leaf(ws, -1, 1, 22)};
      if (bias) in.push_back(leaf({ws[0]}, -1, 1, 23));
      gradcheck(name, [=](auto& t) { return conv2d(t[0], t[1], t.size() > 2 ? t[2] : Tensor(), s, p, d, g); },
                in);
    };
    check_conv2d("conv2d plain", {2, 2, 4, 5}, {3, 2, 3, 2}, true, {1}, {0}, {1}, 1);
    check_conv2d("conv2d stride 2", {1, 2, 6, 5}, {2, 2, 3, 3}, true, {2}, {0}, {1}, 1);
    check_conv2d("conv2d padding [1, 2]", {1, 2, 4, 4}, {2, 2, 3, 3}, false, {1}, {1, 2}, {1}, 1);
    check_conv2d("conv2d dilation 2", {1, 1, 6, 6}, {2, 1, 2, 3}, true, {1}, {1}, {2}, 1);
    check_conv2d("conv2d groups 2", {1, 4, 4, 4}, {4, 2, 2, 2}, true, {1, 2}, {1}, {1}, 2);
    check_conv2d("conv2d same (asymmetric)", {1, 2, 4, 5}, {2, 2, 2, 3}, false, {1}, "same", {1, 2}, 1);
    check_conv2d("conv2d unbatched", {2, 4, 4}, {2, 2, 3, 3}, true, {2, 1}, {1}, {1}, 1);
    check_conv2d("conv2d pointwise", {2, 3, 3, 2}, {2, 3, 1, 1}, true, {1}, {0}, {1}, 1);
    // 3×3, stride 1, ≥ 8 channels each way: Winograd forward and data gradient on the SIMD backend.
    check_conv2d("conv2d Winograd", {1, 8, 5, 4}, {8, 8, 3, 3}, true, {1}, {1}, {1}, 1);
  });
}

TEST_CASE("conv: gradchecks for conv1d and conv_transpose2d, each option") {
  on_each_backend([] {
    gradcheck("conv1d stride/padding/dilation/groups",
              [](auto& t) { return conv1d(t[0], t[1], t[2], {2}, {1}, {2}, 2); },
              {leaf({2, 4, 9}, -1, 1, 31), leaf({4, 2, 3}, -1, 1, 32), leaf({4}, -1, 1, 33)});
    gradcheck("conv1d same, unbatched", [](auto& t) { return conv1d(t[0], t[1], Tensor(), {1}, "same"); },
              {leaf({3, 7}, -1, 1, 34), leaf({2, 3, 4}, -1, 1, 35)});
    gradcheck("conv_transpose2d stride 2, padding 1, output_padding 1, groups 2",
              [](auto& t) { return conv_transpose2d(t[0], t[1], t[2], {2}, {1}, {1}, 2); },
              {leaf({1, 4, 3, 3}, -1, 1, 36), leaf({4, 2, 3, 3}, -1, 1, 37), leaf({4}, -1, 1, 38)});
    gradcheck("conv_transpose2d dilation 2, output_padding 1 (< dilation), rectangular",
              [](auto& t) { return conv_transpose2d(t[0], t[1], Tensor(), {1, 2}, {0, 1}, {1, 0}, 1, {2, 1}); },
              {leaf({2, 2, 3, 3}, -1, 1, 39), leaf({2, 3, 2, 3}, -1, 1, 40)});
    gradcheck("conv_transpose2d unbatched, pointwise",
              [](auto& t) { return conv_transpose2d(t[0], t[1], t[2]); },
              {leaf({3, 2, 3}, -1, 1, 41), leaf({3, 2, 1, 1}, -1, 1, 42), leaf({2}, -1, 1, 43)});
  });
}

// ---------------------------------------------------------------- errors

TEST_CASE("conv: error messages") {
  Tensor x = zeros({8, 1, 28, 28}), w = zeros({16, 3, 3, 3});
  check_error([&] { conv2d(x, w); },
              "conv2d: expected input of shape [N, 3, H, W] (weight has 3 input channels × 1 group), got [8, 1, 28, 28]");
  check_error([&] { conv2d(zeros({2, 6, 5, 5}), zeros({4, 2, 3, 3}), Tensor(), {1}, {0}, {1}, 2); },
              "conv2d: expected input of shape [N, 4, H, W] (weight has 2 input channels × 2 groups), got [2, 6, 5, 5]");
  check_error([&] { conv2d(zeros({6, 5, 5}), zeros({4, 3, 3, 3})); },
              "conv2d: expected input of shape [3, H, W] (weight has 3 input channels × 1 group), got [6, 5, 5]");
  check_error([&] { conv1d(zeros({2, 4, 9}), zeros({3, 2, 3}), Tensor(), {1}, {0}, {1}, 2); },
              "conv1d: out_channels 3 (weight.shape[0]) is not divisible by groups 2");
  check_error([&] { conv2d(zeros({1, 2, 5, 5}), zeros({1, 2, 6, 6})); },
              "conv2d: kernel size [6, 6] ([6, 6] with dilation) is larger than the padded input [5, 5] "
              "(input [5, 5], padding [0, 0])");
  check_error([&] { conv2d(zeros({1, 2, 5, 5}), zeros({1, 2, 3, 3}), Tensor(), {1}, {0}, {3}); },
              "conv2d: kernel size [3, 3] ([7, 7] with dilation) is larger than the padded input [5, 5] "
              "(input [5, 5], padding [0, 0])");
  check_error([&] { conv2d(zeros({1, 2, 5, 5}), zeros({4, 2, 3, 3}), zeros({3})); },
              "conv2d: expected bias of shape [4] (one per output channel), got [3]");
  check_error([&] { conv2d(zeros({1, 2, 5, 5}), zeros({4, 2, 3, 3}), Tensor(), {0, 1}); },
              "conv2d: stride must be positive, got [0, 1]");
  check_error([&] { conv2d(zeros({1, 2, 5, 5}), zeros({4, 2, 3, 3}), Tensor(), {1}, {0}, {-1}); },
              "conv2d: dilation must be positive, got [-1, -1]");
  check_error([&] { conv2d(zeros({1, 2, 5, 5}), zeros({4, 2, 3, 3}), Tensor(), {1}, {-1, 0}); },
              "conv2d: padding must be non-negative, got [-1, 0]");
  check_error([&] { conv2d(zeros({1, 2, 5, 5}), zeros({4, 2, 3, 3}), Tensor(), {1}, {0}, {1}, 0); },
              "conv2d: groups must be positive, got 0");
  check_error([&] { conv2d(zeros({1, 2, 5, 5}), zeros({4, 2, 3, 3}), Tensor(), {2}, "same"); },
              "conv2d: padding='same' is not supported for strided convolutions (stride [2, 2])");
  check_error([&] { conv2d(zeros({1, 2, 5, 5}), zeros({4, 2, 3, 3}), Tensor(), {1}, "full"); },
              "conv2d: padding must be 'same', 'valid' or a list of integers, got 'full'");
  check_error([&] { conv2d(zeros({1, 2, 5, 5}), zeros({4, 2, 3, 3}), Tensor(), {1, 1, 1}); },
              "conv2d: expected stride to have 1 or 2 values, got 3 ([1, 1, 1])");
  check_error([&] { conv2d(zeros({2, 5, 5}, DType::Float32), zeros({4, 2, 3})); },
              "conv2d: expected a 4-D weight [out_channels, in_channels/groups, kH, kW], got shape [4, 2, 3]");
  check_error([&] { conv2d(zeros({5, 5}), zeros({4, 2, 3, 3})); },
              "conv2d: expected a 3-D (unbatched) or 4-D (batched) input [N, C, H, W], got shape [5, 5]");
  check_error([&] { conv1d(zeros({1, 2, 5}, DType::Int32), zeros({1, 2, 3})); },
              "conv1d: expected a float32 or float64 input, got int32");
  check_error([&] { conv_transpose2d(zeros({1, 2, 3, 3}), zeros({3, 2, 3, 3})); },
              "conv_transpose2d: expected input of shape [N, 3, H, W] (weight has 3 input channels), got [1, 2, 3, 3]");
  check_error([&] { conv_transpose2d(zeros({1, 3, 3, 3}), zeros({3, 2, 3, 3}), Tensor(), {1}, {0}, {0}, 2); },
              "conv_transpose2d: in_channels 3 (weight.shape[0]) is not divisible by groups 2");
  check_error([&] { conv_transpose2d(zeros({1, 2, 3, 3}), zeros({2, 2, 3, 3}), Tensor(), {2}, {0}, {2}); },
              "conv_transpose2d: outputPadding must be smaller than either stride or dilation, got "
              "outputPadding [2, 2], stride [2, 2], dilation [1, 1]");
  check_error([&] { conv_transpose2d(zeros({1, 2, 1, 1}), zeros({2, 2, 1, 1}), Tensor(), {1}, {1}); },
              "conv_transpose2d: the output size [-1, -1] is too small (input [1, 1], kernel [1, 1], stride [1, 1], "
              "padding [1, 1])");
}

// ---------------------------------------------------------------- registry

TEST_CASE("conv: registry rows (attrs, null bias, padding strings)") {
  Tensor x = leaf({1, 2, 5, 5}, -1, 1, 51, false), w = leaf({3, 2, 3, 3}, -1, 1, 52, false);
  Tensor b = leaf({3}, -1, 1, 53, false);
  Attrs a;
  a.set("stride", std::vector<double>{2, 1});
  a.set("padding", 1.0);
  Tensor y = call_op("conv2d", {x, w, b}, a)[0];
  check_close(y, naive_conv2d(x, w, b, {2, 1}, {1, 1}, {1, 1}, 1, 3, 5));
  // A null bias (JS null) and the 'same' string.
  Attrs same;
  same.set("padding", std::string("same"));
  Tensor ys = call_op("conv2d", {x, w, Tensor()}, same)[0];
  check_close(ys, naive_conv2d(x, w, Tensor(), {1, 1}, {1, 1}, {1, 1}, 1, 5, 5));
  CHECK(call_op("conv2d", {x, w}, Attrs())[0].shape() == Shape{1, 3, 3, 3});
  // conv1d and convTranspose2d rows with their attrs.
  Attrs a1;
  a1.set("padding", std::string("valid"));
  a1.set("dilation", std::vector<double>{2});
  CHECK(call_op("conv1d", {zeros({2, 4, 9}), zeros({3, 4, 3})}, a1)[0].shape() == Shape{2, 3, 5});
  Attrs at;
  at.set("stride", 2.0);
  at.set("padding", 1.0);
  at.set("outputPadding", 1.0);
  at.set("groups", 2.0);
  at.set("dilation", std::vector<double>{1, 1});
  CHECK(call_op("convTranspose2d", {zeros({1, 4, 3, 3}), zeros({4, 1, 3, 3})}, at)[0].shape() == Shape{1, 2, 6, 6});
  // Wrong attrs and inputs say which.
  check_error([&] { call_op("conv2d", {Tensor(), w}, Attrs()); }, "conv2d: tensor argument 0 is null");
  Attrs bad;
  bad.set("padding", true);
  check_error([&] { call_op("conv2d", {x, w}, bad); },
              "conv2d: expected 'padding' to be a number or an array of integers, got a boolean");
  Attrs empty_mode;
  empty_mode.set("padding", std::string(""));
  check_error([&] { call_op("conv2d", {x, w}, empty_mode); },
              "conv2d: padding must be 'same', 'valid' or a list of integers, got ''");
  Attrs strpad;
  strpad.set("padding", std::string("same"));
  check_error([&] { call_op("convTranspose2d", {x, zeros({2, 3, 3, 3})}, strpad); },
              "convTranspose2d: expected 'padding' to be a number or an array of integers, got a string");
}

// ------------------------------------------------- conv2d + ReLU + max_pool2d as one op

TEST_CASE("conv: conv2d_relu_max_pool2d equals max_pool2d(relu(conv2d)) in values and gradients") {
  struct Case {
    const char* name;
    Shape xs, ws;
    Ints stride;
    ConvPadding padding;
    Ints pool_kernel, pool_stride, pool_padding;
    bool ceil;
  };
  const std::vector<Case> cases = {
      // Stride 1 with the 2×2 pool: the SIMD backend pools its own output grid.
      {"3x3 pad 1, pool 2", {3, 2, 8, 10}, {5, 2, 3, 3}, {1}, {1}, {2}, {}, {0}, false},
      {"odd output (last row and column dropped), pool 2", {2, 3, 7, 9}, {4, 3, 3, 3}, {1}, {1}, {2}, {}, {0}, false},
      {"pool 3 stride 2, overlapping windows", {2, 2, 9, 9}, {3, 2, 3, 3}, {1}, {1}, {3}, {2}, {0}, false},
      // Pool padding, ceil_mode and a strided convolution: the composition of the two methods.
      {"pool padding 1", {2, 2, 8, 8}, {3, 2, 3, 3}, {1}, {1}, {3}, {2}, {1}, false},
      {"pool ceil_mode", {2, 2, 7, 7}, {3, 2, 3, 3}, {1}, {0}, {2}, {}, {0}, true},
      {"conv stride 2", {2, 2, 11, 11}, {3, 2, 3, 3}, {2}, {1}, {2}, {}, {0}, false},
      {"unbatched, same padding", {2, 6, 6}, {4, 2, 2, 2}, {1}, "same", {2}, {}, {0}, false},
      {"Winograd (8 channels), pool 2", {2, 8, 6, 9}, {9, 8, 3, 3}, {1}, {1}, {2}, {}, {0}, false},
  };
  on_each_backend([&] {
    for (const Case& c : cases) {
      CAPTURE(c.name);
      auto run = [&](bool fused) {
        Tensor x = leaf(c.xs, -1, 1, 31), w = leaf(c.ws, -1, 1, 32), b = leaf({c.ws[0]}, -0.5, 0.5, 33);
        Tensor y = fused ? conv2d_relu_max_pool2d(x, w, b, c.stride, c.padding, {1}, 1, c.pool_kernel, c.pool_stride,
                                                  c.pool_padding, {1}, c.ceil)
                         : max_pool2d(relu(conv2d(x, w, b, c.stride, c.padding)), c.pool_kernel, c.pool_stride,
                                      c.pool_padding, {1}, c.ceil);
        Tensor r = leaf(y.shape(), -1, 1, 34, false);
        sum(mul(y, r)).backward();
        return std::vector<Tensor>{y, x.grad(), w.grad(), b.grad()};
      };
      const std::vector<Tensor> fused = run(true), plain = run(false);
      {  // Under no_grad (no argmax kept by either), the same values.
        NoGradGuard no_grad;
        Tensor x = leaf(c.xs, -1, 1, 31), w = leaf(c.ws, -1, 1, 32), b = leaf({c.ws[0]}, -0.5, 0.5, 33);
        const Tensor y = conv2d_relu_max_pool2d(x, w, b, c.stride, c.padding, {1}, 1, c.pool_kernel, c.pool_stride,
                                                c.pool_padding, {1}, c.ceil);
        const Tensor y_pool = max_pool2d(relu(conv2d(x, w, b, c.stride, c.padding)), c.pool_kernel, c.pool_stride,
                                         c.pool_padding, {1}, c.ceil);
        int64_t differ = 0;
        for (int64_t j = 0; j < y.numel(); ++j) differ += y.at(j) != fused[0].at(j) || y_pool.at(j) != fused[0].at(j);
        CHECK_MESSAGE(differ == 0, "no_grad outputs: " << differ << " values differ");
      }
      for (size_t i = 0; i < fused.size(); ++i) {
        REQUIRE(fused[i].shape() == plain[i].shape());
        int64_t differ = 0;
        for (int64_t j = 0; j < fused[i].numel(); ++j) differ += fused[i].at(j) != plain[i].at(j);
        CHECK_MESSAGE(differ == 0, "output/gradient " << i << ": " << differ << " values differ");
      }
    }
  });
}

TEST_CASE("conv: gradcheck of conv2d_relu_max_pool2d") {
  on_each_backend([] {
    gradcheck("conv2d_relu_max_pool2d", [](auto& t) {
      return conv2d_relu_max_pool2d(t[0], t[1], t[2], {1}, {1}, {1}, 1, {2}, {}, {0}, {1}, false);
    }, {leaf({2, 2, 4, 6}, -1, 1, 41), leaf({3, 2, 3, 3}, -1, 1, 42), leaf({3}, -0.3, 0.3, 43)});
    gradcheck("conv2d_relu_max_pool2d, Winograd", [](auto& t) {
      return conv2d_relu_max_pool2d(t[0], t[1], t[2], {1}, {1}, {1}, 1, {2}, {}, {0}, {1}, false);
    }, {leaf({1, 8, 4, 6}, -1, 1, 44), leaf({8, 8, 3, 3}, -1, 1, 45), leaf({8}, -0.3, 0.3, 46)});
  });
}
