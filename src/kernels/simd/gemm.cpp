// SIMD GEMM, C = alpha · op(A) · op(B) + beta · C (+ bias[j] on every row), row-major,
// GotoBLAS/BLIS-style:
//   for jc (kNC columns) → for pc (kc ≤ kKC depth): pack op(B)[pc, jc] into column panels of NR
//     → for ic (kMC rows): pack op(A)[ic, pc] into row panels of kMR
//       → for each A panel → for each B panel: microkernel (kMR × NR register tile), write-back.
// The A panel is the operand kept in L1 and the B panels stream from L2, so consecutive
// microkernels walk along kMR rows of C left to right: a handful of sequential streams the
// hardware prefetcher follows (walking down a column of tiles instead touches a cold line
// of C on every row of every tile and stalls on it in the write-back).
// Transposes are absorbed by the packing routines, each of which reads its operand in the
// order it is stored: row-by-row copies when the panel layout matches, 4×4 in-register
// transposes when it does not (op(A) row-major, op(B) given as Bᵀ), so no operand is ever
// copied whole and Aᵀ·B and A·Bᵀ cost what A·B does. Packed panels are zero-padded, so the
// microkernel always runs full tiles; the write-back clips partial ones.
// Epilogue: the first depth block writes C = alpha·acc + beta·C + bias (beta = 0 never reads
// C, which may hold NaN), later blocks add alpha·acc, so C is read and written once per depth
// block and there is no separate beta or bias pass.
// Tiles: 6 rows × 2 vectors where there are 16 vector registers (SSE4, AVX2, wasm SIMD128:
// 12 accumulators + 2 B vectors + 1 broadcast of A, + 1 temporary for the product where
// there is no FMA, as in wasm, where V8 then spills one accumulator per step);
// 12 rows × 2 vectors with AVX-512's 32 registers (24 + 2 + 1).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/simd/simd_kernels.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/simd/gemm.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "kernels/simd/vec_math-inl.h"

