// SIMD GEMM, C = alpha · op(A) · op(B) + beta · C (row-major), GotoBLAS/BLIS-style:
//   for jc (kNC columns) → for pc (kKC depth): pack op(B) into column panels of NR
//     → for ic (kMC rows): pack op(A) into row panels of kMR
//       → for each NR panel, each kMR panel: microkernel (kMR × NR register tile, MulAdd).
// Transposes are absorbed by the packing routines (each reads its operand in whichever order
// it is stored), so no whole-matrix transpose is ever built. Packed panels are zero-padded,
// so the microkernel always runs full tiles; partial tiles are written back through a buffer.
// beta is applied to C once up front (beta == 0 writes zeros without reading C), then every
// depth block adds alpha · tile.
// Tile: kMR = 6 rows × NR = 2 vectors (12 accumulators + 2 B vectors + 1 broadcast A = 15
// registers, fitting the 16 of SSE/AVX2/wasm). Block sizes are untuned starting points.
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/simd/simd_kernels.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/simd/gemm.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"

#ifndef SG_KERNELS_SIMD_GEMM_ONCE_
#define SG_KERNELS_SIMD_GEMM_ONCE_
namespace sg::simd {
// The call's arguments, shared by every target's code (hence outside HWY_NAMESPACE).
struct GemmArgs {
  bool trans_a, trans_b;
  int64_t m, n, k;
  float alpha;
  const float* a;
  int64_t lda;
  const float* b;
  int64_t ldb;
  float* c;
  int64_t ldc;
};
}  // namespace sg::simd
#endif

