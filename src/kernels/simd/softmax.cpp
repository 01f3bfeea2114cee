// SIMD softmax / log-softmax / logsumexp over rows, shifted by the row max:
//   pass 1: vector max with NaN tracking (a NaN anywhere makes the whole row NaN, like the
//           reference); pass 2: Σ exp(x − m) (float lanes per block, blocks in double),
//           storing the exponentials for softmax; pass 3: scale by 1/Σ, or subtract log Σ (one
//           std::log per row) for log-softmax.
// Tails go through a stack vector; lanes past the row are masked out of sums and maxima.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/simd/simd_kernels.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/simd/softmax.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "kernels/simd/vec_math-inl.h"
#include "kernels/simd/row_exp-inl.h"

HWY_BEFORE_NAMESPACE();
namespace sg {
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;
using MF = hn::Mask<DF>;

// Softmax: y[j] ·= scale. Log-softmax: y[j] = (x[j] − m) − log_sum; x − m first, which is
// exact for entries near the max (Sterbenz), so rows around ±1e4 keep their small differences.
HWY_INLINE void Finish(DF d, const float* x, float* y, int64_t cols, bool log_, float scale,
                       float m, float log_sum) {
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const VF vs = hn::Set(d, scale), vm = hn::Set(d, m), vl = hn::Set(d, log_sum);
  int64_t j = 0;
  for (; j + N <= cols; j += N) {
    const VF r = log_ ? hn::Sub(hn::Sub(hn::LoadU(d, x + j), vm), vl)
                      : hn::Mul(hn::LoadU(d, y + j), vs);
    hn::StoreU(r, d, y + j);
  }
  for (; j < cols; ++j) y[j] = log_ ? (x[j] - m) - log_sum : y[j] * scale;
}

// Rows shorter than a vector (a classifier's 2 or 3 classes): a vector of rows at a time, one
// row per lane, going through the columns in turn — one exp per column and lane group instead
// of one masked vector per row. The same arithmetic as the row path (max with NaN, exp(x − m)
// summed in float then taken to double, 1/Σ or log Σ in double); the float sum adds the columns
// in order. Every row of such a width goes this way (the last group padded with zeros), so a
// row's values do not depend on how the rows were split between threads.
void SoftmaxNarrowRows(DF d, const float* x, float* y, int64_t rows, int64_t cols, bool log_) {
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const VF ninf = hn::Set(d, -std::numeric_limits<float>::infinity());
  const VF nan = hn::Set(d, std::numeric_limits<float>::quiet_NaN());
  HWY_ALIGN float col[kMaxLanes][kMaxLanes];  // col[j][l] = x[row l, column j]
  HWY_ALIGN float lane[kMaxLanes];
  for (int64_t r = 0; r < rows; r += N) {
    const float* xr = x + r * cols;
    const int64_t here = std::min(N, rows - r);
    for (int64_t l = 0; l < N; ++l)
      for (int64_t j = 0; j < cols; ++j) col[j][l] = l < here ? xr[l * cols + j] : 0.0f;
    VF m = ninf;
    MF has_nan = hn::FirstN(d, 0);
    for (int64_t j = 0; j < cols; ++j) {
      const VF v = hn::Load(d, col[j]);
      m = hn::Max(m, v);
      has_nan = hn::Or(has_nan, hn::IsNaN(v));
    }
    m = hn::IfThenElse(has_nan, nan, m);
    VF sum = hn::Zero(d);
    for (int64_t j = 0; j < cols; ++j) {
      const VF e = ExpF(d, hn::Sub(hn::Load(d, col[j]), m));
      if (!log_) hn::Store(e, d, col[j]);
      sum = hn::Add(sum, e);
    }
    hn::Store(sum, d, lane);
    for (int64_t l = 0; l < N; ++l) {
      const double s = lane[l];
      lane[l] = log_ ? static_cast<float>(std::log(s)) : static_cast<float>(1.0 / s);
    }
    const VF k = hn::Load(d, lane);
    HWY_ALIGN float out[kMaxLanes];
    for (int64_t j = 0; j < cols; ++j) {
      const VF v = hn::Load(d, col[j]);
      hn::Store(log_ ? hn::Sub(hn::Sub(v, m), k) : hn::Mul(v, k), d, out);
      for (int64_t l = 0; l < here; ++l) y[(r + l) * cols + j] = out[l];
    }
  }
}

void SoftmaxRowsF32(const float* x, float* y, int64_t rows, int64_t cols, bool log_) {
  const DF d;
  if (cols < static_cast<int64_t>(hn::Lanes(d))) return SoftmaxNarrowRows(d, x, y, rows, cols, log_);
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    const float m = RowMax(d, xr, cols);
    const double s = SumExpShifted(d, xr, m, yr, !log_, cols);
    if (log_) {
      // A NaN or ±inf max gives NaN through x − m (as in the reference's double arithmetic).
      Finish(d, xr, yr, cols, true, 0.0f, m, static_cast<float>(std::log(s)));
    } else {
      Finish(d, xr, yr, cols, false, static_cast<float>(1.0 / s), m, 0.0f);
    }
  }
}

void LogsumexpRowsF32(const float* x, float* out, int64_t rows, int64_t cols) {
  const DF d;
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float m = RowMax(d, xr, cols);
    if (std::isinf(m)) m = 0.0f;  // torch.logsumexp: all −inf → −inf, any +inf → +inf
    const double s = SumExpShifted(d, xr, m, nullptr, false, cols);
    out[r] = static_cast<float>(double(m) + std::log(s));
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace sg
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sg {
namespace simd {
HWY_EXPORT(SoftmaxRowsF32);
HWY_EXPORT(LogsumexpRowsF32);

void softmax_rows_f32(const float* x, float* y, int64_t rows, int64_t cols, bool log_) {
  if (rows <= 0 || cols <= 0) return;
  HWY_DYNAMIC_DISPATCH(SoftmaxRowsF32)(x, y, rows, cols, log_);
}

void logsumexp_rows_f32(const float* x, float* out, int64_t rows, int64_t cols) {
  if (rows <= 0) return;
  HWY_DYNAMIC_DISPATCH(LogsumexpRowsF32)(x, out, rows, cols);
}

}  // namespace simd
}  // namespace sg
#endif  // HWY_ONCE
