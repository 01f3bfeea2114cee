// DataKernels' defaults for indexing (index_select, gather and their scatter-add adjoints) and
// reflect/replicate padding: plain loops over host memory, shared by both CPU backends.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "core/copy.h"
#include "core/dtype_dispatch.h"
#include "core/error.h"
#include "kernels/data_kernels.h"

namespace sg {

namespace {

// Calls body(std::integral_constant<size_t, es>) with es = elem_bytes (1, 2, 4 or 8): elements move as
// memcpys of a constant size (plain loads/stores, no dtype switch in the loop).
template <class Body>
void by_elem_size(size_t elem_bytes, Body body) {
  // Every dtype's size: bool/int8/uint8, float16/bfloat16, float32/int32, float64/int64.
  if (elem_bytes == 1) body(std::integral_constant<size_t, 1>());
  else if (elem_bytes == 2) body(std::integral_constant<size_t, 2>());
  else if (elem_bytes == 8) body(std::integral_constant<size_t, 8>());
  else body(std::integral_constant<size_t, 4>());
}

using Maps = std::vector<std::vector<int64_t>>;  // per dim: output index → source index

Maps pad_maps(const PadGeom& g) {
  const size_t nd = g.out_shape.size();
  Maps maps(nd);
  for (size_t d = 0; d < nd; ++d) {
    const int64_t l = g.left[d], size = g.in_shape[d];
    maps[d].resize(static_cast<size_t>(g.out_shape[d]));
    for (int64_t o = 0; o < g.out_shape[d]; ++o) {
      int64_t i = o - l;  // position in the input, before folding back
      if (g.reflect) i = i < 0 ? -i : (i >= size ? 2 * (size - 1) - i : i);
      else i = std::clamp<int64_t>(i, 0, size - 1);
      maps[d][o] = i;
    }
  }
  return maps;
}

// fn(flat output index, source offset) for every output element, row-major.
template <class Fn>
void walk(const Shape& out_shape, const Maps& maps, const Shape& strides, Fn&& fn) {
  int64_t nd = int64_t(out_shape.size());
  int64_t n = numel_of(out_shape);
  if (n == 0) return;
  if (nd == 0) {
    fn(0, 0);
    return;
  }
  int64_t inner = out_shape[nd - 1];
  const std::vector<int64_t>& last = maps[nd - 1];
  std::vector<int64_t> idx(nd, 0);
  for (int64_t flat = 0; flat < n; flat += inner) {
    int64_t base = 0;
    for (int64_t d = 0; d < nd - 1; ++d) base += maps[d][idx[d]] * strides[d];
    for (int64_t j = 0; j < inner; ++j) fn(flat + j, base + last[j] * strides[nd - 1]);
    for (int64_t d = nd - 2; d >= 0; --d) {  // odometer over the outer dims
      if (++idx[d] < out_shape[d]) break;
      idx[d] = 0;
    }
  }
}

}  // namespace

void DataKernels::check_indices(const int32_t* idx, int64_t n, int64_t lo, int64_t hi, int64_t allowed,
                                const std::string& before, const std::string& after) const {
  for (int64_t i = 0; i < n; ++i)
    if ((idx[i] < lo || idx[i] >= hi) && idx[i] != allowed) fail(before, idx[i], after);
}

void DataKernels::check_abs_bound(DType dtype, const void* x, int64_t n, int64_t bound, bool total,
                                  const std::string& before, const std::string& after) const {
  int64_t m = 0;
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      const T* p = static_cast<const T*>(x);
      for (int64_t i = 0; i < n; ++i) {
        const int64_t v = static_cast<int64_t>(p[i]);
        const int64_t a = v < 0 ? (v == INT64_MIN ? INT64_MAX : -v) : v;
        m = total ? (a > INT64_MAX - m ? INT64_MAX : m + a) : std::max(m, a);
      }
    }
  });
  if (m > bound) fail(before, m, after);
}

void DataKernels::index_select(size_t elem_bytes, const void* x, int64_t outer, int64_t size,
                               int64_t inner, const int32_t* idx, int64_t n, void* out) const {
  const size_t row = size_t(inner) * elem_bytes;  // one [inner] run, in bytes
  if (row == 0) return;
  const char* src = static_cast<const char*>(x);
  char* dst = static_cast<char*>(out);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < n; ++j) std::memcpy(dst + (o * n + j) * row, src + (o * size + idx[j]) * row, row);
}

void DataKernels::index_add_f32(const float* g, int64_t outer, int64_t n, int64_t inner,
                                const int32_t* idx, int64_t size, float* out) const {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < n; ++j) {
      const float* s = g + (o * n + j) * inner;
      float* d = out + (o * size + idx[j]) * inner;
      for (int64_t k = 0; k < inner; ++k) d[k] += s[k];
    }
}

void DataKernels::index_add_f64(const double* g, int64_t outer, int64_t n, int64_t inner,
                                const int32_t* idx, int64_t size, double* out) const {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < n; ++j) {
      const double* s = g + (o * n + j) * inner;
      double* d = out + (o * size + idx[j]) * inner;
      for (int64_t k = 0; k < inner; ++k) d[k] += s[k];
    }
}

void DataKernels::gather(size_t elem_bytes, const GatherGeom& g, const void* x, const int32_t* idx,
                         void* out) const {
  const Shape ones_strides = contiguous_strides(g.index_shape);
  by_elem_size(elem_bytes, [&](auto size) {
    constexpr size_t es = decltype(size)::value;
    const char* src = static_cast<const char*>(x);
    char* dst = static_cast<char*>(out);
    for_each_offset2(g.index_shape, ones_strides, g.walk_strides, [&](int64_t oi, int64_t ox) {
      std::memcpy(dst + oi * es, src + (ox + int64_t(idx[oi]) * g.dim_stride) * es, es);
    });
  });
}

void DataKernels::scatter_add_f32(const GatherGeom& g, const float* src, const int32_t* idx,
                                  float* out) const {
  for_each_offset2(g.index_shape, contiguous_strides(g.index_shape), g.walk_strides,
                   [&](int64_t oi, int64_t ox) { out[ox + int64_t(idx[oi]) * g.dim_stride] += src[oi]; });
}

void DataKernels::scatter_add_f64(const GatherGeom& g, const double* src, const int32_t* idx,
                                  double* out) const {
  for_each_offset2(g.index_shape, contiguous_strides(g.index_shape), g.walk_strides,
                   [&](int64_t oi, int64_t ox) { out[ox + int64_t(idx[oi]) * g.dim_stride] += src[oi]; });
}

void DataKernels::pad_mapped(size_t elem_bytes, const PadGeom& g, const void* x, void* out) const {
  const Maps maps = pad_maps(g);
  by_elem_size(elem_bytes, [&](auto size) {
    constexpr size_t es = decltype(size)::value;
    const char* src = static_cast<const char*>(x);
    char* dst = static_cast<char*>(out);
    walk(g.out_shape, maps, g.in_strides, [&](int64_t o, int64_t s) { std::memcpy(dst + o * es, src + s * es, es); });
  });
}

void DataKernels::pad_mapped_backward_f32(const PadGeom& g, const float* grad, float* dx) const {
  const Maps maps = pad_maps(g);
  walk(g.out_shape, maps, contiguous_strides(g.in_shape), [&](int64_t o, int64_t s) { dx[s] += grad[o]; });
}

}  // namespace sg
