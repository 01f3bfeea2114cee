// SIMD max pooling. Forward: N adjacent outputs of a row at once, for column strides 1 and 2
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

// Lanes p[0], p[S], …, p[S·(N−1)] for S = 1 or 2; reads p[0 … S·N − 1].
template <int S>
HWY_INLINE VF LoadStrided(DF d, const float* p) {
  if constexpr (S == 1) {
    return hn::LoadU(d, p);
  } else {
#if HWY_TARGET == HWY_SCALAR
    return hn::LoadU(d, p);  // one lane: it is the even one
#else
    const size_t N = hn::Lanes(d);
    return hn::ConcatEven(d, hn::LoadU(d, p + N), hn::LoadU(d, p));
#endif
  }
}

// Output row oh of plane xp (y, idx at the row's start).
template <int S>
HWY_INLINE void MaxPoolRow(const PoolGeom& g, const float* xp, int64_t oh, float* y, int32_t* idx) {
  const DF d;
  const DI di;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const VI iota = hn::Iota(di, 0);
  const VI lane_pos = S == 1 ? iota : hn::Add(iota, iota);  // lane i reads column offset S·i
  // Vector blocks: every read of every window column inside [0, W): ow·S ≥ pW, and the block's
  // last read (ow + N)·S − 1 − pW + (kW − 1)·dW ≤ W − 1.
  const int64_t lo = std::min<int64_t>((g.pW + S - 1) / S, g.oW);
  const int64_t reach = g.W + g.pW - (g.kW - 1) * g.dW;  // (ow + N)·S must not exceed it
  ref::max_pool2d_row(g, xp, oh, 0, lo, y, idx);
  int64_t ow = lo;
  for (; ow + N <= g.oW && (ow + N) * S <= reach; ow += N) {
    VF best = hn::Zero(d);
    VI at = hn::Zero(di);
    bool first = true;
    for (int64_t ki = 0; ki < g.kH; ++ki) {
      const int64_t ih = oh * g.sH - g.pH + ki * g.dH;
      if (ih < 0 || ih >= g.H) continue;
      for (int64_t kj = 0; kj < g.kW; ++kj) {
        const int64_t start = ih * g.W + ow * S - g.pW + kj * g.dW;
        const VF v = LoadStrided<S>(d, xp + start);
        const VI pos = hn::Add(hn::Set(di, static_cast<int32_t>(start)), lane_pos);
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
    hn::StoreU(best, d, y + ow);
    hn::StoreU(at, di, idx + ow);
  }
  ref::max_pool2d_row(g, xp, oh, ow, g.oW, y, idx);
}

void MaxPool2d(const PoolGeom& g, const float* x, float* y, int32_t* idx) {
  const int64_t L = g.oH * g.oW;
  for (int64_t p = 0; p < g.P; ++p) {
    const float* xp = x + p * g.H * g.W;
    for (int64_t oh = 0; oh < g.oH; ++oh) {
      const int64_t o = p * L + oh * g.oW;
      if (g.sW == 1) MaxPoolRow<1>(g, xp, oh, y + o, idx + o);
      else if (g.sW == 2) MaxPoolRow<2>(g, xp, oh, y + o, idx + o);
      else ref::max_pool2d_row(g, xp, oh, 0, g.oW, y + o, idx + o);
    }
  }
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
        std::fill(row + 2 * g.oW, row + g.W, 0.0f);
      }
    }
    std::fill(dxp + 2 * g.oH * g.W, dxp + HW, 0.0f);
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
HWY_EXPORT(MaxPool2x2Backward);

void max_pool2d_f32(const PoolGeom& g, const float* x, float* y, int32_t* idx) {
  if (g.P == 0 || g.oH == 0 || g.oW == 0) return;
  HWY_DYNAMIC_DISPATCH(MaxPool2d)(g, x, y, idx);
}

void max_pool2d_backward_f32(const PoolGeom& g, const float* dy, const int32_t* idx, float* dx) {
  const bool two_by_two = g.kH == 2 && g.kW == 2 && g.sH == 2 && g.sW == 2 && g.pH == 0 && g.pW == 0 &&
                          g.dH == 1 && g.dW == 1 && g.oH * 2 <= g.H && g.oW * 2 <= g.W;
  if (!two_by_two) return ref::max_pool2d_backward_f32(g, dy, idx, dx);
  HWY_DYNAMIC_DISPATCH(MaxPool2x2Backward)(g, dy, idx, dx);
}

}  // namespace simd
}  // namespace sg
#endif  // HWY_ONCE
