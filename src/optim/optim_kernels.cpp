// SIMD optimizer kernels (declarations and the formulas they follow: optim_kernels.h).
// Each update is written once, as a vector body over one vector of every buffer; the tail
// (n not a multiple of the lane count) runs the same body on zero-padded copies, so the SIMD
// kernel has no scalar tail loop of its own (the scalar twins in optim_kernels_ref.cpp are the
// tests' oracle).
#include "optim/optim_kernels.h"

#include <cmath>
#include <cstring>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "optim/optim_kernels.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace sg {
namespace optim {
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

constexpr size_t kMaxLanes = HWY_MAX_BYTES / sizeof(float);

// Runs body(offset pointers...) over n elements of `count` buffers, a full vector at a time;
// the last partial vector goes through zero-padded stack copies, which are copied back
// (null buffers stay null: the body must not touch them).
template <size_t count, class Body>
HWY_INLINE void ForEachVector(float* const (&bufs)[count], int64_t n, const Body& body) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  float* at[count];
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    for (size_t k = 0; k < count; ++k) at[k] = bufs[k] ? bufs[k] + i : nullptr;
    body(d, at);
  }
  if (i == n) return;
  const size_t rest = static_cast<size_t>(n - i);
  HWY_ALIGN float pad[count][kMaxLanes];
  for (size_t k = 0; k < count; ++k) {
    std::memset(pad[k], 0, sizeof(pad[k]));
    if (bufs[k]) std::memcpy(pad[k], bufs[k] + i, rest * sizeof(float));
    at[k] = bufs[k] ? pad[k] : nullptr;
  }
  body(d, at);
  for (size_t k = 0; k < count; ++k)
    if (bufs[k]) std::memcpy(bufs[k] + i, pad[k], rest * sizeof(float));
}

// a + α·b, unfused (ATen's add with alpha).
HWY_INLINE VF AddScaled(DF d, VF a, float alpha, VF b) {
  return hn::Add(a, hn::Mul(hn::Set(d, alpha), b));
}

// torch.maximum: NaN in either operand gives NaN (x86 max would return the second operand).
HWY_INLINE VF MaximumNaN(VF a, VF b) {
  const VF r = hn::IfThenElse(hn::IsNaN(a), a, hn::Max(a, b));
  return hn::IfThenElse(hn::IsNaN(b), b, r);
}

void Sgd(float* p, const float* g, float* buf, int64_t n, const SgdScalars& s) {
  float* bufs[3] = {p, const_cast<float*>(g), s.has_momentum ? buf : nullptr};
  ForEachVector(bufs, n, [&](DF d, float* const* at) {
    const VF pv = hn::LoadU(d, at[0]);
    VF dp = hn::Mul(hn::LoadU(d, at[1]), hn::Set(d, s.sign));
    if (s.has_weight_decay) dp = AddScaled(d, dp, s.weight_decay, pv);
    if (s.has_momentum) {
      VF b = s.first ? dp
                     : AddScaled(d, hn::Mul(hn::LoadU(d, at[2]), hn::Set(d, s.momentum)),
                                 s.one_minus_dampening, dp);
      hn::StoreU(b, d, at[2]);
      dp = s.nesterov ? AddScaled(d, dp, s.momentum, b) : b;
    }
    hn::StoreU(AddScaled(d, pv, s.neg_lr, dp), d, at[0]);
  });
}

