// softmax and log_softmax over any dim. The row kernels work on the last dim, so another
// dim is swapped to the end (a contiguous copy) and the result swapped back. float32 and float64
// (each its own row kernel).
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
  // d/dx: y ⊙ (g − Σ g ⊙ y).
  return record(op, out, {x}, {out}, [d](const Tensor& g, const SavedTensors& s) {
    const Tensor& out = s[0];
    return std::vector<Tensor>{mul(out, sub(g, sum(mul(g, out), {d}, true)))};
  });
}

}  // namespace

Tensor softmax(const Tensor& x, int64_t dim) { return softmax_impl(x, dim, false, "softmax"); }
Tensor log_softmax(const Tensor& x, int64_t dim) { return softmax_impl(x, dim, true, "logSoftmax"); }

}  // namespace sg
