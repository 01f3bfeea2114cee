// Reference unary and broadcast-binary loops over the scalar definitions, for float32 and
// float64 (one template each; the element type is fixed once per call).
#include <vector>

#include "kernels/reference/reference_kernels.h"
#include "kernels/reference/scalar_math.h"

namespace sg::ref {

namespace {

template <class T>
void unary_loop(Unary op, T param, const T* x, T* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = scalar::unary_t<T>(op, param, x[i]);
}

// Odometer over plan.shape: out is contiguous, a and b advance by their own strides.
template <class T>
void binary_loop(Binary op, const BroadcastPlan& plan, const T* a, const T* b, T* out) {
  const size_t nd = plan.shape.size();
  int64_t total = 1;
  for (int64_t s : plan.shape) total *= s;
  if (total == 0) return;
  std::vector<int64_t> idx(nd, 0);
  int64_t ao = 0, bo = 0;
  for (int64_t i = 0; i < total; ++i) {
    out[i] = scalar::binary_t<T>(op, a[ao], b[bo]);
    for (size_t d = nd; d-- > 0;) {
      ao += plan.a_strides[d];
      bo += plan.b_strides[d];
      if (++idx[d] < plan.shape[d]) break;
      ao -= plan.a_strides[d] * plan.shape[d];
      bo -= plan.b_strides[d] * plan.shape[d];
      idx[d] = 0;
    }
  }
}

}  // namespace

void unary_f32(Unary op, float param, const float* x, float* y, int64_t n) { unary_loop(op, param, x, y, n); }
void unary_f64(Unary op, double param, const double* x, double* y, int64_t n) { unary_loop(op, param, x, y, n); }

void binary_f32(Binary op, const BroadcastPlan& plan, const float* a, const float* b, float* out) {
  binary_loop(op, plan, a, b, out);
}
void binary_f64(Binary op, const BroadcastPlan& plan, const double* a, const double* b, double* out) {
  binary_loop(op, plan, a, b, out);
}

}  // namespace sg::ref