void Adam(float* p, const float* g, float* m, float* v, float* vmax, int64_t n,
          const AdamScalars& s) {
  float* bufs[5] = {p, const_cast<float*>(g), m, v, s.amsgrad ? vmax : nullptr};
  ForEachVector(bufs, n, [&](DF d, float* const* at) {
    VF pv = hn::LoadU(d, at[0]);
    VF gv = hn::Mul(hn::LoadU(d, at[1]), hn::Set(d, s.sign));
    if (s.decoupled) pv = hn::Mul(pv, hn::Set(d, s.decay));
    if (s.l2) gv = AddScaled(d, gv, s.weight_decay, pv);
    const VF mv =
        AddScaled(d, hn::Mul(hn::LoadU(d, at[2]), hn::Set(d, s.beta1)), s.one_minus_beta1, gv);
    const VF vv = hn::Add(hn::Mul(hn::LoadU(d, at[3]), hn::Set(d, s.beta2)),
                          hn::Mul(hn::Mul(hn::Set(d, s.one_minus_beta2), gv), gv));
    hn::StoreU(mv, d, at[2]);
    hn::StoreU(vv, d, at[3]);
    VF second = vv;
    if (s.amsgrad) {
      second = MaximumNaN(hn::LoadU(d, at[4]), vv);
      hn::StoreU(second, d, at[4]);
    }
    const VF denom =
        hn::Add(hn::Div(hn::Sqrt(second), hn::Set(d, s.bias_correction2_sqrt)), hn::Set(d, s.eps));
    pv = hn::Add(pv, hn::Div(hn::Mul(hn::Set(d, s.neg_step_size), mv), denom));
    hn::StoreU(pv, d, at[0]);
  });
}

void Rmsprop(float* p, const float* g, float* square_avg, float* grad_avg, float* buf, int64_t n,
             const RmspropScalars& s) {
  float* bufs[5] = {p, const_cast<float*>(g), square_avg, s.centered ? grad_avg : nullptr,
                    s.has_momentum ? buf : nullptr};
  ForEachVector(bufs, n, [&](DF d, float* const* at) {
    const VF pv = hn::LoadU(d, at[0]);
    VF gv = hn::Mul(hn::LoadU(d, at[1]), hn::Set(d, s.sign));
    if (s.has_weight_decay) gv = AddScaled(d, gv, s.weight_decay, pv);
    const VF sq = hn::Add(hn::Mul(hn::LoadU(d, at[2]), hn::Set(d, s.alpha)),
                          hn::Mul(hn::Mul(hn::Set(d, s.one_minus_alpha), gv), gv));
    hn::StoreU(sq, d, at[2]);
    VF avg;
    if (s.centered) {
      const VF ga =
          AddScaled(d, hn::Mul(hn::LoadU(d, at[3]), hn::Set(d, s.alpha)), s.one_minus_alpha, gv);
      hn::StoreU(ga, d, at[3]);
      avg = hn::Sqrt(hn::Sub(sq, hn::Mul(ga, ga)));  // addcmul with value −1: exact negation
    } else {
      avg = hn::Sqrt(sq);
    }
    avg = hn::Add(avg, hn::Set(d, s.eps));
    if (s.has_momentum) {
      const VF b = hn::Add(hn::Mul(hn::LoadU(d, at[4]), hn::Set(d, s.momentum)), hn::Div(gv, avg));
      hn::StoreU(b, d, at[4]);
      hn::StoreU(AddScaled(d, pv, s.neg_lr, b), d, at[0]);
    } else {
      hn::StoreU(hn::Add(pv, hn::Div(hn::Mul(hn::Set(d, s.neg_lr), gv), avg)), d, at[0]);
    }
  });
}

void Adagrad(float* p, const float* g, float* sum, int64_t n, const AdagradScalars& s) {
  float* bufs[3] = {p, const_cast<float*>(g), sum};
  ForEachVector(bufs, n, [&](DF d, float* const* at) {
    const VF pv = hn::LoadU(d, at[0]);
    VF gv = hn::Mul(hn::LoadU(d, at[1]), hn::Set(d, s.sign));
    if (s.has_weight_decay) gv = AddScaled(d, gv, s.weight_decay, pv);
    const VF sv = hn::Add(hn::LoadU(d, at[2]), hn::Mul(gv, gv));
    hn::StoreU(sv, d, at[2]);
    const VF stdv = hn::Add(hn::Sqrt(sv), hn::Set(d, s.eps));
    hn::StoreU(hn::Add(pv, hn::Div(hn::Mul(hn::Set(d, s.neg_clr), gv), stdv)), d, at[0]);
  });
}

