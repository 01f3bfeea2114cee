// The SIMD GEMM's building blocks and driver, shared by the dense GEMM (gemm.cpp) and the
// convolutions (conv.cpp), which feed the same driver panels packed straight from an image.
// Per-target header: included once per Highway target by foreach_target.h, hence the toggle
// guard instead of #pragma once.
//
// C = alpha · op(A) · op(B) + beta · C (+ bias), row-major, GotoBLAS/BLIS-style:
//   for jc (NC columns) → for pc (kc ≤ KC depth): pack op(B)[pc, jc] into column panels of NR
//     → for ic (MC rows): pack op(A)[ic, pc] into row panels of MR
//       → for each A panel → for each B panel: microkernel (MR × NR register tile), write-back.
// When op(B) has more than one column block and op(A) packed whole takes at most kPackedAWhole
// floats (8 MiB), op(A) is packed once up front instead of once per column block (a linear layer's
// [512, 768] input against N = 2,304 columns was packed 5 times, against the tied LM head's
// N = 50,257 99 times); the tiles and each C entry's summation order are the same either way.
// The A panel is the operand kept in L1 and the B panels stream from L2, so consecutive
// microkernels walk along MR rows of C left to right: a handful of sequential streams the
// hardware prefetcher follows (walking down a column of tiles instead touches a cold line
// of C on every row of every tile and stalls on it in the write-back).
// Transposes are absorbed by the packing routines, each of which reads its operand in the
// order it is stored: row-by-row copies when the panel layout matches, 4×4 in-register
// transposes when it does not (op(A) row-major, op(B) given as Bᵀ), so no operand is ever
// copied whole and Aᵀ·B and A·Bᵀ cost what A·B does. Packed panels are zero-padded, so the
// microkernel always runs full tiles; the write-back clips partial ones.
// Epilogue: the first depth block writes C = alpha·acc + beta·C + bias (beta = 0 never reads
// C, which may hold NaN), later blocks add alpha·acc, so C is read and written once per depth
// block and there is no separate beta or bias pass. The bias is per column (a linear layer's)
// or per row (a convolution's output channels). The activation runs over each block of C
// right after its last write-back, while it is in cache (ActivateRows).
//
// Tiles (MR rows × 2 vectors; the microkernel is load-splat: one broadcast load of A per row
// and step, two vector loads of B):
//   AVX-512 (32 registers): 12 rows (24 accumulators + 2 B + 1 broadcast, FMA).
//   AVX2/SSE4 (16 registers, native): 6 rows (12 + 2 + 1 with FMA).
//   wasm SIMD128: no FMA, so each product needs a temporary register besides the broadcast.
//     V8 on x64 allocates 15 of the 16 xmm registers (xmm15 is its scratch): 6 rows need 16
//     and V8 spills one accumulator to the stack on every step, a store-to-load round trip on
//     the loop-carried dependency of that accumulator. 5 rows need 14 and spill nothing.
//     Measured on an AMD EPYC (Zen 5, Node 20, one core, an L1-resident A panel against 512
//     columns of B): 5×8 58 GFLOP/s, 6×8 33, 4×8 47, 3×12 52, 2×16 48 (SIMD128 peak of the
//     same process: 67); the XNNPACK-style variant that loads 4 depth values of A and
//     splats lanes with shuffles: 43–45 (a shuffle takes a vector ALU slot there, a
//     broadcast load does not). On a Sapphire Rapids Xeon the previous tuning measured
//     4×8, 5×8 and 6×8 within ±3 % (there the 3 vector ports, not the spill, are the limit).
//     V8 on arm64 has 32 vector registers, where 6 rows do not spill. So the wasm build
//     picks its tile at the first GEMM by the engine's instruction set, as XNNPACK does
//     (x86: the sign of the NaN that inf − inf gives; x86 makes it negative): 5 rows on
//     x86, 6 elsewhere. Every tile sums each C entry over p in the same order, so the choice
//     never changes a result.
#if defined(SG_KERNELS_SIMD_GEMM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SG_KERNELS_SIMD_GEMM_INL_H_
#undef SG_KERNELS_SIMD_GEMM_INL_H_
#else
#define SG_KERNELS_SIMD_GEMM_INL_H_
#endif

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "hwy/highway.h"
#include "kernels/backend.h"
#include "kernels/simd/simd_kernels.h"  // SG_NO_MEMCPY
#include "kernels/simd/vec_math-inl.h"

#ifndef SG_KERNELS_SIMD_GEMM_ARGS_ONCE_
#define SG_KERNELS_SIMD_GEMM_ARGS_ONCE_