#ifndef SG_KERNELS_SIMD_GEMM_ONCE_
#define SG_KERNELS_SIMD_GEMM_ONCE_
namespace sg::simd {
// The call's arguments, shared by every target's code (hence outside HWY_NAMESPACE).
struct GemmArgs {
  bool trans_a, trans_b;
  int64_t m, n, k;
  float alpha, beta;
  const float* a;
  int64_t lda;
  const float* b;
  int64_t ldb;
  const float* bias;  // n values added to every row of C, or nullptr
  GemmAct act;        // applied to C after the last depth block
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

#if HWY_CAP_GE512
constexpr int kMR = 12;  // 32 vector registers
#else
constexpr int kMR = 6;   // 16 vector registers
#endif
constexpr int kNV = 2;          // vectors per tile row: NR = kNV · lanes
constexpr int64_t kKC = 256;  // depth of one block: an A panel of kMR × kKC floats stays in L1
constexpr int64_t kNC = 512;  // columns of one packed B block (kKC × kNC floats = 512 KiB, L2)
constexpr int64_t kMC = 16 * kMR;  // rows of one packed A block (≤ 192 × kKC floats, L2)
static_assert(kMR % 4 == 0 || kMR % 4 == 2, "PackA transposes rows 4 (then 2) at a time");

// What the write-back does with one tile (see the header comment).
struct Epilogue {
  float alpha, beta;
  bool first;          // first depth block: overwrite (with beta · C) instead of accumulate
  bool last;           // last depth block: C is final, apply the activation
  GemmAct act;
  const float* bias;   // the tile's first column in the bias vector, or nullptr
};

// The fused activation, with the unary kernels' functions (the same values as an unfused op).
HWY_INLINE VF Activate(DF d, VF v, GemmAct act) {
  switch (act) {
    case GemmAct::Relu: return ReluF(d, v);
    case GemmAct::GeluErf: return GeluErfF(d, v);
    case GemmAct::GeluTanh: return GeluTanhF(d, v);
    case GemmAct::None: break;
  }
  return v;
}

// ------------------------------------------------------------------------------ packing
#if HWY_TARGET != HWY_SCALAR
using D4 = hn::CappedTag<float, 4>;  // 128-bit vectors for the 4×4 transposes

// Four rows r0..r3 (4 floats each) → four columns, stored at out, out + step, ... .
HWY_INLINE void Transpose4x4Store(D4 d4, const float* r0, const float* r1, const float* r2,
                                  const float* r3, float* out, int64_t step) {
  const auto v0 = hn::LoadU(d4, r0), v1 = hn::LoadU(d4, r1);
  const auto v2 = hn::LoadU(d4, r2), v3 = hn::LoadU(d4, r3);
  const auto t0 = hn::InterleaveLower(d4, v0, v1);  // a0 b0 a1 b1
  const auto t1 = hn::InterleaveLower(d4, v2, v3);  // c0 d0 c1 d1
  const auto t2 = hn::InterleaveUpper(d4, v0, v1);  // a2 b2 a3 b3
  const auto t3 = hn::InterleaveUpper(d4, v2, v3);  // c2 d2 c3 d3
  hn::StoreU(hn::ConcatLowerLower(d4, t1, t0), d4, out);
  hn::StoreU(hn::ConcatUpperUpper(d4, t1, t0), d4, out + step);
  hn::StoreU(hn::ConcatLowerLower(d4, t3, t2), d4, out + 2 * step);
  hn::StoreU(hn::ConcatUpperUpper(d4, t3, t2), d4, out + 3 * step);
}

// Two rows r0, r1 (4 floats each) → four pairs at out, out + step, ... .
HWY_INLINE void Transpose2x4Store(D4 d4, const float* r0, const float* r1, float* out,
                                  int64_t step) {
  const hn::Half<D4> d2;
  const auto v0 = hn::LoadU(d4, r0), v1 = hn::LoadU(d4, r1);
  const auto lo = hn::InterleaveLower(d4, v0, v1);  // a0 b0 a1 b1
  const auto hi = hn::InterleaveUpper(d4, v0, v1);  // a2 b2 a3 b3
  hn::StoreU(hn::LowerHalf(d2, lo), d2, out);
  hn::StoreU(hn::UpperHalf(d2, lo), d2, out + step);
  hn::StoreU(hn::LowerHalf(d2, hi), d2, out + 2 * step);
  hn::StoreU(hn::UpperHalf(d2, hi), d2, out + 3 * step);
}
#endif

// rows[0..h) (each contiguous along p, h ≤ width) → dst[p · width + r], p < kc, rows h..width
// zero: the transposing copy both packers need (op(A) row-major, op(B) given as Bᵀ).
HWY_INLINE void PackTransposed(const float* const* rows, int64_t h, int64_t width, int64_t kc,
                               float* HWY_RESTRICT dst) {
  int64_t p = 0;
#if HWY_TARGET != HWY_SCALAR
  if (h == width) {
    const D4 d4;
    for (; p + 4 <= kc; p += 4) {
      int64_t r = 0;
      for (; r + 4 <= width; r += 4)
        Transpose4x4Store(d4, rows[r] + p, rows[r + 1] + p, rows[r + 2] + p, rows[r + 3] + p,
                          dst + p * width + r, width);
      if (r + 2 <= width) {
        Transpose2x4Store(d4, rows[r] + p, rows[r + 1] + p, dst + p * width + r, width);
        r += 2;
      }
      for (; r < width; ++r)
        for (int64_t q = 0; q < 4; ++q) dst[(p + q) * width + r] = rows[r][p + q];
    }
  }
#endif
  for (int64_t r = 0; r < width; ++r) {  // the depth tail, and every partial panel
    if (r < h) {
      for (int64_t q = p; q < kc; ++q) dst[q * width + r] = rows[r][q];
    } else {
      for (int64_t q = p; q < kc; ++q) dst[q * width + r] = 0.0f;
    }
  }
}

// Rows p0..p0+kc of a matrix stored with the panel's orientation (ld apart; `total` values
// from each, contiguous) → panels of `width`: dst[q / width][p][q % width] for q < total,
// the last panel zero-padded. Row by row, so every source line is read once (going panel
// by panel instead reads each line once per panel it feeds, and with ld a multiple of 4 KiB
// every line of a panel maps to the same L1 set, so nothing survives to the next panel).
HWY_INLINE void PackStraight(const float* src, int64_t ld, int64_t total, int64_t width,
                             int64_t kc, float* HWY_RESTRICT dst) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const int64_t full = total / width * width;  // columns in whole panels
  for (int64_t p = 0; p < kc; ++p) {
    const float* row = src + p * ld;
    if (width % N == 0) {
      for (int64_t q = 0; q < full; q += width) {
        float* out = dst + q * kc + p * width;
        for (int64_t j = 0; j < width; j += N) hn::StoreU(hn::LoadU(d, row + q + j), d, out + j);
      }
    } else {
      for (int64_t q = 0; q < full; q += width)
        std::memcpy(dst + q * kc + p * width, row + q, static_cast<size_t>(width) * sizeof(float));
    }
    if (full < total) {
      float* out = dst + full * kc + p * width;
      for (int64_t j = 0; j < width; ++j) out[j] = full + j < total ? row[full + j] : 0.0f;
    }
  }
}

// op(A)[i0 : i0+mc, p0 : p0+kc] → panels of kMR rows: dst[panel][p][kMR], zero-padded.
HWY_INLINE void PackA(const GemmArgs& g, int64_t i0, int64_t mc, int64_t p0, int64_t kc,
                      float* HWY_RESTRICT dst) {
  if (g.trans_a) {  // A stored K×M: op(A)'s column p is row p of A
    PackStraight(g.a + p0 * g.lda + i0, g.lda, mc, kMR, kc, dst);
    return;
  }
  for (int64_t ip = 0; ip < mc; ip += kMR) {  // rows of op(A) are contiguous: transpose
    const int64_t h = std::min<int64_t>(kMR, mc - ip);
    const float* rows[kMR];
    for (int64_t r = 0; r < kMR; ++r) rows[r] = g.a + (i0 + ip + std::min(r, h - 1)) * g.lda + p0;
    PackTransposed(rows, h, kMR, kc, dst + ip * kc);
  }
}

// op(B)[p0 : p0+kc, j0 : j0+nc] → panels of nr columns: dst[panel][p][nr], zero-padded.
HWY_INLINE void PackB(const GemmArgs& g, int64_t p0, int64_t kc, int64_t j0, int64_t nc,
                      int64_t nr, float* HWY_RESTRICT dst) {
  if (!g.trans_b) {  // rows of B are contiguous in j
    PackStraight(g.b + p0 * g.ldb + j0, g.ldb, nc, nr, kc, dst);
    return;
  }
  constexpr int64_t kMaxNR = kNV * HWY_MAX_BYTES / sizeof(float);
  for (int64_t jp = 0; jp < nc; jp += nr) {  // B stored N×K: op(B)'s column j is row j of B
    const int64_t w = std::min(nr, nc - jp);
    const float* rows[kMaxNR];
    for (int64_t r = 0; r < nr; ++r) rows[r] = g.b + (j0 + jp + std::min(r, w - 1)) * g.ldb + p0;
    PackTransposed(rows, w, nr, kc, dst + jp * kc);
  }
}

// ------------------------------------------------------------------------------ microkernel
// One depth step: acc[i][v] += ap[i] · bp[v·N .. v·N+N).
template <int MR, int NV>
HWY_INLINE void Step(DF d, const float* HWY_RESTRICT ap, const float* HWY_RESTRICT bp,
                     VF (&acc)[MR][NV]) {
  const size_t N = hn::Lanes(d);
  VF b[NV];
  HWY_UNROLL(16)
  for (int v = 0; v < NV; ++v) b[v] = hn::Load(d, bp + v * N);
  HWY_UNROLL(16)
  for (int i = 0; i < MR; ++i) {
    const VF a = hn::Set(d, ap[i]);
    HWY_UNROLL(16)
    for (int v = 0; v < NV; ++v) acc[i][v] = hn::MulAdd(a, b[v], acc[i][v]);
  }
}

// tile[i · NR + j] = Σ_p ap[p · kMR + i] · bp[p · NR + j]: an A panel times a B panel, kept in
// registers over the whole depth and stored once. The write-back to C happens outside, so
// this function holds nothing but the loop.
// MR rows of an A panel packed kMR wide (MR < kMR: the partial last panel of a block, where
// the rows past MR are zero padding that need no arithmetic).
template <int MR, int NV>
HWY_INLINE void MicrokernelBody(int64_t kc, const float* HWY_RESTRICT ap,
                                const float* HWY_RESTRICT bp, float* HWY_RESTRICT tile) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const int64_t nr = static_cast<int64_t>(NV * N);
  VF acc[MR][NV];
  HWY_UNROLL(16)
  for (int i = 0; i < MR; ++i) {
    HWY_UNROLL(16)
    for (int v = 0; v < NV; ++v) acc[i][v] = hn::Zero(d);
  }
  // In wasm, rolled: clang hoists every load of an unrolled body to its top, where V8 then
  // spills several accumulators per step (measured: 2.5–8 spills per step unrolled, 1 rolled).
  // Counted by the B pointer: one add fewer per step than a separate counter (42
  // instructions per step in V8 instead of 44).
  const float* const bend = bp + kc * nr;
#if HWY_TARGET == HWY_WASM
#pragma clang loop unroll(disable)
#endif
  for (; bp != bend; bp += nr) {
    Step<MR, NV>(d, ap, bp, acc);
    ap += kMR;
  }
  HWY_UNROLL(16)
  for (int i = 0; i < MR; ++i) {
    HWY_UNROLL(16)
    for (int v = 0; v < NV; ++v) hn::Store(acc[i][v], d, tile + i * nr + v * N);
  }
}

