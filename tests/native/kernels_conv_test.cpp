// The backends' convolution methods (backend.h): the reference on a hand-worked example, then
// the SIMD backend (GEMMs over panels packed from the image) against the reference over odd
// sizes, strides, padding (including padding wider than the kernel), dilation, groups, 1×1
// and 1-d kernels, bias and ReLU; natively once per Highway target, in wasm with both GEMM
// tiles. The tolerance of every output is the γ_k bound of its own sum: (terms + 2)·2⁻²³·Σ|a·b|,
// where Σ|a·b| comes from the reference run on the absolute values.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/backend.h"
#include "kernels/simd/simd_kernels.h"
#include "test_util.h"

namespace {

using sg::ConvGeom;
using sg::GemmAct;
using V = std::vector<float>;

const sg::Backend& R() { return sg::reference_backend(); }
const sg::Backend& S() { return sg::simd_backend(); }

V random(int64_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  V v(static_cast<size_t>(n));
  for (float& x : v) x = u(rng);
  return v;
}

V absolute(V v) {
  for (float& x : v) x = std::fabs(x);
  return v;
}

// got vs want, each within (terms + 2)·1.2e-7·bound[i]; NaN only where want is NaN.
void check_close(const V& got, const V& want, const V& bound, double terms, const char* what) {
  REQUIRE(got.size() == want.size());
  int64_t bad = 0, first = -1;
  for (size_t i = 0; i < got.size(); ++i) {
    const double tol = (terms + 2) * 1.2e-7 * double(bound[i]) + 1e-30;
    const bool ok = std::isnan(want[i]) ? std::isnan(got[i]) : std::fabs(double(got[i]) - want[i]) <= tol;
    if (!ok && bad++ == 0) first = int64_t(i);
  }
  CHECK_MESSAGE(bad == 0, std::string(what) << ": " << bad << " mismatches, first at " << first << ": got "
                               << (first >= 0 ? got[size_t(first)] : 0) << ", want " << (first >= 0 ? want[size_t(first)] : 0));
}

// The SIMD outputs are written into buffers kGuard floats longer than the output, the tail holding
// a sentinel: a loop bound one past its row writes there, which the values alone need not show (a
// stray write inside the output can be overwritten with the right value later; past the last
// image it lands outside the output, where only ASan would see it).
constexpr size_t kGuard = 16;
constexpr float kSentinel = 123.0f;
V guarded(size_t n) { return V(n + kGuard, kSentinel); }

// Checks that nothing was written past the first n floats of v, then drops the guard.
void check_guard(V& v, size_t n, const char* what) {
  int64_t touched = 0;
  for (size_t i = n; i < v.size(); ++i) touched += v[i] != kSentinel;
  CHECK_MESSAGE(touched == 0, std::string(what) << ": " << touched << " floats written past the output's " << n);
  v.resize(n);
}

// Output size of one dim (PyTorch's formula) with `extra` more padding at the end.
int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, int64_t extra = 0) {
  return (in + 2 * p + extra - d * (k - 1) - 1) / s + 1;
}