namespace sg::simd {
// The call's arguments, shared by every target's code (hence outside HWY_NAMESPACE).
struct GemmArgs {
  bool trans_a, trans_b;
  int64_t m, n, k;
  float alpha, beta;
  const float* a;
  int64_t lda;
  const float* b;  // unused when the caller packs op(B) itself (convolutions)
  int64_t ldb;
  const float* bias;      // n values added to every row of C, or nullptr
  const float* row_bias;  // m values, bias[i] added to row i of C, or nullptr
  GemmAct act;            // applied to C after the last depth block
  float* c;
  int64_t ldc;
  // op(B) already packed whole (GemmPackBPanels), or nullptr: pack it here. The threaded
  // split packs it once for every row block of C instead of once per block.
  const float* packed_b = nullptr;
};
// Rows of the wasm tile (5 or 6, see the header comment); 0 = not chosen yet.
int wasm_tile_rows();
// The largest m·n·k GemmSmall takes (see "small products" below): kSmallGemmMNK unless a test
// set another (set_small_gemm_limit).
inline constexpr int64_t kSmallGemmMNK = int64_t{1} << 19;
int64_t small_gemm_limit();
// The most floats of op(A) GemmBlocked packs whole (see the header comment; 8 MiB: 512 rows of
// depth 4,096): kPackedAWhole unless a test set another (set_packed_a_whole_limit).
inline constexpr int64_t kPackedAWhole = int64_t{1} << 21;
int64_t packed_a_whole_limit();
}  // namespace sg::simd
#endif

HWY_BEFORE_NAMESPACE();
namespace sg {
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

constexpr int kNV = 2;          // vectors per tile row: NR = kNV · lanes
// The blocks: depth (an A panel of MR × kc floats stays in L1 while B panels of kc × NR floats
// stream past it) and columns (a packed B block of kc × nc floats stays in L2 while every A panel
// of the rows passes over it).
// The convolutions' products (conv.cpp, conv_winograd-inl.h, and GemmWithTile, which they call):
constexpr int64_t kKC = 256;
constexpr int64_t kNC = 512;  // (kKC × kNC floats = 512 KiB)
// The dense products (gemm.cpp: GemmDenseWithTile, PackBPanels): deeper. Every depth block costs
// one pass of the write-back over C (read, add, write) and one microkernel call, zeroing and
// store per tile, so the deeper the block, the less of that per flop: 512 rather than 256
// measured 1-4 % faster on 512², 1024² and [128, 784]·[784, 256] (K = 784: two blocks of 392
// instead of four of 196; wasm, AMD EPYC Zen 5, alternated in one process; 768 or 1024 no
// better), with half as many columns where the blocks are deeper than 256 (DenseColumnBlock),
// so that a block stays within 512 KiB (half a 1 MiB L2).
constexpr int64_t kDenseKC = 512;
constexpr int64_t kDenseNC = 256;
#if HWY_CAP_GE512
constexpr int kMaxMR = 12;  // 32 vector registers
#else
constexpr int kMaxMR = 6;  // 16 vector registers
#endif
// The widest B panel of this target (NR floats).
constexpr int64_t kMaxNR = kNV * HWY_MAX_BYTES / sizeof(float);

// What the write-back does with one tile (see the header comment).
// (The activation is not part of it: ActivateRows applies it to a finished block of C.)
struct Epilogue {
  float alpha, beta;
  bool first;               // first depth block: overwrite (with beta · C) instead of accumulate
  const float* bias;        // the tile's first column in the bias vector, or nullptr
  const float* row_bias;    // the tile's first row in the row-bias vector, or nullptr
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

// act over h rows of w floats (ldc apart), once the block of C they hold is final (still in
// cache: the drivers call it right after the block's last write-back). Out of the write-back,
// and one loop per activation: with the switch over every activation inlined into the
// write-back (GELU's polynomials and constants with it), V8 spilled the write-back's registers
// on every tile (measured: 62 % of a 1-channel 3×3 convolution's time in the write-back, 35 %
// less without it; wasm, AMD EPYC).
template <GemmAct kAct>
HWY_NOINLINE void ActivateRowsWith(float* c, int64_t ldc, int64_t h, int64_t w) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t i = 0; i < h; ++i) {
    float* row = c + i * ldc;
    int64_t j = 0;
    for (; j + N <= w; j += N) hn::StoreU(Activate(d, hn::LoadU(d, row + j), kAct), d, row + j);
    if (j < w) {  // the tail through a stack vector (no lane past w is read or written)
      HWY_ALIGN float buf[HWY_MAX_BYTES / sizeof(float)] = {};
      for (int64_t k = 0; k < N; ++k)
        if (j + k < w) buf[k] = row[j + k];
      hn::Store(Activate(d, hn::Load(d, buf), kAct), d, buf);
      for (int64_t k = 0; k < N; ++k)
        if (j + k < w) row[j + k] = buf[k];
    }
  }
}

