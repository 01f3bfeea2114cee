// Cumulative sums and products along a dim, on the backend's scan kernel. cumsum's gradient is
// the reversed cumsum of g (the same kernel, run backwards along the dim); cumprod's comes from
// its own kernel, which stays exact where x has zeros (the quotient formula would divide by 0).
#include "autograd/record.h"
#include "core/copy.h"
#include "kernels/backend.h"
#include "ops/along.h"
#include "ops/ops.h"

namespace sg {

namespace {

using Grads = std::vector<Tensor>;

// The scan of x along a.dim, in x's dtype for float32/float64 input and int32 otherwise. No autograd.
Tensor scan_values(Scan op, const Tensor& x, const Along& a, bool reverse) {
  const DType dt = x.dtype() == DType::Float32 || x.dtype() == DType::Float64 ? x.dtype() : DType::Int32;
  const Tensor xc = as_contiguous(x, dt);
  Tensor out = Tensor::uninitialized(x.shape(), dt, x.device());
  if (out.numel() > 0) backend_for(x.device()).scan(op, dt, reverse, xc.dev_raw(), a.outer, a.r, a.inner, out.dev_raw());
  return out;
}

// cumsum forwards or backwards along the dim; each direction is the other's gradient.
Tensor cumsum_along(const Tensor& x, const Along& a, bool reverse) {
  Tensor out = scan_values(Scan::Sum, x, a, reverse);
  return record("cumsum", out, {x}, [a, reverse](const Tensor& g) -> Grads { return {cumsum_along(g, a, !reverse)}; });
}

}  // namespace

Tensor cumsum(const Tensor& x, int64_t dim) { return cumsum_along(x, along(x.shape(), dim, "cumsum"), false); }

Tensor cumprod(const Tensor& x, int64_t dim) {
  const Along a = along(x.shape(), dim, "cumprod");
  Tensor out = scan_values(Scan::Prod, x, a, false);
  return record("cumprod", out, {x}, [x, a](const Tensor& g) -> Grads {
    const Tensor xc = as_contiguous(x, DType::Float32), gc = as_contiguous(g, DType::Float32);
    Tensor dx = Tensor::uninitialized(x.shape(), DType::Float32, x.device());
    if (dx.numel() > 0)
      backend_for(x.device()).cumprod_backward_f32(xc.dev_f32(), gc.dev_f32(), a.outer, a.r, a.inner, dx.dev_f32());
    return {dx};
  });
}

}  // namespace sg
