// Max-pool kernels: the reference against hand-computed windows, then the SIMD backend against
// the reference (values, argmax positions and the backward routing must match exactly) over
// odd plane sizes, widths around the vector lanes, padding, strides 1–3, dilation, ceil_mode,
// ties and NaN; natively once per Highway target.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/backend.h"
#include "kernels/simd/simd_kernels.h"
#include "test_util.h"

#ifndef __EMSCRIPTEN__
#include "hwy/targets.h"
#endif

namespace {

using sgtest::each_target;

using sg::PoolGeom;

const float kNaN = std::numeric_limits<float>::quiet_NaN();

// PyTorch's output size (the op layer's rule), 0 when the geometry is not allowed.
int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  if (p > k / 2) return 0;
  const int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  if (num < 0) return 0;
  int64_t o = num / s + 1;
  if (ceil_mode && (o - 1) * s >= in + p) --o;
  return o;
}

bool same_float(float a, float b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

void compare(const PoolGeom& g, unsigned seed, bool ties, bool nans) {
  const int64_t n_in = g.P * g.H * g.W, n_out = g.P * g.oH * g.oW;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> x(static_cast<size_t>(n_in));
  for (float& v : x) v = ties ? std::round(u(rng) * 2.0f) : u(rng);
  if (nans)
    for (size_t i = 0; i < x.size(); i += 7) x[i] = kNaN;
  std::vector<float> y_ref(static_cast<size_t>(n_out)), y(static_cast<size_t>(n_out), -99.0f);
  std::vector<int32_t> i_ref(static_cast<size_t>(n_out)), idx(static_cast<size_t>(n_out), -7);
  sg::reference_backend().max_pool2d_f32(g, x.data(), y_ref.data(), i_ref.data());
  sg::simd_backend().max_pool2d_f32(g, x.data(), y.data(), idx.data());
  const std::string what = "P" + std::to_string(g.P) + " " + std::to_string(g.H) + "x" + std::to_string(g.W) +
                           " k" + std::to_string(g.kH) + "x" + std::to_string(g.kW) + " s" + std::to_string(g.sH) +
                           "," + std::to_string(g.sW) + " p" + std::to_string(g.pH) + "," + std::to_string(g.pW) +
                           " d" + std::to_string(g.dH) + "," + std::to_string(g.dW) + " out " +
                           std::to_string(g.oH) + "x" + std::to_string(g.oW);
  INFO(what << (ties ? " ties" : "") << (nans ? " NaN" : ""));
  int64_t bad = 0;
  for (size_t i = 0; i < y.size(); ++i) bad += !same_float(y[i], y_ref[i]) || idx[i] != i_ref[i];
  CHECK(bad == 0);
  // Without the argmax (idx nullptr: a forward under no_grad), the same values on both backends.
  for (const sg::Backend* be : {&sg::reference_backend(), &sg::simd_backend()}) {
    std::vector<float> values(static_cast<size_t>(n_out), -99.0f);
    be->max_pool2d_f32(g, x.data(), values.data(), nullptr);
    int64_t bad_values = 0;
    for (size_t i = 0; i < values.size(); ++i) bad_values += !same_float(values[i], y_ref[i]);
    CHECK_MESSAGE(bad_values == 0, be->name() << " without idx");
  }
  std::vector<float> dy(static_cast<size_t>(n_out));
  for (float& v : dy) v = u(rng);
  std::vector<float> dx_ref(static_cast<size_t>(n_in)), dx(static_cast<size_t>(n_in), -99.0f);
  sg::reference_backend().max_pool2d_backward_f32(g, dy.data(), i_ref.data(), dx_ref.data());
  sg::simd_backend().max_pool2d_backward_f32(g, dy.data(), i_ref.data(), dx.data());
  int64_t bad_dx = 0;
  for (size_t i = 0; i < dx.size(); ++i) bad_dx += !same_float(dx[i], dx_ref[i]);
  CHECK(bad_dx == 0);
}

}  // namespace