HWY_NOINLINE void Microkernel(int64_t kc, const float* HWY_RESTRICT ap,
                              const float* HWY_RESTRICT bp, float* HWY_RESTRICT tile) {
  MicrokernelBody<kMR, kNV>(kc, ap, bp, tile);
}

// Narrower kernels for a partial last panel (M not a multiple of kMR: conv channel counts
// such as 16 or 32 leave 4 or 2 rows, which the full kernel would multiply as zeros).
constexpr int kMRHalf = kMR / 2 > 2 ? (kMR / 2 + 1) / 2 * 2 : 2;  // 4 rows for kMR = 6, 6 for 12
HWY_NOINLINE void MicrokernelHalf(int64_t kc, const float* HWY_RESTRICT ap,
                                  const float* HWY_RESTRICT bp, float* HWY_RESTRICT tile) {
  MicrokernelBody<kMRHalf, kNV>(kc, ap, bp, tile);
}
HWY_NOINLINE void MicrokernelTwo(int64_t kc, const float* HWY_RESTRICT ap,
                                 const float* HWY_RESTRICT bp, float* HWY_RESTRICT tile) {
  MicrokernelBody<2, kNV>(kc, ap, bp, tile);
}

#if HWY_TARGET == HWY_WASM
// In wasm the microkernel must stay a function of its own: V8 unrolls small loops nested in
// other loops (up to 5 copies) and its unrolled copies spill accumulators (measured: 4–6
// spills per step inlined, 1 alone), and Binaryen inlines any function with a single
// caller whatever its noinline attribute says. A call through a volatile pointer is the
// one thing neither can see through; it costs one indirect call per kc-step tile.
using MicrokernelPtr = void (*)(int64_t, const float*, const float*, float*);
MicrokernelPtr volatile microkernel_ptr = &Microkernel;
MicrokernelPtr volatile microkernel_half_ptr = &MicrokernelHalf;
MicrokernelPtr volatile microkernel_two_ptr = &MicrokernelTwo;
#define SG_GEMM_MICROKERNEL microkernel_ptr
#define SG_GEMM_MICROKERNEL_HALF microkernel_half_ptr
#define SG_GEMM_MICROKERNEL_TWO microkernel_two_ptr
#else
#define SG_GEMM_MICROKERNEL Microkernel
#define SG_GEMM_MICROKERNEL_HALF MicrokernelHalf
#define SG_GEMM_MICROKERNEL_TWO MicrokernelTwo
#endif

