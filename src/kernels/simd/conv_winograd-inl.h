// Winograd F(2×2, 3×3) (Lavin & Gray 2015) for stride-1, undilated 3×3 convolutions: each 2×2
// block of outputs ("tile") from the 4×4 block of the padded input under it, with 16 products
// per channel pair instead of 36:
//   U = G·w·Gᵀ (each 3×3 kernel → 4×4, once per call),  V = Bᵀ·d·B (each 4×4 input block),
//   M[ξ] = U[ξ] [Og, Cg] · V[ξ] [Cg, tiles] for the 16 positions ξ (the GEMM microkernel, B read
//   in place),  y = Aᵀ·M·A + bias (each tile's 4×4 → its 2×2 outputs).
// 2.25× fewer multiply-adds than the direct convolution; the transforms are adds only. Used by
// conv.cpp's stride-1 path (ConvPadded), which pads each image and compacts or pools the
// output grid this writes; the weight gradient stays a direct (implicit-GEMM) convolution.
// Per-target header: included once per Highway target by foreach_target.h.
#if defined(SG_KERNELS_SIMD_CONV_WINOGRAD_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SG_KERNELS_SIMD_CONV_WINOGRAD_INL_H_
#undef SG_KERNELS_SIMD_CONV_WINOGRAD_INL_H_
#else
#define SG_KERNELS_SIMD_CONV_WINOGRAD_INL_H_
#endif

#include <algorithm>
#include <cstdint>
#include <vector>

#include "hwy/highway.h"
#include "kernels/conv_geom.h"
#include "kernels/simd/gemm-inl.h"

