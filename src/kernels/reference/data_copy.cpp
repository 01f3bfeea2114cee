// DataKernels' defaults for copies, fills and random fills: plain loops over host memory,
// shared by both CPU backends (kernels/data_kernels.h).
#include <cstring>
#include <type_traits>

#include "core/copy.h"
#include "core/dtype_dispatch.h"
#include "core/half_runs.h"
#include "core/rng.h"
#include "kernels/data_kernels.h"

namespace sg {

namespace {

// A cast run by run where the inner dim is contiguous on both sides (copy_into merges dims
// first, so a contiguous tensor is one run): a loop the compiler can unroll and vectorize, with
// no offset arithmetic per element. Measured (wasm, one thread, 2^20 elements): bfloat16 ->
// float32 2.4 ms and float32 -> bfloat16 4.3 ms through the strided walk, against 0.25 ms for a
// float32 copy; the casts of 16-bit operands at the widening dispatch point are on every op of a
// bfloat16 model.
template <class Dst, class Src>
void cast_run(const Src* __restrict__ s, Dst* __restrict__ d, int64_t n) {
  // The 16-bit float conversions with float32 have run functions of their own (core/half_runs.h: SIMD
  // on wasm, the same bits as the per-element casts); Float16/BFloat16 hold just their bits.
  if constexpr (std::is_same_v<Dst, float> && std::is_same_v<Src, Float16>) {
    f16_to_f32_run(reinterpret_cast<const uint16_t*>(s), d, n);
  } else if constexpr (std::is_same_v<Dst, Float16> && std::is_same_v<Src, float>) {
    f32_to_f16_run(s, reinterpret_cast<uint16_t*>(d), n);
  } else if constexpr (std::is_same_v<Dst, BFloat16> && std::is_same_v<Src, float>) {
    f32_to_bf16_run(s, reinterpret_cast<uint16_t*>(d), n);
  } else {
    for (int64_t j = 0; j < n; ++j) d[j] = cast_element<Dst>(s[j]);
  }
}

template <class Dst, class Src>
void copy_typed(const StridedCopy& c, const Src* s, Dst* d) {
  const size_t nd = c.shape.size();
  if constexpr (!std::is_same_v<Dst, Src>) {
    if (nd > 0 && c.dst_strides[nd - 1] == 1 && c.src_strides[nd - 1] == 1) {
      const int64_t run = c.shape[nd - 1];
      const Shape outer(c.shape.begin(), c.shape.end() - 1);
      if (outer.empty()) return cast_run(s, d, run);
      const Shape dso(c.dst_strides.begin(), c.dst_strides.end() - 1), sso(c.src_strides.begin(), c.src_strides.end() - 1);
      for_each_offset2(outer, dso, sso, [&](int64_t od, int64_t os) { cast_run(s + os, d + od, run); });
      return;
    }
  }
  for_each_offset2(c.shape, c.dst_strides, c.src_strides, [&](int64_t od, int64_t os) {
    if constexpr (std::is_same_v<Dst, Src>) d[od] = s[os];
    else d[od] = cast_element<Dst>(s[os]);
  });
}

}  // namespace

// Any dtype to any dtype (core/dtype_dispatch.h's casts: PyTorch's). Within one dtype, an inner
// dim that is contiguous on both sides (copy_into has merged the dims it could) moves as bytes,
// one memmove a run (views of one buffer may overlap): a contiguous copy is one call, a slice of
// rows one a row, instead of an element at a time through the offset walk (measured: a clone of
// a contiguous 103 MB tensor took 50-190 ms against 13-15 ms for a broadcast multiply writing
// the same bytes).
void DataKernels::copy_strided(const StridedCopy& c, const void* src, void* dst) const {
  const size_t nd = c.shape.size();
  if (c.dst_dtype == c.src_dtype && nd > 0 && c.dst_strides[nd - 1] == 1 && c.src_strides[nd - 1] == 1) {
    const size_t esize = dtype_size(c.dst_dtype);
    const size_t run = static_cast<size_t>(c.shape[nd - 1]) * esize;
    const Shape outer(c.shape.begin(), c.shape.end() - 1);
    const Shape dso(c.dst_strides.begin(), c.dst_strides.end() - 1), sso(c.src_strides.begin(), c.src_strides.end() - 1);
    auto* d = static_cast<char*>(dst);
    const auto* s = static_cast<const char*>(src);
    if (outer.empty()) {
      std::memmove(d, s, run);
      return;
    }
    for_each_offset2(outer, dso, sso, [&](int64_t od, int64_t os) {
      std::memmove(d + static_cast<size_t>(od) * esize, s + static_cast<size_t>(os) * esize, run);
    });
    return;
  }
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