void compare(const ConvGeom& g, bool with_bias, GemmAct act, unsigned seed) {
  INFO("N" << g.N << " C" << g.C << " " << g.H << "x" << g.W << " O" << g.O << " groups " << g.groups << " k"
           << g.kH << "x" << g.kW << " s" << g.sH << "," << g.sW << " p" << g.pH << "," << g.pW << " d" << g.dH
           << "," << g.dW << " out " << g.oH << "x" << g.oW << " bias " << with_bias << " act " << int(act));
  std::mt19937 rng(seed);
  const V x = random(g.N * g.C * g.H * g.W, rng), w = random(g.O * g.Cg() * g.kH * g.kW, rng);
  const V bias = random(g.O, rng), bias_c = random(g.C, rng), dy = random(g.N * g.O * g.L(), rng);
  const float* b = with_bias ? bias.data() : nullptr;
  const float* bc = with_bias ? bias_c.data() : nullptr;
  const V ax = absolute(x), aw = absolute(w), ab = absolute(bias), abc = absolute(bias_c), ady = absolute(dy);

  V y_ref(dy.size()), y = guarded(dy.size()), bound_y(dy.size());
  R().conv2d_f32(g, x.data(), w.data(), b, act, y_ref.data());
  S().conv2d_f32(g, x.data(), w.data(), b, act, y.data());
  check_guard(y, dy.size(), "forward");
  R().conv2d_f32(g, ax.data(), aw.data(), with_bias ? ab.data() : nullptr, GemmAct::None, bound_y.data());
  check_close(y, y_ref, bound_y, double(g.K()), "forward");

  V dx_ref(x.size()), dx = guarded(x.size()), bound_dx(x.size());
  R().conv2d_backward_data_f32(g, dy.data(), w.data(), bc, dx_ref.data());
  S().conv2d_backward_data_f32(g, dy.data(), w.data(), bc, dx.data());
  check_guard(dx, x.size(), "data gradient");
  R().conv2d_backward_data_f32(g, ady.data(), aw.data(), with_bias ? abc.data() : nullptr, bound_dx.data());
  check_close(dx, dx_ref, bound_dx, double(g.Og() * g.kH * g.kW), "data gradient");

  V dw_ref(w.size()), dw = guarded(w.size()), bound_dw(w.size());
  R().conv2d_backward_weight_f32(g, x.data(), dy.data(), dw_ref.data());
  S().conv2d_backward_weight_f32(g, x.data(), dy.data(), dw.data());
  check_guard(dw, w.size(), "weight gradient");
  R().conv2d_backward_weight_f32(g, ax.data(), ady.data(), bound_dw.data());
  check_close(dw, dw_ref, bound_dw, double(g.N * g.L()), "weight gradient");
}

ConvGeom geom(int64_t N, int64_t C, int64_t H, int64_t W, int64_t O, int64_t groups, int64_t kH, int64_t kW,
              int64_t s, int64_t p, int64_t d, int64_t extra = 0) {
  ConvGeom g;
  g.N = N, g.C = C, g.H = H, g.W = W, g.O = O, g.groups = groups, g.kH = kH, g.kW = kW;
  g.sH = g.sW = s, g.pH = g.pW = p, g.dH = g.dW = d;
  g.oH = out_size(H, kH, s, p, d, extra);
  g.oW = out_size(W, kW, s, p, d, extra);
  return g;
}

// fn() on every Highway target natively; in wasm, with each of the two GEMM tiles (gemm-inl.h).
template <class F>
void each_tile_and_target(F&& fn) {
  std::vector<int> tiles = {0};
#ifdef __EMSCRIPTEN__
  tiles = {5, 6};
#endif
  for (int rows : tiles) {
    if (rows) sg::simd::set_wasm_tile_rows(rows);
    sgtest::each_target(fn);
  }
  sg::simd::set_wasm_tile_rows(0);
}

}  // namespace

TEST_CASE("kernels reference conv2d: hand-worked forward and both gradients") {
  // x = [[1, 2], [3, 4]], w = [[1, 0], [0, 1]] (a 2×2 kernel), no padding: one output 1 + 4.
  ConvGeom g;
  g.H = g.W = 2, g.kH = g.kW = 2, g.oH = g.oW = 1;
  const V x = {1, 2, 3, 4}, w = {1, 0, 0, 1};
  float y = 0, b = 0.5f, neg = -10.0f;
  R().conv2d_f32(g, x.data(), w.data(), &b, GemmAct::None, &y);
  CHECK(y == 5.5f);
  R().conv2d_f32(g, x.data(), w.data(), &neg, GemmAct::Relu, &y);
  CHECK(y == 0.0f);
  // dy = 2: dx = 2·w at the positions each tap read, dw = 2·x.
  const float dy = 2.0f;
  V dx(4), dw(4);
  R().conv2d_backward_data_f32(g, &dy, w.data(), nullptr, dx.data());
  CHECK(dx == V{2, 0, 0, 2});
  R().conv2d_backward_weight_f32(g, x.data(), &dy, dw.data());
  CHECK(dw == V{2, 4, 6, 8});
  // Padding 1, stride 2, 3×3 output of a 2×2 kernel over the padded 4×4: the corners see one
  // input each (y[0,0] = w[1,1]·x[0,0] = 1, y[2,2] = w[0,0]·x[1,1] = 4), the centre all four.
  g.pH = g.pW = 1, g.sH = g.sW = 1, g.oH = g.oW = 3;
  V y9(9);
  R().conv2d_f32(g, x.data(), w.data(), nullptr, GemmAct::None, y9.data());
  CHECK(y9 == V{1, 2, 0, 3, 5, 2, 0, 3, 4});
}

