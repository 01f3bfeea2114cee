// DataKernels' defaults for int32/bool math, comparisons, selection and the int reductions:
// plain loops over host memory, shared by both CPU backends (kernels/data_kernels.h).
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "core/error.h"
#include "core/strided.h"
#include "kernels/backend.h"

namespace sg {

namespace {

// Two's-complement wrapping product (signed int64 overflow would be UB).
int64_t wrap_mul(int64_t x, int64_t y) {
  return static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
}

int64_t int_pow(int64_t base, int64_t e) {
  if (e < 0) fail("pow: integers to negative integer powers are not allowed");
  int64_t r = 1;
  while (e > 0) {  // square-and-multiply; only the low 32 bits survive, so wrapping is fine
    if (e & 1) r = wrap_mul(r, base);
    base = wrap_mul(base, base);
    e >>= 1;
  }
  return r;
}

// c10's calc_gcd in int32 arithmetic, overflow and all: |INT32_MIN| stays INT32_MIN, so
// gcd(INT32_MIN, 6) is −2 there and here. (b % a never sees a = −1: a ≥ 0 or INT32_MIN.)
int32_t gcd_i32(int32_t a, int32_t b) {
  const auto wrap_abs = [](int32_t v) { return v < 0 ? static_cast<int32_t>(0u - static_cast<uint32_t>(v)) : v; };
  a = wrap_abs(a);
  b = wrap_abs(b);
  while (a != 0) {
    const int32_t c = a;
    a = static_cast<int32_t>(int64_t(b) % int64_t(a));
    b = c;
  }
  return b;
}

// c10's lcm: |a / g · b| in int32 (wrapping), 0 when g is 0.
int32_t lcm_i32(int32_t a, int32_t b) {
  const int32_t g = gcd_i32(a, b);
  if (g == 0) return 0;
  const int32_t q = static_cast<int32_t>(int64_t(a) / int64_t(g));
  const int32_t m = static_cast<int32_t>(static_cast<uint32_t>(q) * static_cast<uint32_t>(b));
  return m < 0 ? static_cast<int32_t>(0u - static_cast<uint32_t>(m)) : m;
}

int64_t shift_left(int64_t x, int64_t s) {
  if (s < 0 || s >= 32) return 0;
  return static_cast<int32_t>(static_cast<uint32_t>(x) << s);
}
int64_t shift_right(int64_t x, int64_t s) {
  const int32_t v = static_cast<int32_t>(x);
  return (s < 0 || s >= 32) ? (v < 0 ? -1 : 0) : (v >> s);  // arithmetic (C++20)
}

int64_t apply(IntBinary op, int64_t x, int64_t y) {
  switch (op) {
    case IntBinary::Add: return x + y;
    case IntBinary::Sub: return x - y;
    case IntBinary::Mul: return wrap_mul(x, y);
    case IntBinary::Pow: return int_pow(x, y);
    case IntBinary::Maximum: return x > y ? x : y;
    case IntBinary::Minimum: return x < y ? x : y;
    case IntBinary::BitAnd: return x & y;
    case IntBinary::BitOr: return x | y;
    case IntBinary::BitXor: return x ^ y;
    case IntBinary::ShiftLeft: return shift_left(x, y);
    case IntBinary::ShiftRight: return shift_right(x, y);
    case IntBinary::Gcd: return gcd_i32(static_cast<int32_t>(x), static_cast<int32_t>(y));
    case IntBinary::Lcm: return lcm_i32(static_cast<int32_t>(x), static_cast<int32_t>(y));
  }
  return 0;
}

int64_t apply(IntUnary op, int64_t v) {
  switch (op) {
    case IntUnary::Neg: return -v;
    case IntUnary::Abs: return v < 0 ? -v : v;
    case IntUnary::Sign: return (v > 0) - (v < 0);
    case IntUnary::Square: return v * v;
    case IntUnary::Relu: return v > 0 ? v : 0;
    case IntUnary::BitNot: return ~v;
  }
  return 0;
}

template <class T>
bool compare_values(Compare op, T x, T y) {
  switch (op) {
    case Compare::Eq: return x == y;
    case Compare::Ne: return x != y;
    case Compare::Lt: return x < y;
    case Compare::Le: return x <= y;
    case Compare::Gt: return x > y;
    case Compare::Ge: return x >= y;
  }
  return false;
}

template <class T>
void compare_typed(Compare op, const BroadcastPlan& p, const T* a, const T* b, uint8_t* out) {
  int64_t i = 0;
  for_each_offsets<2>(p.shape, {p.a_strides, p.b_strides}, [&](const std::array<int64_t, 2>& o) {
    out[i++] = compare_values(op, a[o[0]], b[o[1]]);
  });
}

template <class T>
void select_typed(const SelectPlan& p, const uint8_t* c, const T* a, const T* b, T* out) {
  int64_t i = 0;
  for_each_offsets<3>(p.shape, {p.cond_strides, p.a_strides, p.b_strides},
                      [&](const std::array<int64_t, 3>& o) { out[i++] = c[o[0]] ? a[o[1]] : b[o[2]]; });
}

// out[o, i] = fold of x[o, :, i] starting from init, as int64 then stored as Out.
template <class T, class Out, class F>
void fold(const T* x, int64_t outer, int64_t r, int64_t inner, Out* out, int64_t init, F f) {
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t i = 0; i < inner; ++i) {
      int64_t acc = init;
      const T* g = x + a * r * inner + i;
      for (int64_t j = 0; j < r; ++j) acc = f(acc, static_cast<int64_t>(g[j * inner]));
      out[a * inner + i] = static_cast<Out>(acc);
    }
}

template <class T>
void arg_loop(const T* x, int64_t outer, int64_t r, int64_t inner, bool is_max, int32_t* out) {
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t i = 0; i < inner; ++i) {
      const T* g = x + a * r * inner + i;
      int64_t best = 0;
      for (int64_t j = 1; j < r; ++j) {
        const T v = g[j * inner], b = g[best * inner];
        if constexpr (std::is_floating_point_v<T>) {
          if (std::isnan(b)) break;
          if (std::isnan(v)) {
            best = j;
            break;
          }
        }
        if (is_max ? v > b : v < b) best = j;
      }
      out[a * inner + i] = static_cast<int32_t>(best);
    }
}

}  // namespace

