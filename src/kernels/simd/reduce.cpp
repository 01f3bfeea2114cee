// SIMD reductions of x viewed as [outer, r, inner] → out [outer, inner].
//   inner == 1: horizontal — each row of r contiguous values folded by 4 vector accumulators
//               (independent dependency chains), then across lanes.
//   inner > 1:  vertical — 4 (then 1) vectors of adjacent columns accumulated down the r rows;
//               the last inner % lanes columns are folded by scalar loops.
// Sum/Prod fold blocks of kBlock values in float lanes and combine the block results in double,
// which keeps long sums close to the reference's double accumulation. Max/Min track NaN in
// masks because x86 max/min drop a NaN operand, while torch.amax/amin propagate it.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/simd/simd_kernels.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/simd/reduce.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace sg {
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;
using MF = hn::Mask<DF>;

constexpr int64_t kBlock = 2048;  // values per float-lane partial before the double combine

// The four folds: identity, vector step, scalar step and how NaN is handled.
struct SumFold {
  static constexpr bool kTrackNaN = false;
  static float identity() { return 0.0f; }
  static VF step(VF acc, VF v) { return hn::Add(acc, v); }
  static double step_d(double acc, double v) { return acc + v; }
};
struct ProdFold {
  static constexpr bool kTrackNaN = false;
  static float identity() { return 1.0f; }
  static VF step(VF acc, VF v) { return hn::Mul(acc, v); }
  static double step_d(double acc, double v) { return acc * v; }
};
struct MaxFold {
  static constexpr bool kTrackNaN = true;
  static float identity() { return -std::numeric_limits<float>::infinity(); }
  static VF step(VF acc, VF v) { return hn::Max(acc, v); }
  static double step_d(double acc, double v) { return v > acc ? v : acc; }
};
struct MinFold {
  static constexpr bool kTrackNaN = true;
  static float identity() { return std::numeric_limits<float>::infinity(); }
  static VF step(VF acc, VF v) { return hn::Min(acc, v); }
  static double step_d(double acc, double v) { return v < acc ? v : acc; }
};

// Lane-wise fold of a vector into a double (lane order does not matter for these ops).
template <class Fold>
HWY_INLINE double FoldLanes(DF d, VF v, double acc) {
  HWY_ALIGN float buf[HWY_MAX_BYTES / sizeof(float)];
  hn::Store(v, d, buf);
  for (size_t j = 0; j < hn::Lanes(d); ++j) acc = Fold::step_d(acc, buf[j]);
  return acc;
}

template <class Fold>
HWY_INLINE float ReduceRow(const float* x, int64_t r) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const VF id = hn::Set(d, Fold::identity());
  double total = Fold::identity();
  MF nan = hn::FirstN(d, 0);
  int64_t i = 0;
  while (i + 4 * N <= r) {
    VF a0 = id, a1 = id, a2 = id, a3 = id;
    const int64_t end = (r - i < kBlock) ? r : i + kBlock;
    for (; i + 4 * N <= end; i += 4 * N) {
      const VF v0 = hn::LoadU(d, x + i), v1 = hn::LoadU(d, x + i + N);
      const VF v2 = hn::LoadU(d, x + i + 2 * N), v3 = hn::LoadU(d, x + i + 3 * N);
      a0 = Fold::step(a0, v0);
      a1 = Fold::step(a1, v1);
      a2 = Fold::step(a2, v2);
      a3 = Fold::step(a3, v3);
      if (Fold::kTrackNaN) {
        nan = hn::Or(nan, hn::Or(hn::Or(hn::IsNaN(v0), hn::IsNaN(v1)),
                                 hn::Or(hn::IsNaN(v2), hn::IsNaN(v3))));
      }
    }
    total = FoldLanes<Fold>(d, Fold::step(Fold::step(a0, a1), Fold::step(a2, a3)), total);
  }
  bool any_nan = Fold::kTrackNaN && !hn::AllFalse(d, nan);
  for (; i < r; ++i) {
    if (Fold::kTrackNaN && std::isnan(x[i])) any_nan = true;
    total = Fold::step_d(total, x[i]);
  }
  return any_nan ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(total);
}

