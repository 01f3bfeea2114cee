// SIMD GEMM entry points: the blocked driver of gemm-inl.h on dense operands.
#include <cmath>
#include <cstdint>

#include "kernels/simd/gemm_slots.h"
#include "kernels/simd/simd_kernels.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/simd/gemm.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "kernels/simd/gemm-inl.h"

HWY_BEFORE_NAMESPACE();
namespace sg {
namespace simd {
namespace HWY_NAMESPACE {

void GemmF32Blocked(const GemmArgs& g) {
  if (IsSmallGemm(g, small_gemm_limit())) return GemmSmallWithTile(g, DenseB{g});
  GemmDenseWithTile(g, DenseB{g});
}

void GemmPackB(const GemmArgs& g, int64_t q0, int64_t q1, float* packed) {
  PackBPanels(g, DenseB{g}, q0, q1, packed);
}

int64_t GemmPanelWidth() { return kNV * static_cast<int64_t>(hn::Lanes(DF())); }

int GemmTileRows() {
#if HWY_TARGET == HWY_WASM
  return wasm_tile_rows();
#else
  return kMaxMR;
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace sg
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sg {
namespace simd {
HWY_EXPORT(GemmF32Blocked);
HWY_EXPORT(GemmPackB);
HWY_EXPORT(GemmPanelWidth);
HWY_EXPORT(GemmTileRows);

namespace {
int g_wasm_tile_rows = 0;  // 0: the engine's choice (wasm_tile_rows)
int64_t g_small_gemm_limit = kSmallGemmMNK;
int64_t g_packed_a_whole_limit = kPackedAWhole;

// x86 cores produce the "default NaN", whose sign bit is set, for inf − inf; ARM and the
// others a positive one (the test XNNPACK's wasm build uses to tell them apart). volatile so
// that the compiler cannot fold the subtraction.
bool engine_runs_on_x86() {
  static const volatile float inf = INFINITY;
  return std::signbit(inf - inf);
}
}  // namespace

// 5 rows on x86 with the SIMD128 kernels (gemm-inl.h: 6 spill there), 6 elsewhere and with
// kernels installed in the slots (gemm_slots.h): the relaxed-SIMD ones fuse the multiply and the
// add into one register, so 6 rows fit V8's 15 xmm registers (measured on an AMD EPYC Zen 5,
// Node 20, one L1-resident A panel against 64 B panels, CPU time, load ~10: relaxed 6×8 52
// GFLOP/s, relaxed 5×8 48, SIMD128 5×8 49, SIMD128 6×8 25).
int wasm_tile_rows() {
  if (g_wasm_tile_rows != 0) return g_wasm_tile_rows;
  static const bool x86 = engine_runs_on_x86();
  return x86 && !gemm_kernel_slots_in_use() ? 5 : 6;
}

void set_wasm_tile_rows(int rows) { g_wasm_tile_rows = rows == 5 || rows == 6 ? rows : 0; }

int64_t small_gemm_limit() { return g_small_gemm_limit; }

void set_small_gemm_limit(int64_t mnk) { g_small_gemm_limit = mnk < 0 ? kSmallGemmMNK : mnk; }

int64_t packed_a_whole_limit() { return g_packed_a_whole_limit; }

void set_packed_a_whole_limit(int64_t floats) { g_packed_a_whole_limit = floats < 0 ? kPackedAWhole : floats; }

const char* gemm_tile_name() {
#ifdef __EMSCRIPTEN__
  return wasm_tile_rows() == 5 ? "5x8" : "6x8";
#else
  return "native";
#endif
}

void gemm_f32_bias(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                   const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                   const float* bias, GemmAct act, float* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {  // no product: C = act(beta · C + bias) (beta = 0 overwrites: C may hold NaN)
    for (int64_t i = 0; i < m; ++i) {
      float* row = c + i * ldc;
      for (int64_t j = 0; j < n; ++j)
        row[j] = (beta == 0.0f ? 0.0f : beta * row[j]) + (bias ? bias[j] : 0.0f);
      if (act != GemmAct::None) unary_f32(gemm_act_unary(act), 0.0f, row, row, n);
    }
    return;
  }
  const GemmArgs g{trans_a, trans_b, m, n, k, alpha, beta, a, lda, b, ldb, bias, nullptr, act, c, ldc};
  HWY_DYNAMIC_DISPATCH(GemmF32Blocked)(g);
}

int64_t gemm_b_panel_width() { return HWY_DYNAMIC_DISPATCH(GemmPanelWidth)(); }

int gemm_tile_rows() { return HWY_DYNAMIC_DISPATCH(GemmTileRows)(); }

void gemm_pack_b(bool trans_b, int64_t n, int64_t k, const float* b, int64_t ldb, int64_t q0, int64_t q1,
                 float* packed) {
  GemmArgs g{false, trans_b, 0, n, k, 1.0f, 0.0f, nullptr, 0, b, ldb, nullptr, nullptr, GemmAct::None, nullptr, 0};
  HWY_DYNAMIC_DISPATCH(GemmPackB)(g, q0, q1, packed);
}

void gemm_f32_bias_packed(bool trans_a, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                          int64_t lda, const float* packed_b, float beta, const float* bias, GemmAct act,
                          float* c, int64_t ldc) {
  if (m <= 0 || n <= 0 || k <= 0) return;  // (the threaded split never asks for these)
  GemmArgs g{trans_a, false, m, n, k, alpha, beta, a, lda, nullptr, 0, bias, nullptr, act, c, ldc};
  g.packed_b = packed_b;
  HWY_DYNAMIC_DISPATCH(GemmF32Blocked)(g);
}

void gemm_f32_blocked(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                      const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                      float* c, int64_t ldc) {
  gemm_f32_bias(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, nullptr, GemmAct::None, c, ldc);
}

}  // namespace simd
}  // namespace sg
#endif  // HWY_ONCE
