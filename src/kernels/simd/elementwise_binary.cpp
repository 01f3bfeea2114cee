// SIMD broadcast-binary kernels. The BroadcastPlan is first collapsed (size-1 dims dropped,
// adjacent dims merged when both operands are contiguous across them), then the innermost
// run is done by a vector loop for the stride patterns (1,1), (0,1), (1,0), (0,0) and by the
// scalar definition for any other stride pair; outer dims are walked with an odometer.
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/reference/reference_kernels.h"
#include "kernels/reference/scalar_math.h"
#include "kernels/simd/simd_kernels.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/simd/elementwise_binary.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "kernels/simd/vec_math-inl.h"

#ifndef SG_KERNELS_SIMD_ELEMENTWISE_BINARY_ONCE_
#define SG_KERNELS_SIMD_ELEMENTWISE_BINARY_ONCE_
namespace sg::simd {
namespace {

// A plan reduced to the fewest dims: row-major, innermost last, no size-1 dims.
struct CollapsedPlan {
  std::vector<int64_t> shape, sa, sb;
  int64_t numel = 1;
};

// Into `c` (cleared first; its vectors keep their capacity, so a reused plan allocates nothing:
// a call on a block of a fused kernel, graph/fused_program.cpp, costs little more than its loop).
void collapse(const BroadcastPlan& plan, CollapsedPlan& c) {
  c.shape.clear();
  c.sa.clear();
  c.sb.clear();
  c.numel = 1;
  for (size_t d = 0; d < plan.shape.size(); ++d) {
    const int64_t s = plan.shape[d];
    c.numel *= s;
    if (s == 1) continue;
    // Merging the previous dim into this one needs both operands to step over it exactly as a
    // longer run of this dim would (0 strides merge with 0 strides).
    if (!c.shape.empty() && c.sa.back() == plan.a_strides[d] * s &&
        c.sb.back() == plan.b_strides[d] * s) {
      c.shape.back() *= s;
      c.sa.back() = plan.a_strides[d];
      c.sb.back() = plan.b_strides[d];
    } else {
      c.shape.push_back(s);
      c.sa.push_back(plan.a_strides[d]);
      c.sb.push_back(plan.b_strides[d]);
    }
  }
  if (c.shape.empty()) {  // every dim has size 1: one element
    c.shape.push_back(1);
    c.sa.push_back(0);
    c.sb.push_back(0);
  }
}

}  // namespace
}  // namespace sg::simd
#endif

HWY_BEFORE_NAMESPACE();
namespace sg {
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// Ops whose functor declares kUnrolled get the 4-vector unrolled loop: the memory-bound ones
// (one arithmetic instruction per vector) and the transcendental backward formulas (GELU's,
// SiLU's), whose long dependency chains run faster in wasm with four independent vectors in
// flight (as the unary kernels, measured on an AMD EPYC). The others (sigmoid's and tanh's
// backward: a few multiplies) stay rolled: unrolling them only multiplies the code (and the
// compile time, with every Highway target).
template <class F, class = void>
struct Unrolled : std::false_type {};
template <class F>
struct Unrolled<F, std::void_t<decltype(F::kUnrolled)>> : std::true_type {};

// One run of n outputs; kA/kB: the operand advances by 1 (true) or is one broadcast value.
template <bool kA, bool kB, class F>
HWY_INLINE void Run(const float* a, const float* b, float* out, int64_t n, const F& f) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const VF va0 = hn::Set(d, a[0]);
  const VF vb0 = hn::Set(d, b[0]);
  int64_t i = 0;
  // Four vectors per trip: independent loads and stores keep the memory pipes busy (the
  // same-shape add/mul are bound by memory, not arithmetic).
  if constexpr (Unrolled<F>::value) {
    for (; i + 4 * N <= n; i += 4 * N) {
      const VF a0 = kA ? hn::LoadU(d, a + i) : va0;
      const VF a1 = kA ? hn::LoadU(d, a + i + N) : va0;
      const VF a2 = kA ? hn::LoadU(d, a + i + 2 * N) : va0;
      const VF a3 = kA ? hn::LoadU(d, a + i + 3 * N) : va0;
      const VF b0 = kB ? hn::LoadU(d, b + i) : vb0;
      const VF b1 = kB ? hn::LoadU(d, b + i + N) : vb0;
      const VF b2 = kB ? hn::LoadU(d, b + i + 2 * N) : vb0;
      const VF b3 = kB ? hn::LoadU(d, b + i + 3 * N) : vb0;
      hn::StoreU(f(d, a0, b0), d, out + i);
      hn::StoreU(f(d, a1, b1), d, out + i + N);
      hn::StoreU(f(d, a2, b2), d, out + i + 2 * N);
      hn::StoreU(f(d, a3, b3), d, out + i + 3 * N);
    }
  }
  for (; i + N <= n; i += N) {
    const VF va = kA ? hn::LoadU(d, a + i) : va0;
    const VF vb = kB ? hn::LoadU(d, b + i) : vb0;
    hn::StoreU(f(d, va, vb), d, out + i);
  }
  if (i < n) {
    const size_t rest = static_cast<size_t>(n - i);
    HWY_ALIGN float ba[HWY_MAX_BYTES / sizeof(float)] = {};
    HWY_ALIGN float bb[HWY_MAX_BYTES / sizeof(float)] = {};
    if (kA) std::memcpy(ba, a + i, rest * sizeof(float));
    if (kB) std::memcpy(bb, b + i, rest * sizeof(float));
    const VF va = kA ? hn::Load(d, ba) : va0;
    const VF vb = kB ? hn::Load(d, bb) : vb0;
    hn::Store(f(d, va, vb), d, ba);
    std::memcpy(out + i, ba, rest * sizeof(float));
  }
}

