// DataKernels' defaults for copies, fills and random fills: plain loops over host memory,
// shared by both CPU backends (kernels/data_kernels.h).
#include <cstring>
#include <type_traits>

#include "core/copy.h"
#include "core/dtype_dispatch.h"
#include "core/rng.h"
#include "kernels/data_kernels.h"

namespace sg {

namespace {

template <class Dst, class Src>
void copy_typed(const StridedCopy& c, const Src* s, Dst* d) {
  for_each_offset2(c.shape, c.dst_strides, c.src_strides, [&](int64_t od, int64_t os) {
    if constexpr (std::is_same_v<Dst, Src>) d[od] = s[os];
    else d[od] = cast_element<Dst>(s[os]);
  });
}

}  // namespace

// Any dtype to any dtype (core/dtype_dispatch.h's casts: PyTorch's).
void DataKernels::copy_strided(const StridedCopy& c, const void* src, void* dst) const {
  visit_dtype(c.dst_dtype, [&](auto dt) {
    using D = typename decltype(dt)::type;
    visit_dtype(c.src_dtype, [&](auto st) {
      using S = typename decltype(st)::type;
      copy_typed(c, static_cast<const S*>(src), static_cast<D*>(dst));
    });
  });
}

void DataKernels::fill(DType dtype, double v, void* dst, int64_t n) const {
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    // float32 and the narrower floats round the double once, through float (as PyTorch's fill_).
    const T value = is_floating(dtype) && dtype != DType::Float64 ? narrow_to<T>(static_cast<float>(v)) : narrow_to<T>(v);
    T* p = static_cast<T*>(dst);
    for (int64_t i = 0; i < n; ++i) p[i] = value;
  });
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