// kV vectors of adjacent columns starting at x (row stride `inner`), folded over r rows.
// Not inlined: gcc 12 at -O1 -g hits an internal compiler error (esra) when these accumulator
// arrays are inlined into ReduceVertical; a call per column chunk costs nothing measurable.
template <class Fold, int kV>
HWY_NOINLINE void ReduceColumns(const float* x, int64_t r, int64_t inner, float* out) {
  const DF d;
  const size_t N = hn::Lanes(d);
  VF acc[kV];
  VF nan[kV];  // all-ones lanes where a NaN was seen
  for (int v = 0; v < kV; ++v) {
    acc[v] = hn::Set(d, Fold::identity());
    nan[v] = hn::Zero(d);
  }
  for (int64_t i = 0; i < r; ++i) {
    const float* row = x + i * inner;
    for (int v = 0; v < kV; ++v) {
      const VF val = hn::LoadU(d, row + v * N);
      acc[v] = Fold::step(acc[v], val);
      if (Fold::kTrackNaN) nan[v] = hn::Or(nan[v], hn::VecFromMask(d, hn::IsNaN(val)));
    }
  }
  for (int v = 0; v < kV; ++v) {
    if (Fold::kTrackNaN) acc[v] = hn::IfThenElse(hn::MaskFromVec(nan[v]), hn::NaN(d), acc[v]);
    hn::StoreU(acc[v], d, out + v * N);
  }
}

// Sum/Prod columns in float over at most kBlock rows at a time, blocks combined in double
// through `partial` (the float out row itself for Max/Min, which are exact).
template <class Fold>
HWY_INLINE void ReduceVertical(const float* x, int64_t r, int64_t inner, float* out) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const int64_t vec_cols = inner - inner % N;
  const bool exact = Fold::kTrackNaN;
  const int64_t block = exact ? r : kBlock;
  // Double partials for Sum/Prod only; one row of `inner` values.
  std::vector<double> partial(exact ? 0 : static_cast<size_t>(vec_cols), Fold::identity());
  HWY_ALIGN float tmp[4 * HWY_MAX_BYTES / sizeof(float)];
  for (int64_t i0 = 0; i0 < r; i0 += block) {
    const int64_t rows = (r - i0 < block) ? r - i0 : block;
    const float* xb = x + i0 * inner;
    int64_t j = 0;
    for (; j + 4 * N <= vec_cols; j += 4 * N) {
      float* dst = exact ? out + j : tmp;
      ReduceColumns<Fold, 4>(xb + j, rows, inner, dst);
      if (!exact)
        for (int64_t t = 0; t < 4 * N; ++t) partial[j + t] = Fold::step_d(partial[j + t], tmp[t]);
    }
    for (; j < vec_cols; j += N) {
      float* dst = exact ? out + j : tmp;
      ReduceColumns<Fold, 1>(xb + j, rows, inner, dst);
      if (!exact)
        for (int64_t t = 0; t < N; ++t) partial[j + t] = Fold::step_d(partial[j + t], tmp[t]);
    }
  }
  if (!exact)
    for (int64_t j = 0; j < vec_cols; ++j) out[j] = static_cast<float>(partial[j]);
  // Remaining columns: scalar, double accumulator, NaN-propagating like the reference.
  for (int64_t j = vec_cols; j < inner; ++j) {
    double acc = Fold::identity();
    bool any_nan = false;
    for (int64_t i = 0; i < r; ++i) {
      const float v = x[i * inner + j];
      if (Fold::kTrackNaN && std::isnan(v)) any_nan = true;
      acc = Fold::step_d(acc, v);
    }
    out[j] = any_nan ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(acc);
  }
}

template <class Fold>
HWY_INLINE void ReduceAll(const float* x, int64_t outer, int64_t r, int64_t inner, float* out) {
  for (int64_t o = 0; o < outer; ++o) {
    if (inner == 1) out[o] = ReduceRow<Fold>(x + o * r, r);
    else ReduceVertical<Fold>(x + o * r * inner, r, inner, out + o * inner);
  }
}

void ReduceF32(Reduce op, const float* x, int64_t outer, int64_t r, int64_t inner, float* out) {
  switch (op) {
    case Reduce::Sum: return ReduceAll<SumFold>(x, outer, r, inner, out);
    case Reduce::Prod: return ReduceAll<ProdFold>(x, outer, r, inner, out);
    case Reduce::Max: return ReduceAll<MaxFold>(x, outer, r, inner, out);
    case Reduce::Min: return ReduceAll<MinFold>(x, outer, r, inner, out);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace sg
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sg {
namespace simd {
HWY_EXPORT(ReduceF32);

void reduce_f32(Reduce op, const float* x, int64_t outer, int64_t r, int64_t inner, float* out) {
  if (outer <= 0 || inner <= 0) return;
  if (r <= 0) {  // empty reduction: the identity (sum 0, prod 1, max −inf, min +inf)
    const float inf = std::numeric_limits<float>::infinity();
    const float id = op == Reduce::Sum    ? 0.0f
                     : op == Reduce::Prod ? 1.0f
                     : op == Reduce::Max  ? -inf
                                          : inf;
    std::fill(out, out + outer * inner, id);
    return;
  }
  HWY_DYNAMIC_DISPATCH(ReduceF32)(op, x, outer, r, inner, out);
}

}  // namespace simd
}  // namespace sg
#endif  // HWY_ONCE
