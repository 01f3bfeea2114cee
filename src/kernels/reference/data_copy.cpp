// DataKernels' defaults for copies, fills and random fills: plain loops over host memory,
// shared by both CPU backends (kernels/data_kernels.h).
#include <cstring>
#include <type_traits>

#include "core/copy.h"
#include "core/rng.h"
#include "kernels/data_kernels.h"

namespace sg {

namespace {

template <class Dst, class Src>
void copy_typed(const StridedCopy& c, const Src* s, Dst* d) {
  for_each_offset2(c.shape, c.dst_strides, c.src_strides, [&](int64_t od, int64_t os) {
    if constexpr (std::is_same_v<Dst, uint8_t>) d[od] = s[os] != Src(0);
    else d[od] = static_cast<Dst>(s[os]);
  });
}

template <class Dst>
void copy_from(const StridedCopy& c, const void* src, Dst* d) {
  switch (c.src_dtype) {
    case DType::Float32: copy_typed(c, static_cast<const float*>(src), d); break;
    case DType::Int32: copy_typed(c, static_cast<const int32_t*>(src), d); break;
    case DType::Bool: copy_typed(c, static_cast<const uint8_t*>(src), d); break;
  }
}

template <class T>
void fill_typed(T* p, int64_t n, T v) {
  for (int64_t i = 0; i < n; ++i) p[i] = v;
}

}  // namespace

void DataKernels::copy_strided(const StridedCopy& c, const void* src, void* dst) const {
  switch (c.dst_dtype) {
    case DType::Float32: copy_from(c, src, static_cast<float*>(dst)); break;
    case DType::Int32: copy_from(c, src, static_cast<int32_t*>(dst)); break;
    case DType::Bool: copy_from(c, src, static_cast<uint8_t*>(dst)); break;
  }
}

void DataKernels::fill(DType dtype, double v, void* dst, int64_t n) const {
  switch (dtype) {
    case DType::Float32: fill_typed(static_cast<float*>(dst), n, static_cast<float>(v)); break;
    case DType::Int32: fill_typed(static_cast<int32_t*>(dst), n, static_cast<int32_t>(v)); break;
    case DType::Bool: fill_typed(static_cast<uint8_t*>(dst), n, uint8_t(v != 0)); break;
  }
}

void DataKernels::random_uniform_f32(RngState at, float lo, float hi, float* dst, int64_t n) const {
  Philox g;
  g.set_state(at);
  g.fill_uniform(dst, n, lo, hi);
}

void DataKernels::random_normal_f32(RngState at, float mean, float std, float* dst, int64_t n) const {
  Philox g;
  g.set_state(at);
  g.fill_normal(dst, n, mean, std);
}

}  // namespace sg
