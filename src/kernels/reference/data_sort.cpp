// DataKernels' default for sorting along a dim (sort, argsort, topk): a stable ordering of each
// group's positions, of which the first k are written.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "kernels/backend.h"

namespace sg {

namespace {

// a before b in ascending order, NaN above everything (PyTorch's order).
template <class T>
bool ascending(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a < b;
}

template <class T>
void argsort_typed(const T* x, int64_t outer, int64_t r, int64_t inner, bool descending, int64_t k,
                   int32_t* out) {
  std::vector<int32_t> pos(static_cast<size_t>(r));
  std::vector<T> v(static_cast<size_t>(r));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      for (int64_t j = 0; j < r; ++j) v[j] = x[(o * r + j) * inner + i];
      std::iota(pos.begin(), pos.end(), 0);
      // Ties keep their original order (the position breaks them), which makes the partial sort
      // give the first k of the stable full sort.
      auto before = [&](int32_t a, int32_t b) {
        if (descending ? ascending(v[b], v[a]) : ascending(v[a], v[b])) return true;
        if (descending ? ascending(v[a], v[b]) : ascending(v[b], v[a])) return false;
        return a < b;
      };
      std::partial_sort(pos.begin(), pos.begin() + k, pos.end(), before);
      for (int64_t j = 0; j < k; ++j) out[(o * k + j) * inner + i] = pos[j];
    }
}

}  // namespace

void DataKernels::argsort(DType dtype, const void* x, int64_t outer, int64_t r, int64_t inner, bool descending,
                          int64_t k, int32_t* out) const {
  switch (dtype) {
    case DType::Float32: argsort_typed(static_cast<const float*>(x), outer, r, inner, descending, k, out); break;
    case DType::Float64: argsort_typed(static_cast<const double*>(x), outer, r, inner, descending, k, out); break;
    case DType::Int32: argsort_typed(static_cast<const int32_t*>(x), outer, r, inner, descending, k, out); break;
    case DType::Bool: argsort_typed(static_cast<const uint8_t*>(x), outer, r, inner, descending, k, out); break;
  }
}

}  // namespace sg
