// Vector float32 math shared by the SIMD kernels (unary, binary backward, softmax).
// Per-target header: included once per Highway target by foreach_target.h, hence the toggle
// guard instead of #pragma once.
//
// Highway's contrib math (Exp 1 ULP, Expm1 4, Log 4, Log2/Log10 2, Log1p 2, Sin/Cos 3,
// Tanh 4) is only specified inside a valid range and leaves NaN/±inf/out-of-range inputs
// target-dependent (float→int conversions differ between x86 and wasm). Every wrapper here
// therefore clamps its input into the valid range and patches the special cases with masks,
// so the result is the same on every target and matches std:: math.
#if defined(SG_KERNELS_SIMD_VEC_MATH_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SG_KERNELS_SIMD_VEC_MATH_INL_H_
#undef SG_KERNELS_SIMD_VEC_MATH_INL_H_
#else
#define SG_KERNELS_SIMD_VEC_MATH_INL_H_
#endif

#include <limits>

#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace sg {
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Largest float whose exp is finite (exp(88.7228317) ≈ 3.40279e38 < FLT_MAX).
inline constexpr float kExpOverflow = 88.72283172607421875f;
// Below this exp underflows to 0 in float (even as a subnormal).
inline constexpr float kExpUnderflow = -104.0f;

// NaN inputs give NaN outputs (the wrappers below compute on clamped values, which would
// otherwise turn NaN into a number).
template <class D, class V>
HWY_INLINE V KeepNaN(D /*d*/, V x, V r) {
  return hn::IfThenElse(hn::IsNaN(x), x, r);
}

// min(hi, x) and clamp(x, lo, hi) keeping NaN (which the arithmetic after them then carries to
// the result). On the SIMD targets Highway's Min/Max return their second argument when either
// is NaN (wasm f32x4.pmin/pmax, x86 minps/maxps), so with the constant first a NaN x passes
// through with no select; the emulated targets return the other argument, and patch.
template <class D, class V>
HWY_INLINE V PatchNaN(D d, V x, V c) {
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
  return KeepNaN(d, x, c);
#else
  (void)d;
  (void)x;
  return c;
#endif
}
template <class D, class V>
HWY_INLINE V MinKeepNaN(D d, float hi, V x) {
  return PatchNaN(d, x, hn::Min(hn::Set(d, hi), x));
}
template <class D, class V>
HWY_INLINE V ClampKeepNaN(D d, V x, float lo, float hi) {
  return PatchNaN(d, x, hn::Min(hn::Set(d, hi), hn::Max(hn::Set(d, lo), x)));
}

// The shifter of ExpF and ExpNegF: adding 1.5·2^23 to a float of magnitude < 2^22 rounds it to
// an integer n (ties to even) and leaves n in the low mantissa bits; the extra 254 (even, so
// the same n) is twice the exponent bias, which Pow2Split uses.
inline constexpr float kExpShifter = 12582912.0f + 254.0f;

// 2^n as two factors s1 = 2^⌊n/2⌋ and s2 = 2^(n − ⌊n/2⌋), from t = n + kExpShifter, in four
// integer operations: t's bits shifted left 23 are F = (n + 254)·2^23 (the shifter's own bits
// shift out; as unsigned, n + 254 < 512 fits), F/2 with the low 23 bits cleared is
// (⌊n/2⌋ + 127)·2^23, the bits of s1, and F minus those is (n − ⌊n/2⌋ + 127)·2^23, the bits of
// s2. For −150 ≤ n ≤ 128 (the exps below) both are normal, 2^−75 … 2^64, so p·s1 is exact for
// p ∈ [½, 2) and (p·s1)·s2 rounds once, also where p·2^n is subnormal or overflows to inf: the
// full range of exp without a branch. Where 2^n itself is normal the result has the same bits
// as p·2^n in one multiplication.
template <class D, class V>
HWY_INLINE void Pow2Split(D d, V t, V& s1, V& s2) {
  const hn::RebindToUnsigned<D> du;
  const auto f = hn::ShiftLeft<23>(hn::BitCast(du, t));
  const auto e1 = hn::And(hn::ShiftRight<1>(f), hn::Set(du, 0xFF800000u));
  s1 = hn::BitCast(d, e1);
  s2 = hn::BitCast(d, hn::Sub(f, e1));
}

