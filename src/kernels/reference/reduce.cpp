// Reference reductions over [outer, r, inner]: double accumulators, NaN propagates through
// max/min like torch.amax/amin.
#include <cmath>
#include <limits>

#include "kernels/reference/reference_kernels.h"

namespace sg::ref {

void reduce_f32(Reduce op, const float* x, int64_t outer, int64_t r, int64_t inner, float* out) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      // By index, not a pointer into x: an empty reduction (r = 0) may get x = nullptr, and
      // nullptr + offset is undefined even when nothing is read (clang's UBSan reports it).
      const int64_t base = o * r * inner + j;
      float res = 0.0f;
      switch (op) {
        case Reduce::Sum: {
          double acc = 0.0;
          for (int64_t i = 0; i < r; ++i) acc += x[base + i * inner];
          res = float(acc);
          break;
        }
        case Reduce::Prod: {
          double acc = 1.0;
          for (int64_t i = 0; i < r; ++i) acc *= x[base + i * inner];
          res = float(acc);
          break;
        }
        case Reduce::Max:
        case Reduce::Min: {
          const bool is_max = op == Reduce::Max;
          res = is_max ? -std::numeric_limits<float>::infinity()
                       : std::numeric_limits<float>::infinity();
          for (int64_t i = 0; i < r; ++i) {
            const float v = x[base + i * inner];
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

}  // namespace sg::ref
