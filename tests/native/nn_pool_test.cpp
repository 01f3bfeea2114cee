// max_pool1d/2d, avg_pool1d/2d, adaptive_avg_pool2d (src/nn/pool.cpp):
//  - PyTorch's outputs and input gradients (tests/data/conv_pool_ref.json) through the op
//    registry, on every backend: ceil_mode, padding, dilation, ties, count_include_pad,
//    non-divisible adaptive sizes, unbatched inputs;
//  - hand-worked cases (divisors, first-max ties, NaN, adaptive windows);
//  - gradchecks per op and option (max pools on inputs without near-ties);
//  - error messages and the registry's attrs.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "conv_pool_ref.h"
#include "core/error.h"
#include "gradcheck.h"
#include "test_util.h"
#include "kernels/backend.h"
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


void check_values(const Tensor& t, const Shape& shape, const V& want, double tol = 1e-6) {
  REQUIRE(t.shape() == shape);
  for (size_t i = 0; i < want.size(); ++i) {
    const double got = t.at(static_cast<int64_t>(i));
    const bool same = std::isnan(want[i]) ? std::isnan(got) : (got == want[i] || std::fabs(got - want[i]) <= tol);
    CHECK_MESSAGE(same, "[" << i << "] got " << got << ", want " << want[i]);
  }
}

// A leaf holding a shuffled ramp: all values ≥ 0.01 apart, so a ±1e-3 central difference
// never changes which element of a window is the max.
Tensor distinct_leaf(const Shape& shape, unsigned seed) {
  Tensor t = Tensor::empty(shape);
  std::vector<float> v(t.numel());
  for (size_t i = 0; i < v.size(); ++i) v[i] = -1.0f + 0.01f * static_cast<float>(i);
  std::shuffle(v.begin(), v.end(), std::mt19937(seed));
  std::copy(v.begin(), v.end(), t.f32());
  t.set_requires_grad(true);
  return t;
}


}  // namespace

TEST_CASE("pool: PyTorch reference values (output, dx) through the registry") {
  on_each_backend([] {
    CHECK(sgtest::check_reference_cases("maxPool") == 6);
    CHECK(sgtest::check_reference_cases("avgPool") == 6);
    CHECK(sgtest::check_reference_cases("adaptiveAvgPool2d") == 4);
  });
}

