// SIMD max pooling. Forward: 2×2 windows at stride 2 (the common case) have their own kernel;
// otherwise N adjacent outputs of a row at once, for column strides 1 and 2
// (stride 2 reads 2N inputs and keeps the even lanes); window positions that touch the left or
// right padding, other strides and the row tails go through the reference row loop, so the
// results (values and argmax positions, NaN rule included) are the reference's exactly.
// Backward: the common 2×2, stride 2, unpadded, undilated case writes each dx row pair in one
// pass (no separate zero fill, no scatter); anything else is the reference scatter.
#include <algorithm>
#include <cstring>

#include "kernels/reference/reference_kernels.h"
#include "kernels/simd/simd_kernels.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/simd/pool.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace sg {
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;
using DI = hn::RebindToSigned<DF>;
using VI = hn::Vec<DI>;

// Lanes row[start], row[start + S], …, row[start + S·(N−1)] for S = 1 or 2. S = 2 reads 2N
// floats and keeps the even lanes of [start, start + 2N) or, where that would pass the row's
// end, the odd lanes of [start − 1, start + 2N − 1) (Fits2 says one of them is inside).
template <int S>
HWY_INLINE VF LoadStrided(DF d, const float* row, int64_t start, int64_t W) {
  if constexpr (S == 1) {
    return hn::LoadU(d, row + start);
  } else {
#if HWY_TARGET == HWY_SCALAR
    (void)W;
    return hn::LoadU(d, row + start);  // one lane
#else
    const int64_t N = static_cast<int64_t>(hn::Lanes(d));
    if (start + 2 * N <= W) return hn::ConcatEven(d, hn::LoadU(d, row + start + N), hn::LoadU(d, row + start));
    return hn::ConcatOdd(d, hn::LoadU(d, row + start - 1 + N), hn::LoadU(d, row + start - 1));
#endif
  }
}

// Whether LoadStrided<S> at `start` stays inside [0, W).
template <int S>
HWY_INLINE bool Fits(int64_t start, int64_t N, int64_t W) {
  if (S == 1 || N == 1) return start >= 0 && start + S * (N - 1) < W;
  return start >= 0 && (start + 2 * N <= W || (start >= 1 && start + 2 * N - 1 <= W));
}

// N outputs ow … ow+N−1 of row oh; the caller checked that every window is inside the plane
// horizontally. idx nullptr: the values alone.
template <int S>
HWY_INLINE void MaxPoolBlock(const PoolGeom& g, const float* xp, int64_t oh, int64_t ow, float* y, int32_t* idx) {
  const DF d;
  const DI di;
  const VI iota = hn::Iota(di, 0);
  const VI lane_pos = S == 1 ? iota : hn::Add(iota, iota);  // lane i reads column offset S·i
  VF best = hn::Zero(d);
  VI at = hn::Zero(di);
  bool first = true;
  for (int64_t ki = 0; ki < g.kH; ++ki) {
    const int64_t ih = oh * g.sH - g.pH + ki * g.dH;
    if (ih < 0 || ih >= g.H) continue;
    const float* row = xp + ih * g.W;
    for (int64_t kj = 0; kj < g.kW; ++kj) {
      const int64_t start = ow * S - g.pW + kj * g.dW;
      const VF v = LoadStrided<S>(d, row, start, g.W);
      const VI pos = hn::Add(hn::Set(di, static_cast<int32_t>(ih * g.W + start)), lane_pos);
      if (first) {
        best = v;
        at = pos;
        first = false;
        continue;
      }
      // The reference's update rule: a larger value, or any NaN, takes over.
      const auto take = hn::Or(hn::Gt(v, best), hn::IsNaN(v));
      best = hn::IfThenElse(take, v, best);
      at = hn::IfThenElse(hn::RebindMask(di, take), pos, at);
    }
  }
  if (first) {  // no row of the window inside the plane: the reference's answer (−inf, −1)
    ref::max_pool2d_row(g, xp, oh, ow, ow + static_cast<int64_t>(hn::Lanes(d)), y, idx);
    return;
  }
  hn::StoreU(best, d, y + ow);
  if (idx) hn::StoreU(at, di, idx + ow);
}

