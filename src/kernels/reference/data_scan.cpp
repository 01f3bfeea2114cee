// DataKernels' defaults for cumulative scans (cumsum, cumprod) and cumprod's gradient: plain
// loops over [outer, r, inner] groups, shared by both CPU backends.
#include <cstdint>
#include <vector>

#include "kernels/backend.h"

namespace sg {

namespace {

// The scan of every [o, :, i] group with accumulator Acc: double for float32 (rounded once per
// output) and float64, uint32 for int32 (unsigned arithmetic wraps exactly as two's complement int32 would).
template <class T, class Acc>
void scan_typed(Scan op, bool reverse, const T* x, int64_t outer, int64_t r, int64_t inner, T* out) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * r * inner + i;
      Acc acc = op == Scan::Sum ? Acc(0) : Acc(1);
      for (int64_t t = 0; t < r; ++t) {
        const int64_t at = base + (reverse ? r - 1 - t : t) * inner;
        if (op == Scan::Sum) acc = Acc(acc + Acc(x[at]));
        else acc = Acc(acc * Acc(x[at]));
        out[at] = T(acc);
      }
    }
}

}  // namespace

void DataKernels::scan(Scan op, DType dtype, bool reverse, const void* x, int64_t outer, int64_t r, int64_t inner,
                       void* out) const {
  if (dtype == DType::Float32)
    scan_typed<float, double>(op, reverse, static_cast<const float*>(x), outer, r, inner, static_cast<float*>(out));
  else if (dtype == DType::Float64)
    scan_typed<double, double>(op, reverse, static_cast<const double*>(x), outer, r, inner, static_cast<double*>(out));
  else
    scan_typed<int32_t, uint32_t>(op, reverse, static_cast<const int32_t*>(x), outer, r, inner,
                                  static_cast<int32_t*>(out));
}

void DataKernels::cumprod_backward_f32(const float* x, const float* g, int64_t outer, int64_t r, int64_t inner,
                                       float* dx) const {
  std::vector<double> s(static_cast<size_t>(r));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * r * inner + i;
      // S[j] = g[j] + x[j+1]·S[j+1]: the suffix sums, each weighted by the products after j.
      for (int64_t j = r - 1; j >= 0; --j) {
        const int64_t at = base + j * inner;
        s[j] = double(g[at]) + (j + 1 < r ? double(x[at + inner]) * s[j + 1] : 0.0);
      }
      double prefix = 1;  // x[0]⋯x[j−1]
      for (int64_t j = 0; j < r; ++j) {
        const int64_t at = base + j * inner;
        dx[at] = float(prefix * s[j]);
        prefix *= double(x[at]);
      }
    }
}

}  // namespace sg