TEST_CASE("kernels simd conv2d: forward, data and weight gradients vs reference") {
  each_tile_and_target([&] {
    unsigned seed = 77;
    // The bench CNN's two layers (small batch), and odd channel counts around the tiles.
    compare(geom(2, 1, 28, 28, 16, 1, 3, 3, 1, 1, 1), true, GemmAct::Relu, seed++);
    compare(geom(2, 16, 14, 14, 32, 1, 3, 3, 1, 1, 1), true, GemmAct::Relu, seed++);
    compare(geom(3, 5, 9, 11, 7, 1, 3, 3, 1, 1, 1), false, GemmAct::None, seed++);
    compare(geom(1, 3, 13, 7, 13, 1, 3, 3, 1, 0, 1), true, GemmAct::None, seed++);
    // Strides (the data gradient's col2im path), dilation, even and rectangular kernels.
    compare(geom(2, 4, 15, 17, 6, 1, 3, 3, 2, 1, 1), true, GemmAct::Relu, seed++);
    compare(geom(2, 3, 16, 9, 5, 1, 2, 2, 2, 0, 1), false, GemmAct::None, seed++);
    compare(geom(1, 2, 17, 19, 9, 1, 3, 3, 3, 2, 1), true, GemmAct::None, seed++);
    compare(geom(2, 3, 13, 12, 4, 1, 3, 3, 1, 2, 2), true, GemmAct::Relu, seed++);
    compare(geom(2, 6, 11, 10, 5, 1, 5, 2, 1, 1, 1), false, GemmAct::None, seed++);
    // Padding wider than the kernel reaches (a crop in the stride-1 data gradient), and an
    // extra bottom/right row of padding ('same' with an even kernel).
    compare(geom(2, 3, 7, 8, 4, 1, 3, 3, 1, 3, 1), true, GemmAct::None, seed++);
    compare(geom(2, 3, 9, 9, 4, 1, 2, 2, 1, 0, 1, 1), true, GemmAct::None, seed++);
    // Groups (2, and depthwise), 1×1 (pointwise: the image is the column matrix), 1-d.
    compare(geom(2, 6, 10, 9, 4, 2, 3, 3, 1, 1, 1), true, GemmAct::Relu, seed++);
    compare(geom(2, 5, 8, 9, 10, 5, 3, 3, 1, 1, 1), false, GemmAct::None, seed++);
    compare(geom(3, 7, 6, 11, 9, 1, 1, 1, 1, 0, 1), true, GemmAct::Relu, seed++);
    compare(geom(2, 6, 6, 7, 4, 2, 1, 1, 2, 0, 1), true, GemmAct::None, seed++);
    ConvGeom one_d = geom(3, 4, 1, 37, 6, 1, 1, 5, 1, 2, 1);
    one_d.pH = 0, one_d.oH = 1;
    compare(one_d, true, GemmAct::None, seed++);
    // Deep columns (K = 300 > one depth block of 256) and many positions (> one block of
    // 512 columns), a batch of one.
    compare(geom(1, 100, 9, 8, 12, 1, 1, 3, 1, 1, 1), true, GemmAct::Relu, seed++);
    compare(geom(1, 2, 30, 25, 3, 1, 3, 3, 1, 1, 1), true, GemmAct::None, seed++);
    // Empty batch: nothing written, the weight gradient zero.
    compare(geom(0, 3, 5, 5, 4, 1, 3, 3, 1, 1, 1), true, GemmAct::None, seed++);
    // No input channels (K = 0): every output is its bias (then the activation), in each of two
    // groups of two images; the data and weight gradients are empty. 1×1 (the per-image pass's
    // own K == 0 branch) and 3×3 with padding.
    compare(geom(2, 0, 5, 6, 4, 2, 1, 1, 1, 0, 1), true, GemmAct::Relu, seed++);
    compare(geom(2, 0, 5, 6, 4, 2, 1, 1, 1, 0, 1), false, GemmAct::None, seed++);
    compare(geom(3, 0, 7, 5, 3, 1, 3, 3, 1, 1, 1), true, GemmAct::None, seed++);
  });
}