HWY_BEFORE_NAMESPACE();
namespace sg {
namespace simd {
namespace HWY_NAMESPACE {

// Convolutions with fewer input channels per group than this stay direct: with a shallow GEMM
// the transforms cost more than the products they save (measured, wasm on an AMD EPYC, batch
// 64, 3×3 padding 1: 4 channels → 16 at 28×28 direct 1.46 ms, Winograd 1.75; 8 channels: 2.73
// direct, 2.54 Winograd; 16 → 32 at 14×14: 2.38 direct, 1.78 Winograd).
constexpr int64_t kWinogradMinChannels = 8;

// Where tiles sit: tile (th, tw) at column th·tWp + tw of V (tWp a multiple of the vector
// width, so that one vector of tiles never spans two tile rows), its outputs at rows 2·th,
// 2·th + 1 and columns 2·tw, 2·tw + 1 of an output grid tWp·2 wide (the rows past oH, an odd
// oH's last, are not written: the grid has oH rows per channel); its input block at rows
// 2·th … 2·th + 3, columns 2·tw … 2·tw + 3 of the padded image (in_h × in_w).
struct WinogradShape {
  int64_t tH, tWp;        // tile rows; tile columns, padded
  int64_t out_h, out_w;   // the output grid (oH rows of 2·tWp)
  int64_t in_h, in_w;     // the padded image the tiles read
  int64_t band;           // tile rows per pass (their V fits in L2)
};

HWY_INLINE bool UseWinograd(const ConvGeom& g) {
  return g.kH == 3 && g.kW == 3 && g.sH == 1 && g.sW == 1 && g.dH == 1 && g.dW == 1 && g.Cg() >= kWinogradMinChannels &&
         g.Cg() <= kKC && g.Og() > 0 && g.oH > 0 && g.oW > 0;
}

HWY_INLINE WinogradShape WinogradShapeOf(const ConvGeom& g) {
  const int64_t N = static_cast<int64_t>(hn::Lanes(DF()));
  WinogradShape s;
  s.tH = (g.oH + 1) / 2;
  s.tWp = ((g.oW + 1) / 2 + N - 1) / N * N;
  s.out_h = g.oH;
  s.out_w = 2 * s.tWp;
  s.in_h = 2 * s.tH + 2;
  s.in_w = 2 * s.tWp + 2;
  // V of a band: 16 · Cg · band · tWp floats, kept near 64K floats (256 KiB).
  s.band = std::clamp<int64_t>((int64_t(1) << 16) / (16 * g.Cg() * s.tWp), 1, s.tH);
  return s;
}

// Rows of V per band: its tile columns rounded up to whole microkernel tiles.
HWY_INLINE int64_t WinogradBandColumns(const WinogradShape& s) {
  const int64_t nr = kNV * static_cast<int64_t>(hn::Lanes(DF()));
  return (s.band * s.tWp + nr - 1) / nr * nr;
}

// U of every group, packed for the microkernel: position ξ of group gi is the A operand
// [Og, Cg] at out + (gi·16 + ξ)·Og_pad·Cg, panels of MR rows. U = G·w·Gᵀ in double, rounded once.
template <int MR>
void WinogradWeights(const ConvGeom& g, const float* w, float* out) {
  const int64_t Og = g.Og(), Cg = g.Cg(), Og_pad = (Og + MR - 1) / MR * MR;
  std::vector<float> u(static_cast<size_t>(16 * Og * Cg));  // [ξ][o][c] of one group
  for (int64_t gi = 0; gi < g.groups; ++gi) {
    for (int64_t o = 0; o < Og; ++o)
      for (int64_t c = 0; c < Cg; ++c) {
        const float* k = w + ((gi * Og + o) * Cg + c) * 9;
        double gk[4][3];  // G·k
        for (int j = 0; j < 3; ++j) {
          const double k0 = k[j], k1 = k[3 + j], k2 = k[6 + j];
          gk[0][j] = k0, gk[1][j] = 0.5 * (k0 + k1 + k2), gk[2][j] = 0.5 * (k0 - k1 + k2), gk[3][j] = k2;
        }
        for (int a = 0; a < 4; ++a) {
          const double r[4] = {gk[a][0], 0.5 * (gk[a][0] + gk[a][1] + gk[a][2]), 0.5 * (gk[a][0] - gk[a][1] + gk[a][2]),
                               gk[a][2]};
          for (int b = 0; b < 4; ++b) u[size_t(((a * 4 + b) * Og + o) * Cg + c)] = static_cast<float>(r[b]);
        }
      }
    for (int64_t xi = 0; xi < 16; ++xi) {
      const GemmArgs ga{false, false, Og, 0, Cg, 1.0f, 0.0f, u.data() + xi * Og * Cg, Cg, nullptr, 0,
                        nullptr, nullptr, GemmAct::None, nullptr, 0};
      PackA<MR>(ga, 0, Og, 0, Cg, out + (gi * 16 + xi) * Og_pad * Cg);
    }
  }
}

// V of tile rows [th0, th0 + rows) of one image's group: v[(ξ·Cg + c)·ld + t] for the band's
// tile t = (th − th0)·tWp + tw, from the padded image xpad (Cg planes of in_h × in_w). A vector
// of tiles loads each input row as its even and odd columns (tile tw starts at column 2·tw).
SG_NO_MEMCPY HWY_INLINE void WinogradInput(const WinogradShape& s, int64_t Cg, const float* xpad, int64_t th0, int64_t rows,
                                           float* v, int64_t ld) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const int64_t plane = s.in_h * s.in_w;
  for (int64_t c = 0; c < Cg; ++c)
    for (int64_t th = th0; th < th0 + rows; ++th)
      for (int64_t tw = 0; tw < s.tWp; tw += N) {
        const float* src = xpad + c * plane + 2 * th * s.in_w + 2 * tw;
        VF e[4][4];  // Bᵀ·d: rows combined first
        VF dr[4][4];
        for (int a = 0; a < 4; ++a) {
          hn::LoadInterleaved2(d, src + a * s.in_w, dr[a][0], dr[a][1]);
          hn::LoadInterleaved2(d, src + a * s.in_w + 2, dr[a][2], dr[a][3]);
        }
        for (int b = 0; b < 4; ++b) {
          e[0][b] = hn::Sub(dr[0][b], dr[2][b]);
          e[1][b] = hn::Add(dr[1][b], dr[2][b]);
          e[2][b] = hn::Sub(dr[2][b], dr[1][b]);
          e[3][b] = hn::Sub(dr[1][b], dr[3][b]);
        }
        float* out = v + c * ld + (th - th0) * s.tWp + tw;
        const int64_t step = Cg * ld;  // from position ξ to ξ + 1
        for (int a = 0; a < 4; ++a) {
          float* o = out + a * 4 * step;
          hn::StoreU(hn::Sub(e[a][0], e[a][2]), d, o);
          hn::StoreU(hn::Add(e[a][1], e[a][2]), d, o + step);
          hn::StoreU(hn::Sub(e[a][2], e[a][1]), d, o + 2 * step);
          hn::StoreU(hn::Sub(e[a][1], e[a][3]), d, o + 3 * step);
        }
      }
}

// Rows i < h of the 16 product tiles (position ξ at tiles + ξ·MR·nr, rows nr apart) → Aᵀ·M·A +
// bias into the output grid at grid + i·grid_ld (tile t of the band at rows 2·th, 2·th + 1 <
// out_rows, columns 2·tw, 2·tw + 1, th = t / tWp < rows). The tile of positions is in L1.
template <int MR>
SG_NO_MEMCPY HWY_INLINE void WinogradOutput(const WinogradShape& s, const float* tiles, int64_t h, int64_t t0,
                                            int64_t rows, int64_t out_rows, const float* bias, float* grid,
                                            int64_t grid_ld) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d)), nr = kNV * N;
  for (int v = 0; v < kNV; ++v) {
    const int64_t t = t0 + v * N, th = t / s.tWp, tw = t % s.tWp;
    if (th >= rows) break;  // the band's last panel, past its tiles
    for (int64_t i = 0; i < h; ++i) {
      const float* m = tiles + i * nr + v * N;
      const auto at = [&](int xi) { return hn::Load(d, m + xi * MR * nr); };
      VF s0[4], s1[4];  // Aᵀ·M
      for (int b = 0; b < 4; ++b) {
        const VF m1 = at(4 + b), m2 = at(8 + b);
        s0[b] = hn::Add(hn::Add(at(b), m1), m2);
        s1[b] = hn::Sub(hn::Sub(m1, m2), at(12 + b));
      }
      const VF bi = hn::Set(d, bias ? bias[i] : 0.0f);
      float* out = grid + i * grid_ld + 2 * th * s.out_w + 2 * tw;
      hn::StoreInterleaved2(hn::Add(hn::Add(hn::Add(s0[0], s0[1]), s0[2]), bi),
                            hn::Add(hn::Sub(hn::Sub(s0[1], s0[2]), s0[3]), bi), d, out);
      if (2 * th + 1 < out_rows)
        hn::StoreInterleaved2(hn::Add(hn::Add(hn::Add(s1[0], s1[1]), s1[2]), bi),
                              hn::Add(hn::Sub(hn::Sub(s1[1], s1[2]), s1[3]), bi), d, out + s.out_w);
    }
  }
}

