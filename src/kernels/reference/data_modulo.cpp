// DataKernels' default modulo (data_kernels.h): PyTorch 1.13's CPU formulas, element by element.
// The float ones are exact where PyTorch's are (fmod is exact; remainder adds b to it at most once),
// and round as PyTorch's do elsewhere (div_floor's (a − fmod(a, b)) / b), so results match bit for bit.
#include <cmath>
#include <cstdint>

#include "core/error.h"
#include "core/strided.h"
#include "kernels/backend.h"

namespace sg {

namespace {

float modulo_f32(Modulo op, float a, float b) {
  const float mod = std::fmod(a, b);
  const bool adjust = mod != 0 && ((b < 0) != (mod < 0));  // the signs of b and fmod differ
  switch (op) {
    case Modulo::Fmod: return mod;
    case Modulo::Remainder: return adjust ? mod + b : mod;
    case Modulo::TruncDivide: return std::trunc(a / b);
    case Modulo::FloorDivide: {
      if (b == 0) return a / b;  // IEEE: ±inf or NaN
      float div = (a - mod) / b;
      if (adjust) div -= 1.0f;
      if (div == 0) return std::copysign(0.0f, a / b);
      float floordiv = std::floor(div);
      if (div - floordiv > 0.5f) floordiv += 1.0f;
      return floordiv;
    }
  }
  return std::nanf("");
}

// In int64: INT32_MIN / −1 and its remainder wrap to int32 as C++ arithmetic would, without UB.
int32_t modulo_i32(Modulo op, int64_t a, int64_t b) {
  if (b == 0) return 0;  // never reached (the op refuses a zero divisor first); no trap either way
  const int64_t q = a / b, r = a % b;
  const bool adjust = r != 0 && ((r < 0) != (b < 0));
  int64_t out = 0;
  switch (op) {
    case Modulo::Fmod: out = r; break;
    case Modulo::Remainder: out = adjust ? r + b : r; break;
    case Modulo::TruncDivide: out = q; break;
    case Modulo::FloorDivide: out = adjust ? q - 1 : q; break;
  }
  return static_cast<int32_t>(static_cast<uint32_t>(out));
}

}  // namespace

void DataKernels::modulo(Modulo op, DType dtype, const BroadcastPlan& plan, const void* a, const void* b,
                         void* out) const {
  int64_t i = 0;
  if (dtype == DType::Float32) {
    const float *x = static_cast<const float*>(a), *y = static_cast<const float*>(b);
    float* o = static_cast<float*>(out);
    for_each_offsets<2>(plan.shape, {plan.a_strides, plan.b_strides},
                        [&](const std::array<int64_t, 2>& at) { o[i++] = modulo_f32(op, x[at[0]], y[at[1]]); });
    return;
  }
  const int32_t *x = static_cast<const int32_t*>(a), *y = static_cast<const int32_t*>(b);
  int32_t* o = static_cast<int32_t*>(out);
  for_each_offsets<2>(plan.shape, {plan.a_strides, plan.b_strides},
                      [&](const std::array<int64_t, 2>& at) { o[i++] = modulo_i32(op, x[at[0]], y[at[1]]); });
}

void DataKernels::check_nonzero_i32(const int32_t* x, int64_t n, const std::string& before,
                                    const std::string& after) const {
  for (int64_t i = 0; i < n; ++i)
    if (x[i] == 0) fail(before, x[i], after);
}

}  // namespace sg