// The tile of an A panel with h ≤ kMR real rows: the narrowest kernel that covers them
// (rows of the tile past the kernel's are left as they were; the write-back reads h rows).
HWY_INLINE void RunTile(int64_t h, int64_t kc, const float* ap, const float* bp, float* tile) {
  if (h <= 2) SG_GEMM_MICROKERNEL_TWO(kc, ap, bp, tile);
  else if (h <= kMRHalf) SG_GEMM_MICROKERNEL_HALF(kc, ap, bp, tile);
  else SG_GEMM_MICROKERNEL(kc, ap, bp, tile);
}

// One value of the write-back before the activation (the vector path's arithmetic, lane by lane).
HWY_INLINE float EpilogueScalar(const Epilogue& e, float acc, float c, int64_t j) {
  if (!e.first) return c + e.alpha * acc;
  float out = e.alpha * acc;
  if (e.beta != 0.0f) out += e.beta * c;
  if (e.bias) out += e.bias[j];
  return out;
}

// C[0:h, 0:w] (ldc apart) ⟵ epilogue of the tile (MR × NR floats); h ≤ MR, w ≤ NR.
template <int MR, int NV>
HWY_INLINE void WriteBack(float* HWY_RESTRICT tile, float* HWY_RESTRICT c, int64_t ldc,
                          int64_t h, int64_t w, const Epilogue& e) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const int64_t nr = static_cast<int64_t>(NV * N);
  const GemmAct act = e.last ? e.act : GemmAct::None;
  if (w == nr) {  // full width: whole vectors (h ≤ MR rows)
    const VF va = hn::Set(d, e.alpha);
    if (!e.first) {  // C += alpha · acc
      for (int i = 0; i < h; ++i) {
        float* row = c + i * ldc;
        HWY_UNROLL(16)
        for (int v = 0; v < NV; ++v) {
          const VF acc = hn::Load(d, tile + i * nr + v * N);
          const VF out = hn::MulAdd(va, acc, hn::LoadU(d, row + v * N));
          hn::StoreU(act == GemmAct::None ? out : Activate(d, out, act), d, row + v * N);
        }
      }
      return;
    }
    // First depth block: C = alpha · acc (+ beta · C) (+ bias).
    VF bias[NV];
    HWY_UNROLL(16)
    for (int v = 0; v < NV; ++v) bias[v] = e.bias ? hn::LoadU(d, e.bias + v * N) : hn::Zero(d);
    const VF vb = hn::Set(d, e.beta);
    for (int i = 0; i < h; ++i) {
      float* row = c + i * ldc;
      HWY_UNROLL(16)
      for (int v = 0; v < NV; ++v) {
        VF out = hn::Mul(va, hn::Load(d, tile + i * nr + v * N));
        if (e.beta != 0.0f) out = hn::MulAdd(vb, hn::LoadU(d, row + v * N), out);
        if (e.bias) out = hn::Add(out, bias[v]);
        hn::StoreU(act == GemmAct::None ? out : Activate(d, out, act), d, row + v * N);
      }
    }
    return;
  }
  // A partial tile: the values in place in the tile, the activation over whole vectors of it
  // (lanes past w are garbage, never stored), then the h × w block copied out.
  for (int64_t i = 0; i < h; ++i)
    for (int64_t j = 0; j < w; ++j) tile[i * nr + j] = EpilogueScalar(e, tile[i * nr + j], c[i * ldc + j], j);
  if (act != GemmAct::None)
    for (int64_t i = 0; i < h; ++i)
      for (int v = 0; v < NV; ++v) hn::Store(Activate(d, hn::Load(d, tile + i * nr + v * N), act), d, tile + i * nr + v * N);
  for (int64_t i = 0; i < h; ++i)
    for (int64_t j = 0; j < w; ++j) c[i * ldc + j] = tile[i * nr + j];
}

