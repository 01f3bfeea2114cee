// Layer norm on a device with row kernels (kernels/layer_kernels.h): x viewed as [R, C], C the
// normalized values of a row. The forward keeps x̂ and rstd for the backward, as norm.cpp's
// composed form does; the backward is its closed form, dx = rstd·(dx̂ − mean(dx̂) −
// x̂·mean(dx̂·x̂)) with dx̂ = g·w, dw = Σ g·x̂, db = Σ g.
#include "nn/layer_norm_fused.h"

#include "autograd/grad_mode.h"
#include "autograd/record.h"
#include "core/copy.h"
#include "kernels/backend.h"
#include "ops/ops.h"

namespace sg {
namespace {
float* opt_ptr(const Tensor& t) { return t.defined() ? t.dev_f32() : nullptr; }
}  // namespace

Tensor layer_norm_fused(const char* op, const Tensor& x, const Shape& normalized_shape, const Tensor& weight,
                        const Tensor& bias, double eps) {
  const Device dev = x.device();
  // The CPU backends have no row kernel (their results stay the composed form's): skip the buffers.
  if (dev == Device::CPU) return Tensor();
  const int64_t C = numel_of(normalized_shape);
  const int64_t R = numel_of(Shape(x.shape().begin(), x.shape().end() - int64_t(normalized_shape.size())));
  if (R * C == 0) return Tensor();  // nothing to compute: the composed form handles empty shapes
  const Backend& be = backend_for(dev);
  const Tensor xc = as_contiguous(x).detach();
  const Tensor wc = weight.defined() ? as_contiguous(weight).detach() : Tensor();
  const Tensor bc = bias.defined() ? as_contiguous(bias).detach() : Tensor();
  Tensor y = Tensor::uninitialized(x.shape(), DType::Float32, dev);
  const Tensor xhat = Tensor::uninitialized(x.shape(), DType::Float32, dev);
  const Tensor rstd = Tensor::uninitialized({R}, DType::Float32, dev);
  if (!be.layer_norm_f32(xc.dev_f32(), opt_ptr(wc), opt_ptr(bc), R, C, eps, y.dev_f32(), xhat.dev_f32(),
                         rstd.dev_f32()))
    return Tensor();

  const bool need_x = x.requires_grad(), need_w = weight.defined() && weight.requires_grad(),
             need_b = bias.defined() && bias.requires_grad();
  const Shape w_shape = weight.defined() ? weight.shape() : Shape{}, b_shape = bias.defined() ? bias.shape() : Shape{};
  // A float16/bfloat16 input's float32 copy is saved as the 16-bit original (autograd/record.h):
  // then x̂ (a float32 tensor of the whole input) is not kept but made again from it in backward,
  // with rstd (float32, one a row), as norm.cpp's composed form does. The weight is read from the
  // saved list either way (a 16-bit weight's float32 copy is not kept).
  const Tensor kept_xhat = SaveOriginals::original_of(x) ? Tensor() : xhat;
  const Shape x_shape = x.shape();  // captured instead of x (which may be that float32 copy)
  return record(op, y, {x, weight, bias}, {x, weight}, [=](const Tensor& g, const SavedTensors& s) {
    if (recording_backward({g, s[0], s[1]})) {
      std::vector<Tensor> d = layer_norm_grads_ops(g, s[0], normalized_shape, s[1], eps);
      if (!need_x) d[0] = Tensor();
      if (!need_w) d[1] = Tensor();
      if (!need_b) d[2] = Tensor();
      return d;
    }
    const Backend& kb = backend_for(dev);
    const Tensor gc = as_contiguous(g, DType::Float32);
    const Tensor ws = s[1].defined() ? as_contiguous(s[1]).detach() : Tensor();
    // x̂ = (x − mean)·rstd, the mean over each row made again (the kernel keeps only rstd).
    Tensor xh = kept_xhat;
    if (!xh.defined()) {
      const Tensor rows = reshape(s[0].detach(), {R, C});
      xh = as_contiguous(mul(sub(rows, mean(rows, {1}, true)), reshape(rstd, {R, 1})));
    }
    Tensor dx = need_x ? Tensor::uninitialized(x_shape, DType::Float32, dev) : Tensor();
    Tensor dw = need_w ? Tensor::uninitialized(w_shape, DType::Float32, dev) : Tensor();
    Tensor db = need_b ? Tensor::uninitialized(b_shape, DType::Float32, dev) : Tensor();
    kb.layer_norm_backward_f32(gc.dev_f32(), xh.dev_f32(), rstd.dev_f32(), opt_ptr(ws), R, C, opt_ptr(dx),
                               opt_ptr(dw), opt_ptr(db));
    return std::vector<Tensor>{dx, dw, db};
  });
}

}  // namespace sg
