// im2col / col2im kernels: the reference against a hand-written 1-channel example, then the
// SIMD backend against the reference (exact equality: a copy and its adjoint) over odd sizes,
// widths around the vector lanes, padding, strides, dilation and a row stride ld > oH·oW;
// natively once per Highway target.
#include <doctest/doctest.h>

#include <functional>
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

using sg::Im2colGeom;

void compare(const Im2colGeom& g, int64_t extra_ld, unsigned seed) {
  const int64_t K = g.C * g.kH * g.kW, L = g.oH * g.oW, ld = L + extra_ld;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> x(static_cast<size_t>(g.C * g.H * g.W));
  for (float& v : x) v = u(rng);
  // Sentinels in the gaps between rows (ld > L) must survive.
  std::vector<float> col_ref(static_cast<size_t>(K * ld), 42.0f), col(col_ref.size(), 42.0f);
  sg::reference_backend().im2col_f32(g, x.data(), col_ref.data(), ld);
  sg::simd_backend().im2col_f32(g, x.data(), col.data(), ld);
  INFO("C" << g.C << " " << g.H << "x" << g.W << " k" << g.kH << "x" << g.kW << " s" << g.sH << "," << g.sW
           << " p" << g.pH << "," << g.pW << " d" << g.dH << "," << g.dW << " out " << g.oH << "x" << g.oW
           << " ld " << ld);
  CHECK(col == col_ref);
  std::vector<float> dcol(col.size());
  for (float& v : dcol) v = u(rng);
  std::vector<float> dx_ref(x.size()), dx(x.size());
  for (size_t i = 0; i < x.size(); ++i) dx_ref[i] = dx[i] = float(i % 5);  // col2im adds onto dx
  sg::reference_backend().col2im_f32(g, dcol.data(), ld, dx_ref.data());
  sg::simd_backend().col2im_f32(g, dcol.data(), ld, dx.data());
  CHECK(dx == dx_ref);
}

}  // namespace

TEST_CASE("kernels reference im2col/col2im: hand example with padding") {
  // x = [[1, 2], [3, 4]], 2×2 kernel, padding 1, stride 1 → 3×3 outputs; row (ki, kj) holds
  // x[oh + ki − 1, ow + kj − 1] (0 outside).
  Im2colGeom g;
  g.C = 1, g.H = 2, g.W = 2, g.kH = 2, g.kW = 2, g.pH = 1, g.pW = 1, g.oH = 3, g.oW = 3;
  const std::vector<float> x = {1, 2, 3, 4};
  std::vector<float> col(4 * 9, -1.0f);
  sg::reference_backend().im2col_f32(g, x.data(), col.data(), 9);
  const std::vector<float> want = {
      0, 0, 0, 0, 1, 2, 0, 3, 4,  // (0, 0)
      0, 0, 0, 1, 2, 0, 3, 4, 0,  // (0, 1)
      0, 1, 2, 0, 3, 4, 0, 0, 0,  // (1, 0)
      1, 2, 0, 3, 4, 0, 0, 0, 0,  // (1, 1)
  };
  CHECK(col == want);
  // col2im of all ones counts how many windows read each input: 4 each here.
  std::vector<float> ones(36, 1.0f), dx(4, 0.0f);
  sg::reference_backend().col2im_f32(g, ones.data(), 9, dx.data());
  CHECK(dx == std::vector<float>{4, 4, 4, 4});
}

TEST_CASE("kernels simd im2col/col2im: every geometry vs reference") {
  each_target([] {
    const int64_t L = sg::simd::lanes_f32();
    unsigned seed = 3;
    for (int64_t W : {int64_t(1), int64_t(2), L - 1, L, L + 1, 2 * L + 3, int64_t(14), int64_t(29)}) {
      if (W < 1) continue;
      for (int64_t k = 1; k <= 3; ++k)
        for (int64_t s = 1; s <= 2; ++s)
          for (int64_t p = 0; p <= 2; ++p)
            for (int64_t d = 1; d <= 2; ++d) {
              Im2colGeom g;
              g.C = 2, g.H = 5, g.W = W, g.kH = k, g.kW = k, g.sH = s, g.sW = s, g.pH = p, g.pW = p;
              g.dH = d, g.dW = d;
              const int64_t eh = d * (k - 1) + 1;
              if (g.H + 2 * p < eh || W + 2 * p < eh) continue;
              g.oH = (g.H + 2 * p - eh) / s + 1;
              g.oW = (W + 2 * p - eh) / s + 1;
              compare(g, 0, seed++);
              compare(g, 3, seed++);
            }
    }
    // Asymmetric output (as 'same' padding or conv_transpose2d's outputPadding give): the
    // positions past the bottom/right of the input read as zero.
    Im2colGeom a;
    a.C = 3, a.H = 6, a.W = 7, a.kH = 2, a.kW = 4, a.pH = 0, a.pW = 1, a.oH = 6, a.oW = 7;
    compare(a, 1, seed++);
    // The bench CNN's second convolution.
    Im2colGeom b;
    b.C = 16, b.H = 14, b.W = 14, b.kH = 3, b.kW = 3, b.pH = 1, b.pW = 1, b.oH = 14, b.oW = 14;
    compare(b, 196 * 3, seed++);
  });
}
