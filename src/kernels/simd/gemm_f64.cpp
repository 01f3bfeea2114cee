// The SIMD backend's float64 GEMM (Backend::gemm_f64, issue 27): C = alpha·op(A)·op(B) + beta·C
// in double. Smaller than the float32 GEMM (gemm-inl.h) on purpose: one blocking level (kKC deep
// slices of op(B) packed into panels, kNC columns at a time) and one microkernel. With Highway
// double vectors (native): 4 rows × 2 vectors, broadcasting A's entries straight from A (any
// transpose, no A packing). On wasm, where this Highway has no double vectors: wasm_simd128.h
// f64x2 directly, 5 rows × 4 columns (the float32 kernel's register budget), A packed p-major
// per 5-row panel so each broadcast is one load-splat; the A panel stays in L1 while the B
// panels stream past (before: a 4 × 4 tile of plain doubles left to clang's vectorizer, 0.38× the
// float32 GEMM's GFLOP/s at 1024). Every C entry sums its products in p order in either form.
// Tiles at the right and bottom edges are computed into a local tile and copied, so the inner
// loop has no tail branches. The reference (kernels/reference/gemm.cpp) is its oracle in
// tests/native/gemm_f64_test.cpp (native) and float64.test.mjs's products checked against
// PyTorch (wasm).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/simd/simd_kernels.h"

// Outside the per-target namespaces (this file is compiled once per target): one type for the
// dispatch table. The guard keeps the re-inclusions from defining it again.
#ifndef SG_GEMM_F64_ARGS
#define SG_GEMM_F64_ARGS
namespace sg::simd {
struct F64Args {
  bool trans_a, trans_b;
  int64_t m, n, k;
  double alpha;
  const double* a;
  int64_t lda;
  const double* b;
  int64_t ldb;
  double beta;
  double* c;
  int64_t ldc;
  double A(int64_t i, int64_t p) const { return trans_a ? a[p * lda + i] : a[i * lda + p]; }
  double B(int64_t p, int64_t j) const { return trans_b ? b[j * ldb + p] : b[p * ldb + j]; }
};

}  // namespace sg::simd
#endif

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/simd/gemm_f64.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#if !HWY_HAVE_FLOAT64 && defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

