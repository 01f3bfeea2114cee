// SIMD convolutions: the GEMM driver of gemm-inl.h with B panels packed straight from the
// image (an implicit im2col: the column matrix is never stored whole).
//   forward        y_n [Og, L] = W_g [Og, K] · col(x_n) [K, L], bias (per row) and ReLU in the
//                  write-back; one GEMM per image and group, written straight into y. 3×3,
//                  stride 1, undilated, ≥ 8 input channels per group: Winograd F(2×2, 3×3)
//                  instead (conv_winograd-inl.h), on the same padded image and output grid.
//   weight grad    dW_g [Og, K] += dy_n [Og, L] · col(x_n)ᵀ [L, K], image after image.
//   data grad      stride 1: itself a forward convolution of dy with the kernel flipped and
//                  its in/out channels swapped, padding dH·(kH − 1) − pH (so it runs the
//                  forward path, writes dx once and needs no scatter); other strides: dcol =
//                  W_gᵀ · dy_n, then col2im.
// Column matrix of one image's group: row p = (c·kH + ki)·kW + kj, column j = oh·oW + ow,
// col[p][j] = x[c, oh·sH − pH + ki·dH, ow·sW − pW + kj·dW] (0 outside the image).
// Threads: images (or, with fewer images than threads, column ranges of each image, or tile
// rows of each image for Winograd) are dealt out to the threads; every output of the forward and data passes is computed by the same
// GEMM code whatever the split, so they are bit-identical for any thread count. The weight
// gradient sums each thread's images into a buffer of its own, added up at the end (its last
// bits depend on the thread count).
#include <algorithm>
#include <vector>

#include "core/error.h"
#include "core/parallel.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/simd/simd_kernels.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/simd/conv.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "kernels/simd/gemm-inl.h"
#include "kernels/simd/conv_winograd-inl.h"
#include "kernels/simd/rows-inl.h"