inline void ActivateRows(float* c, int64_t ldc, int64_t h, int64_t w, GemmAct act) {
  switch (act) {
    case GemmAct::None: return;
    case GemmAct::Relu: return ActivateRowsWith<GemmAct::Relu>(c, ldc, h, w);
    case GemmAct::GeluErf: return ActivateRowsWith<GemmAct::GeluErf>(c, ldc, h, w);
    case GemmAct::GeluTanh: return ActivateRowsWith<GemmAct::GeluTanh>(c, ldc, h, w);
  }
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
SG_NO_MEMCPY HWY_INLINE void PackTransposed(const float* const* rows, int64_t h, int64_t width, int64_t kc,
                               float* HWY_RESTRICT dst) {
  int64_t p = 0;
#if HWY_TARGET != HWY_SCALAR
  if (h == width) {
    const D4 d4;
    // A last row left over by the 4-row transposes (5-row panels: wasm's x86 tile): each of its
    // four values is stored as a broadcast vector ending at its place, before the transposes
    // overwrite the vector's other three lanes (that step's values of the rows before it). Whole
    // vector stores instead of four scalar copies per step: op(A) of a [128, 784] product packed
    // in 0.016 ms instead of 0.031, of a 512² one in 0.041 instead of 0.080 (wasm, AMD EPYC).
    const bool lone_row = width % 4 == 1 && width >= 5;
    for (; p + 4 <= kc; p += 4) {
      float* out = dst + p * width;
      if (lone_row) {
        const auto v = hn::LoadU(d4, rows[width - 1] + p);
        hn::StoreU(hn::Broadcast<0>(v), d4, out + width - 4);
        hn::StoreU(hn::Broadcast<1>(v), d4, out + 2 * width - 4);
        hn::StoreU(hn::Broadcast<2>(v), d4, out + 3 * width - 4);
        hn::StoreU(hn::Broadcast<3>(v), d4, out + 4 * width - 4);
      }
      int64_t r = 0;
      for (; r + 4 <= width; r += 4)
        Transpose4x4Store(d4, rows[r] + p, rows[r + 1] + p, rows[r + 2] + p, rows[r + 3] + p, out + r, width);
      if (r + 2 <= width) {
        Transpose2x4Store(d4, rows[r] + p, rows[r + 1] + p, out + r, width);
        r += 2;
      }
      if (lone_row) continue;
      for (; r < width; ++r)
        for (int64_t q = 0; q < 4; ++q) out[q * width + r] = rows[r][p + q];
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
// the last panel zero-padded. Row by row, so that every source line is read once, in the order
// it is stored (going panel by panel instead reads each line once per panel it feeds, and with
// ld a multiple of 4 KiB every line of a panel maps to the same L1 set, so nothing survives to
// the next panel) — except where the panels are a multiple of 512 floats apart (kc · width: B
// panels of 8 columns with kc a multiple of 64, as in every 512- or 1024-deep product): one
// row's writes then fall into one or two L1 sets, and op(B) of a 512 × 512 product packed at
// 4.7 GB/s. There rows go kPackRows at a time, panel by panel within them: the group's source
// lines stay in L1 while each panel receives kPackRows · width contiguous floats (~25 GB/s; wasm,
// AMD EPYC). Not always: with op(B) read from L3 (a [784, 256] one, packed every call of the
// MLP's product), the one sequential stream of row by row measured faster than 8 interleaved.
constexpr int64_t kPackRows = 8;
SG_NO_MEMCPY HWY_INLINE void PackStraight(const float* src, int64_t ld, int64_t total, int64_t width,
                             int64_t kc, float* HWY_RESTRICT dst) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const int64_t full = total / width * width;  // columns in whole panels
  const int64_t group = kc * width % 512 == 0 ? kPackRows : 1;
  for (int64_t p0 = 0; p0 < kc; p0 += group) {
    const int64_t pe = std::min(kc, p0 + group);
    for (int64_t q = 0; q < full; q += width) {
      const float* in = src + q;
      float* out = dst + q * kc;
      if (width == 2 * N) {  // B panels
        for (int64_t p = p0; p < pe; ++p) {
          hn::StoreU(hn::LoadU(d, in + p * ld), d, out + p * width);
          hn::StoreU(hn::LoadU(d, in + p * ld + N), d, out + p * width + N);
        }
      } else if (width % N == 0) {
        for (int64_t p = p0; p < pe; ++p)
          for (int64_t j = 0; j < width; j += N) hn::StoreU(hn::LoadU(d, in + p * ld + j), d, out + p * width + j);
      } else {
#if HWY_TARGET != HWY_SCALAR
        // A panels of 5, 6 or 12 rows (op(A) stored transposed): 4 values at a time, the rest
        // one by one.
        const D4 d4;
        for (int64_t p = p0; p < pe; ++p) {
          int64_t j = 0;
          for (; j + 4 <= width; j += 4) hn::StoreU(hn::LoadU(d4, in + p * ld + j), d4, out + p * width + j);
          for (; j < width; ++j) out[p * width + j] = in[p * ld + j];
        }
#else
        for (int64_t p = p0; p < pe; ++p)
          for (int64_t j = 0; j < width; ++j) out[p * width + j] = in[p * ld + j];
#endif
      }
    }
    if (full < total) {
      for (int64_t p = p0; p < pe; ++p) {
        const float* row = src + p * ld + full;
        float* out = dst + full * kc + p * width;
        for (int64_t j = 0; j < width; ++j) out[j] = full + j < total ? row[j] : 0.0f;
      }
    }
  }
}

// op(A)[i0 : i0+mc, p0 : p0+kc] → panels of MR rows: dst[panel][p][MR], zero-padded.
template <int MR>
SG_NO_MEMCPY HWY_INLINE void PackA(const GemmArgs& g, int64_t i0, int64_t mc, int64_t p0, int64_t kc,
                      float* HWY_RESTRICT dst) {
  if (g.trans_a) {  // A stored K×M: op(A)'s column p is row p of A
    PackStraight(g.a + p0 * g.lda + i0, g.lda, mc, MR, kc, dst);
    return;
  }
  for (int64_t ip = 0; ip < mc; ip += MR) {  // rows of op(A) are contiguous: transpose
    const int64_t h = std::min<int64_t>(MR, mc - ip);
    const float* rows[MR];
    for (int64_t r = 0; r < MR; ++r) rows[r] = g.a + (i0 + ip + std::min(r, h - 1)) * g.lda + p0;
    PackTransposed(rows, h, MR, kc, dst + ip * kc);
  }
}

// op(B)[p0 : p0+kc, j0 : j0+nc] → panels of nr columns: dst[panel][p][nr], zero-padded.
// The dense B operand of a plain GEMM; convolutions pass packers of their own to GemmBlocked.
struct DenseB {
  const GemmArgs& g;
  SG_NO_MEMCPY void operator()(int64_t p0, int64_t kc, int64_t j0, int64_t nc, int64_t nr,
                                float* HWY_RESTRICT dst) const {
    if (!g.trans_b) {  // rows of B are contiguous in j
      PackStraight(g.b + p0 * g.ldb + j0, g.ldb, nc, nr, kc, dst);
      return;
    }
    for (int64_t jp = 0; jp < nc; jp += nr) {  // B stored N×K: op(B)'s column j is row j of B
      const int64_t w = std::min(nr, nc - jp);
      const float* rows[kMaxNR];
      for (int64_t r = 0; r < nr; ++r) rows[r] = g.b + (j0 + jp + std::min(r, w - 1)) * g.ldb + p0;
      PackTransposed(rows, w, nr, kc, dst + jp * kc);
    }
  }
};

// ------------------------------------------------------------------------------ microkernel
// One depth step: acc[i][v] += ap[i] · bp[v·N .. v·N+N) (bp aligned unless kUnaligned).
template <int MR, int NV, bool kUnaligned = false>
HWY_INLINE void Step(DF d, const float* HWY_RESTRICT ap, const float* HWY_RESTRICT bp,
                     VF (&acc)[MR][NV]) {
  const size_t N = hn::Lanes(d);
  VF b[NV];
  HWY_UNROLL(16)
  for (int v = 0; v < NV; ++v) b[v] = kUnaligned ? hn::LoadU(d, bp + v * N) : hn::Load(d, bp + v * N);
  HWY_UNROLL(16)
  for (int i = 0; i < MR; ++i) {
    const VF a = hn::Set(d, ap[i]);
    HWY_UNROLL(16)
    for (int v = 0; v < NV; ++v) acc[i][v] = hn::MulAdd(a, b[v], acc[i][v]);
  }
}

// The accumulators of an MR-row tile: zeroed, and stored to the tile buffer (rows NR apart).
template <int MR>
HWY_INLINE void ZeroAcc(DF d, VF (&acc)[MR][kNV]) {
  HWY_UNROLL(16)
  for (int i = 0; i < MR; ++i) {
    HWY_UNROLL(16)
    for (int v = 0; v < kNV; ++v) acc[i][v] = hn::Zero(d);
  }
}
template <int MR>
HWY_INLINE void StoreAcc(DF d, const VF (&acc)[MR][kNV], float* HWY_RESTRICT tile) {
  const size_t N = hn::Lanes(d);
  HWY_UNROLL(16)
  for (int i = 0; i < MR; ++i) {
    HWY_UNROLL(16)
    for (int v = 0; v < kNV; ++v) hn::Store(acc[i][v], d, tile + (i * kNV + v) * N);
  }
}

// tile[i · NR + j] = Σ_p ap[p · PW + i] · bp[p · NR + j]: an A panel times a B panel, kept in
// registers over the whole depth and stored once. The write-back to C happens outside, so
// this function holds nothing but the loop.
// MR rows of an A panel packed PW wide (MR < PW: the partial last panel of a block, where
// the rows past MR are zero padding that need no arithmetic).
template <int MR, int PW>
HWY_NOINLINE void Microkernel(int64_t kc, const float* HWY_RESTRICT ap,
                              const float* HWY_RESTRICT bp, float* HWY_RESTRICT tile) {
  const DF d;
  const int64_t nr = static_cast<int64_t>(kNV * hn::Lanes(d));
  VF acc[MR][kNV];
  ZeroAcc<MR>(d, acc);
  // In wasm, rolled: clang hoists every load of an unrolled body to its top, where V8 then
  // spills several accumulators per step (measured: 2.5–8 spills per step unrolled, 1 rolled).
  // Counted by the B pointer: one add fewer per step than a separate counter (42
  // instructions per step in V8 instead of 44).
  const float* const bend = bp + kc * nr;
#if HWY_TARGET == HWY_WASM
#pragma clang loop unroll(disable)
#endif
  for (; bp != bend; bp += nr) {
    Step<MR, kNV>(d, ap, bp, acc);
    ap += PW;
  }
  StoreAcc<MR>(d, acc, tile);
}

// The microkernel with B read in place instead of packed: B's row p is the NR floats at
// rows[p] + col (any alignment). The convolutions use it on a zero-padded copy of the image,
// where every row of the column matrix is a contiguous run (conv.cpp).
template <int MR, int PW>
HWY_NOINLINE void MicrokernelRows(int64_t kc, const float* HWY_RESTRICT ap, const float* const* rows,
                                  int64_t col, float* HWY_RESTRICT tile) {
  const DF d;
  VF acc[MR][kNV];
  ZeroAcc<MR>(d, acc);
  const float* const* const rows_end = rows + kc;
#if HWY_TARGET == HWY_WASM
#pragma clang loop unroll(disable)
#endif
  for (; rows != rows_end; ++rows) {
    Step<MR, kNV, true>(d, ap, *rows + col, acc);
    ap += PW;
  }
  StoreAcc<MR>(d, acc, tile);
}

// The three heights of a microkernel family (Microkernel, MicrokernelRows) for an A panel of
// PW rows: the full one and two narrower ones for a partial last panel (M not a multiple of
// PW: conv channel counts such as 16 or 32 leave a few rows, which the full kernel would
// multiply as zeros).
//
// In wasm each microkernel must stay a function of its own: V8 unrolls small loops nested in
// other loops (up to 5 copies) and its unrolled copies spill accumulators (measured: 4–6
// spills per step inlined, 1 alone), and Binaryen inlines any function with a single caller
// whatever its noinline attribute says. A call through a volatile pointer is the one thing
// neither can see through; it costs one indirect call per kc-step tile.
template <class Fn, int kMid>
struct KernelHeights {
#if HWY_TARGET == HWY_WASM
  Fn volatile full, mid, two;
#else
  Fn full, mid, two;
#endif
  // The tile of an A panel with h ≤ PW real rows: the narrowest kernel that covers them
  // (rows of the tile past the kernel's are left as they were; the write-back reads h rows).
  template <class... Args>
  HWY_INLINE void Run(int64_t h, Args... args) const {
    if (h <= 2) two(args...);
    else if (h <= kMid) mid(args...);
    else full(args...);
  }
};

template <int PW>
struct Kernels {
  static constexpr int kMid = PW <= 6 ? 4 : 6;  // rows of the middle kernel
  static_assert(kMid < PW, "the middle kernel is narrower than the full one");
  using PackedFn = void (*)(int64_t, const float*, const float*, float*);
  using RowsFn = void (*)(int64_t, const float*, const float* const*, int64_t, float*);
  static inline KernelHeights<PackedFn, kMid> packed{&Microkernel<PW, PW>, &Microkernel<kMid, PW>,
                                                     &Microkernel<2, PW>};
  static inline KernelHeights<RowsFn, kMid> rows{&MicrokernelRows<PW, PW>, &MicrokernelRows<kMid, PW>,
                                                 &MicrokernelRows<2, PW>};
};

// C[0:h, 0:w] (ldc apart) ⟵ epilogue of the tile (MR × NR floats); h ≤ MR, w ≤ NR.
template <int MR>
HWY_INLINE void WriteBack(float* HWY_RESTRICT tile, float* HWY_RESTRICT c, int64_t ldc,
                          int64_t h, int64_t w, const Epilogue& e) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const int64_t nr = static_cast<int64_t>(kNV * N);
  if (w == nr) {  // full width: whole vectors (h ≤ MR rows)
    const VF va = hn::Set(d, e.alpha);
    if (!e.first) {  // C += alpha · acc
      for (int i = 0; i < h; ++i) {
        float* row = c + i * ldc;
        HWY_UNROLL(16)
        for (int v = 0; v < kNV; ++v) {
          const VF acc = hn::Load(d, tile + i * nr + v * N);
          const VF out = hn::MulAdd(va, acc, hn::LoadU(d, row + v * N));
          hn::StoreU(out, d, row + v * N);
        }
      }
      return;
    }
    // First depth block: C = alpha · acc (+ beta · C) (+ bias).
    VF bias[kNV];
    HWY_UNROLL(16)
    for (int v = 0; v < kNV; ++v) bias[v] = e.bias ? hn::LoadU(d, e.bias + v * N) : hn::Zero(d);
    const VF vb = hn::Set(d, e.beta);
    const bool scaled = e.alpha != 1.0f;  // (1·acc is acc: one multiply less per vector)
    for (int i = 0; i < h; ++i) {
      float* row = c + i * ldc;
      const VF rb = e.row_bias ? hn::Set(d, e.row_bias[i]) : hn::Zero(d);
      HWY_UNROLL(16)
      for (int v = 0; v < kNV; ++v) {
        const VF acc = hn::Load(d, tile + i * nr + v * N);
        VF out = scaled ? hn::Mul(va, acc) : acc;
        if (e.beta != 0.0f) out = hn::MulAdd(vb, hn::LoadU(d, row + v * N), out);
        if (e.bias) out = hn::Add(out, bias[v]);
        if (e.row_bias) out = hn::Add(out, rb);
        hn::StoreU(out, d, row + v * N);
      }
    }
    return;
  }
  // A partial tile (w < NR columns; the tile may start anywhere inside a larger one, as the
  // convolutions' write-back splits tiles at output rows, so its reads are unaligned and may
  // run past w): C's w values of each row are gathered into a row buffer, the epilogue runs
  // on whole vectors, and w values go back to C.
  const VF va = hn::Set(d, e.alpha), vb = hn::Set(d, e.beta);
  HWY_ALIGN float c_row[kMaxNR] = {};
  HWY_ALIGN float out_row[kMaxNR];
  HWY_ALIGN float bias_row[kMaxNR] = {};
  const bool read_c = !e.first || e.beta != 0.0f;
  if (e.first && e.bias)  // only w of the bias exist
    for (int64_t j = 0; j < nr; ++j) bias_row[j] = j < w ? e.bias[j] : 0.0f;
  for (int64_t i = 0; i < h; ++i) {
    float* row = c + i * ldc;
    if (read_c)
      for (int64_t j = 0; j < nr; ++j) c_row[j] = j < w ? row[j] : 0.0f;
    const VF rb = e.row_bias ? hn::Set(d, e.row_bias[i]) : hn::Zero(d);
    HWY_UNROLL(16)
    for (int v = 0; v < kNV; ++v) {
      const VF acc = hn::LoadU(d, tile + i * nr + v * N);
      VF out;
      if (!e.first) {
        out = hn::MulAdd(va, acc, hn::Load(d, c_row + v * N));
      } else {
        out = hn::Mul(va, acc);
        if (e.beta != 0.0f) out = hn::MulAdd(vb, hn::Load(d, c_row + v * N), out);
        if (e.bias) out = hn::Add(out, hn::Load(d, bias_row + v * N));
        if (e.row_bias) out = hn::Add(out, rb);
      }
      hn::Store(out, d, out_row + v * N);
    }
    for (int64_t j = 0; j < nr; ++j)  // predicated: a plain copy loop would become a memcpy call
      if (j < w) row[j] = out_row[j];
  }
}

// ------------------------------------------------------------------------------ driver
// Depth blocks of (nearly) equal size: K = 300 runs as 150 + 150, not 256 + 44.
HWY_INLINE int64_t DepthBlock(int64_t k, int64_t kc_limit) {
  const int64_t kblocks = (k + kc_limit - 1) / kc_limit;
  return (k + kblocks - 1) / kblocks;
}

// The dense products' column block for depth k: kDenseNC where the depth blocks are deeper than
// 256, else 512 as for kKC-deep blocks. Shallow products (a LoRA rank of 8, attention's 64) are
// bound by writing C, whose rows they write in longer runs with the wider block (measured: a
// [512, 8]·[8, 2304] product 1.3x slower with 256 columns).
HWY_INLINE int64_t DenseColumnBlock(int64_t k) {
  return DepthBlock(k, kDenseKC) > kKC ? kDenseNC : kNC;
}

// The layout of op(B) packed whole: the blocks GemmBlocked packs one at a time (DenseColumnBlock(k)
// columns × DepthBlock(k, kDenseKC) depth, panels of nr columns, zero-padded), stored one after the other, column
// blocks outermost. Block (j0, p0) starts at j0 · k + round_up(nc, nr) · p0 (every column
// block but the last is DenseColumnBlock(k) wide, a multiple of nr); the whole takes round_up(n, nr) · k floats.
HWY_INLINE int64_t PackedBlockOffset(int64_t j0, int64_t p0, int64_t nc, int64_t nr, int64_t k) {
  return j0 * k + (nc + nr - 1) / nr * nr * p0;
}

// Panels [q0, q1) (nr columns each) of op(B), packed whole (layout above), every depth block.
// Any panel ranges of one product can be packed by different threads at once.
template <class PackBFn>
void PackBPanels(const GemmArgs& g, const PackBFn& pack_b, int64_t q0, int64_t q1,
                 float* HWY_RESTRICT packed) {
  const DF d;
  const int64_t nr = kNV * static_cast<int64_t>(hn::Lanes(d));
  const int64_t kc_max = DepthBlock(g.k, kDenseKC), ncb = DenseColumnBlock(g.k);
  const int64_t first = q0 * nr, end = std::min(g.n, q1 * nr);  // columns to pack
  for (int64_t j0 = first / ncb * ncb; j0 < end; j0 += ncb) {
    const int64_t nc = std::min(ncb, g.n - j0);
    const int64_t lo = std::max(first, j0), hi = std::min(end, j0 + nc);
    for (int64_t p0 = 0; p0 < g.k; p0 += kc_max) {
      const int64_t kc = std::min(kc_max, g.k - p0);
      pack_b(p0, kc, lo, hi - lo, nr, packed + PackedBlockOffset(j0, p0, nc, nr, g.k) + (lo - j0) * kc);
    }
  }
}

// A buffer of at least n floats aligned for Load (vector<float> only guarantees 16 bytes).
HWY_INLINE float* Scratch(std::vector<float>& buf, int64_t n) {
  constexpr size_t kAlign = HWY_MAX_BYTES / sizeof(float);
  if (buf.size() < static_cast<size_t>(n) + kAlign) buf.resize(static_cast<size_t>(n) + kAlign);
  const uintptr_t at = reinterpret_cast<uintptr_t>(buf.data());
  const uintptr_t aligned = (at + HWY_MAX_BYTES - 1) & ~uintptr_t(HWY_MAX_BYTES - 1);
  return buf.data() + (aligned - at) / sizeof(float);
}

// The packed panels of one thread, shared by every instantiation of GemmBlocked (one GEMM
// runs at a time on a thread, so they never overlap).
struct GemmScratch {
  std::vector<float> a, b;
};
inline GemmScratch& ThreadGemmScratch() {
  thread_local GemmScratch scratch;
  return scratch;
}

// The blocked product with MR-row tiles; pack_b(p0, kc, j0, nc, nr, dst) supplies the B
// panels (DenseB for a plain GEMM). Scratch is per thread and reused across calls.
// KC, NC: the depth and column blocks (kKC, kNC; or kDenseKC and NC = 0: DenseColumnBlock).
template <int MR, int64_t KC, int64_t NC, class PackBFn>
SG_NO_MEMCPY void GemmBlocked(const GemmArgs& g, const PackBFn& pack_b) {
  const DF d;
  const int64_t nr = kNV * static_cast<int64_t>(hn::Lanes(d));
  constexpr int64_t kMC = 16 * MR;  // rows of one packed A block (≤ 192 × KC floats)
  const int64_t kc_max = DepthBlock(g.k, KC);
  const int64_t ncb = NC > 0 ? NC : DenseColumnBlock(g.k);
  const int64_t nc_max = (std::min(ncb, g.n) + nr - 1) / nr * nr;  // whole panels
  const int64_t m_pad = (g.m + MR - 1) / MR * MR;
  // op(A) packed whole: depth block p0 (kc deep) at p0 · m_pad, its panel of rows i at i · kc.
  const bool a_whole = g.n > ncb && m_pad * g.k <= packed_a_whole_limit();
  const int64_t mc_max = a_whole ? m_pad : std::min(kMC, m_pad);
  GemmScratch& scratch = ThreadGemmScratch();
  float* pack_b_buf = g.packed_b ? nullptr : Scratch(scratch.b, nc_max * kc_max);
  float* pack_a = Scratch(scratch.a, a_whole ? m_pad * g.k : mc_max * kc_max);
  if (a_whole)
    for (int64_t p0 = 0; p0 < g.k; p0 += kc_max)
      PackA<MR>(g, 0, g.m, p0, std::min(kc_max, g.k - p0), pack_a + p0 * m_pad);
  HWY_ALIGN float tile[(MR + 1) * kMaxNR];
  for (int64_t j0 = 0; j0 < g.n; j0 += ncb) {
    const int64_t nc = std::min(ncb, g.n - j0);
    for (int64_t p0 = 0; p0 < g.k; p0 += kc_max) {
      const int64_t kc = std::min(kc_max, g.k - p0);
      const float* bblock = pack_b_buf;
      if (g.packed_b) bblock = g.packed_b + PackedBlockOffset(j0, p0, nc, nr, g.k);
      else pack_b(p0, kc, j0, nc, nr, pack_b_buf);
      Epilogue e{g.alpha, g.beta, p0 == 0, nullptr, nullptr};
      const bool last = p0 + kc >= g.k;
      const float* ablock = a_whole ? pack_a + p0 * m_pad : pack_a;
      for (int64_t i0 = 0; i0 < g.m; i0 += mc_max) {
        const int64_t mc = std::min(mc_max, g.m - i0);
        if (!a_whole) PackA<MR>(g, i0, mc, p0, kc, pack_a);
        // One A panel against every B panel: the A panel stays in L1 and the tiles walk
        // along MR rows of C (see the header comment).
        for (int64_t ip = 0; ip < mc; ip += MR) {
          const float* ap = ablock + ip * kc;
          const int64_t h = std::min<int64_t>(MR, mc - ip);
          float* crow = g.c + (i0 + ip) * g.ldc + j0;
          e.row_bias = g.row_bias ? g.row_bias + i0 + ip : nullptr;
          for (int64_t jp = 0; jp < nc; jp += nr) {
            Kernels<MR>::packed.Run(h, kc, ap, bblock + jp * kc, tile);
            e.bias = g.bias ? g.bias + j0 + jp : nullptr;
            WriteBack<MR>(tile, crow + jp, g.ldc, h, std::min(nr, nc - jp), e);
          }
          if (last) ActivateRows(crow, g.ldc, h, nc, g.act);
        }
      }
    }
  }
}

// ------------------------------------------------------------------------------ small products
// A small product (one depth block, op(B) one column block, m·n·k ≤ kSmallMNK) skips packing A:
// each tile's microkernel reads its MR rows of A where they are (op(A) row-major: A itself, not
// transposed), and op(B) is packed whole as GemmBlocked packs it. Every C entry is summed over p
// in the same order as in GemmBlocked, so the two agree bit for bit (tested). Measured (wasm,
// AMD EPYC Zen 3, one thread, the shapes of a 2→16→16→2 or 32→64→64→10 MLP's products and their
// transposes): 1.2–1.8× faster than packing A for 16–64 rows and depth 2–64, 1.24× at
// 128×64×64; from 128×128×128 packing A wins (0.98× there, 0.88–0.90× at 256³ and 512×256×512,
// where the packed A block's locality counts), hence the bound (kSmallGemmMNK).

// The microkernel with A read in place: row i of the tile at a + i·lda, contiguous along p.
template <int MR>
HWY_NOINLINE void MicrokernelRowsOfA(int64_t kc, const float* HWY_RESTRICT a, int64_t lda,
                                     const float* HWY_RESTRICT bp, float* HWY_RESTRICT tile) {
  const DF d;
  const int64_t nr = static_cast<int64_t>(kNV * hn::Lanes(d));
  const size_t N = hn::Lanes(d);
  VF acc[MR][kNV];
  ZeroAcc<MR>(d, acc);
  const float* const bend = bp + kc * nr;
#if HWY_TARGET == HWY_WASM
#pragma clang loop unroll(disable)
#endif
  for (; bp != bend; bp += nr, ++a) {  // Step's body, the broadcasts read from A's rows
    VF b[kNV];
    HWY_UNROLL(16)
    for (int v = 0; v < kNV; ++v) b[v] = hn::Load(d, bp + v * N);
    HWY_UNROLL(16)
    for (int i = 0; i < MR; ++i) {
      const VF av = hn::Set(d, a[i * lda]);
      HWY_UNROLL(16)
      for (int v = 0; v < kNV; ++v) acc[i][v] = hn::MulAdd(av, b[v], acc[i][v]);
    }
  }
  StoreAcc<MR>(d, acc, tile);
}

// MicrokernelRowsOfA for every height 1..PW: A is not padded, so a partial last panel must not
// read rows past its own (called through volatile pointers, as KernelHeights explains).
template <int PW>
struct RowsOfAKernels {
  using Fn = void (*)(int64_t, const float*, int64_t, const float*, float*);
  template <size_t... H>
  static constexpr auto Make(std::index_sequence<H...>) {
    return std::array<Fn, sizeof...(H)>{&MicrokernelRowsOfA<static_cast<int>(H) + 1>...};
  }
  // Not const: gemm_slots.cpp may point it at other kernels of the same heights.
  static inline std::array<Fn, PW> table = Make(std::make_index_sequence<PW>());
  static void Run(int64_t h, int64_t kc, const float* a, int64_t lda, const float* bp, float* tile) {
    Fn volatile f = table[static_cast<size_t>(h - 1)];
    f(kc, a, lda, bp, tile);
  }
};

// The widest op(B) GemmSmall takes (packed whole, one block of columns): 512, the column block of
// the dense products when the bound above was measured.
constexpr int64_t kSmallMaxN = 512;

// Whether GemmSmall takes the product (see above).
HWY_INLINE bool IsSmallGemm(const GemmArgs& g, int64_t limit) {
  return !g.trans_a && g.packed_b == nullptr && g.k <= kDenseKC && g.n <= kSmallMaxN && g.m * g.n * g.k <= limit;
}

template <int MR, class PackBFn>
SG_NO_MEMCPY void GemmSmall(const GemmArgs& g, const PackBFn& pack_b) {
  const DF d;
  const int64_t nr = kNV * static_cast<int64_t>(hn::Lanes(d));
  float* bp = Scratch(ThreadGemmScratch().b, (g.n + nr - 1) / nr * nr * g.k);
  pack_b(0, g.k, 0, g.n, nr, bp);
  HWY_ALIGN float tile[(MR + 1) * kMaxNR];
  Epilogue e{g.alpha, g.beta, true, nullptr, nullptr};
  for (int64_t i0 = 0; i0 < g.m; i0 += MR) {
    const int64_t h = std::min<int64_t>(MR, g.m - i0);
    const float* a = g.a + i0 * g.lda;
    float* crow = g.c + i0 * g.ldc;
    e.row_bias = g.row_bias ? g.row_bias + i0 : nullptr;
    for (int64_t jp = 0; jp < g.n; jp += nr) {
      RowsOfAKernels<MR>::Run(h, g.k, a, g.lda, bp + jp * g.k, tile);
      e.bias = g.bias ? g.bias + jp : nullptr;
      WriteBack<MR>(tile, crow + jp, g.ldc, h, std::min(nr, g.n - jp), e);
    }
    ActivateRows(crow, g.ldc, h, g.n, g.act);
  }
}

// GemmBlocked with this target's tile (in wasm: the one chosen for the engine): the convolutions'
// blocks (GemmWithTile) and the dense products' (GemmDenseWithTile).
template <int64_t KC, int64_t NC, class PackBFn>
void GemmBlockedWithTile(const GemmArgs& g, const PackBFn& pack_b) {
#if HWY_TARGET == HWY_WASM
  if (wasm_tile_rows() == 5) return GemmBlocked<5, KC, NC>(g, pack_b);
#endif
  GemmBlocked<kMaxMR, KC, NC>(g, pack_b);
}
template <class PackBFn>
void GemmWithTile(const GemmArgs& g, const PackBFn& pack_b) {
  GemmBlockedWithTile<kKC, kNC>(g, pack_b);
}
template <class PackBFn>
void GemmDenseWithTile(const GemmArgs& g, const PackBFn& pack_b) {
  GemmBlockedWithTile<kDenseKC, 0>(g, pack_b);
}

// GemmSmall with this target's tile, for a product IsSmallGemm accepts.
template <class PackBFn>
void GemmSmallWithTile(const GemmArgs& g, const PackBFn& pack_b) {
#if HWY_TARGET == HWY_WASM
  if (wasm_tile_rows() == 5) return GemmSmall<5>(g, pack_b);
#endif
  GemmSmall<kMaxMR>(g, pack_b);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace sg
HWY_AFTER_NAMESPACE();

#endif  // SG_KERNELS_SIMD_GEMM_INL_H_ toggle