// Tile rows [th_lo, th_hi) of the output grid [Og, oH, out_w] of one image's group (bias added,
// no activation) from its padded image; every output is the same whichever rows a call
// computes (threads split an image's tile rows). packed_u: the group's 16 packed positions
// (WinogradWeights); v: a band's V (16 · Cg rows of ld floats); rows: 16 · Cg row pointers for it.
template <int MR>
HWY_NOINLINE void WinogradGrid(const ConvGeom& g, const WinogradShape& s, const float* packed_u, const float* xpad,
                               const float* row_bias, float* v, const float** rows, int64_t th_lo, int64_t th_hi,
                               float* grid) {
  const DF d;
  const int64_t nr = kNV * static_cast<int64_t>(hn::Lanes(d));
  const int64_t Og = g.Og(), Cg = g.Cg(), Og_pad = (Og + MR - 1) / MR * MR;
  const int64_t ld = WinogradBandColumns(s), grid_ld = s.out_h * s.out_w;
  for (int64_t r = 0; r < 16 * Cg; ++r) rows[r] = v + r * ld;
  HWY_ALIGN float tiles[16 * MR * kMaxNR];
  for (int64_t th0 = th_lo; th0 < th_hi; th0 += s.band) {
    const int64_t band_rows = std::min(s.band, th_hi - th0);
    WinogradInput(s, Cg, xpad, th0, band_rows, v, ld);
    const int64_t cols = band_rows * s.tWp;
    float* band_grid = grid + 2 * th0 * s.out_w;
    for (int64_t ip = 0; ip < Og; ip += MR) {
      const int64_t h = std::min<int64_t>(MR, Og - ip);
      for (int64_t jp = 0; jp < cols; jp += nr) {
        for (int64_t xi = 0; xi < 16; ++xi)
          Kernels<MR>::rows.Run(h, Cg, packed_u + xi * Og_pad * Cg + ip * Cg, rows + xi * Cg, jp, tiles + xi * MR * nr);
        WinogradOutput<MR>(s, tiles, h, jp, band_rows, s.out_h - 2 * th0, row_bias ? row_bias + ip : nullptr,
                           band_grid + ip * grid_ld, grid_ld);
      }
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace sg
HWY_AFTER_NAMESPACE();

#endif  // SG_KERNELS_SIMD_CONV_WINOGRAD_INL_H_