// Float partial sums over blocks of kBlock elements, added up in double: float accuracy only
// within a block.
constexpr int64_t kBlock = 1024;

template <class F>
HWY_INLINE double BlockedSum(const float* x, int64_t n, const F& f) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  double total = 0;
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t end = start + kBlock < n ? start + kBlock : n;
    VF acc0 = hn::Zero(d), acc1 = hn::Zero(d);
    int64_t i = start;
    for (; i + 2 * N <= end; i += 2 * N) {
      acc0 = hn::Add(acc0, f(d, hn::LoadU(d, x + i)));
      acc1 = hn::Add(acc1, f(d, hn::LoadU(d, x + i + N)));
    }
    for (; i + N <= end; i += N) acc0 = hn::Add(acc0, f(d, hn::LoadU(d, x + i)));
    double part = hn::GetLane(hn::SumOfLanes(d, hn::Add(acc0, acc1)));
    for (; i < end; ++i) part += static_cast<double>(hn::GetLane(f(d, hn::Set(d, x[i]))));
    total += part;
  }
  return total;
}

double SumSquares(const float* x, int64_t n) {
  return BlockedSum(x, n, [](DF, VF v) { return hn::Mul(v, v); });
}

double SumAbs(const float* x, int64_t n) {
  return BlockedSum(x, n, [](DF, VF v) { return hn::Abs(v); });
}

float MaxAbs(const float* x, int64_t n) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  VF acc = hn::Zero(d);
  int64_t i = 0;
  for (; i + N <= n; i += N) acc = MaximumNaN(acc, hn::Abs(hn::LoadU(d, x + i)));
  float best = hn::GetLane(hn::MaxOfLanes(d, acc));
  if (hn::AllFalse(d, hn::IsNaN(acc))) {
    for (; i < n; ++i) {
      const float a = std::fabs(x[i]);
      if (std::isnan(a)) return a;
      if (a > best) best = a;
    }
    return best;
  }
  return NAN;
}

void Scale(float* x, int64_t n, float c) {
  float* bufs[1] = {x};
  ForEachVector(bufs, n, [&](DF d, float* const* at) {
    hn::StoreU(hn::Mul(hn::LoadU(d, at[0]), hn::Set(d, c)), d, at[0]);
  });
}

void Clamp(float* x, int64_t n, float lo, float hi) {
  float* bufs[1] = {x};
  ForEachVector(bufs, n, [&](DF d, float* const* at) {
    const VF v = hn::LoadU(d, at[0]);
    const VF r = hn::Min(hn::Max(v, hn::Set(d, lo)), hn::Set(d, hi));
    hn::StoreU(hn::IfThenElse(hn::IsNaN(v), v, r), d, at[0]);
  });
}

void Adadelta(float* p, const float* g, float* square_avg, float* acc_delta, int64_t n,
              const AdadeltaScalars& s) {
  float* bufs[4] = {p, const_cast<float*>(g), square_avg, acc_delta};
  ForEachVector(bufs, n, [&](DF d, float* const* at) {
    const VF pv = hn::LoadU(d, at[0]);
    VF gv = hn::Mul(hn::LoadU(d, at[1]), hn::Set(d, s.sign));
    if (s.has_weight_decay) gv = AddScaled(d, gv, s.weight_decay, pv);
    const VF rho = hn::Set(d, s.rho), one_minus_rho = hn::Set(d, s.one_minus_rho);
    const VF eps = hn::Set(d, s.eps);
    const VF sq = hn::Add(hn::Mul(hn::LoadU(d, at[2]), rho), hn::Mul(hn::Mul(one_minus_rho, gv), gv));
    hn::StoreU(sq, d, at[2]);
    const VF acc = hn::LoadU(d, at[3]);
    const VF delta = hn::Mul(hn::Div(hn::Sqrt(hn::Add(acc, eps)), hn::Sqrt(hn::Add(sq, eps))), gv);
    hn::StoreU(hn::Add(hn::Mul(acc, rho), hn::Mul(hn::Mul(one_minus_rho, delta), delta)), d, at[3]);
    hn::StoreU(AddScaled(d, pv, s.neg_lr, delta), d, at[0]);
  });
}

