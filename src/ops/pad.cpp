// pad: PyTorch's F.pad. pads come in (left, right) pairs from the last dim backwards.
// constant: any number of dims, negative pads crop. reflect/replicate: any number of trailing
// dims (PyTorch allows 1–3); each output element reads one source element through a per-dim
// index map (kernels/data_kernels.h: PadGeom), and the gradient scatter-adds back along the same
// maps, so border elements that several outputs copied collect all their gradients.
#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#include "autograd/record.h"
#include "core/copy.h"
#include "core/error.h"
#include "kernels/backend.h"
#include "ops/ops.h"

namespace sg {

namespace {

using Grads = std::vector<Tensor>;

Tensor raw_narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length) {
  Shape shape = x.shape(), strides = x.strides();
  int64_t offset = x.offset() + start * strides[dim];
  shape[dim] = length;
  return Tensor::view_of(x, std::move(shape), std::move(strides), offset);
}

// The window both tensors share in constant mode: x[src] lands in out[dst].
struct Window {
  std::vector<int64_t> dim, src_start, dst_start, length;
};

Tensor window(const Tensor& t, const Window& w, const std::vector<int64_t>& starts) {
  Tensor v = t;
  for (size_t i = 0; i < w.dim.size(); ++i) v = raw_narrow(v, w.dim[i], starts[i], w.length[i]);
  return v;
}

Tensor pad_constant(const Tensor& x, const Shape& out_shape, const std::vector<int64_t>& pads, double value) {
  Window w;
  int64_t nd = x.ndim();
  for (size_t j = 0; j < pads.size() / 2; ++j) {
    int64_t d = nd - 1 - int64_t(j), l = pads[2 * j], r = pads[2 * j + 1];
    int64_t cut_l = std::max<int64_t>(0, -l), cut_r = std::max<int64_t>(0, -r);
    w.dim.push_back(d);
    w.src_start.push_back(cut_l);
    w.dst_start.push_back(std::max<int64_t>(0, l));
    w.length.push_back(std::max<int64_t>(0, x.shape()[d] - cut_l - cut_r));
  }
  Tensor out = full(out_shape, value, x.dtype(), x.device());
  copy_into(window(out, w, w.dst_start), window(x, w, w.src_start));
  Shape in_shape = x.shape();
  return record("pad", out, {x}, [in_shape, w, pads](const Tensor& g) {
    Tensor grad = zeros(in_shape, g.dtype(), g.device());  // the gradient's dtype (float32 or float64)
    copy_into(window(grad, w, w.src_start), window(g, w, w.dst_start));
    return Grads{linear_grad("padBackward", g, grad, [pads](const Tensor& gg) { return pad(gg, pads); })};
  });
}

Tensor pad_mapped(const Tensor& x, const Shape& out_shape, const std::vector<int64_t>& pads, bool reflect) {
  int64_t nd = x.ndim();
  for (size_t j = 0; j < pads.size() / 2; ++j) {
    int64_t d = nd - 1 - int64_t(j), l = pads[2 * j], r = pads[2 * j + 1], size = x.shape()[d];
    if (reflect)
      check(l < size && r < size, "pad: reflect padding (", l, ", ", r,
            ") must be less than the size of the padded dim (", size, " at dim ", d, " of input ", x.shape(),
            ")");
    else
      check(size > 0 || out_shape[d] == 0, "pad: replicate padding needs a non-empty dim, got size 0 at dim ",
            d, " of input ", x.shape());
  }
  // Allocated first: Tensor::empty rejects an impossible size with a clear message, before the
  // kernel sizes its index maps with a size_t that would wrap in wasm32 (2^32 + 5 → 5).
  Tensor out = Tensor::uninitialized(out_shape, x.dtype(), x.device());
  for (int64_t d = 0; d < nd; ++d)
    check(uint64_t(out_shape[d]) <= std::numeric_limits<size_t>::max() / sizeof(int64_t), "pad: the padded size ",
          out_shape[d], " of dim ", d, " is too large (output shape ", out_shape, ")");
  PadGeom geom;
  geom.out_shape = out_shape;
  geom.in_shape = x.shape();
  geom.in_strides = x.strides();
  geom.left.assign(size_t(nd), 0);
  geom.reflect = reflect;
  for (size_t j = 0; j < pads.size() / 2; ++j) geom.left[size_t(nd - 1 - int64_t(j))] = pads[2 * j];
  if (out.numel() > 0) backend_for(x.device()).pad_mapped(dtype_size(x.dtype()), geom, x.dev_raw(), out.dev_raw());
  return record("pad", out, {x}, [geom, pads, reflect](const Tensor& g) {
    if (g.dtype() == DType::Float64) {
      // In double: each output's source position (the same pad of the positions 0..n−1), and
      // the gradient scatter-added back to it (recorded: its own adjoint is this pad again).
      const int64_t n = numel_of(geom.in_shape);
      const Tensor at = pad(reshape(arange(0, double(n), 1, DType::Int32, g.device()), geom.in_shape), pads,
                            reflect ? "reflect" : "replicate");
      const Tensor flat = reshape(g, {g.numel()});
      return Grads{reshape(scatter_add(zeros({n}, DType::Float64, g.device()), 0, reshape(at, {at.numel()}), flat),
                           geom.in_shape)};
    }
    Tensor gc = as_contiguous(g, DType::Float32);
    Tensor grad = zeros(geom.in_shape, DType::Float32, g.device());
    PadGeom back = geom;
    back.in_strides = contiguous_strides(geom.in_shape);
    if (gc.numel() > 0) backend_for(g.device()).pad_mapped_backward_f32(back, gc.dev_f32(), grad.dev_f32());
    return Grads{linear_grad("padBackward", g, grad, [pads, reflect](const Tensor& gg) {
      return pad(gg, pads, reflect ? "reflect" : "replicate");
    })};
  });
}

}  // namespace

Tensor pad(const Tensor& x, const std::vector<int64_t>& pads, const std::string& mode, double value) {
  check(x.defined(), "pad: undefined tensor");
  check(mode == "constant" || mode == "reflect" || mode == "replicate", "pad: unknown mode '", mode,
        "' (expected 'constant', 'reflect' or 'replicate')");
  check(pads.size() % 2 == 0, "pad: padding length must be even (pairs of left, right), got ", pads.size(),
        " values");
  int64_t nd = x.ndim();
  check(int64_t(pads.size() / 2) <= nd, "pad: padding length ", pads.size(),
        " is too large for a tensor with ", nd, " dims (at most ", 2 * nd, " values)");
  Shape out_shape = x.shape();
  for (size_t j = 0; j < pads.size() / 2; ++j) {
    int64_t d = nd - 1 - int64_t(j);
    out_shape[d] += pads[2 * j] + pads[2 * j + 1];
    check(out_shape[d] >= 0, "pad: the padded size of dim ", d, " would be ", out_shape[d], " (size ",
          x.shape()[d], ", pads ", pads[2 * j], " and ", pads[2 * j + 1], ")");
  }
  if (mode == "constant" || pads.empty()) return pad_constant(x, out_shape, pads, value);
  return pad_mapped(x, out_shape, pads, mode == "reflect");
}

}  // namespace sg
