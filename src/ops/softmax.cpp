// softmax and log_softmax over any dim, and causal_softmax over the last (attention's causal mask
// without the mask). The row kernels work on the last dim, so another dim is swapped to the end
// (a contiguous copy) and the result swapped back. float32 and float64 (each its own row kernel).
#include "autograd/record.h"
#include "core/copy.h"
#include "kernels/backend.h"
#include "ops/ops.h"

namespace sg {
namespace {

// t with dims d0 and d1 exchanged (a view).
Tensor swapped(const Tensor& t, int64_t d0, int64_t d1) {
  Shape shape = t.shape(), strides = t.strides();
  std::swap(shape[d0], shape[d1]);
  std::swap(strides[d0], strides[d1]);
  return Tensor::view_of(t, shape, strides, t.offset());
}

// out = softmax of x along d, recorded with d/dx: y ⊙ (g − Σ g ⊙ y).
Tensor record_softmax_grad(const char* op, const Tensor& out, const Tensor& x, int64_t d) {
  return record(op, out, {x}, {out}, [d](const Tensor& g, const SavedTensors& s) {
    const Tensor& y = s[0];
    return std::vector<Tensor>{mul(y, sub(g, sum(mul(g, y), {d}, true)))};
  });
}

Tensor softmax_impl(const Tensor& x, int64_t dim, bool log_, const char* op) {
  check(x.dtype() == DType::Float32 || x.dtype() == DType::Float64, op,
        ": expected a floating point (float32 or float64) tensor, got ", dtype_name(x.dtype()));
  const int64_t nd = x.ndim();
  const int64_t d = normalize_dim(dim, nd, op);
  const bool last = nd == 0 || d == nd - 1;
  Tensor xt = last ? as_contiguous(x) : contiguous_copy(swapped(x, d, nd - 1));
  const int64_t cols = nd == 0 ? 1 : x.shape()[d];
  Tensor yt = Tensor::uninitialized(xt.shape(), x.dtype(), xt.device());  // every row written
  if (yt.numel() > 0) {
    const Backend& be = backend_for(xt.device());
    if (x.dtype() == DType::Float64)
      be.softmax_rows_f64(static_cast<const double*>(xt.dev_raw()), static_cast<double*>(yt.dev_raw()),
                          yt.numel() / cols, cols, log_);
    else
      be.softmax_rows_f32(xt.dev_f32(), yt.dev_f32(), yt.numel() / cols, cols, log_);
  }
  Tensor out = last ? yt : contiguous_copy(swapped(yt, d, nd - 1));
  if (log_) {
    // d/dx: g − softmax · Σ g.
    return record(op, out, {x}, {out}, [d](const Tensor& g, const SavedTensors& s) {
      return std::vector<Tensor>{sub(g, mul(exp(s[0]), sum(g, {d}, true)))};
    });
  }
  return record_softmax_grad(op, out, x, d);
}

}  // namespace

Tensor softmax(const Tensor& x, int64_t dim) { return softmax_impl(x, dim, false, "softmax"); }

// The last dim holds the keys, the second-last the L query positions (attention's [.., L, S]
// scores). The y = 0 entries make softmax's backward exact as it is: their y ⊙ (…) is 0, the
// gradient of the −inf mask's entries in softmax(x + mask).
Tensor causal_softmax(const Tensor& x) {
  const char* op = "causalSoftmax";
  check(x.dtype() == DType::Float32 || x.dtype() == DType::Float64, op,
        ": expected a floating point (float32 or float64) tensor, got ", dtype_name(x.dtype()));
  const int64_t nd = x.ndim();
  check(nd >= 2, op, ": expected scores of at least 2 dims [..., L, S], got ", nd, " dims");
  const Tensor xt = as_contiguous(x);
  const int64_t L = x.shape()[nd - 2], cols = x.shape()[nd - 1];
  Tensor y = Tensor::uninitialized(xt.shape(), x.dtype(), xt.device());  // every row written
  if (y.numel() > 0) {
    const Backend& be = backend_for(xt.device());
    if (x.dtype() == DType::Float64)
      be.softmax_causal_rows_f64(static_cast<const double*>(xt.dev_raw()), static_cast<double*>(y.dev_raw()),
                                 y.numel() / cols, cols, L);
    else
      be.softmax_causal_rows_f32(xt.dev_f32(), y.dev_f32(), y.numel() / cols, cols, L);
  }
  return record_softmax_grad(op, y, x, nd - 1);
}
Tensor log_softmax(const Tensor& x, int64_t dim) { return softmax_impl(x, dim, true, "logSoftmax"); }

}  // namespace sg
