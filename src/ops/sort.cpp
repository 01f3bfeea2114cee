// sort, argsort and topk along a dim. The backend's argsort kernel orders each group's positions
// (stably, NaN above every number); the values are then gathered from x, which is also what
// makes them differentiable (gather's gradient scatters g back to where each value came from).
#include "core/copy.h"
#include "kernels/backend.h"
#include "ops/along.h"
#include "ops/ops.h"

namespace sg {

namespace {

// The positions along a.dim of the first k elements of each group in sorted order: int32 of
// x's shape with k at that dim.
Tensor sorted_positions(const Tensor& x, const Along& a, bool descending, int64_t k) {
  const Tensor xc = as_contiguous(x);
  Shape shape = x.shape();
  if (x.ndim() > 0) shape[a.dim] = k;
  Tensor out = Tensor::uninitialized(shape, DType::Int32, x.device());
  if (out.numel() > 0)
    backend_for(x.device()).argsort(x.dtype(), xc.dev_raw(), a.outer, a.r, a.inner, descending, k, out.dev_i32());
  return out;
}

}  // namespace

Sorted sort(const Tensor& x, int64_t dim, bool descending) {
  const Along a = along(x.shape(), dim, "sort");
  const Tensor indices = sorted_positions(x, a, descending, a.r);
  return {gather(x, a.dim, indices), indices};
}

Tensor argsort(const Tensor& x, int64_t dim, bool descending) {
  const Along a = along(x.shape(), dim, "argsort");
  return sorted_positions(x, a, descending, a.r);
}

Sorted topk(const Tensor& x, int64_t k, int64_t dim, bool largest) {
  const Along a = along(x.shape(), dim, "topk");
  check(k >= 0 && k <= a.r, "topk: k (", k, ") is out of range for dim ", a.dim, " of size ", a.r,
        " (expected k in [0, ", a.r, "])");
  const Tensor indices = sorted_positions(x, a, largest, k);
  return {gather(x, a.dim, indices), indices};
}

}  // namespace sg