// Output row oh of plane xp (y, idx at the row's start): vector blocks over the outputs whose
// windows lie inside the row, the last block shifted back to end exactly at that range's end
// (recomputing a few outputs, identically); the rest through the reference loop.
template <int S>
HWY_INLINE void MaxPoolRow(const PoolGeom& g, const float* xp, int64_t oh, float* y, int32_t* idx) {
  const int64_t N = static_cast<int64_t>(hn::Lanes(DF()));
  const int64_t span = (g.kW - 1) * g.dW;  // the window's reach beyond its first column
  // Outputs [lo, hi): first column ow·S − pW ≥ 0 and last column ow·S − pW + span ≤ W − 1.
  const int64_t lo = std::min<int64_t>((g.pW + S - 1) / S, g.oW);
  const int64_t last = g.W - 1 + g.pW - span;
  const int64_t hi = last < 0 ? lo : std::max(lo, std::min<int64_t>(g.oW, last / S + 1));
  // A block at ow is usable when the loads of its first and last window columns fit (the
  // columns between lie between them).
  const auto usable = [&](int64_t ow) {
    const int64_t s0 = ow * S - g.pW;
    return Fits<S>(s0, N, g.W) && Fits<S>(s0 + span, N, g.W);
  };
  int64_t done = lo;  // outputs [lo, done) are written
  if (hi - lo >= N) {
    for (int64_t ow = lo; ow + N <= hi && usable(ow); ow += N) {
      MaxPoolBlock<S>(g, xp, oh, ow, y, idx);
      done = ow + N;
    }
    if (done < hi && done > lo && usable(hi - N)) {
      MaxPoolBlock<S>(g, xp, oh, hi - N, y, idx);
      done = hi;
    }
  }
  ref::max_pool2d_row(g, xp, oh, 0, lo, y, idx);
  ref::max_pool2d_row(g, xp, oh, done, g.oW, y, idx);
}

void MaxPool2d(const PoolGeom& g, const float* x, float* y, int32_t* idx) {
  const int64_t L = g.oH * g.oW;
  for (int64_t p = 0; p < g.P; ++p) {
    const float* xp = x + p * g.H * g.W;
    for (int64_t oh = 0; oh < g.oH; ++oh) {
      const int64_t o = p * L + oh * g.oW;
      int32_t* io = idx ? idx + o : nullptr;
      if (g.sW == 1) MaxPoolRow<1>(g, xp, oh, y + o, io);
      else if (g.sW == 2) MaxPoolRow<2>(g, xp, oh, y + o, io);
      else ref::max_pool2d_row(g, xp, oh, 0, g.oW, y + o, io);
    }
  }
}

// A 2×2 window at stride 2, no padding or dilation (the usual pool after a conv): N outputs
// of row oh from 2N floats of input rows 2·oh and 2·oh + 1, split into their even and odd
// columns. The window positions are visited in the reference's order with its update rule,
// so values and argmax positions are the reference's. kIdx false: the values alone (no
// positions computed, idx unused).
#if HWY_TARGET != HWY_SCALAR
template <bool kIdx>
HWY_INLINE void MaxPool2x2Block(const PoolGeom& g, const float* xp, int64_t oh, int64_t ow, float* y, int32_t* idx) {
  const DF d;
  const DI di;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const float* r0 = xp + 2 * oh * g.W + 2 * ow;
  const float* r1 = r0 + g.W;
  const VF a0 = hn::LoadU(d, r0), b0 = hn::LoadU(d, r0 + N);
  const VF a1 = hn::LoadU(d, r1), b1 = hn::LoadU(d, r1 + N);
  const VI even = hn::Add(hn::Iota(di, 0), hn::Iota(di, 0));
  const VI top = hn::Add(hn::Set(di, static_cast<int32_t>(2 * oh * g.W + 2 * ow)), even);
  const VI bottom = hn::Add(top, hn::Set(di, static_cast<int32_t>(g.W)));
  const VI one = hn::Set(di, 1);
  VF best = hn::ConcatEven(d, b0, a0);
  VI at = top;
  const auto update = [&](VF v, VI pos) {  // a larger value, or any NaN, takes over
    const auto take = hn::Or(hn::Gt(v, best), hn::IsNaN(v));
    best = hn::IfThenElse(take, v, best);
    if (kIdx) at = hn::IfThenElse(hn::RebindMask(di, take), pos, at);
  };
  update(hn::ConcatOdd(d, b0, a0), hn::Add(top, one));
  update(hn::ConcatEven(d, b1, a1), bottom);
  update(hn::ConcatOdd(d, b1, a1), hn::Add(bottom, one));
  hn::StoreU(best, d, y + ow);
  if (kIdx) hn::StoreU(at, di, idx + ow);
}
#endif

template <bool kIdx>
void MaxPool2x2Planes(const PoolGeom& g, const float* x, float* y, int32_t* idx) {
#if HWY_TARGET == HWY_SCALAR
  return MaxPool2d(g, x, y, idx);
#else
  const int64_t N = static_cast<int64_t>(hn::Lanes(DF()));
  const int64_t L = g.oH * g.oW;
  // A block at ow reads input columns [2·ow, 2·ow + 2N), inside the row for every ow ≤ oW − N
  // since 2·oW ≤ W (two_by_two). The last block is shifted back to end at the row's last
  // output (recomputing a few outputs, identically).
  const int64_t blocks_end = g.oW - N;  // the last block's first output
  for (int64_t p = 0; p < g.P; ++p) {
    const float* xp = x + p * g.H * g.W;
    for (int64_t oh = 0; oh < g.oH; ++oh) {
      float* yr = y + p * L + oh * g.oW;
      int32_t* ir = kIdx ? idx + p * L + oh * g.oW : nullptr;
      if (blocks_end < 0) {  // a row narrower than a vector
        ref::max_pool2d_row(g, xp, oh, 0, g.oW, yr, ir);
        continue;
      }
      for (int64_t ow = 0; ow < blocks_end; ow += N) MaxPool2x2Block<kIdx>(g, xp, oh, ow, yr, ir);
      MaxPool2x2Block<kIdx>(g, xp, oh, blocks_end, yr, ir);
    }
  }
#endif
}