// One run of n outputs whose operands advance by ia and ib: the vector loop for the strides 0 and 1,
// the scalar definition for any other pair.
template <class F>
HWY_INLINE void RunStrided(Binary op, const float* a, int64_t ia, const float* b, int64_t ib, float* out, int64_t n,
                           const F& f) {
  if (ia == 1 && ib == 1) Run<true, true>(a, b, out, n, f);
  else if (ia == 0 && ib == 1) Run<false, true>(a, b, out, n, f);
  else if (ia == 1 && ib == 0) Run<true, false>(a, b, out, n, f);
  else if (ia == 0 && ib == 0) Run<false, false>(a, b, out, n, f);
  else
    for (int64_t i = 0; i < n; ++i) out[i] = scalar::binary(op, a[i * ia], b[i * ib]);
}

template <class F>
HWY_INLINE void Walk(Binary op, const CollapsedPlan& p, const float* a, const float* b, float* out,
                     const F& f) {
  const size_t nd = p.shape.size();
  const int64_t n = p.shape[nd - 1], ia = p.sa[nd - 1], ib = p.sb[nd - 1];
  thread_local std::vector<int64_t> idx;  // reused: no allocation per call
  idx.assign(nd, 0);
  int64_t ao = 0, bo = 0;
  for (int64_t o = 0; o < p.numel; o += n) {
    RunStrided(op, a + ao, ia, b + bo, ib, out + o, n, f);
    // Odometer over the outer dims.
    for (size_t dim = nd - 1; dim-- > 0;) {
      ao += p.sa[dim];
      bo += p.sb[dim];
      if (++idx[dim] < p.shape[dim]) break;
      ao -= p.sa[dim] * p.shape[dim];
      bo -= p.sb[dim] * p.shape[dim];
      idx[dim] = 0;
    }
  }
}