HWY_BEFORE_NAMESPACE();
namespace sg {
namespace simd {
namespace HWY_NAMESPACE {

// col[p][j0, j1) of one image's group (x: its Cg channels) → out[0, j1 − j0), one output row
// at a time.
SG_NO_MEMCPY HWY_INLINE void ColSegment(const ConvGeom& g, const float* x, int64_t p, int64_t j0, int64_t j1, float* out) {
  const int64_t taps = g.kH * g.kW;
  const int64_t c = p / taps, ki = p % taps / g.kW, kj = p % g.kW;
  const int64_t off_h = ki * g.dH - g.pH, off_w = kj * g.dW - g.pW;
  const ref::ValidRange rw = ref::valid_outputs(off_w, g.sW, g.W, g.oW);
  const float* xc = x + c * g.H * g.W;
  int64_t oh = j0 / g.oW, ow = j0 % g.oW;
  for (int64_t j = j0; j < j1; ow = 0, ++oh) {
    const int64_t run = std::min(g.oW - ow, j1 - j);
    const int64_t ih = oh * g.sH + off_h;
    if (ih < 0 || ih >= g.H) {
      ZeroRun(out, run);
    } else {
      const float* src = xc + ih * g.W + off_w;  // src[ow · sW] is output column ow's input
      const int64_t lo = std::clamp<int64_t>(rw.lo - ow, 0, run);
      const int64_t hi = std::clamp<int64_t>(rw.hi - ow, lo, run);
      if (g.sW == 1) {
        CopyRun(src + ow, lo, hi, run, out);
      } else {
        for (int64_t t = 0; t < run; ++t) out[t] = t >= lo && t < hi ? src[(ow + t) * g.sW] : 0.0f;
      }
    }
    out += run;
    j += run;
  }
}

// A row buffer per thread for the packers (n floats, aligned).
HWY_INLINE float* RowScratch(int64_t n) {
  thread_local std::vector<float> buf;
  return Scratch(buf, n);
}

// Forward: op(B) = col [K, L] of one image's group, columns from j_base on.
struct ImageB {
  const ConvGeom& g;
  const float* x;
  int64_t j_base;
  SG_NO_MEMCPY void operator()(int64_t p0, int64_t kc, int64_t j0, int64_t nc, int64_t nr,
                                float* HWY_RESTRICT dst) const {
    const DF d;
    const int64_t N = static_cast<int64_t>(hn::Lanes(d));
    float* row = RowScratch(nc);
    const int64_t full = nc / nr * nr;
    for (int64_t pp = 0; pp < kc; ++pp) {
      ColSegment(g, x, p0 + pp, j_base + j0, j_base + j0 + nc, row);
      // Into the panels: nr floats of row pp in each (the panel layout of DenseB).
      for (int64_t q = 0; q < full; q += nr) {
        float* out = dst + q * kc + pp * nr;
        for (int64_t t = 0; t < nr; t += N) hn::StoreU(hn::LoadU(d, row + q + t), d, out + t);
      }
      if (full < nc) {
        float* out = dst + full * kc + pp * nr;
        for (int64_t t = 0; t < nr; ++t) out[t] = full + t < nc ? row[full + t] : 0.0f;
      }
    }
  }
};

// The weight gradient's B panels: op(B) = colᵀ [L, K], so op(B)'s column j is row j of col.
// row(j, out) writes col's row j over positions [p0, p0 + kc); each panel's nr rows are
// then transposed into it.
template <class RowFn>
SG_NO_MEMCPY HWY_INLINE void PackColRows(int64_t kc, int64_t j0, int64_t nc, int64_t nr, float* HWY_RESTRICT dst,
                                         const RowFn& row) {
  float* rows_buf = RowScratch(nr * kc);
  const float* rows[kMaxNR];
  for (int64_t jp = 0; jp < nc; jp += nr) {
    const int64_t w = std::min(nr, nc - jp);
    for (int64_t r = 0; r < w; ++r) {
      row(j0 + jp + r, rows_buf + r * kc);
      rows[r] = rows_buf + r * kc;
    }
    for (int64_t r = w; r < nr; ++r) rows[r] = rows[w - 1];
    PackTransposed(rows, w, nr, kc, dst + jp * kc);
  }
}

// Weight gradient, any stride: col's rows built from the image (with their padding).
struct ImageBt {
  const ConvGeom& g;
  const float* x;
  SG_NO_MEMCPY void operator()(int64_t p0, int64_t kc, int64_t j0, int64_t nc, int64_t nr,
                                float* HWY_RESTRICT dst) const {
    PackColRows(kc, j0, nc, nr, dst, [&](int64_t j, float* out) { ColSegment(g, x, j, p0, p0 + kc, out); });
  }
};

// A scratch buffer's size, checked in 64 bits before it is allocated: in wasm32 a size_t past
// 2^32 would wrap and the kernel would write past the buffer.
void CheckScratch(const char* what, int64_t a, int64_t b) {
  constexpr int64_t kLimit = int64_t(1) << 29;  // 2 GiB of floats: more than a wasm heap holds
  if (a < 0 || b < 0 || (b != 0 && a > kLimit / b))
    fail("cannot allocate the ", what, " of ", a, " x ", b, " floats: too large");
}

// ------------------------------------------------------------- stride 1, read in place
// With stride 1, output (oh, ow) reads xpad[c][oh + ki·dH][ow + kj·dW] of the image padded to
// Hp = oH + dH·(kH − 1) rows of Wp ≥ oW + dW·(kW − 1) columns, Wp a multiple of the tile
// width (xpad[c][r][s] = x[c][r − pH][s − pW], zero outside; a negative pH crops). Over the flattened grid
// j' = oh·Wp + ow, row p = (c, ki, kj) of the column matrix is then the contiguous run at
// xpad + c·Hp·Wp + ki·dH·Wp + kj·dW: the microkernel reads B in place (MicrokernelRows) and
// only the weights are packed. The output is computed on the grid too, in whole tiles, and
// its valid columns copied out (ConvPaddedGroup). Grid columns ow ≥ oW are computed and dropped (Wp − oW of
// every Wp: 2 of 16 and 4 of 32 for the bench CNN's two layers), which costs less than
// packing the column matrix (9× the image for a 3×3 kernel) in runs of one output row.
struct PaddedGrid {
  int64_t Hp, Wp, plane, Lp, slack;
};

PaddedGrid GridOf(const ConvGeom& g) {
  PaddedGrid pg;
  pg.Hp = g.oH + g.dH * (g.kH - 1);
  // Rows of whole tiles: a tile then never straddles two output rows (one write-back per
  // tile, the last of each row partial); the extra grid columns cost less than split tiles.
  const int64_t nr = kNV * static_cast<int64_t>(hn::Lanes(DF()));
  pg.Wp = (g.oW + g.dW * (g.kW - 1) + nr - 1) / nr * nr;
  pg.plane = pg.Hp * pg.Wp;
  pg.Lp = g.oH * pg.Wp;
  // The last tile reads up to NR grid columns past Lp, and the grid column ow + kj·dW of the
  // last row up to dW·(kW − 1) past the plane: zeros after the last channel's plane.
  pg.slack = g.dW * (g.kW - 1) + kMaxNR;
  return pg;
}

// xpad of the Cg channels at x (one image's group) → out [Cg · plane + slack].
SG_NO_MEMCPY void PadImage(const ConvGeom& g, const PaddedGrid& pg, const float* x, float* out) {
  const int64_t cols_lo = std::clamp<int64_t>(g.pW, 0, pg.Wp), cols_hi = std::clamp<int64_t>(g.pW + g.W, cols_lo, pg.Wp);
  for (int64_t c = 0; c < g.Cg(); ++c)
    for (int64_t r = 0; r < pg.Hp; ++r) {
      float* dst = out + c * pg.plane + r * pg.Wp;
      const int64_t ih = r - g.pH;
      if (ih < 0 || ih >= g.H) ZeroRun(dst, pg.Wp);
      else CopyRun(x + (c * g.H + ih) * g.W - g.pW, cols_lo, cols_hi, pg.Wp, dst);
    }
  ZeroRun(out + g.Cg() * pg.plane, pg.slack);
}

// dst[r][0, oW) = act(src[r][0, oW)) for rows r < rows of src (Wp apart) and dst (oW apart):
// the grid's columns past oW dropped, the activation applied on the way (a compile-time one:
// each loop holds only its own activation's code).
template <GemmAct kAct>
SG_NO_MEMCPY void CompactRowsWith(const float* src, int64_t Wp, float* dst, int64_t oW, int64_t rows) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t r = 0; r < rows; ++r, src += Wp, dst += oW) {
    if (oW >= N) {  // whole vectors, the last one shifted back to end at oW
      int64_t j = 0;
      for (; j + N <= oW; j += N) hn::StoreU(Activate(d, hn::LoadU(d, src + j), kAct), d, dst + j);
      if (j < oW) hn::StoreU(Activate(d, hn::LoadU(d, src + oW - N), kAct), d, dst + oW - N);
    } else {  // a row narrower than a vector: the grid row has ≥ N floats to read
      HWY_ALIGN float buf[HWY_MAX_BYTES / sizeof(float)];
      hn::Store(Activate(d, hn::LoadU(d, src), kAct), d, buf);
      for (int64_t j = 0; j < N; ++j)
        if (j < oW) dst[j] = buf[j];
    }
  }
}

void CompactRows(const float* src, int64_t Wp, float* dst, int64_t oW, int64_t rows, GemmAct act) {
  switch (act) {
    case GemmAct::None: return CompactRowsWith<GemmAct::None>(src, Wp, dst, oW, rows);
    case GemmAct::Relu: return CompactRowsWith<GemmAct::Relu>(src, Wp, dst, oW, rows);
    case GemmAct::GeluErf: return CompactRowsWith<GemmAct::GeluErf>(src, Wp, dst, oW, rows);
    case GemmAct::GeluTanh: return CompactRowsWith<GemmAct::GeluTanh>(src, Wp, dst, oW, rows);
  }
}

// grid [Og, Lp] of one image's group from its padded image: every depth block of the packed
// weights (panels of MR rows, block p0 at packed_w + Og_pad · p0) against the grid columns,
// in whole tiles (never a partial one: Lp is a multiple of the tile width). Nothing else in
// this function: with the epilogues (compaction, pooling) in it, V8 compiled its tile loop
// worse (measured: the bench CNN's forward 25 % slower).
template <int MR>
HWY_NOINLINE void ConvGridTiles(const ConvGeom& g, const PaddedGrid& pg, const float* packed_w,
                                const float* const* rows, const float* row_bias, float* grid) {
  const DF d;
  const int64_t nr = kNV * static_cast<int64_t>(hn::Lanes(d));
  const int64_t K = g.K(), Og = g.Og(), Og_pad = (Og + MR - 1) / MR * MR;
  const int64_t kblocks = (K + kKC - 1) / kKC, kc_max = (K + kblocks - 1) / kblocks;
  HWY_ALIGN float tile[MR * kMaxNR];
  for (int64_t p0 = 0; p0 < K; p0 += kc_max) {
    const int64_t kc = std::min(kc_max, K - p0);
    Epilogue e{1.0f, 0.0f, p0 == 0, nullptr, nullptr};
    for (int64_t j0 = 0; j0 < pg.Lp; j0 += kNC) {
      const int64_t j1 = std::min(pg.Lp, j0 + kNC);
      for (int64_t ip = 0; ip < Og; ip += MR) {
        const int64_t h = std::min<int64_t>(MR, Og - ip);
        const float* ap = packed_w + Og_pad * p0 + ip * kc;
        e.row_bias = row_bias ? row_bias + ip : nullptr;
        for (int64_t jp = j0; jp < j1; jp += nr) {
          Kernels<MR>::rows.Run(h, kc, ap, rows + p0, jp, tile);
          WriteBack<MR>(tile, grid + ip * pg.Lp + jp, pg.Lp, h, nr, e);
        }
      }
    }
  }
}

// The pool kernel behind a volatile pointer: inlined into PoolGrid by Binaryen (a
// single-caller function), V8 compiled it there 4× slower (measured: the bench CNN's forward
// 30 % slower than pooling in a separate call).
using PoolFn = void (*)(const PoolGeom&, const float*, float*, int32_t*);
inline PoolFn volatile pool_kernel = &max_pool2d_f32;

// The activated grid's max pool (windows inside the valid columns: ConvPoolsOnGrid) into y
// [Og, poH, poW], idx (nullptr: none) its argmax as positions in the oH × oW output plane.
SG_NO_MEMCPY void PoolGrid(const ConvGeom& g, const PaddedGrid& pg, float* grid, GemmAct act, const PoolGeom& pool,
                           float* y, int32_t* idx) {
  const int64_t Og = g.Og();
  PoolGeom on_grid = pool;
  on_grid.P = Og;
  on_grid.W = pg.Wp;
  pool_kernel(on_grid, grid, y, idx);
  // A monotone activation (ReLU) commutes with the max: applied to the pooled values, a
  // quarter of the grid for 2×2 windows. (Where a window's max is ≤ 0 the argmax may then
  // differ from pooling ReLU's zeros, but ReLU's gradient is 0 there either way.)
  ActivateRows(y, 0, 1, Og * pool.oH * pool.oW, act);
  if (!idx) return;
  // Grid position h·Wp + w → plane position h·oW + w = idx − h·(Wp − oW), in vectors: the
  // argmax row h of a window lies within (kH − 1)·dH rows below its first row h0, so h − h0
  // counts the thresholds t·Wp (t ≥ 1) that idx − h0·Wp reaches. (A scalar loop with a
  // division, or a search, per element took 4× the pool kernel's own time in wasm.)
  const hn::ScalableTag<int32_t> di;
  const int64_t N = static_cast<int64_t>(hn::Lanes(di));
  const int32_t wp = static_cast<int32_t>(pg.Wp), shrink = static_cast<int32_t>(pg.Wp - g.oW);
  const int32_t span = static_cast<int32_t>((pool.kH - 1) * pool.dH);
  const int64_t row = pool.oW, rows = Og * pool.oH;
  for (int64_t r = 0; r < rows; ++r) {
    const int32_t h0 = static_cast<int32_t>(r % pool.oH * pool.sH);
    const auto base = hn::Set(di, h0 * wp);
    const auto fix0 = hn::Set(di, h0 * shrink);
    int32_t* out = idx + r * row;
    auto remap = [&](hn::Vec<decltype(di)> v) {
      const auto rest = hn::Sub(v, base);
      auto fix = fix0;
      for (int32_t t = 1; t <= span; ++t)
        fix = hn::IfThenElse(hn::Gt(rest, hn::Set(di, t * wp - 1)), hn::Add(fix, hn::Set(di, shrink)), fix);
      return hn::IfThenElse(hn::Lt(v, hn::Zero(di)), v, hn::Sub(v, fix));  // −1 (no input) stays
    };
    int64_t j = 0;
    for (; j + N <= row; j += N) hn::StoreU(remap(hn::LoadU(di, out + j)), di, out + j);
    if (j < row) {
      HWY_ALIGN int32_t buf[HWY_MAX_BYTES / sizeof(int32_t)] = {};
      for (int64_t k = 0; k < N; ++k)
        if (j + k < row) buf[k] = out[j + k];
      hn::Store(remap(hn::Load(di, buf)), di, buf);
      for (int64_t k = 0; k < N; ++k)
        if (j + k < row) out[j + k] = buf[k];
    }
  }
}

// Whether max pooling over the convolution's oH × oW output can read the padded grid instead:
// no pool padding, and every window inside the valid rows and columns (the grid's extra
// columns are never read).
bool ConvPoolsOnGrid(const ConvGeom& g, const PoolGeom& p) {
  return p.pH == 0 && p.pW == 0 && p.oH > 0 && p.oW > 0 && (p.oH - 1) * p.sH + (p.kH - 1) * p.dH < g.oH &&
         (p.oW - 1) * p.sW + (p.kW - 1) * p.dW < g.oW;
}

// The offset of row p = (c, ki, kj) of a group's column matrix in its padded image.
int64_t GridOffset(const ConvGeom& g, const PaddedGrid& pg, int64_t p) {
  const int64_t taps = g.kH * g.kW;
  const int64_t c = p / taps, ki = p % taps / g.kW, kj = p % g.kW;
  return c * pg.plane + ki * g.dH * pg.Wp + kj * g.dW;
}

// Weight gradient, stride 1: op(B) = colᵀ [L, K] with col's rows read from the padded image:
// row j over positions [p0, p0 + kc) is a run of plain copies, oW floats per output row
// (no padding to build: the padded image holds the zeros).
struct GridBt {
  const ConvGeom& g;
  const PaddedGrid& pg;
  const float* xpad;
  SG_NO_MEMCPY void operator()(int64_t p0, int64_t kc, int64_t j0, int64_t nc, int64_t nr,
                                float* HWY_RESTRICT dst) const {
    PackColRows(kc, j0, nc, nr, dst, [&](int64_t j, float* out) {
      const float* src = xpad + GridOffset(g, pg, j);
      int64_t oh = p0 / g.oW, ow = p0 % g.oW;
      for (int64_t q = p0; q < p0 + kc; ow = 0, ++oh) {
        const int64_t run = std::min(g.oW - ow, p0 + kc - q);
        CopyRun(src + oh * pg.Wp + ow, 0, run, run, out);
        out += run;
        q += run;
      }
    });
  }
};

// The stride-1 forward convolution over the batch (threads over images): each image padded,
// its output computed on a grid (directly, or by Winograd F(2×2, 3×3) for the 3×3 kernels it
// wins on: conv_winograd-inl.h), then compacted with the activation, or max pooled.
// With `pool` (ConvPoolsOnGrid), y and idx receive the max pool of the activated output instead
// of the output itself.
template <int MR>
SG_NO_MEMCPY void ConvPadded(const ConvGeom& g, const float* x, const float* w, const float* bias, GemmAct act, float* y,
                             const PoolGeom* pool = nullptr, int32_t* idx = nullptr) {
  const int64_t K = g.K(), L = g.L(), Og = g.Og(), Cg = g.Cg(), HW = g.H * g.W;
  const int64_t Og_pad = (Og + MR - 1) / MR * MR;
  const bool winograd = UseWinograd(g);
  // The padded image each thread builds (in_pg) and the output grid (out_pg: its rows Wp apart).
  PaddedGrid in_pg = GridOf(g), out_pg = in_pg;
  WinogradShape ws{};
  if (winograd) {
    ws = WinogradShapeOf(g);
    in_pg = PaddedGrid{ws.in_h, ws.in_w, ws.in_h * ws.in_w, 0, 0};
    out_pg = PaddedGrid{ws.out_h, ws.out_w, ws.out_h * ws.out_w, ws.out_h * ws.out_w, 0};  // oH rows
    CheckScratch("Winograd input tiles", 16 * Cg, WinogradBandColumns(ws));
  }
  CheckScratch("padded image", Cg, in_pg.plane + in_pg.slack);
  CheckScratch("packed weights", g.groups * Og_pad, winograd ? 16 * Cg : K);
  CheckScratch("output grid", Og, out_pg.Lp);
  // The weights of every group, packed once: block p0 of group gi at packed + gi·Og_pad·K +
  // Og_pad·p0 (direct), or its 16 transformed positions (Winograd).
  std::vector<float> packed_buf;
  float* packed = Scratch(packed_buf, g.groups * Og_pad * (winograd ? 16 * Cg : K));
  const int64_t kblocks = (K + kKC - 1) / kKC, kc_max = (K + kblocks - 1) / kblocks;
  if (winograd) {
    WinogradWeights<MR>(g, w, packed);
  } else {
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      const GemmArgs ga{false, false, Og, 0, K, 1.0f, 0.0f, w + gi * Og * K, K, nullptr, 0,
                        nullptr, nullptr, GemmAct::None, nullptr, 0};
      for (int64_t p0 = 0; p0 < K; p0 += kc_max)
        PackA<MR>(ga, 0, Og, p0, std::min(kc_max, K - p0), packed + gi * Og_pad * K + Og_pad * p0);
    }
  }
  // Row p of every group's column matrix: its offset in the padded image.
  std::vector<int64_t> offsets(static_cast<size_t>(winograd ? 0 : K));
  for (int64_t p = 0; p < int64_t(offsets.size()); ++p) offsets[size_t(p)] = GridOffset(g, in_pg, p);
  // Work items: images, or with fewer images than threads (Winograd only, never pooled) parts
  // of each image's tile rows.
  const int64_t threads = in_parallel_region() ? 1 : num_threads();
  const int64_t parts = winograd && !pool && g.N < threads ? std::min(ws.tH, (threads + g.N - 1) / g.N) : 1;
  const int64_t items = g.N * parts;
  // About four items per thread a chunk, claimed as each finishes: a thread that starts late
  // (a worker waking up) leaves the others less idle time at the end than with one chunk each.
  const int64_t chunk = std::max<int64_t>(1, items / (4 * threads));
  parallel_for(0, items, chunk, [&](int64_t lo, int64_t hi) {
    thread_local std::vector<float> pad_buf, grid_buf, tiles_buf;
    thread_local std::vector<const float*> rows;
    float* xpad = Scratch(pad_buf, Cg * in_pg.plane + in_pg.slack);
    float* grid = Scratch(grid_buf, Og * out_pg.Lp);
    float* tiles = winograd ? Scratch(tiles_buf, 16 * Cg * WinogradBandColumns(ws)) : nullptr;
    rows.resize(static_cast<size_t>(winograd ? 16 * Cg : K));
    for (int64_t p = 0; p < int64_t(offsets.size()); ++p) rows[size_t(p)] = xpad + offsets[size_t(p)];
    for (int64_t item = lo; item < hi; ++item) {
      const int64_t n = item / parts, part = item % parts;
      for (int64_t gi = 0; gi < g.groups; ++gi) {
        PadImage(g, in_pg, x + (n * g.C + gi * Cg) * HW, xpad);
        const float* group_bias = bias ? bias + gi * Og : nullptr;
        float* out = y + (n * g.O + gi * Og) * L;
        if (parts > 1) {  // tile rows [th_lo, th_hi): output rows [2·th_lo, min(2·th_hi, oH)) of each channel
          const int64_t th_lo = part * ws.tH / parts, th_hi = (part + 1) * ws.tH / parts;
          const int64_t r0 = 2 * th_lo, r1 = std::min(2 * th_hi, g.oH);
          WinogradGrid<MR>(g, ws, packed + gi * 16 * Og_pad * Cg, xpad, group_bias, tiles, rows.data(), th_lo, th_hi, grid);
          for (int64_t o = 0; o < Og; ++o)
            CompactRows(grid + o * out_pg.Lp + r0 * out_pg.Wp, out_pg.Wp, out + o * L + r0 * g.oW, g.oW, r1 - r0, act);
          continue;
        }
        if (winograd) WinogradGrid<MR>(g, ws, packed + gi * 16 * Og_pad * Cg, xpad, group_bias, tiles, rows.data(), 0, ws.tH, grid);
        else ConvGridTiles<MR>(g, out_pg, packed + gi * Og_pad * K, rows.data(), group_bias, grid);
        // The group's output: its valid grid columns with the activation, or their max pool.
        if (!pool) {
          CompactRows(grid, out_pg.Wp, out, g.oW, Og * g.oH, act);
        } else {
          const int64_t at = (n * g.O + gi * Og) * pool->oH * pool->oW;
          PoolGrid(g, out_pg, grid, act, *pool, y + at, idx ? idx + at : nullptr);
        }
      }
    }
  });
}

