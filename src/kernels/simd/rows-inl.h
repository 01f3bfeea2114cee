// Short runs of floats written with whole vectors: zeroing and the copy of a row with zero
// padding at both ends (an im2col row, a row of a padded image). Shared by im2col.cpp and
// conv.cpp. Per-target header: included once per Highway target by foreach_target.h.
#if defined(SG_KERNELS_SIMD_ROWS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SG_KERNELS_SIMD_ROWS_INL_H_
#undef SG_KERNELS_SIMD_ROWS_INL_H_
#else
#define SG_KERNELS_SIMD_ROWS_INL_H_
#endif

#include <cstdint>

#include "hwy/highway.h"
#include "kernels/simd/simd_kernels.h"  // SG_NO_MEMCPY

HWY_BEFORE_NAMESPACE();
namespace sg {
namespace simd {
namespace HWY_NAMESPACE {

// out[0, n) = 0: whole vectors, the last one overlapping (no memset call: SG_NO_MEMCPY).
SG_NO_MEMCPY HWY_INLINE void ZeroRun(float* out, int64_t n) {
  const hwy::HWY_NAMESPACE::ScalableTag<float> d;
  namespace hn = hwy::HWY_NAMESPACE;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  if (n >= N) {
    for (int64_t i = 0; i + N <= n; i += N) hn::StoreU(hn::Zero(d), d, out + i);
    hn::StoreU(hn::Zero(d), d, out + n - N);  // the tail, overlapping
    return;
  }
  for (int64_t i = 0; i < N; ++i)
    if (i < n) out[i] = 0.0f;
}

// out[t] = src[t] for t in [lo, hi), 0 elsewhere in [0, n).
SG_NO_MEMCPY HWY_INLINE void CopyRun(const float* src, int64_t lo, int64_t hi, int64_t n, float* out) {
  const hwy::HWY_NAMESPACE::ScalableTag<float> d;
  namespace hn = hwy::HWY_NAMESPACE;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  if (n >= N && hi - lo >= N && lo <= N && n - hi <= N) {
    // The usual row (padding narrower than a vector): zero both ends with one store each,
    // then copy [lo, hi) in whole vectors, the last one shifted back to end at hi (it
    // rewrites a few floats with the same values).
    hn::StoreU(hn::Zero(d), d, out);
    hn::StoreU(hn::Zero(d), d, out + n - N);
    int64_t t = lo;
    for (; t + N <= hi; t += N) hn::StoreU(hn::LoadU(d, src + t), d, out + t);
    if (t < hi) hn::StoreU(hn::LoadU(d, src + hi - N), d, out + hi - N);
    return;
  }
  for (int64_t t = 0; t < n; ++t) out[t] = t >= lo && t < hi ? src[t] : 0.0f;
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace sg
HWY_AFTER_NAMESPACE();

#endif  // SG_KERNELS_SIMD_ROWS_INL_H_ toggle
