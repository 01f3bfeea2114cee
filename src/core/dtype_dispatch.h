// From a runtime DType to the C++ element type, and PyTorch's element casts between any two of
// them. visit_dtype(d, f) calls f(TypeTag<T>{}) with T the storage type of d: float, double,
// int32_t, int64_t, int8_t, uint8_t, or one of the three wrappers below (so that bool, float16
// and bfloat16 are not confused with uint8_t / uint16_t).
#pragma once
#include <cstdint>
#include <type_traits>

#include "core/dtype.h"
#include "core/half.h"

namespace sg {

struct BoolByte {  // bool: one byte, 0 or 1
  uint8_t v;
};
struct Float16 {  // IEEE binary16 bits
  uint16_t bits;
};
struct BFloat16 {  // bfloat16 bits (float32's upper half)
  uint16_t bits;
};

template <class T>
struct TypeTag {
  using type = T;
};

template <class F>
decltype(auto) visit_dtype(DType d, F&& f) {
  switch (d) {
    case DType::Float32: return f(TypeTag<float>{});
    case DType::Int32: return f(TypeTag<int32_t>{});
    case DType::Bool: return f(TypeTag<BoolByte>{});
    case DType::Float16: return f(TypeTag<Float16>{});
    case DType::BFloat16: return f(TypeTag<BFloat16>{});
    case DType::Float64: return f(TypeTag<double>{});
    case DType::Int64: return f(TypeTag<int64_t>{});
    case DType::Int8: return f(TypeTag<int8_t>{});
    case DType::UInt8: return f(TypeTag<uint8_t>{});
  }
  return f(TypeTag<float>{});
}

// An element as the type its arithmetic happens in: 16-bit floats widen to float (exactly), bool
// to 0/1, the rest stay as they are.
template <class T>
inline auto widen(T v) {
  if constexpr (std::is_same_v<T, Float16>) return f16_to_f32(v.bits);
  else if constexpr (std::is_same_v<T, BFloat16>) return bf16_to_f32(v.bits);
  else if constexpr (std::is_same_v<T, BoolByte>) return v.v;
  else return v;
}

// A value stored as D, as PyTorch's static_cast-based copies do: to bool, nonzero (NaN too) is
// true; to float16/bfloat16 through float32, rounding to nearest even (so float64 rounds twice,
// as PyTorch's c10::Half(double) does); to an integer, truncation toward zero.
template <class D, class V>
inline D narrow_to(V v) {
  if constexpr (std::is_same_v<D, BoolByte>) return BoolByte{uint8_t(v != V(0))};
  else if constexpr (std::is_same_v<D, Float16>) return Float16{f32_to_f16(static_cast<float>(v))};
  else if constexpr (std::is_same_v<D, BFloat16>) return BFloat16{f32_to_bf16(static_cast<float>(v))};
  else return static_cast<D>(v);
}

template <class D, class S>
inline D cast_element(S s) {
  return narrow_to<D>(widen(s));
}

// An element read as a double (exact for every dtype but int64 beyond ±2^53).
template <class T>
inline double element_as_double(T v) {
  return static_cast<double>(widen(v));
}

}  // namespace sg
