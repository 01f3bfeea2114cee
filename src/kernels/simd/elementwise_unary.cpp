// SIMD unary kernels: y[i] = op(x[i]). One functor per op over a shared loop; the op switch
// happens once per call, not per element. x and y may be the same buffer.
#include <cmath>
#include <cstring>

#include "kernels/reference/scalar_math.h"
#include "kernels/simd/simd_kernels.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/simd/elementwise_unary.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "kernels/simd/vec_math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace sg {
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// Full vectors four at a time (independent chains for the long transcendental latencies: in
// wasm, 4 per iteration ran GELU, tanh and sigmoid 10–35 % faster than 2, and 8 slower than 4,
// on an AMD EPYC), then one, then the tail through a zero-padded stack vector so no lane reads
// past the buffers.
template <class F>
HWY_INLINE void MapUnary(const float* x, float* y, int64_t n, const F& f) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    const VF v0 = hn::LoadU(d, x + i);
    const VF v1 = hn::LoadU(d, x + i + N);
    const VF v2 = hn::LoadU(d, x + i + 2 * N);
    const VF v3 = hn::LoadU(d, x + i + 3 * N);
    hn::StoreU(f(d, v0), d, y + i);
    hn::StoreU(f(d, v1), d, y + i + N);
    hn::StoreU(f(d, v2), d, y + i + 2 * N);
    hn::StoreU(f(d, v3), d, y + i + 3 * N);
  }
  for (; i + N <= n; i += N) hn::StoreU(f(d, hn::LoadU(d, x + i)), d, y + i);
  if (i < n) {
    HWY_ALIGN float buf[HWY_MAX_BYTES / sizeof(float)] = {};
    const size_t rest = static_cast<size_t>(n - i);
    std::memcpy(buf, x + i, rest * sizeof(float));
    hn::Store(f(d, hn::Load(d, buf)), d, buf);
    std::memcpy(y + i, buf, rest * sizeof(float));
  }
}

// Functors: (d, v) → op(v). `p` is the op's parameter where it has one.
struct NegOp { HWY_INLINE VF operator()(DF, VF v) const { return hn::Neg(v); } };
struct ExpOp { HWY_INLINE VF operator()(DF d, VF v) const { return ExpF(d, v); } };
struct LogOp { HWY_INLINE VF operator()(DF d, VF v) const { return LogF(d, v); } };
struct Log2Op { HWY_INLINE VF operator()(DF d, VF v) const { return Log2F(d, v); } };
struct Log10Op { HWY_INLINE VF operator()(DF d, VF v) const { return Log10F(d, v); } };
struct Log1pOp { HWY_INLINE VF operator()(DF d, VF v) const { return Log1pF(d, v); } };
struct Expm1Op { HWY_INLINE VF operator()(DF d, VF v) const { return Expm1F(d, v); } };
struct SqrtOp { HWY_INLINE VF operator()(DF, VF v) const { return hn::Sqrt(v); } };
struct RsqrtOp {
  // Exact division of an exact sqrt (≤ 1 ULP); ApproximateReciprocalSqrt is only ~12 bits.
  HWY_INLINE VF operator()(DF d, VF v) const { return hn::Div(hn::Set(d, 1.0f), hn::Sqrt(v)); }
};
struct AbsOp { HWY_INLINE VF operator()(DF, VF v) const { return hn::Abs(v); } };
struct SignOp {
  // ±1 for nonzero, the input itself for ±0 and NaN.
  HWY_INLINE VF operator()(DF d, VF v) const {
    const VF r = hn::IfThenElse(hn::Gt(v, hn::Zero(d)), hn::Set(d, 1.0f), v);
    return hn::IfThenElse(hn::Lt(v, hn::Zero(d)), hn::Set(d, -1.0f), r);
  }
};
// Sin/Cos: Highway is valid on |x| ≤ 39000; a vector holding anything larger (or ±inf) is
// redone lane by lane with std:: math, which is rare and keeps exactness.
template <bool kCos>
struct SinCosOp {
  HWY_INLINE VF operator()(DF d, VF v) const {
    const VF lim = hn::Set(d, 39000.0f);
    const VF vc = hn::Min(hn::Max(v, hn::Neg(lim)), lim);
    VF r = kCos ? hn::Cos(d, vc) : hn::Sin(d, vc);
    r = KeepNaN(d, v, r);
    if (HWY_UNLIKELY(!hn::AllFalse(d, hn::Gt(hn::Abs(v), lim)))) {
      HWY_ALIGN float buf[HWY_MAX_BYTES / sizeof(float)];
      HWY_ALIGN float res[HWY_MAX_BYTES / sizeof(float)];
      hn::Store(v, d, buf);
      hn::Store(r, d, res);
      for (size_t j = 0; j < hn::Lanes(d); ++j) {
        if (std::fabs(buf[j]) > 39000.0f)
          res[j] = scalar::unary(kCos ? Unary::Cos : Unary::Sin, 0.0f, buf[j]);
      }
      r = hn::Load(d, res);
    }
    return r;
  }
};
struct ErfOp { HWY_INLINE VF operator()(DF d, VF v) const { return ErfF(d, v); } };
struct SquareOp { HWY_INLINE VF operator()(DF, VF v) const { return hn::Mul(v, v); } };
struct ReciprocalOp {
  HWY_INLINE VF operator()(DF d, VF v) const { return hn::Div(hn::Set(d, 1.0f), v); }
};
struct ReluOp { HWY_INLINE VF operator()(DF d, VF v) const { return ReluF(d, v); } };
struct SigmoidOp { HWY_INLINE VF operator()(DF d, VF v) const { return SigmoidF(d, v); } };
struct TanhOp { HWY_INLINE VF operator()(DF d, VF v) const { return TanhF(d, v); } };
struct SiluOp { HWY_INLINE VF operator()(DF d, VF v) const { return hn::Mul(v, SigmoidF(d, v)); } };
struct GeluErfOp { HWY_INLINE VF operator()(DF d, VF v) const { return GeluErfF(d, v); } };
struct GeluTanhOp { HWY_INLINE VF operator()(DF d, VF v) const { return GeluTanhF(d, v); } };
struct SoftplusOp {
  float beta;
  HWY_INLINE VF operator()(DF d, VF v) const { return SoftplusF(d, v, beta); }
};
// Elu/Selu: x > 0 ? x : alpha·expm1(x), Selu scaled; NaN stays NaN through expm1.
struct EluOp {
  float alpha, scale;
  HWY_INLINE VF operator()(DF d, VF v) const {
    const VF neg = hn::Mul(hn::Set(d, alpha), Expm1F(d, v));
    return hn::Mul(hn::Set(d, scale), hn::IfThenElse(hn::Gt(v, hn::Zero(d)), v, neg));
  }
};
struct LeakyReluOp {
  float slope;
  HWY_INLINE VF operator()(DF d, VF v) const {
    return hn::IfThenElse(hn::Gt(v, hn::Zero(d)), v, hn::Mul(v, hn::Set(d, slope)));
  }
};