// exp on any input, with no branch: Highway's reduction and degree-7 polynomial (so its 1 ULP),
// n from the shifter, 2^n applied as two factors (Pow2Split). x is clamped to [−104, 89] first
// (NaN kept): below −104 the result rounds to 0 (−inf included), and from the first float
// above kExpOverflow up (n = 128, 2^64·2^64) the product overflows to +inf. Measured (wasm,
// AVX2 with FMA, scalar): the same bits as the former version (a fast path for vectors inside
// [−87, 88], Highway's Exp for the others) on every float in [−105, −86] and [86, 90] and on
// [−30, 30] step 1e-5; ≤ 0.96 ULP (wasm), 1.02 (AVX2) against exp in double.
// Why no branch: the former per-vector "all lanes in range?" test put each vector's work in a
// basic block of its own, and V8 then emitted the 4 unrolled vectors' long dependency chains one
// after another instead of interleaved; on a Zen 3 EPYC (V8 11, wasm) that made exp about 1.25×
// and sigmoid 1.6× slower than this (one test per 4 vectors was no better: any branch costs).
template <class D, class V>
HWY_INLINE V ExpF(D d, V x) {
  const V xc = ClampKeepNaN(d, x, kExpUnderflow, 89.0f);
  const V shifter = hn::Set(d, kExpShifter);
  const V t = hn::MulAdd(xc, hn::Set(d, 1.442695040888963407359924681f), shifter);
  const V n = hn::Sub(t, shifter);  // round(x·log2 e), −150 ≤ n ≤ 128
  // r = x − n·ln2 in two parts (n·part0 is exact: part0 has 12 significant bits), |r| ≤ ln2/2.
  V r = hn::MulAdd(n, hn::Set(d, -0.693145751953125f), xc);
  r = hn::MulAdd(n, hn::Set(d, -1.428606765330187045e-6f), r);
  // Highway's ExpPoly: e^r − 1 ≈ r + r²·(k0 + k1 r + … + k5 r⁵), evaluated by Estrin.
  const V r2 = hn::Mul(r, r);
  const V p01 = hn::MulAdd(hn::Set(d, +0.166666671633720397949219f), r, hn::Set(d, +0.5f));
  const V p23 = hn::MulAdd(hn::Set(d, +0.00833336077630519866943359f), r,
                           hn::Set(d, +0.0416664853692054748535156f));
  const V p45 = hn::MulAdd(hn::Set(d, +0.000198527617612853646278381f), r,
                           hn::Set(d, +0.00139304355252534151077271f));
  const V r4 = hn::Mul(r2, r2);
  const V poly = hn::MulAdd(r4, p45, hn::MulAdd(r2, p23, p01));
  const V em1 = hn::MulAdd(poly, r2, r);
  V s1, s2;
  Pow2Split(d, t, s1, s2);
  return hn::Mul(hn::Mul(hn::Add(em1, hn::Set(d, 1.0f)), s1), s2);
}

// e^{−z} for 0 ≤ z ≤ 104 (the caller clamps; NaN gives NaN): the same reduction as ExpF
// (n = round(−z·log2 e) from the shifter, r = −z − n·ln2 in two parts, 2^n = s1·s2 by
// Pow2Split, so subnormal results keep their precision), but a degree-5 polynomial, fitted
// here for e^r = 1 + r·P(r) on |r| ≤ ln2/2 (relative error 9e-8; 1.7e-7 evaluated in float),
// applied as (s1 + (r·s1)·P(r))·s2. Computed on q = −r = z + n·ln2 with P's coefficients'
// signs folded in (no negation of z; the same roundings: for z ≤ 81 the same bits as the former
// single-scaling version, and in (81, 87], where r·2^n used to be subnormal, closer to e^{−z}
// more often than not). For sigmoid, whose tolerance is 6e-7: fewer operations than ExpF.
// (Estrin instead of Horner measured no faster in wasm on a Zen 3 EPYC.)
template <class D, class V>
HWY_INLINE V ExpNegF(D d, V z) {
  const V shifter = hn::Set(d, kExpShifter);
  const V t = hn::MulAdd(z, hn::Set(d, -1.442695040888963407359924681f), shifter);
  const V n = hn::Sub(t, shifter);  // −150 ≤ n ≤ 0
  V q = hn::MulAdd(n, hn::Set(d, 0.693145751953125f), z);
  q = hn::MulAdd(n, hn::Set(d, 1.428606765330187045e-6f), q);
  // −P(−q) = −p0 + p1 q − p2 q² + p3 q³ − p4 q⁴, so that e^{−q} = 1 + q·(−P(−q)).
  V p = hn::MulAdd(q, hn::Set(d, -0.00829086173325777f), hn::Set(d, 0.041897937655448914f));
  p = hn::MulAdd(q, p, hn::Set(d, -0.16667626798152924f));
  p = hn::MulAdd(q, p, hn::Set(d, 0.4999915063381195f));
  p = hn::MulAdd(q, p, hn::Set(d, -0.9999997019767761f));
  V s1, s2;
  Pow2Split(d, t, s1, s2);
  return hn::Mul(hn::MulAdd(hn::Mul(q, s1), p, s1), s2);
}