// ------------------------------------------------------------------------------ driver
// A buffer of at least n floats aligned for Load (vector<float> only guarantees 16 bytes).
float* Scratch(std::vector<float>& buf, int64_t n) {
  constexpr size_t kAlign = HWY_MAX_BYTES / sizeof(float);
  if (buf.size() < static_cast<size_t>(n) + kAlign) buf.resize(static_cast<size_t>(n) + kAlign);
  const uintptr_t at = reinterpret_cast<uintptr_t>(buf.data());
  const uintptr_t aligned = (at + HWY_MAX_BYTES - 1) & ~uintptr_t(HWY_MAX_BYTES - 1);
  return buf.data() + (aligned - at) / sizeof(float);
}

void GemmF32Blocked(const GemmArgs& g) {
  const DF d;
  const int64_t nr = kNV * static_cast<int64_t>(hn::Lanes(d));
  // Depth blocks of (nearly) equal size: K = 300 runs as 150 + 150, not 256 + 44.
  const int64_t kblocks = (g.k + kKC - 1) / kKC;
  const int64_t kc_max = (g.k + kblocks - 1) / kblocks;
  const int64_t nc_max = (std::min(kNC, g.n) + nr - 1) / nr * nr;  // whole panels
  const int64_t mc_max = std::min(kMC, (g.m + kMR - 1) / kMR * kMR);
  // Scratch reused across calls (per thread): the packed B block and A block.
  thread_local std::vector<float> buf_b, buf_a;
  float* pack_b = Scratch(buf_b, nc_max * kc_max);
  float* pack_a = Scratch(buf_a, mc_max * kc_max);
  HWY_ALIGN float tile[kMR * kNV * HWY_MAX_BYTES / sizeof(float)];
  for (int64_t j0 = 0; j0 < g.n; j0 += kNC) {
    const int64_t nc = std::min(kNC, g.n - j0);
    for (int64_t p0 = 0; p0 < g.k; p0 += kc_max) {
      const int64_t kc = std::min(kc_max, g.k - p0);
      PackB(g, p0, kc, j0, nc, nr, pack_b);
      Epilogue e{g.alpha, g.beta, p0 == 0, p0 + kc >= g.k, g.act, nullptr};
      for (int64_t i0 = 0; i0 < g.m; i0 += kMC) {
        const int64_t mc = std::min(kMC, g.m - i0);
        PackA(g, i0, mc, p0, kc, pack_a);
        // One A panel against every B panel: the A panel stays in L1 and the tiles walk
        // along kMR rows of C (see the header comment).
        for (int64_t ip = 0; ip < mc; ip += kMR) {
          const float* ap = pack_a + ip * kc;
          const int64_t h = std::min<int64_t>(kMR, mc - ip);
          float* crow = g.c + (i0 + ip) * g.ldc + j0;
          for (int64_t jp = 0; jp < nc; jp += nr) {
            RunTile(h, kc, ap, pack_b + jp * kc, tile);
            e.bias = g.bias ? g.bias + j0 + jp : nullptr;
            WriteBack<kMR, kNV>(tile, crow + jp, g.ldc, h, std::min(nr, nc - jp), e);
          }
        }
      }
    }
  }
}

#undef SG_GEMM_MICROKERNEL
#undef SG_GEMM_MICROKERNEL_HALF
#undef SG_GEMM_MICROKERNEL_TWO

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace sg
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sg {
namespace simd {
HWY_EXPORT(GemmF32Blocked);

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
  const GemmArgs g{trans_a, trans_b, m, n, k, alpha, beta, a, lda, b, ldb, bias, act, c, ldc};
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
