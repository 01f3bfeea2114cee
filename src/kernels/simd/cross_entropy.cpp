// SIMD cross-entropy over rows of classes with class-index targets (the language-model head's
// loss: [B·T, vocab] logits). Fused per row, nothing [R, C] besides the gradient is written:
//   forward:  pass 1 the row max m, pass 2 s = Σ exp(x − m) (row_exp-inl.h, as softmax.cpp), then
//             log p_t = (x_t − m) − log s picked at the target; with label smoothing one more pass
//             for Σ_c w_c·(x_c − m). The log-softmax row is never stored (the reference's default
//             writes it to a scratch block and reads it back).
//   backward: the max pass, then exp(x − m) summed and stored into dx in one pass, then one pass
//             scaling dx in place to s_r·(a_r·exp(x − m)/s − ε/C·w), and dx[t] −= s_r·(1 − ε)·w_t:
//             one exponential per entry (the reference's default: a softmax row, then a scalar
//             double pass over it). dx may be x itself: every entry is read before it is written,
//             so the gradient can take the logits' buffer.
// The arithmetic follows the SIMD softmax's (exp(x − m) summed in float lanes per block, blocks in
// double; 1/s and log s rounded to float). kernels/reference/layer_loss.cpp is the scalar twin
// (tests/native/kernels_cross_entropy_test.cpp compares them on odd sizes).
#include <algorithm>
#include <cmath>

#include "kernels/simd/simd_kernels.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/simd/cross_entropy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "kernels/simd/row_exp-inl.h"
#include "kernels/simd/vec_math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace sg {
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// Σ_c w_c·(x_c − m) (w nullptr: 1), float lanes per block of kBlock columns, blocks in double.
HWY_INLINE double WeightedShiftedSum(DF d, const float* x, const float* w, float m, int64_t cols) {
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const VF vm = hn::Set(d, m), one = hn::Set(d, 1.0f);
  double total = 0.0;
  int64_t j = 0;
  while (j + N <= cols) {
    VF acc = hn::Zero(d);
    const int64_t end = (cols - j < kBlock) ? cols : j + kBlock;
    for (; j + N <= end; j += N) {
      const VF wc = w ? hn::LoadU(d, w + j) : one;
      acc = hn::MulAdd(wc, hn::Sub(hn::LoadU(d, x + j), vm), acc);
    }
    total += hn::GetLane(hn::SumOfLanes(d, acc));
  }
  for (; j < cols; ++j) total += double(w ? w[j] : 1.0f) * double(x[j] - m);
  return total;
}

// dx[j] = p_j·ka − w_j·kw in place, where dx holds e_j = exp(x_j − m) and p_j = e_j·inv (ka, kw:
// the row's constants). The tail in scalar float: the same operations as a lane's.
HWY_INLINE void FinishGradient(DF d, const float* w, float inv, float ka, float kw, int64_t cols, float* dx) {
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const VF vi = hn::Set(d, inv), va = hn::Set(d, ka), vw = hn::Set(d, kw), one = hn::Set(d, 1.0f);
  int64_t j = 0;
  for (; j + N <= cols; j += N) {
    const VF p = hn::Mul(hn::LoadU(d, dx + j), vi);
    hn::StoreU(hn::Sub(hn::Mul(p, va), hn::Mul(w ? hn::LoadU(d, w + j) : one, vw)), d, dx + j);
  }
  for (; j < cols; ++j) dx[j] = (dx[j] * inv) * ka - (w ? w[j] : 1.0f) * kw;
}

double WeightTotal(const float* w, int64_t cols) {
  if (!w) return double(cols);
  double t = 0;
  for (int64_t c = 0; c < cols; ++c) t += w[c];
  return t;
}

void CrossEntropyRowsF32(const float* x, const int32_t* t, const float* w, int64_t rows, int64_t cols,
                         int64_t ignore, double eps, float* loss, float* wt) {
  const DF d;
  const double smooth = eps / double(cols), w_total = eps > 0 ? WeightTotal(w, cols) : 0.0;
  for (int64_t r = 0; r < rows; ++r) {
    if (t[r] == ignore) {
      loss[r] = 0;
      wt[r] = 0;
      continue;
    }
    const float* xr = x + r * cols;
    const float m = RowMax(d, xr, cols);
    // log s in float, as the SIMD log-softmax subtracts it: log p_c = (x_c − m) − log s.
    const float log_s = static_cast<float>(std::log(SumExpShifted(d, xr, m, nullptr, false, cols)));
    const double wy = w ? double(w[t[r]]) : 1.0;
    double v = -(1.0 - eps) * wy * double((xr[t[r]] - m) - log_s);
    if (eps > 0) v -= smooth * (WeightedShiftedSum(d, xr, w, m, cols) - double(log_s) * w_total);
    loss[r] = static_cast<float>(v);
    wt[r] = static_cast<float>(wy);
  }
}

void CrossEntropyBackwardRowsF32(const float* x, const int32_t* t, const float* w, int64_t rows, int64_t cols,
                                 int64_t ignore, double eps, const float* s, float* dx) {
  const DF d;
  const double smooth = eps / double(cols), w_total = eps > 0 ? WeightTotal(w, cols) : 0.0;
  for (int64_t r = 0; r < rows; ++r) {
    float* dr = dx + r * cols;
    if (t[r] == ignore) {
      std::fill(dr, dr + cols, 0.0f);
      continue;
    }
    const float* xr = x + r * cols;
    const float m = RowMax(d, xr, cols);
    // exp(x − m) written into dx as it is summed (one exponential per entry; dx may be x: each
    // entry is read before it is written), then scaled in place.
    const float inv = static_cast<float>(1.0 / SumExpShifted(d, xr, m, dr, true, cols));
    const double wy = w ? double(w[t[r]]) : 1.0;
    const double a = (1.0 - eps) * wy + smooth * w_total;  // Σ_c w_c·q_c
    FinishGradient(d, w, inv, float(s[r] * a), float(s[r] * smooth), cols, dr);
    dr[t[r]] -= float(s[r] * (1.0 - eps) * wy);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace sg
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sg {
namespace simd {
HWY_EXPORT(CrossEntropyRowsF32);
HWY_EXPORT(CrossEntropyBackwardRowsF32);

void cross_entropy_rows_f32(const float* x, const int32_t* t, const float* w, int64_t rows, int64_t cols,
                            int64_t ignore, double eps, float* loss, float* wt) {
  if (rows <= 0 || cols <= 0) return;
  HWY_DYNAMIC_DISPATCH(CrossEntropyRowsF32)(x, t, w, rows, cols, ignore, eps, loss, wt);
}

void cross_entropy_backward_rows_f32(const float* x, const int32_t* t, const float* w, int64_t rows,
                                     int64_t cols, int64_t ignore, double eps, const float* s, float* dx) {
  if (rows <= 0 || cols <= 0) return;
  HWY_DYNAMIC_DISPATCH(CrossEntropyBackwardRowsF32)(x, t, w, rows, cols, ignore, eps, s, dx);
}

}  // namespace simd
}  // namespace sg
#endif  // HWY_ONCE