// expm1: 4 ULP; +inf above the overflow point, −1 for large negative x.
template <class D, class V>
HWY_INLINE V Expm1F(D d, V x) {
  const V xc = hn::Min(x, hn::Set(d, 89.0f));
  V r = hn::Expm1(d, xc);  // −1 below −104
  r = hn::IfThenElse(hn::Gt(x, hn::Set(d, kExpOverflow)), hn::Inf(d), r);
  return KeepNaN(d, x, r);
}

// log family: Highway covers (0, +FLT_MAX] (subnormals included); patch 0 → −inf,
// negative → NaN, +inf → +inf, NaN → NaN. `r` is the raw result on the clamped input.
template <class D, class V>
HWY_INLINE V LogSpecials(D d, V x, V r) {
  r = hn::IfThenElse(hn::Eq(x, hn::Zero(d)), hn::Neg(hn::Inf(d)), r);
  r = hn::IfThenElse(hn::Lt(x, hn::Zero(d)), hn::NaN(d), r);
  r = hn::IfThenElse(hn::Eq(x, hn::Inf(d)), x, r);
  return KeepNaN(d, x, r);
}

// Replace what Highway must not see (≤ 0, NaN, +inf) by harmless values, patched afterwards.
// Non-positive lanes become 1, not a tiny positive number: subnormal arithmetic is ~100×
// slower on x86, and a vector of negative inputs would otherwise crawl.
template <class D, class V>
HWY_INLINE V LogDomain(D d, V x) {
  const V pos = hn::IfThenElse(hn::Gt(x, hn::Zero(d)), x, hn::Set(d, 1.0f));
  return hn::Min(pos, hn::Set(d, std::numeric_limits<float>::max()));
}

template <class D, class V>
HWY_INLINE V LogF(D d, V x) {
  return LogSpecials(d, x, hn::Log(d, LogDomain(d, x)));
}
template <class D, class V>
HWY_INLINE V Log2F(D d, V x) {
  return LogSpecials(d, x, hn::Log2(d, LogDomain(d, x)));
}
template <class D, class V>
HWY_INLINE V Log10F(D d, V x) {
  return LogSpecials(d, x, hn::Log10(d, LogDomain(d, x)));
}

// log1p: Highway's formula log(1+x)·x/((1+x)−1) is fine on (−1, +FLT_MAX]; patch −1 → −inf,
// below −1 → NaN, +inf → +inf.
template <class D, class V>
HWY_INLINE V Log1pF(D d, V x) {
  const V minus_one = hn::Set(d, -1.0f);
  const V xc = hn::Min(hn::Max(x, hn::Set(d, -0.99999994f)),
                       hn::Set(d, std::numeric_limits<float>::max()));
  V r = hn::Log1p(d, xc);
  r = hn::IfThenElse(hn::Eq(x, minus_one), hn::Neg(hn::Inf(d)), r);
  r = hn::IfThenElse(hn::Lt(x, minus_one), hn::NaN(d), r);
  r = hn::IfThenElse(hn::Eq(x, hn::Inf(d)), x, r);
  return KeepNaN(d, x, r);
}