bool EnoughImages(const ConvGeom& g) { return g.N >= (in_parallel_region() ? 1 : num_threads()); }

// Stride 1, not pointwise, and enough images to keep every thread busy (the direct in-place
// path splits images only) or Winograd (which splits an image's tile rows too).
bool UsePadded(const ConvGeom& g) {
  return g.sH == 1 && g.sW == 1 && g.K() > 0 && g.L() > 0 && (EnoughImages(g) || UseWinograd(g));
}

bool ConvUsesWinograd(const ConvGeom& g) { return UsePadded(g) && UseWinograd(g); }

bool IsPointwise(const ConvGeom& g) {
  return g.kH == 1 && g.kW == 1 && g.sH == 1 && g.sW == 1 && g.pH == 0 && g.pW == 0 && g.oH == g.H && g.oW == g.W;
}

// Work items of a per-image pass: whole images when there are at least as many as threads,
// else column ranges of each image (multiples of 64 columns: whole tiles of every target).
struct Split {
  int64_t per_image, cols;
};
Split SplitWork(int64_t N, int64_t L) {
  const int64_t threads = in_parallel_region() ? 1 : num_threads();
  if (N >= threads || L <= 64) return {1, L};
  const int64_t cols = std::max<int64_t>(64, (L + threads - 1) / threads + 63) / 64 * 64;
  return {(L + cols - 1) / cols, cols};
}

