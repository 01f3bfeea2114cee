// Reference reductions over [outer, r, inner]: double accumulators (float32 and float64 alike),
// NaN propagates through max/min like torch.amax/amin.
#include <cmath>
#include <limits>

#include "kernels/reference/reference_kernels.h"

namespace sg::ref {

namespace {

template <class T>
void reduce_loop(Reduce op, const T* x, int64_t outer, int64_t r, int64_t inner, T* out) {
  const T nan = std::numeric_limits<T>::quiet_NaN();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      // By index, not a pointer into x: an empty reduction (r = 0) may get x = nullptr, and
      // nullptr + offset is undefined even when nothing is read (clang's UBSan reports it).
      const int64_t base = o * r * inner + j;
      T res = 0;
      switch (op) {
        case Reduce::Sum: {
          double acc = 0.0;
          for (int64_t i = 0; i < r; ++i) acc += x[base + i * inner];
          res = T(acc);
          break;
        }
        case Reduce::Prod: {
          double acc = 1.0;
          for (int64_t i = 0; i < r; ++i) acc *= x[base + i * inner];
          res = T(acc);
          break;
        }
        case Reduce::Max:
        case Reduce::Min: {
          const bool is_max = op == Reduce::Max;
          res = is_max ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
          for (int64_t i = 0; i < r; ++i) {
            const T v = x[base + i * inner];
            if (std::isnan(v)) { res = nan; break; }
            if (is_max ? v > res : v < res) res = v;
          }
          break;
        }
      }
      out[o * inner + j] = res;
    }
  }
}

}  // namespace

void reduce_f32(Reduce op, const float* x, int64_t outer, int64_t r, int64_t inner, float* out) {
  reduce_loop(op, x, outer, r, inner, out);
}
void reduce_f64(Reduce op, const double* x, int64_t outer, int64_t r, int64_t inner, double* out) {
  reduce_loop(op, x, outer, r, inner, out);
}

}  // namespace sg::ref