TEST_CASE("pool: max pooling, hand-worked") {
  // 4×4 ramp, 2×2 windows: each window's bottom-right element.
  Tensor x = from({1, 1, 4, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, true);
  Tensor y = max_pool2d(x, {2});
  check_values(y, {1, 1, 2, 2}, {5, 7, 13, 15});
  y.backward(from({1, 1, 2, 2}, {1, 2, 3, 4}));
  check_values(x.grad(), {1, 1, 4, 4}, {0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0, 0, 3, 0, 4});

  // Ties: the first max in row-major order takes the gradient; overlapping windows add up.
  Tensor t = from({1, 3, 3}, {1, 1, 0, 1, 1, 0, 0, 0, 0}, true);
  Tensor yt = max_pool2d(t, {2}, {1});
  check_values(yt, {1, 2, 2}, {1, 1, 1, 1});
  yt.backward(ones({1, 2, 2}));
  check_values(t.grad(), {1, 3, 3}, {1, 1, 0, 1, 1, 0, 0, 0, 0});
  // Window (0,0) picks (0,0); (0,1) picks (0,1); (1,0) picks (1,0); (1,1) picks (1,1).

  // Padding never wins, even against negative values; ceil_mode adds a last window that
  // starts inside the input.
  Tensor n = from({1, 1, 5}, {-5, -4, -3, -2, -1});
  check_values(max_pool1d(n, {2}, {2}, {1}), {1, 1, 3}, {-5, -3, -1});
  check_values(max_pool1d(n, {2}, {2}, {0}, {1}, true), {1, 1, 3}, {-4, -2, -1});
  check_values(max_pool1d(n, {2}, {2}), {1, 1, 2}, {-4, -2});
  // Dilation 2: taps 0, 2, 4.
  check_values(max_pool1d(from({1, 6}, {0, 9, 1, 9, 2, 9}), {3}, {1}, {0}, {2}), {1, 2}, {2, 9});

  // NaN is the max of its window; -inf windows give -inf.
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  Tensor xn = from({1, 1, 4}, {1, nan, -inf, -inf}, true);
  Tensor yn = max_pool1d(xn, {2});
  check_values(yn, {1, 1, 2}, {nan, -inf});
  yn.backward(from({1, 1, 2}, {1, 2}));
  check_values(xn.grad(), {1, 1, 4}, {0, 1, 2, 0});
}

TEST_CASE("pool: average pooling divisors, hand-worked") {
  Tensor x = from({1, 1, 6}, {1, 2, 3, 4, 5, 6});
  // k3 s2 p1 ceil_mode: windows [-1,2) [1,4) [3,6) [5,8)→ clipped to the padded end 7.
  check_values(avg_pool1d(x, {3}, {2}, {1}, true, true), {1, 1, 4}, {1, 3, 5, 3});
  check_values(avg_pool1d(x, {3}, {2}, {1}, true, false), {1, 1, 4}, {1.5f, 3, 5, 6});
  check_values(avg_pool1d(x, {3}, {2}, {1}, false, true), {1, 1, 3}, {1, 3, 5});
  // Default stride = kernel, floor drops the tail.
  check_values(avg_pool1d(x, {4}), {1, 1, 1}, {2.5f});
  // 2-d: the divisor is rows × columns of the window.
  Tensor x2 = from({1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}, true);
  Tensor y2 = avg_pool2d(x2, {2}, {1}, {1}, false, false);  // 4×4 output of clipped windows
  check_values(y2, {1, 4, 4}, {1, 1.5f, 2.5f, 3, 2.5f, 3, 4, 4.5f, 5.5f, 6, 7, 7.5f, 7, 7.5f, 8.5f, 9});
  Tensor y3 = avg_pool2d(x2, {2}, {1}, {1});  // count_include_pad: always 4
  check_values(y3, {1, 4, 4}, {0.25f, 0.75f, 1.25f, 0.75f, 1.25f, 3, 4, 2.25f, 2.75f, 6, 7, 3.75f, 1.75f, 3.75f, 4.25f, 2.25f});
  // Backward: each output spreads dy / divisor over its window.
  y3.backward(ones({1, 4, 4}));
  check_values(x2.grad(), {1, 3, 3}, V(9, 1.0f));
}

TEST_CASE("pool: adaptive average pooling windows, hand-worked") {
  // 5 → 3: [0,2) [1,4) [3,5); overlapping windows.
  Tensor x = from({1, 1, 5}, {1, 2, 3, 4, 5}, true);
  Tensor y = adaptive_avg_pool2d(x, {1, 3});
  check_values(y, {1, 1, 3}, {1.5f, 3, 4.5f});
  y.backward(ones({1, 1, 3}));
  check_values(x.grad(), {1, 1, 5}, {0.5f, 1.0f / 3 + 0.5f, 1.0f / 3, 1.0f / 3 + 0.5f, 0.5f});
  // 2 → 3 (more outputs than inputs): [0,1) [0,2) [1,2).
  check_values(adaptive_avg_pool2d(from({1, 1, 2}, {2, 4}), {1, 3}), {1, 1, 3}, {2, 3, 4});
  // Global average, and an output size of 0 (an empty result, as PyTorch).
  check_values(adaptive_avg_pool2d(from({2, 1, 2}, {1, 2, 3, 5}), {1}), {2, 1, 1}, {1.5f, 4});
  CHECK(adaptive_avg_pool2d(zeros({1, 2, 3, 3}), {0}).shape() == Shape{1, 2, 0, 0});
}

TEST_CASE("pool: gradchecks, each op and option") {
  on_each_backend([] {
    gradcheck("max_pool2d k3 s2 p1 ceil_mode", [](auto& t) { return max_pool2d(t[0], {3}, {2}, {1}, {1}, true); },
              {distinct_leaf({2, 2, 5, 6}, 1)});
    gradcheck("max_pool2d dilation 2, rectangular, unbatched",
              [](auto& t) { return max_pool2d(t[0], {2, 3}, {1, 2}, {1, 1}, {2}); }, {distinct_leaf({2, 6, 7}, 2)});
    gradcheck("max_pool1d", [](auto& t) { return max_pool1d(t[0], {3}, {}, {1}, {1}, true); },
              {distinct_leaf({2, 3, 8}, 3)});
    gradcheck("avg_pool2d ceil_mode count_include_pad",
              [](auto& t) { return avg_pool2d(t[0], {3}, {2}, {1}, true, true); }, {leaf({1, 2, 6, 5})});
    gradcheck("avg_pool2d ceil_mode exclude pad, rectangular",
              [](auto& t) { return avg_pool2d(t[0], {3, 2}, {2, 1}, {1, 1}, true, false); }, {leaf({2, 5, 4})});
    gradcheck("avg_pool1d", [](auto& t) { return avg_pool1d(t[0], {4}, {3}, {2}, true, false); },
              {leaf({2, 2, 9})});
    gradcheck("adaptive_avg_pool2d non-divisible", [](auto& t) { return adaptive_avg_pool2d(t[0], {3, 4}); },
              {leaf({2, 2, 7, 5})});
    gradcheck("adaptive_avg_pool2d upsampling, unbatched",
              [](auto& t) { return adaptive_avg_pool2d(t[0], {4}); }, {leaf({2, 3, 2})});
  });
}

TEST_CASE("pool: error messages") {
  Tensor x = zeros({1, 2, 5, 5});
  check_error([&] { max_pool2d(x, {3}, {}, {2}); },
              "max_pool2d: padding should be at most half of kernelSize, got padding [2, 2] and kernelSize [3, 3]");
  check_error([&] { avg_pool1d(zeros({1, 2, 5}), {3}, {}, {2}); },
              "avg_pool1d: padding should be at most half of kernelSize, got padding [2] and kernelSize [3]");
  check_error([&] { max_pool2d(x, {6}); },
              "max_pool2d: the output size [0, 0] is too small (input [5, 5], kernelSize [6, 6], stride [6, 6], "
              "padding [0, 0], dilation [1, 1])");
  check_error([&] { max_pool2d(x, {2}, {0}); }, "max_pool2d: stride must be positive, got [0, 0]");
  check_error([&] { max_pool2d(x, {2}, {}, {0}, {0, 1}); }, "max_pool2d: dilation must be positive, got [0, 1]");
  check_error([&] { avg_pool2d(x, {0, 2}); }, "avg_pool2d: kernelSize must be positive, got [0, 2]");
  check_error([&] { avg_pool2d(x, {2}, {}, {-1}); }, "avg_pool2d: padding must be non-negative, got [-1, -1]");
  check_error([&] { max_pool1d(zeros({1, 2, 5}), {2, 2}); },
              "max_pool1d: expected kernelSize to have 1 value, got 2 ([2, 2])");
  check_error([&] { max_pool2d(zeros({5, 5}), {2}); },
              "max_pool2d: expected a 3-D (unbatched) or 4-D (batched) input [N, C, H, W], got shape [5, 5]");
  check_error([&] { max_pool2d(zeros({1, 0, 5, 5}), {2}); },
              "max_pool2d: expected non-empty channel and size dims, got shape [1, 0, 5, 5]");
  check_error([&] { adaptive_avg_pool2d(x, {2, 2, 2}); },
              "adaptive_avg_pool2d: expected outputSize to have 1 or 2 values, got 3 ([2, 2, 2])");
  check_error([&] { adaptive_avg_pool2d(x, {-1}); },
              "adaptive_avg_pool2d: outputSize must be non-negative, got [-1, -1]");
  check_error([&] { avg_pool2d(zeros({1, 5, 5}, DType::Int32), {2}); },
              "avg_pool2d: expected a float32 or float64 input, got int32");
  // An empty batch is allowed.
  CHECK(max_pool2d(zeros({0, 2, 5, 5}), {2}).shape() == Shape{0, 2, 2, 2});
}

TEST_CASE("pool: registry rows (defaults and attrs)") {
  Tensor x = leaf({1, 2, 6, 7}, -1, 1, 61, false);
  Attrs a;
  a.set("kernelSize", 2.0);
  Tensor y = call_op("maxPool2d", {x}, a)[0];
  CHECK(y.shape() == Shape{1, 2, 3, 3});  // stride defaults to the kernel
  Tensor want = max_pool2d(x, {2});
  for (int64_t i = 0; i < y.numel(); ++i) CHECK(y.at(i) == want.at(i));
  Attrs full;
  full.set("kernelSize", std::vector<double>{3, 2});
  full.set("stride", std::vector<double>{2, 1});
  full.set("padding", std::vector<double>{1, 0});
  full.set("dilation", 1.0);
  full.set("ceilMode", true);
  CHECK(call_op("maxPool2d", {x}, full)[0].shape() == Shape{1, 2, 4, 6});
  Attrs avg;
  avg.set("kernelSize", 3.0);
  avg.set("stride", 2.0);
  avg.set("padding", 1.0);
  avg.set("ceilMode", true);
  avg.set("countIncludePad", false);
  Tensor ya = call_op("avgPool2d", {x}, avg)[0];
  Tensor wa = avg_pool2d(x, {3}, {2}, {1}, true, false);
  REQUIRE(ya.shape() == wa.shape());
  for (int64_t i = 0; i < ya.numel(); ++i) CHECK(ya.at(i) == wa.at(i));
  Attrs a1;
  a1.set("kernelSize", std::vector<double>{3});
  CHECK(call_op("maxPool1d", {zeros({2, 3, 7})}, a1)[0].shape() == Shape{2, 3, 2});
  CHECK(call_op("avgPool1d", {zeros({2, 3, 7})}, a1)[0].shape() == Shape{2, 3, 2});
  Attrs ad;
  ad.set("outputSize", std::vector<double>{2, 3});
  CHECK(call_op("adaptiveAvgPool2d", {x}, ad)[0].shape() == Shape{1, 2, 2, 3});
  check_error([&] { call_op("maxPool2d", {x}, Attrs()); }, "maxPool2d: missing argument 'kernelSize'");
  check_error([&] { call_op("adaptiveAvgPool2d", {x}, Attrs()); }, "adaptiveAvgPool2d: missing argument 'outputSize'");
  Attrs bad;
  bad.set("kernelSize", 2.0);
  bad.set("ceilMode", 1.0);
  check_error([&] { call_op("avgPool2d", {x}, bad); }, "avgPool2d: expected 'ceilMode' to be a boolean, got a number");
}