// Functors (d, a, b) → op(a, b).
struct AddOp {
  static constexpr bool kUnrolled = true;
  HWY_INLINE VF operator()(DF, VF a, VF b) const { return hn::Add(a, b); }
};
struct SubOp {
  static constexpr bool kUnrolled = true;
  HWY_INLINE VF operator()(DF, VF a, VF b) const { return hn::Sub(a, b); }
};
struct MulOp {
  static constexpr bool kUnrolled = true;
  HWY_INLINE VF operator()(DF, VF a, VF b) const { return hn::Mul(a, b); }
};
struct DivOp {
  static constexpr bool kUnrolled = true;
  HWY_INLINE VF operator()(DF, VF a, VF b) const { return hn::Div(a, b); }
};
// x86 max/min return the second operand when either is NaN; PyTorch propagates NaN.
struct MaximumOp {
  static constexpr bool kUnrolled = true;  // 25 % faster on 1,000 floats (AMD EPYC, wasm)
  HWY_INLINE VF operator()(DF, VF a, VF b) const {
    const VF r = hn::IfThenElse(hn::IsNaN(a), a, hn::Max(a, b));
    return hn::IfThenElse(hn::IsNaN(b), b, r);
  }
};
struct MinimumOp {
  static constexpr bool kUnrolled = true;  // as MaximumOp
  HWY_INLINE VF operator()(DF, VF a, VF b) const {
    const VF r = hn::IfThenElse(hn::IsNaN(a), a, hn::Min(a, b));
    return hn::IfThenElse(hn::IsNaN(b), b, r);
  }
};
struct ReluBackwardOp {  // x <= 0 ? 0 : g (PyTorch's threshold_backward: a NaN x passes g)
  HWY_INLINE VF operator()(DF d, VF x, VF g) const {
    return hn::IfThenZeroElse(hn::Le(x, hn::Zero(d)), g);
  }
};
struct SigmoidBackwardOp {  // g · y (1 − y)
  HWY_INLINE VF operator()(DF d, VF y, VF g) const {
    return hn::Mul(g, hn::Mul(y, hn::Sub(hn::Set(d, 1.0f), y)));
  }
};
struct TanhBackwardOp {  // g · (1 − y²)
  HWY_INLINE VF operator()(DF d, VF y, VF g) const {
    return hn::Mul(g, hn::NegMulAdd(y, y, hn::Set(d, 1.0f)));
  }
};
struct GeluErfBackwardOp {  // g · (Φ(x) + x φ(x)): one exp and one rational (GeluErfGradF)
  static constexpr bool kUnrolled = true;  // see Unrolled (rolled: 16 % slower, measured)
  HWY_INLINE VF operator()(DF d, VF x, VF g) const { return hn::Mul(g, GeluErfGradF(d, x)); }
};
struct GeluTanhBackwardOp {  // g · (0.5 (1 + t) + 0.5 x (1 − t²) √(2/π)(1 + 3c x²))
  static constexpr bool kUnrolled = true;  // see Unrolled
  HWY_INLINE VF operator()(DF d, VF x, VF g) const {
    const VF half = hn::Set(d, 0.5f);
    const VF one = hn::Set(d, 1.0f);
    const VF t = TanhF(d, GeluTanhArg(d, x));
    const VF du = hn::Mul(hn::Set(d, 0.7978845608028654f),
                          hn::MulAdd(hn::Set(d, 3.0f * 0.044715f), hn::Mul(x, x), one));
    const VF left = hn::Mul(half, hn::Add(one, t));
    const VF right = hn::Mul(hn::Mul(half, x), hn::Mul(hn::NegMulAdd(t, t, one), du));
    return hn::Mul(g, hn::Add(left, right));
  }
};
struct SiluBackwardOp {  // g · s (1 + x (1 − s))
  static constexpr bool kUnrolled = true;  // see Unrolled
  HWY_INLINE VF operator()(DF d, VF x, VF g) const {
    const VF one = hn::Set(d, 1.0f);
    const VF s = SigmoidF(d, x);
    return hn::Mul(g, hn::Mul(s, hn::MulAdd(x, hn::Sub(one, s), one)));
  }
};

