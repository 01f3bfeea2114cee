// PyTorch 1.13's special functions (ops/special.cpp): float32 results (int32/bool inputs are
// promoted to float32, as PyTorch does), values from DataKernels::special_f32 (ATen's CPU
// formulas in double, rounded once), gradients as derivatives.yaml written with ops so that
// second derivatives exist.
#pragma once
#include <cstdint>

#include "core/tensor.h"

namespace sg {

Tensor erfinv(const Tensor& x);   // ±inf at ±1, NaN beyond
Tensor erfc(const Tensor& x);
Tensor lgamma(const Tensor& x);   // log|Γ(x)|: inf at the poles 0, −1, −2, ...
Tensor digamma(const Tensor& x);  // ∓inf at ±0, NaN at the negative integers
// The n-th derivative of digamma; n ≥ 0 (an Error otherwise). polygamma(0, x) = digamma(x).
Tensor polygamma(int64_t n, const Tensor& x);
Tensor i0(const Tensor& x);  // the modified Bessel function of the first kind, order 0

}  // namespace sg