void MaxPool2x2(const PoolGeom& g, const float* x, float* y, int32_t* idx) {
  if (idx) MaxPool2x2Planes<true>(g, x, y, idx);
  else MaxPool2x2Planes<false>(g, x, y, nullptr);
}

// dx for 2×2 windows at stride 2, no padding or dilation: input rows 2·oh and 2·oh + 1 are
// written whole from output row oh (each input has at most one window); rows and columns past
// the last window are zero.
void MaxPool2x2Backward(const PoolGeom& g, const float* dy, const int32_t* idx, float* dx) {
#if HWY_TARGET == HWY_SCALAR
  return ref::max_pool2d_backward_f32(g, dy, idx, dx);
#else
  const int64_t HW = g.H * g.W, L = g.oH * g.oW;
  // 128-bit vectors: InterleaveLower/Upper are whole-vector zips there on every target.
  const hn::Full128<float> d;
  const hn::Full128<int32_t> di;
  constexpr int64_t N = 4;
  const auto zero = hn::Zero(d);
  const auto even = hn::Add(hn::Iota(di, 0), hn::Iota(di, 0));  // 2·i
  for (int64_t p = 0; p < g.P; ++p) {
    const float* dyp = dy + p * L;
    const int32_t* ip = idx + p * L;
    float* dxp = dx + p * HW;
    for (int64_t oh = 0; oh < g.oH; ++oh) {
      const float* gy = dyp + oh * g.oW;
      const int32_t* at = ip + oh * g.oW;
      for (int64_t r = 0; r < 2; ++r) {
        const int64_t ih = 2 * oh + r;
        float* row = dxp + ih * g.W;
        int64_t ow = 0;
        for (; ow + N <= g.oW; ow += N) {
          const auto v = hn::LoadU(d, gy + ow);
          const auto a = hn::LoadU(di, at + ow);
          const auto left = hn::Add(hn::Set(di, static_cast<int32_t>(ih * g.W + 2 * ow)), even);
          const auto right = hn::Add(left, hn::Set(di, 1));
          const auto l = hn::IfThenElse(hn::RebindMask(d, hn::Eq(a, left)), v, zero);
          const auto rr = hn::IfThenElse(hn::RebindMask(d, hn::Eq(a, right)), v, zero);
          hn::StoreU(hn::InterleaveLower(d, l, rr), d, row + 2 * ow);
          hn::StoreU(hn::InterleaveUpper(d, l, rr), d, row + 2 * ow + N);
        }
        for (; ow < g.oW; ++ow) {
          const int64_t base = ih * g.W + 2 * ow;
          row[2 * ow] = at[ow] == base ? gy[ow] : 0.0f;
          row[2 * ow + 1] = at[ow] == base + 1 ? gy[ow] : 0.0f;
        }
        for (int64_t w = 2 * g.oW; w < g.W; ++w) row[w] = 0.0f;  // an odd width's last column
      }
    }
    if (2 * g.oH < g.H) std::fill(dxp + 2 * g.oH * g.W, dxp + HW, 0.0f);  // an odd height's last row
  }
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace sg
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sg {
namespace simd {
HWY_EXPORT(MaxPool2d);
HWY_EXPORT(MaxPool2x2);
HWY_EXPORT(MaxPool2x2Backward);

namespace {
// 2×2 windows at stride 2, no padding or dilation, every window inside the plane.
bool two_by_two(const PoolGeom& g) {
  return g.kH == 2 && g.kW == 2 && g.sH == 2 && g.sW == 2 && g.pH == 0 && g.pW == 0 && g.dH == 1 &&
         g.dW == 1 && g.oH * 2 <= g.H && g.oW * 2 <= g.W;
}
}  // namespace

void max_pool2d_f32(const PoolGeom& g, const float* x, float* y, int32_t* idx) {
  if (g.P == 0 || g.oH == 0 || g.oW == 0) return;
  if (two_by_two(g)) return HWY_DYNAMIC_DISPATCH(MaxPool2x2)(g, x, y, idx);
  HWY_DYNAMIC_DISPATCH(MaxPool2d)(g, x, y, idx);
}

void max_pool2d_backward_f32(const PoolGeom& g, const float* dy, const int32_t* idx, float* dx) {
  if (!two_by_two(g)) return ref::max_pool2d_backward_f32(g, dy, idx, dx);
  HWY_DYNAMIC_DISPATCH(MaxPool2x2Backward)(g, dy, idx, dx);
}

}  // namespace simd
}  // namespace sg
#endif  // HWY_ONCE