TEST_CASE("kernels simd conv2d Winograd F(2x2, 3x3): forward and data gradient vs reference") {
  // The 3×3, stride-1, undilated convolutions with ≥ 8 input channels per group go through
  // Winograd (conv_winograd-inl.h): odd and even output sizes (an odd last tile row and
  // column), widths around the vector of tiles, output channels around the tile rows, groups,
  // padding 0–3 (a crop in the data gradient), several bands of tile rows, and the deep
  // channel count that stays direct. Both gradients go through compare() as well (the data
  // gradient of a stride-1 convolution is itself one, Winograd when its Og ≥ 8).
  each_tile_and_target([&] {
    unsigned seed = 500;
    const ConvGeom cases[] = {
        geom(2, 16, 14, 14, 32, 1, 3, 3, 1, 1, 1),  // the bench CNN's second layer
        geom(1, 8, 1, 1, 5, 1, 3, 3, 1, 1, 1),      // one output
        geom(2, 8, 5, 3, 3, 1, 3, 3, 1, 1, 1),
        geom(1, 9, 9, 17, 7, 1, 3, 3, 1, 0, 1),     // 7 × 15 out
        geom(2, 10, 12, 10, 13, 1, 3, 3, 1, 1, 1),
        geom(1, 11, 19, 23, 11, 1, 3, 3, 1, 2, 1),  // 21 × 25 out
        geom(2, 16, 6, 9, 6, 2, 3, 3, 1, 1, 1),     // groups of 8 channels
        geom(1, 9, 8, 7, 4, 1, 3, 3, 1, 3, 1),      // padding past the kernel
        geom(1, 8, 10, 11, 3, 1, 3, 3, 1, 1, 1, 1), // an extra bottom/right padding row
        geom(1, 64, 40, 9, 5, 1, 3, 3, 1, 1, 1),    // tile rows in several bands
    };
    for (const ConvGeom& g : cases) {
      CHECK(sg::simd::conv2d_uses_winograd(g));
      compare(g, true, GemmAct::Relu, seed++);
      compare(g, false, GemmAct::None, seed++);
    }
    // Not Winograd: too few channels, strided, dilated, another kernel size, too deep.
    for (const ConvGeom& g : {geom(1, 7, 8, 8, 4, 1, 3, 3, 1, 1, 1), geom(1, 8, 9, 9, 4, 1, 3, 3, 2, 1, 1),
                              geom(1, 8, 9, 9, 4, 1, 3, 3, 1, 2, 2), geom(1, 8, 9, 9, 4, 1, 5, 5, 1, 2, 1),
                              geom(1, 300, 5, 5, 4, 1, 3, 3, 1, 1, 1)})
      CHECK_FALSE(sg::simd::conv2d_uses_winograd(g));
    compare(geom(1, 300, 5, 5, 4, 1, 3, 3, 1, 1, 1), true, GemmAct::None, seed++);
  });
}

