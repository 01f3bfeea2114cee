#include "core/dtype.h"

#include "core/error.h"

namespace sg {

DType dtype_from_name(const std::string& name) {
  for (int i = 0; i < kNumDTypes; ++i) {
    const DType d = static_cast<DType>(i);
    if (name == dtype_name(d)) return d;
  }
  fail("unknown dtype '", name,
       "' (expected float32, float16, bfloat16, float64, int32, int64, int8, uint8 or bool)");
}

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  const bool fa = is_floating(a), fb = is_floating(b);
  if (fa && fb) {
    if (a == DType::Float64 || b == DType::Float64) return DType::Float64;
    return DType::Float32;  // float32 with a 16-bit float, or float16 with bfloat16
  }
  if (fa) return a;
  if (fb) return b;
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  // Two integer types: the wider; int8 with uint8 needs int16, which this library lacks.
  if ((a == DType::Int8 && b == DType::UInt8) || (a == DType::UInt8 && b == DType::Int8)) return DType::Int32;
  return dtype_size(a) >= dtype_size(b) ? a : b;
}

}  // namespace sg
