// The SIMD max pool's 2×2 stride-2 fast path (simd/pool.cpp two_by_two) against the reference
// backend's scalar loops, for geometries that differ from it in exactly one parameter: a kernel,
// stride, padding or dilation of one axis only, or a ceil_mode window that runs past the plane.
// Each must leave the fast path (or give the same results on it). kernels_pool_test.cpp varies
// every parameter on both axes together, so a fast path that ignored one axis's kernel or
// dilation passed it (scripts/mutation.sh: pool.cpp's kH == 2 or dH == 1 swapped for != survived
// kernels_pool_test.cpp; this file kills them. The padding terms are redundant, see
// .ci/mutation-equivalent.txt).
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernels/backend.h"
#include "test_util.h"

namespace {

using sg::PoolGeom;

// PyTorch's output size along one axis.
int64_t out_len(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  const int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  int64_t o = num / s + 1;
  if (ceil_mode && (o - 1) * s >= in + p) --o;
  return o;
}

struct Axis {
  int64_t k = 2, s = 2, p = 0, d = 1;
};

void same_as_reference(int64_t H, int64_t W, Axis h, Axis w, bool ceil_mode, unsigned seed) {
  PoolGeom g;
  g.P = 3, g.H = H, g.W = W;
  g.kH = h.k, g.sH = h.s, g.pH = h.p, g.dH = h.d;
  g.kW = w.k, g.sW = w.s, g.pW = w.p, g.dW = w.d;
  g.oH = out_len(H, h.k, h.s, h.p, h.d, ceil_mode);
  g.oW = out_len(W, w.k, w.s, w.p, w.d, ceil_mode);
  INFO("H " << H << " W " << W << " k " << h.k << "," << w.k << " s " << h.s << "," << w.s << " p " << h.p << ","
            << w.p << " d " << h.d << "," << w.d << " ceil " << ceil_mode << " out " << g.oH << "x" << g.oW);
  REQUIRE(g.oH > 0);
  REQUIRE(g.oW > 0);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> x(size_t(g.P * H * W));
  for (float& v : x) v = u(rng);
  const size_t n_out = size_t(g.P * g.oH * g.oW);
  std::vector<float> y_ref(n_out), y(n_out, -99.0f);
  std::vector<int32_t> i_ref(n_out), idx(n_out, -7);
  sg::reference_backend().max_pool2d_f32(g, x.data(), y_ref.data(), i_ref.data());
  sg::simd_backend().max_pool2d_f32(g, x.data(), y.data(), idx.data());
  CHECK(y == y_ref);
  CHECK(idx == i_ref);
  std::vector<float> dy(n_out);
  for (float& v : dy) v = u(rng);
  std::vector<float> dx_ref(x.size()), dx(x.size(), -99.0f);
  sg::reference_backend().max_pool2d_backward_f32(g, dy.data(), i_ref.data(), dx_ref.data());
  sg::simd_backend().max_pool2d_backward_f32(g, dy.data(), i_ref.data(), dx.data());
  CHECK(dx == dx_ref);
}

}  // namespace

TEST_CASE("kernels simd max pool: geometries one parameter away from the 2x2 stride-2 fast path") {
  sgtest::each_target([] {
    unsigned seed = 100;
    const Axis fast;
    same_as_reference(6, 8, fast, fast, false, seed++);  // the fast path itself
    for (int axis = 0; axis < 2; ++axis) {
      auto one_axis = [&](Axis changed, int64_t H, int64_t W, bool ceil_mode) {
        same_as_reference(H, W, axis == 0 ? changed : fast, axis == 0 ? fast : changed, ceil_mode, seed++);
      };
      one_axis({3, 2, 0, 1}, 7, 9, false);  // kernel 3
      one_axis({2, 1, 0, 1}, 6, 8, false);  // stride 1
      one_axis({2, 2, 1, 1}, 6, 8, false);  // padding 1
      one_axis({2, 2, 0, 2}, 7, 9, false);  // dilation 2
    }
    // ceil_mode on odd planes: the last window hangs past the plane (oH·2 > H, oW·2 > W).
    same_as_reference(7, 8, fast, fast, true, seed++);
    same_as_reference(6, 9, fast, fast, true, seed++);
  });
}