void Adamax(float* p, const float* g, float* exp_avg, float* exp_inf, int64_t n,
            const AdamaxScalars& s) {
  float* bufs[4] = {p, const_cast<float*>(g), exp_avg, exp_inf};
  ForEachVector(bufs, n, [&](DF d, float* const* at) {
    const VF pv = hn::LoadU(d, at[0]);
    VF gv = hn::Mul(hn::LoadU(d, at[1]), hn::Set(d, s.sign));
    if (s.has_weight_decay) gv = AddScaled(d, gv, s.weight_decay, pv);
    const VF m = AddScaled(d, hn::Mul(hn::LoadU(d, at[2]), hn::Set(d, s.beta1)), s.one_minus_beta1, gv);
    const VF u = MaximumNaN(hn::Mul(hn::LoadU(d, at[3]), hn::Set(d, s.beta2)),
                            hn::Add(hn::Abs(gv), hn::Set(d, s.eps)));
    hn::StoreU(m, d, at[2]);
    hn::StoreU(u, d, at[3]);
    hn::StoreU(hn::Add(pv, hn::Div(hn::Mul(hn::Set(d, s.neg_clr), m), u)), d, at[0]);
  });
}

// Adam's moments of one vector (MomentsScalars): g (with weight decay) into gv, the new m and v
// stored and returned.
HWY_INLINE void Moments(DF d, const MomentsScalars& s, float* const* at, VF& gv, VF& m, VF& v) {
  gv = hn::LoadU(d, at[1]);
  if (s.has_weight_decay) gv = AddScaled(d, gv, s.weight_decay, hn::LoadU(d, at[0]));
  m = AddScaled(d, hn::Mul(hn::LoadU(d, at[2]), hn::Set(d, s.beta1)), s.one_minus_beta1, gv);
  v = hn::Add(hn::Mul(hn::LoadU(d, at[3]), hn::Set(d, s.beta2)),
              hn::Mul(hn::Mul(hn::Set(d, s.one_minus_beta2), gv), gv));
  hn::StoreU(m, d, at[2]);
  hn::StoreU(v, d, at[3]);
}

void Nadam(float* p, const float* g, float* exp_avg, float* exp_avg_sq, int64_t n,
           const NadamScalars& s) {
  float* bufs[4] = {p, const_cast<float*>(g), exp_avg, exp_avg_sq};
  ForEachVector(bufs, n, [&](DF d, float* const* at) {
    VF gv, m, v;
    Moments(d, s.moments, at, gv, m, v);
    const VF denom = hn::Add(hn::Sqrt(hn::Div(v, hn::Set(d, s.bias_correction2))), hn::Set(d, s.moments.eps));
    VF pv = hn::Add(hn::LoadU(d, at[0]), hn::Div(hn::Mul(hn::Set(d, s.grad_coef), gv), denom));
    pv = hn::Add(pv, hn::Div(hn::Mul(hn::Set(d, s.avg_coef), m), denom));
    hn::StoreU(pv, d, at[0]);
  });
}