TEST_CASE("kernels simd conv2d_maxpool2d: the pool read from the output grid equals conv2d then max_pool2d") {
  // The same SIMD convolution either way, so the values must be identical, and so must the
  // argmax wherever the max is positive (NaN in the input included). The fused path pools
  // before the ReLU, so where every value of a window is ≤ 0 its argmax may differ from the
  // first of ReLU's zeros (ReLU's gradient is 0 there either way).
  each_tile_and_target([&] {
    unsigned seed = 300;
    for (const ConvGeom& g : {geom(2, 3, 14, 14, 7, 1, 3, 3, 1, 1, 1), geom(3, 1, 28, 28, 16, 1, 3, 3, 1, 1, 1),
                              geom(2, 4, 9, 11, 5, 1, 3, 3, 1, 0, 1), geom(2, 6, 8, 8, 4, 2, 3, 3, 1, 1, 2),
                              geom(2, 16, 14, 14, 32, 1, 3, 3, 1, 1, 1), geom(2, 9, 9, 9, 7, 1, 3, 3, 1, 1, 1),
                              // Pooled rows of 35 and 34: more than two vectors of int32 lanes on
                              // every target (the argmax remap's vector loop past its first step).
                              geom(2, 3, 6, 70, 5, 1, 3, 3, 1, 1, 1)}) {
      for (const sg::PoolGeom base : {sg::PoolGeom{0, 0, 0, 0, 0, 2, 2, 2, 2, 0, 0, 1, 1},
                                      sg::PoolGeom{0, 0, 0, 0, 0, 3, 3, 2, 2, 0, 0, 1, 1}}) {
        sg::PoolGeom p = base;
        p.P = g.N * g.O, p.H = g.oH, p.W = g.oW;
        p.oH = (g.oH - (p.kH - 1) - 1) / p.sH + 1;
        p.oW = (g.oW - (p.kW - 1) - 1) / p.sW + 1;
        INFO("conv " << g.N << "x" << g.C << "x" << g.H << "x" << g.W << " -> " << g.O << " pool k" << p.kH);
        std::mt19937 rng(seed++);
        V x = random(g.N * g.C * g.H * g.W, rng), w = random(g.O * g.Cg() * g.kH * g.kW, rng), b = random(g.O, rng);
        x[5] = std::numeric_limits<float>::quiet_NaN();
        const size_t ny = size_t(p.P * p.oH * p.oW);
        V z(size_t(g.N * g.O * g.L())), want(ny, 7.0f), got = guarded(ny);
        // The argmax guard holds a non-negative index, which the grid-to-input remap would change
        // (it leaves only negative ones, 'no input', as they are).
        constexpr int32_t kIdxSentinel = 1 << 20;
        std::vector<int32_t> want_idx(ny, -5), got_idx(ny + kGuard, kIdxSentinel);
        S().conv2d_f32(g, x.data(), w.data(), b.data(), GemmAct::Relu, z.data());
        S().max_pool2d_f32(p, z.data(), want.data(), want_idx.data());
        S().conv2d_maxpool2d_f32(g, x.data(), w.data(), b.data(), GemmAct::Relu, p, got.data(), got_idx.data());
        check_guard(got, ny, "pooled values");
        CHECK(std::count(got_idx.begin() + std::ptrdiff_t(ny), got_idx.end(), kIdxSentinel) == std::ptrdiff_t(kGuard));
        got_idx.resize(ny);
        CHECK(std::memcmp(got.data(), want.data(), ny * sizeof(float)) == 0);
        // Without the argmax (nullptr: a forward under no_grad), the same values.
        V values(ny, 7.0f);
        S().conv2d_maxpool2d_f32(g, x.data(), w.data(), b.data(), GemmAct::Relu, p, values.data(), nullptr);
        CHECK(std::memcmp(values.data(), want.data(), ny * sizeof(float)) == 0);
        int64_t idx_differ = 0, positive = 0;
        for (size_t i = 0; i < ny; ++i)
          if (!(want[i] <= 0.0f)) ++positive, idx_differ += got_idx[i] != want_idx[i];  // > 0 or NaN
        CHECK(idx_differ == 0);
        CHECK(positive > int64_t(ny) / 4);  // (the comparison covers most windows)
      }
    }
  });
}
