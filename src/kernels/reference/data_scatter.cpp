// DataKernels' defaults for scatter (assign), int32 scatter-add and scatter_reduce: gather's
// adjoints, written through the same geometry (GatherGeom) as gather and scatter_add_f32.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/copy.h"
#include "kernels/data_kernels.h"

namespace sg {

void DataKernels::scatter(size_t elem_bytes, const GatherGeom& g, const void* src, const int32_t* idx,
                          void* out) const {
  const char* s = static_cast<const char*>(src);
  char* d = static_cast<char*>(out);
  for_each_offset2(g.index_shape, contiguous_strides(g.index_shape), g.walk_strides, [&](int64_t oi, int64_t ox) {
    std::memcpy(d + (ox + int64_t(idx[oi]) * g.dim_stride) * int64_t(elem_bytes), s + oi * int64_t(elem_bytes),
                elem_bytes);
  });
}

void DataKernels::scatter_add_i32(const GatherGeom& g, const int32_t* src, const int32_t* idx, int32_t* out) const {
  for_each_offset2(g.index_shape, contiguous_strides(g.index_shape), g.walk_strides, [&](int64_t oi, int64_t ox) {
    int32_t& d = out[ox + int64_t(idx[oi]) * g.dim_stride];
    d = int32_t(uint32_t(d) + uint32_t(src[oi]));  // wraps as two's complement
  });
}

}  // namespace sg

namespace sg {

namespace {

template <typename T>
T identity_of(ScatterReduce r) {
  using L = std::numeric_limits<T>;
  switch (r) {
    case ScatterReduce::Prod: return T(1);
    case ScatterReduce::Amax: return L::has_infinity ? -L::infinity() : L::lowest();
    case ScatterReduce::Amin: return L::has_infinity ? L::infinity() : L::max();
    default: return T(0);
  }
}

template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
T combine(ScatterReduce r, T a, T b) {
  switch (r) {
    case ScatterReduce::Prod: return a * b;
    case ScatterReduce::Amax: return std::isnan(b) ? b : std::max(a, b);  // a NaN a stays (max(NaN, b) = NaN)
    case ScatterReduce::Amin: return std::isnan(b) ? b : std::min(a, b);
    default: return a + b;
  }
}

int32_t combine(ScatterReduce r, int32_t a, int32_t b) {
  switch (r) {
    case ScatterReduce::Prod: return int32_t(uint32_t(a) * uint32_t(b));  // wraps as two's complement
    case ScatterReduce::Amax: return std::max(a, b);
    case ScatterReduce::Amin: return std::min(a, b);
    default: return int32_t(uint32_t(a) + uint32_t(b));
  }
}

template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
T mean_of(T sum, int64_t n) { return sum / T(n); }
int32_t mean_of(int32_t sum, int64_t n) {  // floor division, as PyTorch's div(..., rounding_mode='floor')
  const int64_t q = int64_t(sum) / n;
  return int32_t(q * n != int64_t(sum) && sum < 0 ? q - 1 : q);
}

template <typename T>
void reduce_into(ScatterReduce r, const GatherGeom& g, const T* src, const int32_t* idx, int64_t n, bool include_self,
                 T* out) {
  const Shape istrides = contiguous_strides(g.index_shape);
  auto each = [&](auto&& fn) {
    for_each_offset2(g.index_shape, istrides, g.walk_strides,
                     [&](int64_t oi, int64_t ox) { fn(oi, ox + int64_t(idx[oi]) * g.dim_stride); });
  };
  if (!include_self) {
    const T start = identity_of<T>(r);
    each([&](int64_t, int64_t at) { out[at] = start; });
  }
  std::vector<int64_t> count;
  if (r == ScatterReduce::Mean) count.assign(size_t(n), include_self ? 1 : 0);
  each([&](int64_t oi, int64_t at) {
    out[at] = combine(r, out[at], src[oi]);
    if (!count.empty()) ++count[size_t(at)];
  });
  for (int64_t i = 0; i < int64_t(count.size()); ++i)
    if (count[size_t(i)] > 1) out[i] = mean_of(out[i], count[size_t(i)]);
}

}  // namespace

void DataKernels::scatter_reduce(DType dtype, ScatterReduce reduce, const GatherGeom& g, const void* src,
                                 const int32_t* idx, int64_t out_numel, bool include_self, void* out) const {
  if (dtype == DType::Float32)
    reduce_into(reduce, g, static_cast<const float*>(src), idx, out_numel, include_self, static_cast<float*>(out));
  else if (dtype == DType::Float64)
    reduce_into(reduce, g, static_cast<const double*>(src), idx, out_numel, include_self, static_cast<double*>(out));
  else
    reduce_into(reduce, g, static_cast<const int32_t*>(src), idx, out_numel, include_self, static_cast<int32_t*>(out));
}

}  // namespace sg