void ConvForward(const ConvGeom& g, const float* x, const float* w, const float* bias, GemmAct act, float* y) {
  const int64_t K = g.K(), L = g.L(), Og = g.Og(), Cg = g.Cg(), HW = g.H * g.W;
  if (g.N == 0 || g.O == 0 || L == 0) return;
  const bool pointwise = IsPointwise(g);
  if (!pointwise && UsePadded(g)) {
#if HWY_TARGET == HWY_WASM
    if (wasm_tile_rows() == 5) return ConvPadded<5>(g, x, w, bias, act, y);
#endif
    return ConvPadded<kMaxMR>(g, x, w, bias, act, y);
  }
  const Split split = SplitWork(g.N, L);
  const int64_t items = g.N * split.per_image;
  parallel_for(0, items, std::max<int64_t>(1, items / std::max(1, num_threads())), [&](int64_t lo, int64_t hi) {
    for (int64_t item = lo; item < hi; ++item) {
      const int64_t n = item / split.per_image;
      const int64_t j0 = item % split.per_image * split.cols, nc = std::min(split.cols, L - j0);
      for (int64_t gi = 0; gi < g.groups; ++gi) {
        const float* xg = x + (n * g.C + gi * Cg) * HW;
        const GemmArgs ga{false, false, Og, nc, K, 1.0f, 0.0f, w + gi * Og * K, K, xg + j0, L,
                          nullptr, bias ? bias + gi * Og : nullptr, act, y + (n * g.O + gi * Og) * L + j0, L};
        if (K == 0) {  // no input channels: bias (and act) alone
          for (int64_t o = 0; o < Og; ++o) {
            float* row = ga.c + o * L;
            for (int64_t j = 0; j < nc; ++j) row[j] = ga.row_bias ? ga.row_bias[o] : 0.0f;
            if (act != GemmAct::None) unary_f32(gemm_act_unary(act), 0.0f, row, row, nc);
          }
        } else if (pointwise) {
          GemmWithTile(ga, DenseB{ga});  // the column matrix is x itself
        } else {
          GemmWithTile(ga, ImageB{g, xg, j0});
        }
      }
    }
  });
}

