// SIMD causal softmax over rows (Backend::softmax_causal_rows_f32): row r is query position
// i = (first + r) mod L, and only its entries j ≤ i are read: the row max and Σ exp(x − m) of
// row_exp-inl.h (shared with softmax.cpp) over those n = min(i + 1, cols) entries, then a scale
// by 1/Σ and zeros past them. Attention's causal mask is never built nor added, and the row's
// work shrinks with i (about half of a full softmax for square scores).
#include <algorithm>
#include <cstring>

#include "kernels/simd/simd_kernels.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/simd/softmax_causal.cpp"
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

void SoftmaxCausalRowsF32(const float* x, float* y, int64_t rows, int64_t cols, int64_t L, int64_t first) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    const int64_t n = std::min((first + r) % L + 1, cols);
    const float m = RowMax(d, xr, n);
    // The same float rounding as softmax.cpp's row path: exponentials stored, 1/Σ taken in double.
    const float scale = static_cast<float>(1.0 / SumExpShifted(d, xr, m, yr, true, n));
    const VF vs = hn::Set(d, scale);
    int64_t j = 0;
    for (; j + N <= n; j += N) hn::StoreU(hn::Mul(hn::LoadU(d, yr + j), vs), d, yr + j);
    for (; j < n; ++j) yr[j] *= scale;
    std::memset(yr + n, 0, static_cast<size_t>(cols - n) * sizeof(float));
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace sg
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sg {
namespace simd {
HWY_EXPORT(SoftmaxCausalRowsF32);

void softmax_causal_rows_f32(const float* x, float* y, int64_t rows, int64_t cols, int64_t L, int64_t first) {
  if (rows <= 0 || cols <= 0) return;
  HWY_DYNAMIC_DISPATCH(SoftmaxCausalRowsF32)(x, y, rows, cols, L, first);
}

}  // namespace simd
}  // namespace sg
#endif  // HWY_ONCE