HWY_BEFORE_NAMESPACE();
namespace sg {
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

constexpr int64_t kMR = 6;
constexpr int64_t kKC = 256;
constexpr int64_t kMC = 96;    // multiple of kMR
constexpr int64_t kNC = 1024;  // multiple of every NR (2 × 1..16 lanes)


// op(B)[p0 : p0+kc, j0 : j0+nc] → panels of NR columns: dst[panel][p][NR], zero-padded.
HWY_INLINE void PackB(const GemmArgs& g, int64_t p0, int64_t kc, int64_t j0, int64_t nc,
                      int64_t nr, float* dst) {
  for (int64_t jp = 0; jp < nc; jp += nr) {
    const int64_t w = std::min(nr, nc - jp);
    float* panel = dst + jp * kc;
    if (!g.trans_b) {  // rows of B are contiguous in j
      for (int64_t p = 0; p < kc; ++p) {
        const float* src = g.b + (p0 + p) * g.ldb + j0 + jp;
        float* out = panel + p * nr;
        std::memcpy(out, src, static_cast<size_t>(w) * sizeof(float));
        std::fill(out + w, out + nr, 0.0f);
      }
    } else {  // B stored N×K: column j of op(B) is contiguous in p
      for (int64_t j = 0; j < nr; ++j) {
        if (j < w) {
          const float* src = g.b + (j0 + jp + j) * g.ldb + p0;
          for (int64_t p = 0; p < kc; ++p) panel[p * nr + j] = src[p];
        } else {
          for (int64_t p = 0; p < kc; ++p) panel[p * nr + j] = 0.0f;
        }
      }
    }
  }
}

// op(A)[i0 : i0+mc, p0 : p0+kc] → panels of kMR rows: dst[panel][p][kMR], zero-padded.
HWY_INLINE void PackA(const GemmArgs& g, int64_t i0, int64_t mc, int64_t p0, int64_t kc,
                      float* dst) {
  for (int64_t ip = 0; ip < mc; ip += kMR) {
    const int64_t h = std::min(kMR, mc - ip);
    float* panel = dst + ip * kc;
    if (g.trans_a) {  // A stored K×M: rows of op(A) for one p are contiguous
      for (int64_t p = 0; p < kc; ++p) {
        const float* src = g.a + (p0 + p) * g.lda + i0 + ip;
        float* out = panel + p * kMR;
        for (int64_t i = 0; i < kMR; ++i) out[i] = i < h ? src[i] : 0.0f;
      }
    } else {
      for (int64_t i = 0; i < kMR; ++i) {
        if (i < h) {
          const float* src = g.a + (i0 + ip + i) * g.lda + p0;
          for (int64_t p = 0; p < kc; ++p) panel[p * kMR + i] = src[p];
        } else {
          for (int64_t p = 0; p < kc; ++p) panel[p * kMR + i] = 0.0f;
        }
      }
    }
  }
}

// C[0:h, 0:w] += alpha · (A panel × B panel); h ≤ kMR, w ≤ NR = 2 lanes.
HWY_INLINE void Microkernel6x2(DF d, int64_t kc, const float* HWY_RESTRICT ap,
                               const float* HWY_RESTRICT bp, float alpha, float* c, int64_t ldc,
                               int64_t h, int64_t w) {
  const size_t N = hn::Lanes(d);
  const size_t nr = 2 * N;
  VF c00 = hn::Zero(d), c01 = hn::Zero(d), c10 = hn::Zero(d), c11 = hn::Zero(d);
  VF c20 = hn::Zero(d), c21 = hn::Zero(d), c30 = hn::Zero(d), c31 = hn::Zero(d);
  VF c40 = hn::Zero(d), c41 = hn::Zero(d), c50 = hn::Zero(d), c51 = hn::Zero(d);
  for (int64_t p = 0; p < kc; ++p) {
    const VF b0 = hn::LoadU(d, bp);
    const VF b1 = hn::LoadU(d, bp + N);
    VF a = hn::Set(d, ap[0]);
    c00 = hn::MulAdd(a, b0, c00);
    c01 = hn::MulAdd(a, b1, c01);
    a = hn::Set(d, ap[1]);
    c10 = hn::MulAdd(a, b0, c10);
    c11 = hn::MulAdd(a, b1, c11);
    a = hn::Set(d, ap[2]);
    c20 = hn::MulAdd(a, b0, c20);
    c21 = hn::MulAdd(a, b1, c21);
    a = hn::Set(d, ap[3]);
    c30 = hn::MulAdd(a, b0, c30);
    c31 = hn::MulAdd(a, b1, c31);
    a = hn::Set(d, ap[4]);
    c40 = hn::MulAdd(a, b0, c40);
    c41 = hn::MulAdd(a, b1, c41);
    a = hn::Set(d, ap[5]);
    c50 = hn::MulAdd(a, b0, c50);
    c51 = hn::MulAdd(a, b1, c51);
    ap += kMR;
    bp += nr;
  }
  const VF va = hn::Set(d, alpha);
  const VF acc[kMR][2] = {{c00, c01}, {c10, c11}, {c20, c21},
                          {c30, c31}, {c40, c41}, {c50, c51}};
  if (h == kMR && w == static_cast<int64_t>(nr)) {
    for (int64_t i = 0; i < kMR; ++i) {
      float* row = c + i * ldc;
      hn::StoreU(hn::MulAdd(va, acc[i][0], hn::LoadU(d, row)), d, row);
      hn::StoreU(hn::MulAdd(va, acc[i][1], hn::LoadU(d, row + N)), d, row + N);
    }
    return;
  }
  HWY_ALIGN float tile[2 * HWY_MAX_BYTES / sizeof(float)];
  for (int64_t i = 0; i < h; ++i) {
    hn::Store(acc[i][0], d, tile);
    hn::Store(acc[i][1], d, tile + N);
    float* row = c + i * ldc;
    for (int64_t j = 0; j < w; ++j) row[j] += alpha * tile[j];
  }
}

void GemmF32Blocked(const GemmArgs& g) {
  const DF d;
  const int64_t nr = 2 * static_cast<int64_t>(hn::Lanes(d));
  // Scratch reused across calls (per thread): packed B block and packed A block.
  thread_local std::vector<float> pack_b, pack_a;
  const int64_t nc_max = std::min(kNC, (g.n + nr - 1) / nr * nr);
  const int64_t kc_max = std::min(kKC, g.k);
  pack_b.resize(static_cast<size_t>(nc_max * kc_max));
  pack_a.resize(static_cast<size_t>(kMC * kc_max));
  for (int64_t j0 = 0; j0 < g.n; j0 += kNC) {
    const int64_t nc = std::min(kNC, g.n - j0);
    for (int64_t p0 = 0; p0 < g.k; p0 += kKC) {
      const int64_t kc = std::min(kKC, g.k - p0);
      PackB(g, p0, kc, j0, nc, nr, pack_b.data());
      for (int64_t i0 = 0; i0 < g.m; i0 += kMC) {
        const int64_t mc = std::min(kMC, g.m - i0);
        PackA(g, i0, mc, p0, kc, pack_a.data());
        for (int64_t jp = 0; jp < nc; jp += nr) {
          const float* bp = pack_b.data() + jp * kc;
          const int64_t w = std::min(nr, nc - jp);
          for (int64_t ip = 0; ip < mc; ip += kMR) {
            Microkernel6x2(d, kc, pack_a.data() + ip * kc, bp, g.alpha,
                           g.c + (i0 + ip) * g.ldc + j0 + jp, g.ldc, std::min(kMR, mc - ip), w);
          }
        }
      }
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
HWY_EXPORT(GemmF32Blocked);

void gemm_f32_blocked(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                      const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                      float* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  // beta first: 0 overwrites (C may hold NaN), 1 leaves C alone.
  if (beta != 1.0f) {
    for (int64_t i = 0; i < m; ++i) {
      float* row = c + i * ldc;
      if (beta == 0.0f) std::fill(row, row + n, 0.0f);
      else for (int64_t j = 0; j < n; ++j) row[j] *= beta;
    }
  }
  if (k <= 0) return;
  const GemmArgs g{trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, c, ldc};
  HWY_DYNAMIC_DISPATCH(GemmF32Blocked)(g);
}

}  // namespace simd
}  // namespace sg
#endif  // HWY_ONCE