// conv2d_maxpool2d_f32 for the stride-1 convolutions whose pool reads the grid; false: the
// caller composes the two methods instead.
bool ConvMaxPool(const ConvGeom& g, const float* x, const float* w, const float* bias, GemmAct act,
                 const PoolGeom& pool, float* y, int32_t* idx) {
  if (act != GemmAct::None && act != GemmAct::Relu) return false;  // (pooled before the activation)
  if (IsPointwise(g) || !UsePadded(g) || !EnoughImages(g) || !ConvPoolsOnGrid(g, pool) || pool.P != g.N * g.O)
    return false;
#if HWY_TARGET == HWY_WASM
  if (wasm_tile_rows() == 5) {
    ConvPadded<5>(g, x, w, bias, act, y, &pool, idx);
    return true;
  }
#endif
  ConvPadded<kMaxMR>(g, x, w, bias, act, y, &pool, idx);
  return true;
}

void ConvBackwardWeight(const ConvGeom& g, const float* x, const float* dy, float* dw) {
  const int64_t K = g.K(), L = g.L(), Og = g.Og(), Cg = g.Cg(), HW = g.H * g.W;
  const int64_t size = g.O * K;
  std::fill(dw, dw + size, 0.0f);
  if (g.N == 0 || size == 0 || L == 0) return;
  const bool pointwise = IsPointwise(g);
  const int64_t threads = in_parallel_region() ? 1 : std::min<int64_t>(num_threads(), g.N);
  // With threads, about four pieces per thread, claimed as each finishes (as the forward's
  // images): one piece each left the caller idle for all of a late worker's delay. The pieces
  // depend on the thread count only, never on which thread took which, and the partial sums
  // are kept within 8 MiB beyond one piece per thread (a large dW gets fewer pieces).
  const int64_t most = std::max<int64_t>(threads, std::min<int64_t>(4 * threads, 1 + (int64_t{1} << 21) / size));
  const int64_t want = threads == 1 ? 1 : std::min<int64_t>(g.N, most);
  const int64_t per = (g.N + want - 1) / want, pieces = (g.N + per - 1) / per;
  // Piece 0 sums into dw, the others into buffers of their own, added at the end.
  std::vector<float> partial(static_cast<size_t>((pieces - 1) * size));
  // Stride 1: col's rows come from a padded copy of each image (GridBt), as in the forward.
  const bool padded = !pointwise && g.sH == 1 && g.sW == 1;
  const PaddedGrid pg = GridOf(g);
  if (padded) CheckScratch("padded image", Cg, pg.plane + pg.slack);
  parallel_for(0, g.N, per, [&](int64_t lo, int64_t hi) {
    float* out = lo == 0 ? dw : partial.data() + (lo / per - 1) * size;
    thread_local std::vector<float> pad_buf;
    float* xpad = padded ? Scratch(pad_buf, Cg * pg.plane + pg.slack) : nullptr;
    for (int64_t n = lo; n < hi; ++n)
      for (int64_t gi = 0; gi < g.groups; ++gi) {
        const float* xg = x + (n * g.C + gi * Cg) * HW;
        // dW_g [Og, K] (+)= dy_g [Og, L] · col(x_g)ᵀ; the first image overwrites.
        const GemmArgs ga{false, true, Og, K, L, 1.0f, n == lo ? 0.0f : 1.0f, dy + (n * g.O + gi * Og) * L, L,
                          xg, L, nullptr, nullptr, GemmAct::None, out + gi * Og * K, K};
        if (pointwise) {
          GemmWithTile(ga, DenseB{ga});  // col(x_g)ᵀ = x_gᵀ: B stored [K, L]
        } else if (padded) {
          PadImage(g, pg, xg, xpad);
          GemmWithTile(ga, GridBt{g, pg, xpad});
        } else {
          GemmWithTile(ga, ImageBt{g, xg});
        }
      }
  });
  for (int64_t p = 1; p < pieces; ++p) {
    const float* part = partial.data() + (p - 1) * size;
    const DF d;
    const int64_t N = static_cast<int64_t>(hn::Lanes(d));
    int64_t i = 0;
    for (; i + N <= size; i += N) hn::StoreU(hn::Add(hn::LoadU(d, dw + i), hn::LoadU(d, part + i)), d, dw + i);
    for (; i < size; ++i) dw[i] += part[i];
  }
}