HWY_BEFORE_NAMESPACE();
namespace sg {
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_HAVE_FLOAT64
using DD = hn::ScalableTag<double>;
using VD = hn::Vec<DD>;
#endif

constexpr int kMR = 4;         // rows of A per microkernel call
constexpr int kNV = 2;         // vectors per panel row: NR = kNV · lanes columns
constexpr int64_t kKC = 256;   // depth of one packed slice
constexpr int64_t kNC = 256;   // columns of one packed block of panels

// op(B)[p0 : p0+kc, j0 : j0+w] into panels of nr columns (kc × nr each, zero-padded on the right).
void PackB(const F64Args& g, int64_t p0, int64_t kc, int64_t j0, int64_t w, int64_t nr, double* dst) {
  for (int64_t q = 0; q < w; q += nr) {
    const int64_t cols = std::min(nr, w - q);
    for (int64_t p = 0; p < kc; ++p) {
      double* row = dst + q * kc + p * nr;
      if (!g.trans_b && cols == nr) {
        std::memcpy(row, g.b + (p0 + p) * g.ldb + j0 + q, size_t(nr) * sizeof(double));
        continue;
      }
      for (int64_t j = 0; j < cols; ++j) row[j] = g.B(p0 + p, j0 + q + j);
      for (int64_t j = cols; j < nr; ++j) row[j] = 0.0;
    }
  }
}

#if HWY_HAVE_FLOAT64
constexpr int kRows = kMR;
#else
// wasm SIMD128 (this Highway's wasm target has no double vectors, so the kernel is written with
// wasm_simd128.h): 5 rows × 2 f64x2 vectors, the float32 GEMM's register budget on V8/x64
// (10 accumulators + 2 of B + the broadcast + a product: 14 of the 15 xmm registers V8 gives
// out; gemm-inl.h measured 5 rows as the fastest there). No FMA: a multiply and an add.
constexpr int kRows = 5;
#endif

// Columns of one panel: kNV vectors of doubles, or 4 doubles (2 f64x2) on wasm.
inline int64_t PanelWidth() {
#if HWY_HAVE_FLOAT64
  return kNV * static_cast<int64_t>(hn::Lanes(DD()));
#else
  return 4;
#endif
}

#if HWY_HAVE_FLOAT64
// acc (kMR × nr, row-major in `tile`) = Σ_p A[i0 + r, p0 + p] · panel[p, :] for kc steps; rows
// past h read row i0 (any valid row: their results are dropped).
HWY_NOINLINE void Microkernel(const F64Args& g, int64_t i0, int64_t h, int64_t p0, int64_t kc, const double* panel,
                              double* HWY_RESTRICT tile) {
  // Row pointers and the step between consecutive p in each: A read in place, either layout.
  const double* rows[kMR];
  for (int r = 0; r < kMR; ++r) {
    const int64_t i = i0 + (r < h ? r : 0);
    rows[r] = g.trans_a ? g.a + p0 * g.lda + i : g.a + i * g.lda + p0;
  }
  const int64_t step = g.trans_a ? g.lda : 1;
  const DD d;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  const int64_t nr = kNV * L;
  VD acc[kMR][kNV];
  for (int r = 0; r < kMR; ++r)
    for (int v = 0; v < kNV; ++v) acc[r][v] = hn::Zero(d);
  for (int64_t p = 0; p < kc; ++p) {
    const double* bp = panel + p * nr;
    VD bv[kNV];
    for (int v = 0; v < kNV; ++v) bv[v] = hn::LoadU(d, bp + v * L);
    for (int r = 0; r < kMR; ++r) {
      const VD av = hn::Set(d, rows[r][p * step]);
      for (int v = 0; v < kNV; ++v) acc[r][v] = hn::MulAdd(av, bv[v], acc[r][v]);
    }
  }
  for (int r = 0; r < kMR; ++r)
    for (int v = 0; v < kNV; ++v) hn::StoreU(acc[r][v], d, tile + r * nr + v * L);
}
#else
// op(A)[i0 : i0+h, p0 : p0+kc] packed p-major (kc × kRows: the kRows values of step p side by
// side, rows past h repeating row i0), so the microkernel broadcasts each with one load-splat
// from one pointer instead of reading kRows rows of A in place.
void PackA(const F64Args& g, int64_t i0, int64_t h, int64_t p0, int64_t kc, double* HWY_RESTRICT dst) {
  for (int r = 0; r < kRows; ++r) {
    const int64_t i = i0 + (r < h ? r : 0);
    if (g.trans_a) {
      const double* src = g.a + p0 * g.lda + i;
      for (int64_t p = 0; p < kc; ++p) dst[p * kRows + r] = src[p * g.lda];
    } else {
      const double* src = g.a + i * g.lda + p0;
      for (int64_t p = 0; p < kc; ++p) dst[p * kRows + r] = src[p];
    }
  }
}

// tile (kRows × 4, row-major) = Σ_p apanel[p, r] · panel[p, :] for kc steps.
HWY_NOINLINE void Microkernel(const double* HWY_RESTRICT apanel, int64_t kc, const double* HWY_RESTRICT panel,
                              double* HWY_RESTRICT tile) {
#ifndef __wasm_simd128__
  // A target with neither (32-bit Arm NEON): plain doubles, the same tile.
  double acc[kRows][4] = {};
  for (int64_t p = 0; p < kc; ++p)
    for (int r = 0; r < kRows; ++r)
      for (int j = 0; j < 4; ++j) acc[r][j] += apanel[p * kRows + r] * panel[p * 4 + j];
  for (int r = 0; r < kRows; ++r)
    for (int j = 0; j < 4; ++j) tile[r * 4 + j] = acc[r][j];
#else
  v128_t acc[kRows][2];
  for (int r = 0; r < kRows; ++r) acc[r][0] = acc[r][1] = wasm_f64x2_splat(0.0);
  for (int64_t p = 0; p < kc; ++p) {
    const v128_t b0 = wasm_v128_load(panel + p * 4), b1 = wasm_v128_load(panel + p * 4 + 2);
    const double* ap = apanel + p * kRows;
    for (int r = 0; r < kRows; ++r) {
      const v128_t av = wasm_v128_load64_splat(ap + r);
      acc[r][0] = wasm_f64x2_add(acc[r][0], wasm_f64x2_mul(av, b0));
      acc[r][1] = wasm_f64x2_add(acc[r][1], wasm_f64x2_mul(av, b1));
    }
  }
  for (int r = 0; r < kRows; ++r) {
    wasm_v128_store(tile + r * 4, acc[r][0]);
    wasm_v128_store(tile + r * 4 + 2, acc[r][1]);
  }
#endif
}
#endif

void GemmF64(const F64Args& g) {
  const int64_t nr = PanelWidth();
  // C ← beta·C first (beta = 0 never reads C, which may hold NaN), then slices add alpha·A·B.
  for (int64_t i = 0; i < g.m; ++i) {
    double* row = g.c + i * g.ldc;
    if (g.beta == 0.0) std::fill(row, row + g.n, 0.0);
    else if (g.beta != 1.0) for (int64_t j = 0; j < g.n; ++j) row[j] *= g.beta;
  }
  if (g.k == 0 || g.alpha == 0.0) return;
  const int64_t nc_max = std::min<int64_t>(kNC, (g.n + nr - 1) / nr * nr);
  std::vector<double> packed(size_t(std::min<int64_t>(kKC, g.k) * nc_max));
  std::vector<double> tile(size_t(kRows * nr));
#if !HWY_HAVE_FLOAT64
  std::vector<double> apanel(size_t(std::min<int64_t>(kKC, g.k) * kRows));
#endif
  // Adds alpha · the tile's first h rows and `cols` columns into C at (i0, j).
  const auto write_back = [&](int64_t i0, int64_t h, int64_t j, int64_t cols) {
    for (int64_t r = 0; r < h; ++r) {
      double* out = g.c + (i0 + r) * g.ldc + j;
      const double* t = tile.data() + r * nr;
      for (int64_t c = 0; c < cols; ++c) out[c] += g.alpha * t[c];
    }
  };
  for (int64_t j0 = 0; j0 < g.n; j0 += kNC) {
    const int64_t w = std::min(kNC, g.n - j0);
    for (int64_t p0 = 0; p0 < g.k; p0 += kKC) {
      const int64_t kc = std::min(kKC, g.k - p0);
      PackB(g, p0, kc, j0, w, nr, packed.data());
#if HWY_HAVE_FLOAT64
      for (int64_t q = 0; q < w; q += nr) {
        const double* panel = packed.data() + q * kc;
        for (int64_t i0 = 0; i0 < g.m; i0 += kMR) {
          const int64_t h = std::min<int64_t>(kMR, g.m - i0);
          Microkernel(g, i0, h, p0, kc, panel, tile.data());
          write_back(i0, h, j0 + q, std::min(nr, w - q));
        }
      }
#else
      // The A panel (kRows × kc, 10 KiB) stays in L1 while the B panels stream past it.
      for (int64_t i0 = 0; i0 < g.m; i0 += kRows) {
        const int64_t h = std::min<int64_t>(kRows, g.m - i0);
        PackA(g, i0, h, p0, kc, apanel.data());
        for (int64_t q = 0; q < w; q += nr) {
          Microkernel(apanel.data(), kc, packed.data() + q * kc, tile.data());
          write_back(i0, h, j0 + q, std::min(nr, w - q));
        }
      }
#endif
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace sg
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sg {
namespace simd {
HWY_EXPORT(GemmF64);

void gemm_f64(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
              int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  HWY_DYNAMIC_DISPATCH(GemmF64)(F64Args{trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc});
}

}  // namespace simd
}  // namespace sg
#endif  // HWY_ONCE