void DataKernels::binary_i32(IntBinary op, const BroadcastPlan& plan, const int32_t* a,
                             const int32_t* b, DType out_dtype, void* out) const {
  int64_t i = 0;
  if (out_dtype == DType::Bool) {
    uint8_t* po = static_cast<uint8_t*>(out);
    for_each_offsets<2>(plan.shape, {plan.a_strides, plan.b_strides}, [&](const std::array<int64_t, 2>& o) {
      po[i++] = apply(op, int64_t(a[o[0]]), int64_t(b[o[1]])) != 0;
    });
  } else {
    int32_t* po = static_cast<int32_t*>(out);
    for_each_offsets<2>(plan.shape, {plan.a_strides, plan.b_strides}, [&](const std::array<int64_t, 2>& o) {
      po[i++] = static_cast<int32_t>(apply(op, int64_t(a[o[0]]), int64_t(b[o[1]])));
    });
  }
}

void DataKernels::unary_i32(IntUnary op, const int32_t* x, int32_t* y, int64_t n) const {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<int32_t>(apply(op, int64_t(x[i])));
}

void DataKernels::compare(Compare op, DType dtype, const BroadcastPlan& plan, const void* a,
                          const void* b, uint8_t* out) const {
  switch (dtype) {
    case DType::Float32:
      compare_typed(op, plan, static_cast<const float*>(a), static_cast<const float*>(b), out);
      break;
    case DType::Float64:
      compare_typed(op, plan, static_cast<const double*>(a), static_cast<const double*>(b), out);
      break;
    case DType::Int32:
      compare_typed(op, plan, static_cast<const int32_t*>(a), static_cast<const int32_t*>(b), out);
      break;
    case DType::Bool:
      compare_typed(op, plan, static_cast<const uint8_t*>(a), static_cast<const uint8_t*>(b), out);
      break;
  }
}

void DataKernels::select(DType dtype, const SelectPlan& plan, const uint8_t* cond, const void* a,
                         const void* b, void* out) const {
  switch (dtype) {
    case DType::Float32:
      select_typed(plan, cond, static_cast<const float*>(a), static_cast<const float*>(b), static_cast<float*>(out));
      break;
    case DType::Float64:
      select_typed(plan, cond, static_cast<const double*>(a), static_cast<const double*>(b),
                   static_cast<double*>(out));
      break;
    case DType::Int32:
      select_typed(plan, cond, static_cast<const int32_t*>(a), static_cast<const int32_t*>(b),
                   static_cast<int32_t*>(out));
      break;
    case DType::Bool:
      select_typed(plan, cond, static_cast<const uint8_t*>(a), static_cast<const uint8_t*>(b),
                   static_cast<uint8_t*>(out));
      break;
  }
}

void DataKernels::reduce_int(Reduce op, DType dtype, const void* x, int64_t outer, int64_t r,
                             int64_t inner, void* out) const {
  if (op == Reduce::Sum || op == Reduce::Prod) {
    const auto* px = static_cast<const int32_t*>(x);
    auto* po = static_cast<int32_t*>(out);
    if (op == Reduce::Prod)
      fold(px, outer, r, inner, po, 1, [](int64_t a, int64_t v) {
        return static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(v)));
      });
    else
      fold(px, outer, r, inner, po, 0, [](int64_t a, int64_t v) { return a + v; });
    return;
  }
  const bool is_max = op == Reduce::Max;
  auto pick = [is_max](int64_t a, int64_t v) { return is_max ? std::max(a, v) : std::min(a, v); };
  const int64_t init = is_max ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
  if (dtype == DType::Bool)
    fold(static_cast<const uint8_t*>(x), outer, r, inner, static_cast<uint8_t*>(out), init, pick);
  else
    fold(static_cast<const int32_t*>(x), outer, r, inner, static_cast<int32_t*>(out), init, pick);
}

void DataKernels::arg_reduce(bool is_max, DType dtype, const void* x, int64_t outer, int64_t r,
                             int64_t inner, int32_t* out) const {
  switch (dtype) {
    case DType::Float32: arg_loop(static_cast<const float*>(x), outer, r, inner, is_max, out); break;
    case DType::Float64: arg_loop(static_cast<const double*>(x), outer, r, inner, is_max, out); break;
    case DType::Int32: arg_loop(static_cast<const int32_t*>(x), outer, r, inner, is_max, out); break;
    case DType::Bool: arg_loop(static_cast<const uint8_t*>(x), outer, r, inner, is_max, out); break;
  }
}

}  // namespace sg