// Selection (graph/fused_backward.cpp): masks of 1 or 0, and a value or −0 by a mask.
template <class Cmp>
struct CompareOp {
  HWY_INLINE VF operator()(DF d, VF a, VF b) const { return hn::IfThenElseZero(Cmp()(a, b), hn::Set(d, 1.0f)); }
};
struct CmpGt { HWY_INLINE auto operator()(VF a, VF b) const { return hn::Gt(a, b); } };
struct CmpGe { HWY_INLINE auto operator()(VF a, VF b) const { return hn::Ge(a, b); } };
struct CmpLt { HWY_INLINE auto operator()(VF a, VF b) const { return hn::Lt(a, b); } };
struct CmpLe { HWY_INLINE auto operator()(VF a, VF b) const { return hn::Le(a, b); } };
struct CmpEq { HWY_INLINE auto operator()(VF a, VF b) const { return hn::Eq(a, b); } };
template <bool kKeep>
struct KeepOp {  // kKeep: a ≠ 0 ? b : −0; else a ≠ 0 ? −0 : b
  HWY_INLINE VF operator()(DF d, VF a, VF b) const {
    const VF neg_zero = hn::Set(d, -0.0f);
    const auto nonzero = hn::Ne(a, hn::Zero(d));  // NaN ≠ 0
    return kKeep ? hn::IfThenElse(nonzero, b, neg_zero) : hn::IfThenElse(nonzero, neg_zero, b);
  }
};

// Calls go(functor) with op's functor (not Pow: its callers take the scalar path first).
template <class Go>
HWY_INLINE void WithOp(Binary op, const Go& go) {
  switch (op) {
    case Binary::Add: return go(AddOp());
    case Binary::Sub: return go(SubOp());
    case Binary::Mul: return go(MulOp());
    case Binary::Div: return go(DivOp());
    case Binary::Maximum: return go(MaximumOp());
    case Binary::Minimum: return go(MinimumOp());
    case Binary::ReluBackward: return go(ReluBackwardOp());
    case Binary::SigmoidBackward: return go(SigmoidBackwardOp());
    case Binary::TanhBackward: return go(TanhBackwardOp());
    case Binary::GeluErfBackward: return go(GeluErfBackwardOp());
    case Binary::GeluTanhBackward: return go(GeluTanhBackwardOp());
    case Binary::SiluBackward: return go(SiluBackwardOp());
    case Binary::Greater: return go(CompareOp<CmpGt>());
    case Binary::GreaterEqual: return go(CompareOp<CmpGe>());
    case Binary::Less: return go(CompareOp<CmpLt>());
    case Binary::LessEqual: return go(CompareOp<CmpLe>());
    case Binary::Equal: return go(CompareOp<CmpEq>());
    case Binary::KeepIf: return go(KeepOp<true>());
    case Binary::KeepUnless: return go(KeepOp<false>());
    case Binary::Pow: break;  // handled by the caller (scalar std::pow)
  }
}

void BinaryF32(Binary op, const CollapsedPlan& p, const float* a, const float* b, float* out) {
  WithOp(op, [&](const auto& f) { Walk(op, p, a, b, out, f); });
}

// One contiguous run (Backend::binary_run_f32): Walk's loops for one dimension.
void BinaryRunF32(Binary op, const float* a, bool a_scalar, const float* b, bool b_scalar, float* out, int64_t n) {
  WithOp(op, [&](const auto& f) { RunStrided(op, a, a_scalar ? 0 : 1, b, b_scalar ? 0 : 1, out, n, f); });
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace sg
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sg {
namespace simd {
HWY_EXPORT(BinaryF32);

void binary_f32(Binary op, const BroadcastPlan& plan, const float* a, const float* b, float* out) {
  // Highway has no vector pow; std::pow per element keeps the exact reference semantics.
  if (op == Binary::Pow) return ref::binary_f32(op, plan, a, b, out);
  thread_local CollapsedPlan p;  // reused: no allocation per call
  collapse(plan, p);
  if (p.numel == 0) return;
  HWY_DYNAMIC_DISPATCH(BinaryF32)(op, p, a, b, out);
}

HWY_EXPORT(BinaryRunF32);

void binary_run_f32(Binary op, const float* a, bool a_scalar, const float* b, bool b_scalar, float* out,
                    int64_t n) {
  if (n <= 0) return;
  if (op == Binary::Pow) {
    for (int64_t i = 0; i < n; ++i) out[i] = scalar::binary(op, a[a_scalar ? 0 : i], b[b_scalar ? 0 : i]);
    return;
  }
  HWY_DYNAMIC_DISPATCH(BinaryRunF32)(op, a, a_scalar, b, b_scalar, out, n);
}

}  // namespace simd
}  // namespace sg
#endif  // HWY_ONCE