// tanh(x) = x·P(x²)/Q(x²), P and Q of degree 4 with P(0) = Q(0) = 1 (the form of XNNPACK's
// f32-vtanh rational-9-8; coefficients fitted by fit_rational.py next to this file): minimax
// relative error 6.7e-9 on [0, 8] (3.2e-8 with the float coefficients). One division and no
// exp: less than half the operations of Cephes' two branches (a polynomial below 0.625,
// (1 − e)/(1 + e) above). x is clamped to ±9, where the rational is 1 + 1e-6 (it crosses 1 near
// 8.4), and the result to ±1: so |tanh| ≤ 1 everywhere and every |x| ≥ 8.8 gives exactly ±1 on
// every target, FMA or not (GELU's tanh form needs 1 + tanh(u) = 0 exactly there).
// NaN kept: both clamps put the constant first, so a NaN passes through them (ClampKeepNaN,
// PatchNaN) and through the arithmetic between, with no select (4 operations fewer than a
// final KeepNaN; the same results on every other input).
// Measured against std::tanh in double, every x in [−10, 10] step 1e-4 plus ±1e-30, ±1e30, ±inf,
// NaN: relative ≤ 3.2e-7 in wasm, 2.8e-7 on AVX2 (FMA); 1.6e-7 on [−1e-3, 1e-3].
// This is the one tanh of every SIMD path (tanh, GELU's tanh form forward and backward, and the
// GEMM/conv fused GELU), so the fused and separate GELUs agree bit for bit.
template <class D, class V>
HWY_INLINE V TanhF(D d, V x) {
  const V one = hn::Set(d, 1.0f);
  const V xc = ClampKeepNaN(d, x, -9.0f, 9.0f);
  const V x2 = hn::Mul(xc, xc);
  V p = hn::MulAdd(x2, hn::Set(d, 1.5293059263e-08f), hn::Set(d, 2.1939571525e-05f));
  p = hn::MulAdd(x2, p, hn::Set(d, 3.5743410699e-03f));
  p = hn::MulAdd(x2, p, hn::Set(d, 1.3446818292e-01f));
  p = hn::MulAdd(x2, p, one);
  V q = hn::MulAdd(x2, hn::Set(d, 8.5479445033e-07f), hn::Set(d, 3.4157634946e-04f));
  q = hn::MulAdd(x2, q, hn::Set(d, 2.6174910367e-02f));
  q = hn::MulAdd(x2, q, hn::Set(d, 4.6780148149e-01f));
  q = hn::MulAdd(x2, q, one);
  const V r = hn::Div(hn::Mul(xc, p), q);
  return PatchNaN(d, x, hn::Min(one, hn::Max(hn::Set(d, -1.0f), r)));
}

// erf: Eigen's rational approximation (odd degree-13 numerator over even degree-8
// denominator) on x clamped to [−4, 4], where erf is ±1 to float precision.
// Measured error against std::erf in double over [−6, 6] (step 1e-6): abs ≤ 3.8e-7,
// ≤ 6.1 ULP; relative 1.1e-7 near 0.
template <class D, class V>
HWY_INLINE V ErfF(D d, V x) {
  const V four = hn::Set(d, 4.0f);
  const V xc = hn::Min(hn::Max(x, hn::Neg(four)), four);
  const V x2 = hn::Mul(xc, xc);
  V p = hn::MulAdd(x2, hn::Set(d, -2.72614225801306e-10f), hn::Set(d, 2.77068142495902e-08f));
  p = hn::MulAdd(x2, p, hn::Set(d, -2.10102402082508e-06f));
  p = hn::MulAdd(x2, p, hn::Set(d, -5.69250639462346e-05f));
  p = hn::MulAdd(x2, p, hn::Set(d, -7.34990630326855e-04f));
  p = hn::MulAdd(x2, p, hn::Set(d, -2.95459980854025e-03f));
  p = hn::MulAdd(x2, p, hn::Set(d, -1.60960333262415e-02f));
  p = hn::Mul(xc, p);
  V q = hn::MulAdd(x2, hn::Set(d, -1.45660718464996e-05f), hn::Set(d, -2.13374055278905e-04f));
  q = hn::MulAdd(x2, q, hn::Set(d, -1.68282697438203e-03f));
  q = hn::MulAdd(x2, q, hn::Set(d, -7.37332916720468e-03f));
  q = hn::MulAdd(x2, q, hn::Set(d, -1.42647390514189e-02f));
  return KeepNaN(d, x, hn::Div(p, q));
}

// Sign-split logistic: e = exp(−|x|) ∈ [0, 1], f = e/(1 + e) = σ(−|x|), σ = x < 0 ? f : 1 − f.
// Never overflows, so ±1e4 give exactly 1 and 0, and the negative tail keeps its precision
// where σ is subnormal but x·σ (silu) is not. |x| is clamped to 104 (where e rounds to 0, NaN
// kept) and ExpNegF scales in two steps, so every lane takes the same path and there is no
// branch (see ExpF: a per-vector range test made sigmoid 1.6× slower on a Zen 3 EPYC).
// Measured against the closed form in double (wasm / AVX2 with FMA): over [−20, 20] step 1e-6
// relative ≤ 2.8e-7 / 2.6e-7 (the same bits as before the tail went branch-free); every float
// in [−87, −20] ≤ 2.3 / 2.0 ULP; every float in [−110, −87] (σ subnormal below −87.3)
// ≤ 1.82 / 1.67 ULP of the result (0.75 when that tail took the degree-7 ExpF).
template <class D, class V>
HWY_INLINE V SigmoidF(D d, V x) {
  const V one = hn::Set(d, 1.0f);
  const V e = ExpNegF(d, MinKeepNaN(d, 104.0f, hn::Abs(x)));
  const V f = hn::Div(e, hn::Add(one, e));
  return hn::IfThenElse(hn::Lt(x, hn::Zero(d)), f, hn::Sub(one, f));
}