void Radam(float* p, const float* g, float* exp_avg, float* exp_avg_sq, int64_t n,
           const RadamScalars& s) {
  float* bufs[4] = {p, const_cast<float*>(g), exp_avg, exp_avg_sq};
  ForEachVector(bufs, n, [&](DF d, float* const* at) {
    VF gv, m, v;
    Moments(d, s.moments, at, gv, m, v);
    VF step = hn::Mul(hn::Div(m, hn::Set(d, s.bias_correction1)), hn::Set(d, s.lr));
    if (s.rectified) {
      const VF adaptive = hn::Mul(hn::Div(hn::Set(d, 1.0f), hn::Add(hn::Sqrt(v), hn::Set(d, s.moments.eps))),
                                  hn::Set(d, s.bias_correction2_sqrt));
      step = hn::Mul(hn::Mul(step, adaptive), hn::Set(d, s.rect));
    }
    hn::StoreU(hn::Sub(hn::LoadU(d, at[0]), step), d, at[0]);
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace optim
}  // namespace sg
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sg::optim::simd {
HWY_EXPORT(Sgd);
HWY_EXPORT(Adam);
HWY_EXPORT(Rmsprop);
HWY_EXPORT(Adagrad);
HWY_EXPORT(SumSquares);
HWY_EXPORT(SumAbs);
HWY_EXPORT(MaxAbs);
HWY_EXPORT(Scale);
HWY_EXPORT(Clamp);

void sgd_f32(float* p, const float* g, float* buf, int64_t n, const SgdScalars& s) {
  HWY_DYNAMIC_DISPATCH(Sgd)(p, g, buf, n, s);
}
void adam_f32(float* p, const float* g, float* m, float* v, float* vmax, int64_t n,
              const AdamScalars& s) {
  HWY_DYNAMIC_DISPATCH(Adam)(p, g, m, v, vmax, n, s);
}
void rmsprop_f32(float* p, const float* g, float* square_avg, float* grad_avg, float* buf,
                 int64_t n, const RmspropScalars& s) {
  HWY_DYNAMIC_DISPATCH(Rmsprop)(p, g, square_avg, grad_avg, buf, n, s);
}
void adagrad_f32(float* p, const float* g, float* sum, int64_t n, const AdagradScalars& s) {
  HWY_DYNAMIC_DISPATCH(Adagrad)(p, g, sum, n, s);
}
double sum_squares_f32(const float* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(SumSquares)(x, n); }
double sum_abs_f32(const float* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(SumAbs)(x, n); }
float max_abs_f32(const float* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(MaxAbs)(x, n); }
void scale_f32(float* x, int64_t n, float c) { HWY_DYNAMIC_DISPATCH(Scale)(x, n, c); }
void clamp_f32(float* x, int64_t n, float lo, float hi) {
  HWY_DYNAMIC_DISPATCH(Clamp)(x, n, lo, hi);
}

HWY_EXPORT(Adadelta);
HWY_EXPORT(Adamax);
HWY_EXPORT(Nadam);
HWY_EXPORT(Radam);

void adadelta_f32(float* p, const float* g, float* square_avg, float* acc_delta, int64_t n,
                  const AdadeltaScalars& s) {
  HWY_DYNAMIC_DISPATCH(Adadelta)(p, g, square_avg, acc_delta, n, s);
}
void adamax_f32(float* p, const float* g, float* exp_avg, float* exp_inf, int64_t n,
                const AdamaxScalars& s) {
  HWY_DYNAMIC_DISPATCH(Adamax)(p, g, exp_avg, exp_inf, n, s);
}
void nadam_f32(float* p, const float* g, float* exp_avg, float* exp_avg_sq, int64_t n,
               const NadamScalars& s) {
  HWY_DYNAMIC_DISPATCH(Nadam)(p, g, exp_avg, exp_avg_sq, n, s);
}
void radam_f32(float* p, const float* g, float* exp_avg, float* exp_avg_sq, int64_t n,
               const RadamScalars& s) {
  HWY_DYNAMIC_DISPATCH(Radam)(p, g, exp_avg, exp_avg_sq, n, s);
}

}  // namespace sg::optim::simd
#endif  // HWY_ONCE
