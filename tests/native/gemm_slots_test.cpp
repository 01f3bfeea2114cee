// The GEMM microkernel slots (kernels/simd/gemm_slots.h), which the relaxed-SIMD side module's
// kernels are written into from JS. Here nothing is written into them, so each slot runs the
// built-in SIMD128 kernel of its shape: with the slots in use every product, convolution and
// gradient must equal the built-in kernels' results bit for bit. A slot wired to the wrong height
// (rows left out) or the wrong family fails that. Natively there are no slots (Highway dispatches
// to FMA targets itself) and the switch changes nothing.
#include <doctest/doctest.h>

#include <array>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "kernels/backend.h"
#include "kernels/conv_geom.h"
#include "kernels/simd/gemm_slots.h"
#include "kernels/simd/simd_kernels.h"
#include "test_util.h"

namespace {

const sg::Backend& S() { return sg::simd_backend(); }

std::vector<float> values(int64_t n, unsigned seed) {
  std::vector<float> v(static_cast<size_t>(n));
  unsigned s = seed;
  for (float& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(s >> 8) / 16777216.0f - 0.5f;
  }
  return v;
}

bool same_bits(const std::vector<float>& x, const std::vector<float>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0;
}

// C = op(A)·op(B) once with the built-in kernels and once through the slots.
void check_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k) {
  const std::vector<float> a = values(m * k, static_cast<unsigned>(m * 31 + k));
  const std::vector<float> b = values(k * n, static_cast<unsigned>(n * 17 + k));
  std::vector<float> builtin(static_cast<size_t>(m * n)), slots(builtin.size());
  const int64_t lda = ta ? m : k, ldb = tb ? k : n;
  sg::simd::use_gemm_kernel_slots(false);
  S().gemm_f32(ta, tb, m, n, k, 1.0f, a.data(), lda, b.data(), ldb, 0.0f, builtin.data(), n);
  sg::simd::use_gemm_kernel_slots(true);
  S().gemm_f32(ta, tb, m, n, k, 1.0f, a.data(), lda, b.data(), ldb, 0.0f, slots.data(), n);
  sg::simd::use_gemm_kernel_slots(false);
  INFO("ta=" << ta << " tb=" << tb << " m,n,k=" << m << "," << n << "," << k);
  CHECK(same_bits(builtin, slots));
}

}  // namespace

TEST_CASE("gemm slots: one per external kernel, named as the side module's exports") {
  const std::vector<sg::simd::GemmKernelSlot> slots = sg::simd::gemm_kernel_slots();
#if defined(__EMSCRIPTEN__)
  const std::vector<std::string> expected = {
      "packed_5_5", "packed_4_5", "packed_2_5", "packed_6_6", "packed_4_6", "packed_2_6",
      "rows_5_5", "rows_4_5", "rows_2_5", "rows_6_6", "rows_4_6", "rows_2_6",
      "rows_of_a_1", "rows_of_a_2", "rows_of_a_3", "rows_of_a_4", "rows_of_a_5", "rows_of_a_6"};
  REQUIRE(slots.size() == expected.size());
  std::set<uint32_t> indices;
  for (size_t i = 0; i < slots.size(); ++i) {
    CHECK(slots[i].name == expected[i]);
    CHECK(slots[i].index != 0u);  // 0 is the null function pointer
    indices.insert(slots[i].index);
  }
  CHECK(indices.size() == slots.size());  // each slot its own table entry
#else
  CHECK(slots.empty());
#endif
  sg::simd::use_gemm_kernel_slots(true);
#if defined(__EMSCRIPTEN__)
  CHECK(sg::simd::gemm_kernel_slots_in_use());
#else
  CHECK_FALSE(sg::simd::gemm_kernel_slots_in_use());
#endif
  sg::simd::use_gemm_kernel_slots(false);
  CHECK_FALSE(sg::simd::gemm_kernel_slots_in_use());
}

TEST_CASE("gemm slots: products through the slots equal the built-in kernels bit for bit") {
  // Both wasm tiles (5 and 6 rows), every height of a last panel (m mod tile), the small
  // products' path (A read in place) and the packed one, transposes, two depth blocks.
  for (int rows : {5, 6}) {
    sg::simd::set_wasm_tile_rows(rows);
    for (int64_t m : {1, 2, 3, 4, 5, 6, 7, 11, 12, 13})
      for (bool ta : {false, true}) check_gemm(ta, false, m, 19, 37);
    check_gemm(false, true, 67, 45, 600);  // two depth blocks of 300
    check_gemm(true, true, 83, 530, 97);
    check_gemm(false, false, 130, 70, 129);
  }
  sg::simd::set_wasm_tile_rows(0);
}

TEST_CASE("gemm slots: convolutions (B read in place) through the slots equal the built-in kernels") {
  for (int rows : {5, 6}) {
    sg::simd::set_wasm_tile_rows(rows);
    for (const std::array<int64_t, 4>& s : std::vector<std::array<int64_t, 4>>{{3, 5, 9, 3}, {4, 13, 12, 3}, {2, 6, 7, 1}}) {
      sg::ConvGeom g;
      g.N = 2, g.C = s[0], g.O = s[1], g.H = g.W = s[2], g.kH = g.kW = s[3];
      g.pH = g.pW = s[3] / 2;
      g.oH = g.H + 2 * g.pH - g.kH + 1, g.oW = g.W + 2 * g.pW - g.kW + 1;
      const std::vector<float> x = values(g.N * g.C * g.H * g.W, 5), w = values(g.O * g.C * g.kH * g.kW, 6);
      const std::vector<float> dy = values(g.N * g.O * g.oH * g.oW, 7);
      std::vector<float> y0(dy.size()), y1(dy.size()), dx0(x.size()), dx1(x.size()), dw0(w.size()), dw1(w.size());
      sg::simd::use_gemm_kernel_slots(false);
      S().conv2d_f32(g, x.data(), w.data(), nullptr, sg::GemmAct::None, y0.data());
      S().conv2d_backward_data_f32(g, dy.data(), w.data(), nullptr, dx0.data());
      S().conv2d_backward_weight_f32(g, x.data(), dy.data(), dw0.data());
      sg::simd::use_gemm_kernel_slots(true);
      S().conv2d_f32(g, x.data(), w.data(), nullptr, sg::GemmAct::None, y1.data());
      S().conv2d_backward_data_f32(g, dy.data(), w.data(), nullptr, dx1.data());
      S().conv2d_backward_weight_f32(g, x.data(), dy.data(), dw1.data());
      sg::simd::use_gemm_kernel_slots(false);
      INFO("tile rows " << rows << " C,O,H,k = " << s[0] << "," << s[1] << "," << s[2] << "," << s[3]);
      CHECK(same_bits(y0, y1));
      CHECK(same_bits(dx0, dx1));
      CHECK(same_bits(dw0, dw1));
    }
  }
  sg::simd::set_wasm_tile_rows(0);
}
