// The linear algebra kernels' vector helpers (linalg_decomp.cpp, linalg_tridiag_reduce.cpp): dot
// products and updates of double columns, two doubles a lane pair, and of float columns (a
// float32 eigh's reduction), four floats a lane quad.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace sg::linalg_vec {

// ---- vector helpers: two doubles a lane pair (wasm SIMD128 f64x2, SSE2 natively) ----
// clang and gcc do not vectorize a floating-point sum without -ffast-math (it reorders the
// additions), so the dot products are written with GCC vector types and four accumulators.
typedef double D2 __attribute__((vector_size(16)));
inline D2 ld2(const double* p) {
  D2 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void st2(double* p, D2 v) { std::memcpy(p, &v, sizeof v); }

inline double dot(const double* x, const double* y, int64_t n) {
  D2 a0 = {0, 0}, a1 = a0, a2 = a0, a3 = a0;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    a0 += ld2(x + i) * ld2(y + i);
    a1 += ld2(x + i + 2) * ld2(y + i + 2);
    a2 += ld2(x + i + 4) * ld2(y + i + 4);
    a3 += ld2(x + i + 6) * ld2(y + i + 6);
  }
  for (; i + 2 <= n; i += 2) a0 += ld2(x + i) * ld2(y + i);
  a0 = (a0 + a1) + (a2 + a3);
  double t = a0[0] + a0[1];
  for (; i < n; ++i) t += x[i] * y[i];
  return t;
}

// y += a·x.
inline void axpy(double a, const double* x, double* y, int64_t n) {
  const D2 av = {a, a};
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    st2(y + i, ld2(y + i) + av * ld2(x + i));
    st2(y + i + 2, ld2(y + i + 2) + av * ld2(x + i + 2));
  }
  for (; i < n; ++i) y[i] += a * x[i];
}

// Returns x·y and does z += a·x, in one pass over x.
inline double dot_axpy(const double* x, const double* y, double a, double* z, int64_t n) {
  const D2 av = {a, a};
  D2 a0 = {0, 0}, a1 = a0;
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const D2 x0 = ld2(x + i), x1 = ld2(x + i + 2);
    a0 += x0 * ld2(y + i);
    a1 += x1 * ld2(y + i + 2);
    st2(z + i, ld2(z + i) + av * x0);
    st2(z + i + 2, ld2(z + i + 2) + av * x1);
  }
  a0 += a1;
  double t = a0[0] + a0[1];
  for (; i < n; ++i) {
    t += x[i] * y[i];
    z[i] += a * x[i];
  }
  return t;
}

// z += a·x + b·y.
inline void axpy2(double a, const double* x, double b, const double* y, double* z, int64_t n) {
  const D2 av = {a, a}, bv = {b, b};
  int64_t i = 0;
  for (; i + 2 <= n; i += 2) st2(z + i, ld2(z + i) + (av * ld2(x + i) + bv * ld2(y + i)));
  for (; i < n; ++i) z[i] += a * x[i] + b * y[i];
}

// The Euclidean norm: one sum of squares, and LAPACK dnrm2's scaled accumulation (a hypot per
// entry) only where that sum over- or underflows.
inline double norm2(const double* x, int64_t n) {
  const double ss = dot(x, x, n);
  if (ss > 1e-280 && ss < 1e280) return std::sqrt(ss);
  double nrm = 0;
  for (int64_t i = 0; i < n; ++i) nrm = std::hypot(nrm, x[i]);
  return nrm;
}

// ---- the same in float32, four floats a lane quad (the float32 eigh's reduction, as LAPACK's
// ssytrd computes in float32). Sums accumulate in 16 float lanes.
typedef float F4 __attribute__((vector_size(16)));
inline F4 ld4(const float* p) {
  F4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void st4(float* p, F4 v) { std::memcpy(p, &v, sizeof v); }
// a in every lane (a scalar operand is broadcast; a − 0 is a, −0 included): a loop over the lanes
// would go through memory under clang 14.
inline F4 splat4(float a) { return a - F4{}; }

inline float dot(const float* x, const float* y, int64_t n) {
  F4 a0 = {0, 0, 0, 0}, a1 = a0, a2 = a0, a3 = a0;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    a0 += ld4(x + i) * ld4(y + i);
    a1 += ld4(x + i + 4) * ld4(y + i + 4);
    a2 += ld4(x + i + 8) * ld4(y + i + 8);
    a3 += ld4(x + i + 12) * ld4(y + i + 12);
  }
  for (; i + 4 <= n; i += 4) a0 += ld4(x + i) * ld4(y + i);
  a0 = (a0 + a1) + (a2 + a3);
  float t = (a0[0] + a0[1]) + (a0[2] + a0[3]);
  for (; i < n; ++i) t += x[i] * y[i];
  return t;
}

inline void axpy(float a, const float* x, float* y, int64_t n) {
  const F4 av = splat4(a);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    st4(y + i, ld4(y + i) + av * ld4(x + i));
    st4(y + i + 4, ld4(y + i + 4) + av * ld4(x + i + 4));
  }
  for (; i < n; ++i) y[i] += a * x[i];
}

inline float dot_axpy(const float* x, const float* y, float a, float* z, int64_t n) {
  const F4 av = splat4(a);
  F4 a0 = {0, 0, 0, 0}, a1 = a0;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const F4 x0 = ld4(x + i), x1 = ld4(x + i + 4);
    a0 += x0 * ld4(y + i);
    a1 += x1 * ld4(y + i + 4);
    st4(z + i, ld4(z + i) + av * x0);
    st4(z + i + 4, ld4(z + i + 4) + av * x1);
  }
  a0 += a1;
  float t = (a0[0] + a0[1]) + (a0[2] + a0[3]);
  for (; i < n; ++i) {
    t += x[i] * y[i];
    z[i] += a * x[i];
  }
  return t;
}

inline void axpy2(float a, const float* x, float b, const float* y, float* z, int64_t n) {
  const F4 av = splat4(a), bv = splat4(b);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) st4(z + i, ld4(z + i) + (av * ld4(x + i) + bv * ld4(y + i)));
  for (; i < n; ++i) z[i] += a * x[i] + b * y[i];
}

// The Euclidean norm of floats, summed in double (which no float32 square over- or underflows).
inline float norm2(const float* x, int64_t n) {
  double ss = 0;
  for (int64_t i = 0; i < n; ++i) ss += double(x[i]) * double(x[i]);
  return float(std::sqrt(ss));
}

}  // namespace sg::linalg_vec
