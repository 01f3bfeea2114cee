// DataKernels' defaults for the float math beyond Backend::unary_f32 (rounding, tan, the inverse
// and hyperbolic functions, atan2): scalar loops evaluated in double and rounded once.
#include <cmath>
#include <limits>

#include "core/strided.h"
#include "kernels/backend.h"

namespace sg {

namespace {

float apply(MathFn fn, float xf) {
  const double x = xf;
  switch (fn) {
    case MathFn::Floor: return std::floor(xf);
    case MathFn::Ceil: return std::ceil(xf);
    case MathFn::Round: return std::nearbyint(xf);  // the default rounding mode: half to even
    case MathFn::Trunc: return std::trunc(xf);
    case MathFn::Tan: return float(std::tan(x));
    case MathFn::Atan: return float(std::atan(x));
    case MathFn::Asin: return float(std::asin(x));
    case MathFn::Acos: return float(std::acos(x));
    case MathFn::Sinh: return float(std::sinh(x));
    case MathFn::Cosh: return float(std::cosh(x));
  }
  return std::numeric_limits<float>::quiet_NaN();
}

}  // namespace

void DataKernels::math_f32(MathFn fn, const float* x, float* y, int64_t n) const {
  for (int64_t i = 0; i < n; ++i) y[i] = apply(fn, x[i]);
}

void DataKernels::atan2_f32(const BroadcastPlan& plan, const float* a, const float* b, float* out) const {
  int64_t i = 0;
  for_each_offsets<2>(plan.shape, {plan.a_strides, plan.b_strides}, [&](const std::array<int64_t, 2>& o) {
    out[i++] = float(std::atan2(double(a[o[0]]), double(b[o[1]])));
  });
}

}  // namespace sg
