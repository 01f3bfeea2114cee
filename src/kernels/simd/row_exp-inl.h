// The two passes of a row's max-shifted exponentials, shared by softmax.cpp (softmax, log-softmax,
// logsumexp) and cross_entropy.cpp (the loss and its gradient, which need only the row's max and
// Σ exp(x − max), never a stored log-softmax row). Per-target header: included once per Highway
// target by foreach_target.h, hence the toggle guard. Needs vec_math-inl.h (ExpF) first.
#if defined(SG_KERNELS_SIMD_ROW_EXP_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SG_KERNELS_SIMD_ROW_EXP_INL_H_
#undef SG_KERNELS_SIMD_ROW_EXP_INL_H_
#else
#define SG_KERNELS_SIMD_ROW_EXP_INL_H_
#endif

#include <cstdint>
#include <cstring>
#include <limits>

#include "hwy/highway.h"
#include "kernels/simd/vec_math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace sg {
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using RowD = hn::ScalableTag<float>;
using RowV = hn::Vec<RowD>;

constexpr size_t kMaxLanes = HWY_MAX_BYTES / sizeof(float);

// Row max; NaN if any entry is NaN; −inf for an empty row.
HWY_INLINE float RowMax(RowD d, const float* x, int64_t cols) {
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const RowV ninf = hn::Set(d, -std::numeric_limits<float>::infinity());
  RowV m0 = ninf, m1 = ninf;
  hn::Mask<RowD> nan = hn::FirstN(d, 0);
  int64_t j = 0;
  for (; j + 2 * N <= cols; j += 2 * N) {
    const RowV v0 = hn::LoadU(d, x + j), v1 = hn::LoadU(d, x + j + N);
    m0 = hn::Max(m0, v0);
    m1 = hn::Max(m1, v1);
    nan = hn::Or(nan, hn::Or(hn::IsNaN(v0), hn::IsNaN(v1)));
  }
  for (; j + N <= cols; j += N) {
    const RowV v = hn::LoadU(d, x + j);
    m0 = hn::Max(m0, v);
    nan = hn::Or(nan, hn::IsNaN(v));
  }
  if (j < cols) {
    HWY_ALIGN float buf[kMaxLanes];
    hn::Store(ninf, d, buf);
    std::memcpy(buf, x + j, static_cast<size_t>(cols - j) * sizeof(float));
    const RowV v = hn::Load(d, buf);
    m0 = hn::Max(m0, v);
    nan = hn::Or(nan, hn::IsNaN(v));
  }
  if (!hn::AllFalse(d, nan)) return std::numeric_limits<float>::quiet_NaN();
  return hn::GetLane(hn::MaxOfLanes(d, hn::Max(m0, m1)));
}

// Σ exp(x − m); with `store`, y receives the exponentials. Float lanes sum blocks of kBlock
// columns, blocks are combined in double (long rows stay as accurate as short ones).
constexpr int64_t kBlock = 1024;

HWY_INLINE double SumExpShifted(RowD d, const float* x, float m, float* y, bool store,
                                int64_t cols) {
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const RowV vm = hn::Set(d, m);
  double total = 0.0;
  int64_t j = 0;
  while (j + N <= cols) {
    RowV s0 = hn::Zero(d), s1 = hn::Zero(d);
    const int64_t end = (cols - j < kBlock) ? cols : j + kBlock;
    for (; j + 2 * N <= end; j += 2 * N) {
      const RowV e0 = ExpF(d, hn::Sub(hn::LoadU(d, x + j), vm));
      const RowV e1 = ExpF(d, hn::Sub(hn::LoadU(d, x + j + N), vm));
      if (store) {
        hn::StoreU(e0, d, y + j);
        hn::StoreU(e1, d, y + j + N);
      }
      s0 = hn::Add(s0, e0);
      s1 = hn::Add(s1, e1);
    }
    for (; j + N <= end; j += N) {
      const RowV e = ExpF(d, hn::Sub(hn::LoadU(d, x + j), vm));
      if (store) hn::StoreU(e, d, y + j);
      s0 = hn::Add(s0, e);
    }
    total += hn::GetLane(hn::SumOfLanes(d, hn::Add(s0, s1)));
  }
  if (j < cols) {
    const size_t rest = static_cast<size_t>(cols - j);
    HWY_ALIGN float buf[kMaxLanes] = {};
    std::memcpy(buf, x + j, rest * sizeof(float));
    const RowV e = hn::IfThenElseZero(hn::FirstN(d, rest), ExpF(d, hn::Sub(hn::Load(d, buf), vm)));
    if (store) {
      hn::Store(e, d, buf);
      std::memcpy(y + j, buf, rest * sizeof(float));
    }
    total += hn::GetLane(hn::SumOfLanes(d, e));
  }
  return total;
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace sg
HWY_AFTER_NAMESPACE();

#endif  // SG_KERNELS_SIMD_ROW_EXP_INL_H_
