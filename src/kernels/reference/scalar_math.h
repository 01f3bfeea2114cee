// The scalar definition of every Unary and Binary op: the reference backend loops over
// these, and the SIMD backend uses them for the ops (or strides) it does not vectorize.
// Transcendentals are evaluated in double and rounded once, so the reference is as close
// to the correctly rounded float result as std:: math allows.
#pragma once
#include <cmath>
#include <limits>

#include "kernels/backend.h"

namespace sg::scalar {

// Constants of the gradient formulas too: the eager ones (ops/unary.cpp, activation.cpp) and the
// fused ones (graph/fused_backward.cpp) take them from here, so the two agree bit for bit.
inline const double kLn2 = std::log(2.0);
inline const double kLn10 = std::log(10.0);
inline constexpr double kTwoOverSqrtPi = 1.1283791670955126;  // 2/√π (M_PI is not standard C++)
inline constexpr double kSeluAlpha = 1.6732632423543772;
inline constexpr double kSeluScale = 1.0507009873554805;
inline constexpr double kSqrt2OverPi = 0.7978845608028654;    // √(2/π)
inline constexpr double kInvSqrt2 = 0.7071067811865476;       // 1/√2
inline constexpr double kInvSqrt2Pi = 0.3989422804014327;     // 1/√(2π)
inline constexpr double kGeluTanhC = 0.044715;

// Sign-split logistic: never forms exp(+large), so ±1e4 give exactly 1 and 0, never NaN.
inline double sigmoid_d(double x) {
  if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
  const double e = std::exp(x);
  return e / (1.0 + e);
}

inline double gelu_tanh_d(double x) {
  return 0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + kGeluTanhC * x * x * x)));
}

// One definition for both floating element types: T = float rounds the double result once (the
// float32 kernels), T = double is the float64 kernels' (param is T so that LeakyRelu's slope
// multiplies in T, as the float32 path always has).
template <class T>
inline T unary_t(Unary op, T param, T xf) {
  const double x = xf;
  switch (op) {
    case Unary::Neg: return -xf;
    case Unary::Exp: return T(std::exp(x));
    case Unary::Log: return T(std::log(x));
    case Unary::Log2: return T(std::log2(x));
    case Unary::Log10: return T(std::log10(x));
    case Unary::Log1p: return T(std::log1p(x));
    case Unary::Expm1: return T(std::expm1(x));
    case Unary::Sqrt: return std::sqrt(xf);  // IEEE: correctly rounded in float already
    case Unary::Rsqrt: return T(1.0 / std::sqrt(x));
    case Unary::Abs: return std::fabs(xf);
    case Unary::Sign:
      if (std::isnan(xf)) return xf;
      return xf > 0 ? T(1) : (xf < 0 ? T(-1) : T(0));
    case Unary::Sin: return T(std::sin(x));
    case Unary::Cos: return T(std::cos(x));
    case Unary::Erf: return T(std::erf(x));
    case Unary::Square: return xf * xf;
    case Unary::Reciprocal: return T(1) / xf;
    // NaN stays NaN (as PyTorch); + 0 turns −0 into +0 on every target (clang's wasm codegen
    // did so on its own; PyTorch keeps −0).
    case Unary::Relu: return xf < 0 ? T(0) : xf + T(0);
    case Unary::Sigmoid: return T(sigmoid_d(x));
    case Unary::Tanh: return T(std::tanh(x));
    case Unary::Silu: return T(x * sigmoid_d(x));
    case Unary::GeluErf: return T(0.5 * x * (1.0 + std::erf(x * kInvSqrt2)));
    case Unary::GeluTanh: return T(gelu_tanh_d(x));
    case Unary::Softplus: {
      const double beta = param;
      // PyTorch's threshold: above it softplus(x) == x to float precision.
      if (x * beta > 20.0) return xf;
      return T(std::log1p(std::exp(beta * x)) / beta);
    }
    case Unary::Elu: return xf > 0 ? xf : T(double(param) * std::expm1(x));
    case Unary::Selu:
      return T(kSeluScale * (x > 0 ? x : kSeluAlpha * std::expm1(x)));
    case Unary::LeakyRelu: return xf > 0 ? xf : param * xf;
  }
  return std::numeric_limits<T>::quiet_NaN();
}

inline float unary(Unary op, float param, float xf) { return unary_t<float>(op, param, xf); }

// Maximum/minimum propagate NaN from either side, like torch.maximum/minimum.
template <class T>
inline T maximum(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  return a > b ? a : b;
}
template <class T>
inline T minimum(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  return a < b ? a : b;
}

// d/dx of 0.5 x (1 + tanh(u)), u = √(2/π)(x + c x³).
inline double gelu_tanh_grad_d(double x) {
  const double t = std::tanh(kSqrt2OverPi * (x + kGeluTanhC * x * x * x));
  const double du = kSqrt2OverPi * (1.0 + 3.0 * kGeluTanhC * x * x);
  return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * du;
}

inline double gelu_erf_grad_d(double x) {
  const double cdf = 0.5 * (1.0 + std::erf(x * kInvSqrt2));
  const double pdf = kInvSqrt2Pi * std::exp(-0.5 * x * x);
  return cdf + x * pdf;
}

// As unary_t: T = float (computing in double where the formula is not exact) or double.
template <class T>
inline T binary_t(Binary op, T a, T b) {
  switch (op) {
    case Binary::Add: return a + b;
    case Binary::Sub: return a - b;
    case Binary::Mul: return a * b;
    case Binary::Div: return a / b;
    case Binary::Pow: return T(std::pow(double(a), double(b)));
    case Binary::Maximum: return maximum(a, b);
    case Binary::Minimum: return minimum(a, b);
    case Binary::ReluBackward: return a <= 0 ? T(0) : b;  // PyTorch's threshold_backward: NaN passes g
    case Binary::SigmoidBackward: return T(double(b) * a * (1.0 - a));
    case Binary::TanhBackward: return T(double(b) * (1.0 - double(a) * a));
    case Binary::GeluErfBackward: return T(double(b) * gelu_erf_grad_d(a));
    case Binary::GeluTanhBackward: return T(double(b) * gelu_tanh_grad_d(a));
    case Binary::SiluBackward: {
      const double s = sigmoid_d(a);
      return T(double(b) * s * (1.0 + double(a) * (1.0 - s)));
    }
    case Binary::Greater: return a > b ? T(1) : T(0);
    case Binary::GreaterEqual: return a >= b ? T(1) : T(0);
    case Binary::Less: return a < b ? T(1) : T(0);
    case Binary::LessEqual: return a <= b ? T(1) : T(0);
    case Binary::Equal: return a == b ? T(1) : T(0);
    case Binary::KeepIf: return a != 0 ? b : T(-0.0);
    case Binary::KeepUnless: return a != 0 ? T(-0.0) : b;
  }
  return std::numeric_limits<T>::quiet_NaN();
}

inline float binary(Binary op, float a, float b) { return binary_t<float>(op, a, b); }

}  // namespace sg::scalar