void UnaryF32(Unary op, float param, const float* x, float* y, int64_t n) {
  switch (op) {
    case Unary::Neg: return MapUnary(x, y, n, NegOp());
    case Unary::Exp: return MapUnary(x, y, n, ExpOp());
    case Unary::Log: return MapUnary(x, y, n, LogOp());
    case Unary::Log2: return MapUnary(x, y, n, Log2Op());
    case Unary::Log10: return MapUnary(x, y, n, Log10Op());
    case Unary::Log1p: return MapUnary(x, y, n, Log1pOp());
    case Unary::Expm1: return MapUnary(x, y, n, Expm1Op());
    case Unary::Sqrt: return MapUnary(x, y, n, SqrtOp());
    case Unary::Rsqrt: return MapUnary(x, y, n, RsqrtOp());
    case Unary::Abs: return MapUnary(x, y, n, AbsOp());
    case Unary::Sign: return MapUnary(x, y, n, SignOp());
    case Unary::Sin: return MapUnary(x, y, n, SinCosOp<false>());
    case Unary::Cos: return MapUnary(x, y, n, SinCosOp<true>());
    case Unary::Erf: return MapUnary(x, y, n, ErfOp());
    case Unary::Square: return MapUnary(x, y, n, SquareOp());
    case Unary::Reciprocal: return MapUnary(x, y, n, ReciprocalOp());
    case Unary::Relu: return MapUnary(x, y, n, ReluOp());
    case Unary::Sigmoid: return MapUnary(x, y, n, SigmoidOp());
    case Unary::Tanh: return MapUnary(x, y, n, TanhOp());
    case Unary::Silu: return MapUnary(x, y, n, SiluOp());
    case Unary::GeluErf: return MapUnary(x, y, n, GeluErfOp());
    case Unary::GeluTanh: return MapUnary(x, y, n, GeluTanhOp());
    case Unary::Softplus: return MapUnary(x, y, n, SoftplusOp{param});
    case Unary::Elu: return MapUnary(x, y, n, EluOp{param, 1.0f});
    case Unary::Selu:
      return MapUnary(x, y, n, EluOp{float(scalar::kSeluAlpha), float(scalar::kSeluScale)});
    case Unary::LeakyRelu: return MapUnary(x, y, n, LeakyReluOp{param});
  }
  // Unknown enumerator (cannot happen with a valid Unary): stay correct via the scalar path.
  for (int64_t i = 0; i < n; ++i) y[i] = scalar::unary(op, param, x[i]);
}

// Introspection for tests and benchmarks: the dispatched target's float lane count and name.
int64_t LanesF32() { return static_cast<int64_t>(hn::Lanes(DF())); }
const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace sg
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sg {
namespace simd {
HWY_EXPORT(UnaryF32);
HWY_EXPORT(LanesF32);
HWY_EXPORT(TargetName);

int64_t lanes_f32() { return HWY_DYNAMIC_DISPATCH(LanesF32)(); }
const char* target_name() { return HWY_DYNAMIC_DISPATCH(TargetName)(); }

void unary_f32(Unary op, float param, const float* x, float* y, int64_t n) {
  if (n <= 0) return;
  HWY_DYNAMIC_DISPATCH(UnaryF32)(op, param, x, y, n);
}

}  // namespace simd
}  // namespace sg
#endif  // HWY_ONCE