TEST_CASE("kernels reference max pool: hand-computed windows, NaN rule, backward routing") {
  // 4×4 plane 0..15 row-major, 2×2 windows at stride 2: maxima at the bottom-right corners.
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[size_t(i)] = float(i);
  x[0] = kNaN;  // NaN wins its window (it is first, and larger values do not replace it)
  PoolGeom g;
  g.P = 1, g.H = 4, g.W = 4, g.oH = 2, g.oW = 2, g.kH = 2, g.kW = 2, g.sH = 2, g.sW = 2;
  std::vector<float> y(4);
  std::vector<int32_t> idx(4);
  sg::reference_backend().max_pool2d_f32(g, x.data(), y.data(), idx.data());
  CHECK(std::isnan(y[0]));
  CHECK(idx[0] == 0);
  CHECK(y[1] == 7.0f);
  CHECK(idx[1] == 7);
  CHECK(y[2] == 13.0f);
  CHECK(idx[2] == 13);
  CHECK(y[3] == 15.0f);
  CHECK(idx[3] == 15);
  // Ties: the first in row-major window order. Padding never wins, even against negatives.
  std::vector<float> t = {-5.0f, -3.0f, -3.0f, -4.0f};  // 1 × 4 row
  PoolGeom r;
  r.P = 1, r.H = 1, r.W = 4, r.oH = 1, r.oW = 3, r.kW = 3, r.sW = 2, r.pW = 1;
  std::vector<float> ry(3);
  std::vector<int32_t> ri(3);
  sg::reference_backend().max_pool2d_f32(r, t.data(), ry.data(), ri.data());
  CHECK(ry[0] == -3.0f);  // window columns −1 (pad), 0, 1
  CHECK(ri[0] == 1);
  CHECK(ry[1] == -3.0f);  // columns 1, 2, 3: first of the tie
  CHECK(ri[1] == 1);
  CHECK(ry[2] == -4.0f);  // columns 3, 4 (pad), 5 (pad)
  CHECK(ri[2] == 3);
  // Backward: overlapping windows add up at a shared argmax.
  std::vector<float> dy = {1.0f, 10.0f, 100.0f}, dx(4, -1.0f);
  sg::reference_backend().max_pool2d_backward_f32(r, dy.data(), ri.data(), dx.data());
  CHECK(dx == std::vector<float>{0.0f, 11.0f, 0.0f, 100.0f});
  // A dilated ceil_mode window on padding only (PyTorch 1.13: max_pool1d([[5.]], 3, stride=3,
  // padding=1, dilation=2, ceil_mode=True) gives -inf and a zero gradient): −inf, index −1
  // (never exposed: our pools do not return indices), no gradient routed.
  PoolGeom pad;
  pad.P = 1, pad.H = 1, pad.W = 1, pad.oH = 1, pad.oW = 1, pad.kW = 3, pad.sW = 3, pad.pW = 1, pad.dW = 2;
  const float five = 5.0f;
  float py = 0.0f, pdx = -1.0f;
  int32_t pi = 7;
  const float one = 1.0f;
  for (const sg::Backend* be : {&sg::reference_backend(), &sg::simd_backend()}) {
    be->max_pool2d_f32(pad, &five, &py, &pi);
    CHECK(py == -std::numeric_limits<float>::infinity());
    CHECK(pi == -1);
    be->max_pool2d_backward_f32(pad, &one, &pi, &pdx);
    CHECK(pdx == 0.0f);
  }
}

TEST_CASE("kernels simd max pool: every geometry vs reference, lane tails, NaN and ties") {
  each_target([] {
    const int64_t L = sg::simd::lanes_f32();
    unsigned seed = 1;
    // An empty batch writes nothing.
    PoolGeom e;
    e.P = 0, e.H = 3, e.W = 3, e.oH = 1, e.oW = 1, e.kH = 3, e.kW = 3, e.sH = 3, e.sW = 3;
    sg::simd_backend().max_pool2d_f32(e, nullptr, nullptr, nullptr);
    sg::simd_backend().max_pool2d_backward_f32(e, nullptr, nullptr, nullptr);
    const std::vector<int64_t> widths = {1, 2, 5, 2 * L - 1, 2 * L, 2 * L + 1, 4 * L + 3, 8 * L + 2, 37};
    for (int64_t k = 1; k <= 3; ++k)
      for (int64_t s = 1; s <= 3; ++s)
        for (int64_t p = 0; p <= k / 2; ++p)
          for (int64_t d = 1; d <= 2; ++d)
            for (bool ceil_mode : {false, true})
              for (int64_t W : widths) {
                PoolGeom g;
                g.P = 2, g.H = 5, g.W = W;
                g.kH = k, g.kW = k, g.sH = s, g.sW = s, g.pH = p, g.pW = p, g.dH = d, g.dW = d;
                g.oH = out_size(g.H, k, s, p, d, ceil_mode);
                g.oW = out_size(W, k, s, p, d, ceil_mode);
                if (g.oH <= 0 || g.oW <= 0) continue;
                compare(g, seed++, false, false);
                const bool nans = (seed + 1) % 3 == 0;  // (read before seed++ below: arguments are unsequenced)
                compare(g, seed++, true, nans);
              }
    // 1-d pooling (H = 1) and rectangular windows; the bench CNN's shapes.
    for (int64_t W : {L + 1, 3 * L, int64_t(28)}) {
      PoolGeom g;
      g.P = 3, g.H = 1, g.W = W, g.kW = 2, g.sW = 2, g.oH = 1, g.oW = W / 2;
      compare(g, seed++, false, true);
    }
    PoolGeom rect;
    rect.P = 2, rect.H = 9, rect.W = 11, rect.kH = 3, rect.kW = 2, rect.sH = 2, rect.sW = 1, rect.pH = 1;
    rect.oH = out_size(9, 3, 2, 1, 1, false), rect.oW = out_size(11, 2, 1, 0, 1, false);
    compare(rect, seed++, true, true);
    for (int64_t hw : {28, 14, 7}) {
      PoolGeom g;
      g.P = 16, g.H = hw, g.W = hw, g.kH = 2, g.kW = 2, g.sH = 2, g.sW = 2, g.oH = hw / 2, g.oW = hw / 2;
      compare(g, seed++, false, false);
      compare(g, seed++, true, true);
    }
  });
}
