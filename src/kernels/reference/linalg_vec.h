// The linear algebra kernels' vector helpers (linalg_decomp.cpp, linalg_tridiag_reduce.cpp): dot
// products and updates of columns of S = double (two lanes a SIMD128 register) or float (four
// lanes: a float32 eigh's reduction).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace sg::linalg_vec {

// ---- one SIMD128 register of S (wasm SIMD128, SSE2 natively) ----
// clang and gcc do not vectorize a floating-point sum without -ffast-math (it reorders the
// additions), so the dot products are written with GCC vector types and four accumulators.
typedef double D2 __attribute__((vector_size(16)));
typedef float F4 __attribute__((vector_size(16)));
template <class S>
struct Lanes;
template <>
struct Lanes<double> {
  using V = D2;
  static constexpr int kCount = 2;
};
template <>
struct Lanes<float> {
  using V = F4;
  static constexpr int kCount = 4;
};

template <class S>
inline typename Lanes<S>::V ld(const S* p) {
  typename Lanes<S>::V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class S>
inline void st(S* p, typename Lanes<S>::V v) {
  std::memcpy(p, &v, sizeof v);
}
// a in every lane (a scalar operand is broadcast; a − 0 is a, −0 included). Not a loop over the
// lanes: clang 14 compiles that through memory.
template <class S>
inline typename Lanes<S>::V splat(S a) {
  return a - typename Lanes<S>::V{};
}
template <class S>
inline S lane_sum(typename Lanes<S>::V v) {
  S t = v[0];
  for (int i = 1; i < Lanes<S>::kCount; ++i) t += v[i];
  return t;
}
inline D2 ld2(const double* p) { return ld<double>(p); }
inline void st2(double* p, D2 v) { st<double>(p, v); }

template <class S>
inline S dot(const S* x, const S* y, int64_t n) {
  using V = typename Lanes<S>::V;
  constexpr int L = Lanes<S>::kCount;
  V a0 = V{}, a1 = a0, a2 = a0, a3 = a0;
  int64_t i = 0;
  for (; i + 4 * L <= n; i += 4 * L) {
    a0 += ld(x + i) * ld(y + i);
    a1 += ld(x + i + L) * ld(y + i + L);
    a2 += ld(x + i + 2 * L) * ld(y + i + 2 * L);
    a3 += ld(x + i + 3 * L) * ld(y + i + 3 * L);
  }
  for (; i + L <= n; i += L) a0 += ld(x + i) * ld(y + i);
  S t = lane_sum<S>((a0 + a1) + (a2 + a3));
  for (; i < n; ++i) t += x[i] * y[i];
  return t;
}

// y += a·x.
template <class S>
inline void axpy(S a, const S* x, S* y, int64_t n) {
  constexpr int L = Lanes<S>::kCount;
  const auto av = splat(a);
  int64_t i = 0;
  for (; i + 2 * L <= n; i += 2 * L) {
    st(y + i, ld(y + i) + av * ld(x + i));
    st(y + i + L, ld(y + i + L) + av * ld(x + i + L));
  }
  for (; i < n; ++i) y[i] += a * x[i];
}

// Returns x·y and does z += a·x, in one pass over x.
template <class S>
inline S dot_axpy(const S* x, const S* y, S a, S* z, int64_t n) {
  using V = typename Lanes<S>::V;
  constexpr int L = Lanes<S>::kCount;
  const V av = splat(a);
  V a0 = V{}, a1 = a0;
  int64_t i = 0;
  for (; i + 2 * L <= n; i += 2 * L) {
    const V x0 = ld(x + i), x1 = ld(x + i + L);
    a0 += x0 * ld(y + i);
    a1 += x1 * ld(y + i + L);
    st(z + i, ld(z + i) + av * x0);
    st(z + i + L, ld(z + i + L) + av * x1);
  }
  S t = lane_sum<S>(a0 + a1);
  for (; i < n; ++i) {
    t += x[i] * y[i];
    z[i] += a * x[i];
  }
  return t;
}

// z += a·x + b·y.
template <class S>
inline void axpy2(S a, const S* x, S b, const S* y, S* z, int64_t n) {
  constexpr int L = Lanes<S>::kCount;
  const auto av = splat(a), bv = splat(b);
  int64_t i = 0;
  for (; i + L <= n; i += L) st(z + i, ld(z + i) + (av * ld(x + i) + bv * ld(y + i)));
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

// The same of floats, summed in double (where no float32 square over- or underflows), returned
// in double (the norm of floats may pass float32's range).
inline double norm2(const float* x, int64_t n) {
  double ss = 0;
  for (int64_t i = 0; i < n; ++i) ss += double(x[i]) * double(x[i]);
  return std::sqrt(ss);
}

}  // namespace sg::linalg_vec