// dx for any stride: dcol = W_gᵀ · dy_n, then col2im, image by image (threads over images).
void ConvBackwardDataCol2im(const ConvGeom& g, const float* dy, const float* w, float* dx) {
  const int64_t K = g.K(), L = g.L(), Og = g.Og(), Cg = g.Cg(), HW = g.H * g.W;
  CheckScratch("column buffer", K, L);
  const Im2colGeom ig{Cg, g.H, g.W, g.kH, g.kW, g.sH, g.sW, g.pH, g.pW, g.dH, g.dW, g.oH, g.oW};
  parallel_for(0, g.N, 1, [&](int64_t lo, int64_t hi) {
    thread_local std::vector<float> buf;
    float* dcol = Scratch(buf, K * L);
    for (int64_t n = lo; n < hi; ++n)
      for (int64_t gi = 0; gi < g.groups; ++gi) {
        float* dxg = dx + (n * g.C + gi * Cg) * HW;
        std::fill(dxg, dxg + Cg * HW, 0.0f);
        if (Og == 0 || K == 0) continue;
        const GemmArgs ga{true, false, K, L, Og, 1.0f, 0.0f, w + gi * Og * K, K, dy + (n * g.O + gi * Og) * L, L,
                          nullptr, nullptr, GemmAct::None, dcol, L};
        GemmWithTile(ga, DenseB{ga});
        col2im_f32(ig, dcol, L, dxg);
      }
  });
}

