// DataKernels' defaults for multinomial sampling: the distribution check and the draws, from a
// reserved part of the Philox stream (core/rng.h) so that every device draws the same values.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "core/error.h"
#include "core/rng.h"
#include "kernels/data_kernels.h"

namespace sg {

void DataKernels::check_distribution(const float* w, int64_t rows, int64_t cats, int64_t samples, bool replacement,
                                     const std::string& op) const {
  for (int64_t row = 0; row < rows; ++row) {
    const float* p = w + row * cats;
    double total = 0;
    int64_t nonzero = 0;
    for (int64_t c = 0; c < cats; ++c) {
      if (!std::isfinite(p[c]) || p[c] < 0)
        fail(op, ": expected finite, non-negative probabilities, got ", p[c], " (row ", row, ", category ", c, ")");
      total += p[c];
      nonzero += p[c] > 0;
    }
    if (total <= 0) fail(op, ": invalid distribution in row ", row, ": the probabilities sum to 0");
    if (!replacement && nonzero < samples)
      fail(op, ": cannot draw ", samples, " samples without replacement from row ", row, ", which has only ", nonzero,
           " categories of nonzero probability");
  }
}

void DataKernels::multinomial(RngState at, const float* w, int64_t rows, int64_t cats, int64_t samples,
                              bool replacement, int32_t* out) const {
  Philox gen;
  gen.set_state(at);
  std::vector<double> key(static_cast<size_t>(cats));
  std::vector<int32_t> order(static_cast<size_t>(cats));
  for (int64_t row = 0; row < rows; ++row) {
    const float* p = w + row * cats;
    int32_t* o = out + row * samples;
    if (replacement) {
      // Inverse CDF: the first category whose cumulative weight exceeds u·Σw. A zero weight
      // never exceeds the previous cumulative value, so it is never drawn.
      std::vector<double>& cdf = key;
      double run = 0;
      for (int64_t c = 0; c < cats; ++c) cdf[c] = run += double(p[c]);
      int64_t last = cats - 1;
      while (last > 0 && p[last] == 0) --last;
      for (int64_t s = 0; s < samples; ++s) {
        const double target = double(gen.next_unit_float()) * run;
        const int64_t c = std::upper_bound(cdf.begin(), cdf.end(), target) - cdf.begin();
        o[s] = int32_t(std::min(c, last));  // u·Σw rounding up to Σw would fall off the end
      }
    } else {
      // The exponential race: E_c = −log u_c ~ Exp(1), and the categories with the largest
      // w_c / E_c form a draw without replacement. u lies strictly inside (0, 1).
      for (int64_t c = 0; c < cats; ++c) {
        const double u = (double(gen.next_u32() >> 8) + 0.5) * 0x1p-24;
        key[c] = double(p[c]) / -std::log(u);
      }
      std::iota(order.begin(), order.end(), 0);
      std::partial_sort(order.begin(), order.begin() + samples, order.end(), [&](int32_t a, int32_t b) {
        return key[a] != key[b] ? key[a] > key[b] : a < b;
      });
      std::copy(order.begin(), order.begin() + samples, o);
    }
  }
}

}  // namespace sg