// relu: x < 0 ? 0 : x + 0: NaN stays NaN (as PyTorch), −0 becomes +0 as in the reference.
template <class D, class V>
HWY_INLINE V ReluF(D d, V x) {
  return hn::Add(hn::IfThenZeroElse(hn::Lt(x, hn::Zero(d)), x), hn::Zero(d));
}

// The normal distribution's lower tail Φ(−a) = e^{−a²/2}·M(a) for a = |x| ≥ 0, where M(a) =
// Φ(−a)·e^{a²/2} (Mills' ratio over √(2π)) is smooth and slowly varying (½ at 0, ~1/(a√(2π))
// for large a): a rational P(a)/Q(a) of degrees 3 and 4 fitted by fit_rational.py (minimax
// relative error on [0, 13.25] 4.1e-7 with float coefficients; P(0)/Q(0) = ½, and with the
// rescaled float coefficients below Φ(0) still comes out exactly ½, so x·Φ(x) rounds like x/2
// for tiny x), times one exp. Relative accuracy holds in the whole negative tail (unlike
// ½(1 + erf(x/√2)), which cancels), and GELU's gradient
// Φ(x) + x·φ(x) = e^{−x²/2}·(M(a) ∓ a/√(2π)) shares both the exp and the rational with it.
// a is clamped to 13.25, where the exp's scale 2^n reaches n = −127 and becomes exactly 0, so
// the tail is exactly 0 beyond (Φ(−13.25) ≈ 2e-40) with no select.
// Measured against the closed forms in double (erfc, exp), every x in [−10, 10] step 1e-4 plus
// ±1e-30, ±1e30, ±inf, NaN (wasm / AVX2 with FMA): GELU absolute ≤ 3.8e-7, relative ≤ 5.3e-6 /
// 3.1e-6 (at x ≈ −9.6, from rounding a²; ≤ 7.5e-6 down to −13.5); its gradient absolute
// ≤ 2.6e-7 / 2.9e-7; every special value as the reference.
inline constexpr float kNormalTailMax = 13.25f;

// The two factors of Φ(−a) for a in [0, 13.25], scaled by reciprocal constants so that both
// polynomials with a leading coefficient (2^f's and Q's) are monic (two multiplications fewer):
//   e = e^{−a²/2}/c5,   m = c5·M(a) = P''(a)/Qm(a),   e·m = Φ(−a),
// and kPdfScaled = c5/√(2π), so that e·(m − a·kPdfScaled) = Φ(−a) − a·φ(a).
// e^{−a²/2}: w = −a²/(2 ln 2), 2^w = 2^f·2^n with n = round(w) from the shifter (which carries
// the exponent bias, so 2^n is t's low bits shifted into the exponent field; n = −127 gives
// +0) and 2^f on [−½, ½] by a degree-5 polynomial c5·(f⁵ + b4 f⁴ + … + b0) (fit_rational.py;
// relative 1.1e-7). Rounding a² costs up to a²·2^-24 relative (7e-6 at a = 13): the tests
// allow it. Φ(−a) from e·m: relative error 4.9e-7 evaluated in double (fits and rounding of
// the rescaled coefficients).
inline constexpr float kPdfScaled = 5.2918581059e-04f;  // c5/√(2π)