void ConvBackwardData(const ConvGeom& g, const float* dy, const float* w, const float* bias, float* dx) {
  const int64_t HW = g.H * g.W;
  if (g.N == 0 || g.C == 0 || HW == 0) return;
  if (g.sH != 1 || g.sW != 1 || g.L() == 0) {
    ConvBackwardDataCol2im(g, dy, w, dx);
    if (bias)
      for (int64_t n = 0; n < g.N; ++n)
        for (int64_t c = 0; c < g.C; ++c) {
          float* row = dx + (n * g.C + c) * HW;
          for (int64_t i = 0; i < HW; ++i) row[i] += bias[c];
        }
    return;
  }
  // Stride 1: dx = conv(dy, w') with w'[c, o, a, b] = w[o, c, kH−1−a, kW−1−b] per group,
  // which reads dy[o, h − p' + a·dH, …] with p' = dH·(kH − 1) − pH (negative p': a crop).
  const int64_t Cg = g.Cg(), Og = g.Og(), taps = g.kH * g.kW;
  thread_local std::vector<float> flipped_buf;
  float* flipped = Scratch(flipped_buf, g.C * Og * taps);
  for (int64_t gi = 0; gi < g.groups; ++gi)
    for (int64_t cg = 0; cg < Cg; ++cg)
      for (int64_t o = 0; o < Og; ++o)
        for (int64_t t = 0; t < taps; ++t)
          flipped[((gi * Cg + cg) * Og + o) * taps + t] = w[((gi * Og + o) * Cg + cg) * taps + taps - 1 - t];
  ConvGeom t = g;
  t.C = g.O;
  t.H = g.oH;
  t.W = g.oW;
  t.O = g.C;
  t.pH = g.dH * (g.kH - 1) - g.pH;
  t.pW = g.dW * (g.kW - 1) - g.pW;
  t.oH = g.H;
  t.oW = g.W;
  ConvForward(t, dy, flipped, bias, GemmAct::None, dx);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace sg
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sg {
namespace simd {
HWY_EXPORT(ConvForward);
HWY_EXPORT(ConvBackwardData);
HWY_EXPORT(ConvBackwardWeight);
HWY_EXPORT(ConvMaxPool);
HWY_EXPORT(ConvUsesWinograd);

void conv2d_f32(const ConvGeom& g, const float* x, const float* w, const float* bias, GemmAct act, float* y) {
  HWY_DYNAMIC_DISPATCH(ConvForward)(g, x, w, bias, act, y);
}

void conv2d_backward_data_f32(const ConvGeom& g, const float* dy, const float* w, const float* bias, float* dx) {
  HWY_DYNAMIC_DISPATCH(ConvBackwardData)(g, dy, w, bias, dx);
}

void conv2d_backward_weight_f32(const ConvGeom& g, const float* x, const float* dy, float* dw) {
  HWY_DYNAMIC_DISPATCH(ConvBackwardWeight)(g, x, dy, dw);
}

bool conv2d_maxpool2d_f32(const ConvGeom& g, const float* x, const float* w, const float* bias, GemmAct act,
                          const PoolGeom& pool, float* y, int32_t* idx) {
  return HWY_DYNAMIC_DISPATCH(ConvMaxPool)(g, x, w, bias, act, pool, y, idx);
}

bool conv2d_uses_winograd(const ConvGeom& g) { return HWY_DYNAMIC_DISPATCH(ConvUsesWinograd)(g); }

}  // namespace simd
}  // namespace sg
#endif  // HWY_ONCE
