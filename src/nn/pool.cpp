// max/avg/adaptive-avg pooling: argument checks and output sizes with PyTorch's rules, the
// loops, and the backward passes. Every input is seen as P = N·C planes of H × W (1-d pools
// have H = 1). Average pools are "box means": each output averages a rectangle of the input
// whose row range, column range and divisor factor per dim, so avg_pool and
// adaptive_avg_pool differ only in how the per-dim windows are computed.
// The arithmetic is the backend's (Backend::max_pool2d_f32, LayerKernels::box_mean_f32 and their
// backwards) on the device of the input: this file checks, allocates and records.
#include "nn/pool.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "autograd/grad_mode.h"
#include "autograd/record.h"
#include "core/copy.h"
#include "core/error.h"
#include "kernels/backend.h"
#include "kernels/reference/reference_kernels.h"
#include "nn/size_args.h"
#include "ops/ops.h"

namespace sg {

// dx = the max pool's adjoint of gy (each window's gradient to its argmax), on gy's device.
// float64 gradients are routed in double (the reference loop, on the CPU).
Tensor max_pool_backward(const PoolGeom& pg, const Tensor& idx, const Tensor& gy, const Shape& x_shape) {
  const Device dev = idx.device();
  const DType dt = gy.dtype() == DType::Float64 ? DType::Float64 : DType::Float32;
  const Tensor gc = as_contiguous(gy, dt);
  Tensor dx = Tensor::uninitialized(x_shape, dt, dev);  // the kernel writes all of it
  if (dx.numel() > 0 && dt == DType::Float64) ref::max_pool2d_backward_f64(pg, gc.f64(), idx.dev_i32(), dx.f64());
  else if (dx.numel() > 0) backend_for(dev).max_pool2d_backward_f32(pg, gc.dev_f32(), idx.dev_i32(), dx.dev_f32());
  // Recorded: the adjoint reads each window's argmax again (nothing for a padding-only window).
  return linear_grad("maxPoolBackward", gy, dx, [idx, pg](const Tensor& gg) {
    const Tensor at = reshape(idx, {pg.P, pg.oH * pg.oW});
    const Tensor inside = ge(at, scalar_tensor(0.0, DType::Int32));
    const Tensor picked = gather(reshape(gg, {pg.P, pg.H * pg.W}), 1, where(inside, at, scalar_tensor(0.0, DType::Int32)));
    return reshape(mul(picked, cast(inside, gg.dtype())), idx.shape());
  });
}

namespace {

using size_args::check_each;
using size_args::Ints;
using size_args::per_dim;

int64_t floor_div(int64_t a, int64_t b) {  // b > 0
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

// The input as planes: the checks every pool shares, and the output shape.
struct Planes {
  int64_t P = 1, H = 1, W = 1;
  Ints in;         // the pooled sizes (nd of them)
  Shape lead;      // the dims before them ([N, C] or [C])
};

Planes planes(const char* op, int nd, const Tensor& x) {
  check(x.defined(), op, ": expected an input tensor, got an undefined one");
  check(x.dtype() == DType::Float32 || x.dtype() == DType::Float64, op, ": expected a float32 or float64 input, got ",
        dtype_name(x.dtype()));
  const char* dims_text = nd == 1 ? "L" : "H, W";
  check(x.ndim() == nd + 1 || x.ndim() == nd + 2, op, ": expected a ", nd + 1, "-D (unbatched) or ", nd + 2,
        "-D (batched) input [N, C, ", dims_text, "], got shape ", x.shape());
  // PyTorch allows an empty batch, not empty channels or sizes.
  for (int64_t d = x.ndim() == nd + 2 ? 1 : 0; d < x.ndim(); ++d)
    check(x.shape()[d] > 0, op, ": expected non-empty channel and size dims, got shape ", x.shape());
  Planes p;
  p.lead.assign(x.shape().begin(), x.shape().end() - nd);
  p.in.assign(x.shape().end() - nd, x.shape().end());
  p.P = numel_of(p.lead);
  p.W = p.in.back();
  if (nd == 2) p.H = p.in[0];
  return p;
}

// Sliding-window parameters after their checks, and PyTorch's output size per dim.
struct Window {
  Ints k, s, p, d, out;
};

Window sliding(const char* op, int nd, const Ints& in, const Ints& kernel, const Ints& stride, const Ints& padding,
               const Ints& dilation, bool ceil_mode) {
  Window w;
  w.k = per_dim(op, "kernelSize", kernel, nd);
  w.s = stride.empty() ? w.k : per_dim(op, "stride", stride, nd);
  w.p = per_dim(op, "padding", padding, nd);
  w.d = per_dim(op, "dilation", dilation, nd);
  check_each(op, "kernelSize", w.k, 1);
  check_each(op, "stride", w.s, 1);
  check_each(op, "padding", w.p, 0);
  check_each(op, "dilation", w.d, 1);
  for (int i = 0; i < nd; ++i)
    check(w.p[i] <= w.k[i] / 2, op, ": padding should be at most half of kernelSize, got padding ", w.p,
          " and kernelSize ", w.k);
  w.out.resize(nd);
  for (int i = 0; i < nd; ++i) {
    int64_t o = floor_div(in[i] + 2 * w.p[i] - w.d[i] * (w.k[i] - 1) - 1 + (ceil_mode ? w.s[i] - 1 : 0), w.s[i]) + 1;
    // ceil_mode: the last window must start inside the input or the left padding.
    if (ceil_mode && (o - 1) * w.s[i] >= in[i] + w.p[i]) --o;
    w.out[i] = o;
  }
  for (int i = 0; i < nd; ++i)
    if (w.out[i] <= 0)
      fail(op, ": the output size ", w.out, " is too small (input ", in, ", kernelSize ", w.k, ", stride ", w.s,
           ", padding ", w.p, ", dilation ", w.d, ")");
  return w;
}

Shape out_shape(const Planes& p, const Ints& out) {
  Shape s = p.lead;
  s.insert(s.end(), out.begin(), out.end());
  return s;
}

// ---- max pooling ----

// A 2-d view of a window spec (1-d: the H dim is a single row).
struct Geom2 {
  int64_t kH = 1, kW, sH = 1, sW, pH = 0, pW, dH = 1, dW, oH = 1, oW;
};

Geom2 geom2(int nd, const Window& w) {
  Geom2 g;
  const int l = nd - 1;
  g.kW = w.k[l], g.sW = w.s[l], g.pW = w.p[l], g.dW = w.d[l], g.oW = w.out[l];
  if (nd == 2) g.kH = w.k[0], g.sH = w.s[0], g.pH = w.p[0], g.dH = w.d[0], g.oH = w.out[0];
  return g;
}

Tensor max_pool(const char* op, int nd, const Tensor& x, const Ints& kernel, const Ints& stride,
                const Ints& padding, const Ints& dilation, bool ceil_mode) {
  const Planes pl = planes(op, nd, x);
  check(pl.H * pl.W <= INT32_MAX, op, ": a plane of ", pl.H * pl.W, " elements is too large");
  const Window w = sliding(op, nd, pl.in, kernel, stride, padding, dilation, ceil_mode);
  const Geom2 g = geom2(nd, w);
  const Shape shape = out_shape(pl, w.out);
  const Device dev = x.device();
  Tensor out = Tensor::uninitialized(shape, x.dtype(), dev);  // every window is written
  // The argmax only where a gradient will be taken (record() records exactly then).
  const bool need_idx = grad_enabled() && any_requires_grad({x});
  const Tensor idx = need_idx ? Tensor::uninitialized(shape, DType::Int32, dev) : Tensor();
  const PoolGeom pg{pl.P, pl.H, pl.W, g.oH, g.oW, g.kH, g.kW, g.sH, g.sW, g.pH, g.pW, g.dH, g.dW};
  const Tensor xc = as_contiguous(x).detach();
  if (out.numel() > 0 && x.dtype() == DType::Float64)
    ref::max_pool2d_f64(pg, xc.f64(), out.f64(), need_idx ? idx.dev_i32() : nullptr);
  else if (out.numel() > 0)
    backend_for(dev).max_pool2d_f32(pg, xc.dev_f32(), out.dev_f32(), need_idx ? idx.dev_i32() : nullptr);
  const Shape x_shape = x.shape();
  return record(op, out, {x}, [idx, x_shape, pg](const Tensor& gy) {
    return std::vector<Tensor>{max_pool_backward(pg, idx, gy, x_shape)};
  });
}

// ---- box means (avg_pool, adaptive_avg_pool: kernels/box_geom.h) ----

BoxDim avg_dim(int64_t in, int64_t k, int64_t s, int64_t p, int64_t out, bool count_include_pad) {
  BoxDim d;
  d.in = in, d.out = out, d.k = k, d.s = s, d.p = p, d.count_include_pad = count_include_pad;
  return d;
}

BoxDim adaptive_dim(int64_t in, int64_t out) {
  BoxDim d;
  d.in = in, d.out = out, d.adaptive = true;
  return d;
}

// The box means of x (any layout, any device) as a recorded op; its backward is linear, and,
// recorded, has the box means again as its own backward.
Tensor box_mean_of(const char* op, const Tensor& x, const BoxGeom& g, const Shape& shape) {
  const Device dev = x.device();
  // float64 in double (the reference loops, on the CPU), else float32 (the backend's).
  const DType dt = x.dtype() == DType::Float64 ? DType::Float64 : DType::Float32;
  const Tensor xc = as_contiguous(x, dt);
  Tensor out = Tensor::uninitialized(shape, dt, dev);  // every box is written
  if (out.numel() > 0 && dt == DType::Float64) ref::box_mean_f64(g, xc.f64(), out.f64());
  else if (out.numel() > 0) backend_for(dev).box_mean_f32(g, xc.dev_f32(), out.dev_f32());
  const Shape x_shape = x.shape();
  return record(op, out, {x}, [op, g, x_shape, shape, dev, dt](const Tensor& gy) {
    const Tensor gc = as_contiguous(gy, dt);
    Tensor dx = Tensor::uninitialized(x_shape, dt, dev);  // overwritten by the kernel
    if (dx.numel() > 0 && dt == DType::Float64) ref::box_mean_backward_f64(g, gc.f64(), dx.f64());
    else if (dx.numel() > 0) backend_for(dev).box_mean_backward_f32(g, gc.dev_f32(), dx.dev_f32());
    return std::vector<Tensor>{
        linear_grad("avgPoolBackward", gy, dx, [op, g, shape](const Tensor& gg) { return box_mean_of(op, gg, g, shape); })};
  });
}

Tensor avg_pool(const char* op, int nd, const Tensor& x, const Ints& kernel, const Ints& stride,
                const Ints& padding, bool ceil_mode, bool count_include_pad) {
  const Planes pl = planes(op, nd, x);
  const Window w = sliding(op, nd, pl.in, kernel, stride, padding, {1}, ceil_mode);
  const int l = nd - 1;
  BoxGeom g{pl.P, BoxDim::single(), avg_dim(pl.W, w.k[l], w.s[l], w.p[l], w.out[l], count_include_pad)};
  if (nd == 2) g.rows = avg_dim(pl.H, w.k[0], w.s[0], w.p[0], w.out[0], count_include_pad);
  return box_mean_of(op, x, g, out_shape(pl, w.out));
}

}  // namespace

MaxPool2dPlan max_pool2d_plan(const char* op, const Shape& shape, const Ints& kernel, const Ints& stride,
                              const Ints& padding, const Ints& dilation, bool ceil_mode) {
  check(shape.size() == 3 || shape.size() == 4, op, ": expected a 3-D (unbatched) or 4-D (batched) input [N, C, H, W], got shape ",
        shape);
  const Ints in(shape.end() - 2, shape.end());
  const Window w = sliding(op, 2, in, kernel, stride, padding, dilation, ceil_mode);
  const Geom2 g = geom2(2, w);
  const int64_t P = numel_of(Shape(shape.begin(), shape.end() - 2));
  Shape out(shape.begin(), shape.end() - 2);
  out.insert(out.end(), w.out.begin(), w.out.end());
  return {PoolGeom{P, in[0], in[1], g.oH, g.oW, g.kH, g.kW, g.sH, g.sW, g.pH, g.pW, g.dH, g.dW}, out};
}

Tensor max_pool1d(const Tensor& x, const Ints& kernel_size, const Ints& stride, const Ints& padding,
                  const Ints& dilation, bool ceil_mode) {
  return max_pool("max_pool1d", 1, x, kernel_size, stride, padding, dilation, ceil_mode);
}

Tensor max_pool2d(const Tensor& x, const Ints& kernel_size, const Ints& stride, const Ints& padding,
                  const Ints& dilation, bool ceil_mode) {
  return max_pool("max_pool2d", 2, x, kernel_size, stride, padding, dilation, ceil_mode);
}

Tensor avg_pool1d(const Tensor& x, const Ints& kernel_size, const Ints& stride, const Ints& padding,
                  bool ceil_mode, bool count_include_pad) {
  return avg_pool("avg_pool1d", 1, x, kernel_size, stride, padding, ceil_mode, count_include_pad);
}

Tensor avg_pool2d(const Tensor& x, const Ints& kernel_size, const Ints& stride, const Ints& padding,
                  bool ceil_mode, bool count_include_pad) {
  return avg_pool("avg_pool2d", 2, x, kernel_size, stride, padding, ceil_mode, count_include_pad);
}

Tensor adaptive_avg_pool2d(const Tensor& x, const Ints& output_size) {
  const char* op = "adaptive_avg_pool2d";
  const Planes pl = planes(op, 2, x);
  const Ints out = per_dim(op, "outputSize", output_size, 2);
  check_each(op, "outputSize", out, 0);
  const BoxGeom g{pl.P, adaptive_dim(pl.H, out[0]), adaptive_dim(pl.W, out[1])};
  return box_mean_of(op, x, g, out_shape(pl, out));
}

}  // namespace sg