template <class D, class V>
HWY_INLINE void NormalLowerTailParts(D d, V a, V& e, V& m) {
  const hn::RebindToSigned<D> di;
  const V shifter = hn::Set(d, 12583039.0f);  // 1.5·2^23 + 127
  const V w = hn::Mul(hn::Mul(a, a), hn::Set(d, -0.72134752044448170f));  // −a²/2 · log2 e
  const V t = hn::Add(w, shifter);
  const V f = hn::Sub(w, hn::Sub(t, shifter));  // w − n, in [−½, ½]
  V p = hn::Add(f, hn::Set(d, 7.2911543846e+00f));
  p = hn::MulAdd(f, p, hn::Set(d, 4.1845836639e+01f));
  p = hn::MulAdd(f, p, hn::Set(d, 1.8109873962e+02f));
  p = hn::MulAdd(f, p, hn::Set(d, 5.2254925537e+02f));
  p = hn::MulAdd(f, p, hn::Set(d, 7.5387939453e+02f));
  e = hn::Mul(p, hn::BitCast(d, hn::ShiftLeft<23>(hn::BitCast(di, t))));
  // M(a) = P(a)/Q(a) (see above), here P·c5/q4 over Q/q4.
  V pn = hn::MulAdd(a, hn::Set(d, 5.2911450621e-04f), hn::Set(d, 3.7439169828e-03f));
  pn = hn::MulAdd(a, pn, hn::Set(d, 1.1399008334e-02f));
  pn = hn::MulAdd(a, pn, hn::Set(d, 1.5853924677e-02f));
  V q = hn::Add(a, hn::Set(d, 7.0695772171e+00f));
  q = hn::MulAdd(a, q, hn::Set(d, 2.2626401901e+01f));
  q = hn::MulAdd(a, q, hn::Set(d, 3.6259220123e+01f));
  q = hn::MulAdd(a, q, hn::Set(d, 2.3903894424e+01f));
  m = hn::Div(pn, q);
}

// x < 0 ? lower : 1 − lower (Φ and GELU's gradient from their lower-tail values).
template <class D, class V>
HWY_INLINE V FromLowerTail(D d, V x, V lower) {
  return hn::IfThenElse(hn::Lt(x, hn::Zero(d)), lower, hn::Sub(hn::Set(d, 1.0f), lower));
}

// GELU (erf form) x·Φ(x). ±inf and NaN need no patch: Φ is 0 or 1 there, so x·Φ gives
// −inf·0 = NaN (as PyTorch), +inf, and NaN.
template <class D, class V>
HWY_INLINE V GeluErfF(D d, V x) {
  const V a = hn::Min(hn::Abs(x), hn::Set(d, kNormalTailMax));
  V e, m;
  NormalLowerTailParts(d, a, e, m);
  return hn::Mul(x, FromLowerTail(d, x, hn::Mul(e, m)));
}

// d/dx GELU = Φ(x) + x·φ(x) = FromLowerTail(e^{−a²/2}·(M(a) − a/√(2π))), a = |x| (for x > 0:
// 1 − Φ(−a) + a·φ(a)). The a/√(2π) term takes the unclamped |x|, so ±inf give 0·(−inf) = NaN
// as the reference (and PyTorch: x·φ(x) at ±inf).
template <class D, class V>
HWY_INLINE V GeluErfGradF(D d, V x) {
  const V ax = hn::Abs(x);
  const V a = hn::Min(ax, hn::Set(d, kNormalTailMax));
  V e, m;
  NormalLowerTailParts(d, a, e, m);
  return FromLowerTail(d, x, hn::Mul(e, hn::NegMulAdd(ax, hn::Set(d, kPdfScaled), m)));
}

// u = √(2/π)(x + 0.044715 x³), the argument of GELU's tanh approximation.
template <class D, class V>
HWY_INLINE V GeluTanhArg(D d, V x) {
  const V x2 = hn::Mul(x, x);
  const V inner = hn::MulAdd(hn::Mul(x2, hn::Set(d, 0.044715f)), x, x);
  return hn::Mul(inner, hn::Set(d, 0.7978845608028654f));
}

template <class D, class V>
HWY_INLINE V GeluTanhF(D d, V x) {
  const V half = hn::Set(d, 0.5f);
  const V t = TanhF(d, GeluTanhArg(d, x));
  return hn::Mul(hn::Mul(half, x), hn::Add(hn::Set(d, 1.0f), t));
}

// softplus with PyTorch's threshold: β x > 20 → x, else log1p(exp(β x))/β. exp(β x) ≤ e^20 here
// and ≥ 0, inside Log1p's valid range; large negative x gives log1p(0) = 0.
template <class D, class V>
HWY_INLINE V SoftplusF(D d, V x, float beta) {
  const V bx = hn::Mul(x, hn::Set(d, beta));
  const V thr = hn::Set(d, 20.0f);
  const V e = ExpF(d, hn::Min(bx, thr));
  const V soft = hn::Div(hn::Log1p(d, e), hn::Set(d, beta));
  return KeepNaN(d, x, hn::IfThenElse(hn::Gt(bx, thr), x, soft));
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace sg
HWY_AFTER_NAMESPACE();

#endif  // SG_KERNELS_SIMD_VEC_MATH_INL_H_
