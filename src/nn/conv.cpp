// conv1d / conv2d / conv_transpose2d: argument checks with PyTorch's rules, output sizes, and
// the autograd wiring. The arithmetic is the backend's three convolution methods:
//   conv2d            forward = conv2d_f32,                dx = backward_data, dW = backward_weight
//   conv_transpose2d  forward = backward_data (with bias), dx = conv2d_f32,    dW = backward_weight
// (a transposed convolution is the input-gradient of the convolution that maps its output
// back onto its input). 1-d and unbatched inputs share the 2-d code: their buffers already
// have the layout of [N, C, 1, L] / [1, C, H, W]. This file only checks, allocates and records:
// tensor memory is touched by the backend alone.
#include "nn/conv.h"

#include <algorithm>
#include <string>

#include "autograd/grad_mode.h"
#include "autograd/record.h"
#include "core/copy.h"
#include "core/error.h"
#include "kernels/backend.h"
#include "kernels/reference/reference_kernels.h"
#include "nn/pool.h"
#include "nn/size_args.h"
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {
namespace {

using size_args::check_each;
using size_args::Ints;
using size_args::per_dim;

// Everything one convolution call needs once its arguments are checked.
struct Setup {
  ConvGeom geom;
  Shape out_shape;
  int nd = 2;
  bool batched = true;
};

struct Args {
  Ints stride, dilation, output_padding;
  ConvPadding padding{0};
  int64_t groups = 1;
};

// The checks shared by every convolution, then the geometry. `transposed`: w is
// [C_in, O/groups, k...] and the output grows with the stride.
Setup setup(const char* op, int nd, bool transposed, const Tensor& x, const Tensor& w, const Tensor& b,
            const Args& a) {
  check(x.defined() && w.defined(), op, ": expected an input and a weight tensor, got an undefined one");
  const char* dims_text = nd == 1 ? "L" : "H, W";
  check(x.dtype() == DType::Float32 || x.dtype() == DType::Float64, op, ": expected a float32 or float64 input, got ",
        dtype_name(x.dtype()));
  check(w.dtype() == x.dtype(), op, ": expected a weight of the input's dtype (", dtype_name(x.dtype()), "), got ",
        dtype_name(w.dtype()));
  check(x.ndim() == nd + 1 || x.ndim() == nd + 2, op, ": expected a ", nd + 1, "-D (unbatched) or ", nd + 2,
        "-D (batched) input [N, C, ", dims_text, "], got shape ", x.shape());
  const char* kernel_text = nd == 1 ? "kL" : "kH, kW";
  check(w.ndim() == nd + 2, op, ": expected a ", nd + 2, "-D weight [",
        transposed ? "in_channels, out_channels/groups, " : "out_channels, in_channels/groups, ", kernel_text,
        "], got shape ", w.shape());
  check(a.groups > 0, op, ": groups must be positive, got ", a.groups);

  Setup s;
  s.nd = nd;
  s.batched = x.ndim() == nd + 2;
  const int64_t lead = s.batched ? 1 : 0;  // index of the channel dim of x
  const int64_t C = x.shape()[lead];
  const Ints in(x.shape().begin() + lead + 1, x.shape().end());
  const Ints k(w.shape().begin() + 2, w.shape().end());
  for (int64_t e : k)
    check(e > 0, op, ": expected a weight with positive kernel sizes [", kernel_text, "], got shape ", w.shape());

  // Channels. The message shows the input shape the weight asks for.
  int64_t O;
  auto expected_input = [&](int64_t channels) {
    std::string e = s.batched ? "[N, " : "[";
    return e + std::to_string(channels) + ", " + dims_text + "]";
  };
  if (!transposed) {
    const int64_t Cg = w.shape()[1];
    if (C != Cg * a.groups)
      fail(op, ": expected input of shape ", expected_input(Cg * a.groups), " (weight has ", Cg,
           " input channels × ", a.groups, a.groups == 1 ? " group" : " groups", "), got ", x.shape());
    O = w.shape()[0];
    check(O % a.groups == 0, op, ": out_channels ", O, " (weight.shape[0]) is not divisible by groups ",
          a.groups);
  } else {
    if (C != w.shape()[0])
      fail(op, ": expected input of shape ", expected_input(w.shape()[0]), " (weight has ", w.shape()[0],
           " input channels), got ", x.shape());
    check(C % a.groups == 0, op, ": in_channels ", C, " (weight.shape[0]) is not divisible by groups ",
          a.groups);
    O = w.shape()[1] * a.groups;
  }
  if (b.defined()) {
    check(b.dtype() == x.dtype(), op, ": expected a bias of the input's dtype (", dtype_name(x.dtype()), "), got ",
          dtype_name(b.dtype()));
    check(b.ndim() == 1 && b.shape()[0] == O, op, ": expected bias of shape [", O,
          "] (one per output channel), got ", b.shape());
  }

  const Ints stride = per_dim(op, "stride", a.stride, nd);
  const Ints dilation = per_dim(op, "dilation", a.dilation, nd);
  check_each(op, "stride", stride, 1);
  check_each(op, "dilation", dilation, 1);

  // Padding: [lo, hi] per dim.
  Ints lo(nd), hi(nd);
  const ConvPadding& p = a.padding;
  if (p.mode.empty()) {
    lo = hi = per_dim(op, "padding", p.sizes, nd);
    check_each(op, "padding", lo, 0);
  } else if (transposed) {
    fail(op, ": padding must be a list of integers, got '", p.mode, "'");
  } else if (p.mode == "valid") {
    std::fill(lo.begin(), lo.end(), 0);
    hi = lo;
  } else if (p.mode == "same") {
    for (int64_t st : stride)
      check(st == 1, op, ": padding='same' is not supported for strided convolutions (stride ", stride, ")");
    for (int d = 0; d < nd; ++d) {
      const int64_t total = dilation[d] * (k[d] - 1);
      lo[d] = total / 2;
      hi[d] = total - lo[d];
    }
  } else {
    fail(op, ": padding must be 'same', 'valid' or a list of integers, got '", p.mode, "'");
  }

  // Spatial sizes. `conv_in` / `conv_out` are those of the forward convolution the geometry
  // describes: for a transposed one, its output and its input.
  Ints out(nd), conv_in(nd), conv_out(nd);
  if (!transposed) {
    Ints padded(nd), eff(nd);
    for (int d = 0; d < nd; ++d) {
      padded[d] = in[d] + lo[d] + hi[d];
      eff[d] = dilation[d] * (k[d] - 1) + 1;
    }
    for (int d = 0; d < nd; ++d)
      if (eff[d] > padded[d])
        fail(op, ": kernel size ", k, " (", eff, " with dilation) is larger than the padded input ", padded,
             " (input ", in, ", padding ", lo, ")");
    for (int d = 0; d < nd; ++d) out[d] = (padded[d] - eff[d]) / stride[d] + 1;
    conv_in = in;
    conv_out = out;
  } else {
    const Ints op_ = per_dim(op, "outputPadding", a.output_padding, nd);
    check_each(op, "outputPadding", op_, 0);
    for (int d = 0; d < nd; ++d)
      if (op_[d] >= stride[d] && op_[d] >= dilation[d])
        fail(op, ": outputPadding must be smaller than either stride or dilation, got outputPadding ", op_,
             ", stride ", stride, ", dilation ", dilation);
    for (int d = 0; d < nd; ++d)
      out[d] = (in[d] - 1) * stride[d] - 2 * lo[d] + dilation[d] * (k[d] - 1) + op_[d] + 1;
    for (int d = 0; d < nd; ++d)
      if (out[d] <= 0)
        fail(op, ": the output size ", out, " is too small (input ", in, ", kernel ", k, ", stride ", stride,
             ", padding ", lo, ")");
    conv_in = out;
    conv_out = in;
  }

  // The 2-d geometry; a 1-d convolution has H = kH = 1.
  ConvGeom& g = s.geom;
  g.N = s.batched ? x.shape()[0] : 1;
  g.C = transposed ? O : C;
  g.O = transposed ? C : O;
  g.groups = a.groups;
  const int last = nd - 1;
  g.W = conv_in[last];
  g.oW = conv_out[last];
  g.kW = k[last];
  g.sW = stride[last];
  g.pW = lo[last];
  g.dW = dilation[last];
  if (nd == 2) {
    g.H = conv_in[0];
    g.oH = conv_out[0];
    g.kH = k[0];
    g.sH = stride[0];
    g.pH = lo[0];
    g.dH = dilation[0];
  }

  if (s.batched) s.out_shape.push_back(g.N);
  s.out_shape.push_back(O);
  s.out_shape.insert(s.out_shape.end(), out.begin(), out.end());
  return s;
}

// Every dim of a convolution's output but the channel dim 1.
Dims bias_dims(const Tensor& g) {
  Dims dims{0};
  for (int64_t d = 2; d < g.ndim(); ++d) dims.push_back(d);
  return dims;
}

// db [O] = Σ over images and positions of g [N, O, S] (contiguous): per-row sums to [N, O],
// then the column sums over N, both straight reductions (sum over dims {0, 2} would first copy
// g into [O, N·S] order).
Tensor bias_grad(const Tensor& g, int64_t N, int64_t O) {
  if (g.dtype() == DType::Float64) return sum(g, bias_dims(g));  // summed in double (reduce_f64)
  const Device dev = g.device();
  const Backend& be = backend_for(dev);
  const int64_t S = g.numel() / std::max<int64_t>(N * O, 1);
  Tensor rows = Tensor::uninitialized({N * O}, DType::Float32, dev);
  Tensor db = Tensor::uninitialized({O}, DType::Float32, dev);
  if (N * O > 0) be.reduce_f32(Reduce::Sum, g.dev_f32(), N * O, S, 1, rows.dev_f32());
  if (O > 0) be.reduce_f32(Reduce::Sum, rows.dev_f32(), 1, N, O, db.dev_f32());
  return db;
}

// bias_grad through ops (while a gradient is recorded): Σ over every dim but the channel dim 1.
Tensor bias_grad_rec(const Tensor& g) { return sum(g, bias_dims(g)); }

// Runs a backend call; an Error from it (a scratch buffer too large for the backend's method)
// gets the op's name in front.
template <class F>
void with_op_name(const char* op, F&& f) {
  try {
    f();
  } catch (const Error& e) {
    fail(op, ": ", e.what());
  }
}

const float* opt_f32(const Tensor& t) { return t.defined() ? t.dev_f32() : nullptr; }
const double* opt_f64(const Tensor& t) { return t.defined() ? t.f64() : nullptr; }

// The dtype a convolution of `in` computes and returns in: float64 for float64 (the reference
// loops in double, on the CPU: float64's only device), else float32 (the backend's methods).
DType conv_dtype(const Tensor& in) { return in.dtype() == DType::Float64 ? DType::Float64 : DType::Float32; }

// ---- the backend's three convolution methods, on the device of their tensors (graph-free;
// each allocates and returns its output) ----
// out = act(conv(in, w) + bias).
Tensor run_conv(const char* op, const ConvGeom& g, const Tensor& in, const Tensor& w, const Tensor& bias, GemmAct act,
                const Shape& out_shape) {
  const Device dev = in.device();
  const DType dt = conv_dtype(in);
  const Tensor ic = as_contiguous(in, dt), wc = as_contiguous(w, dt);
  const Tensor bc = bias.defined() ? as_contiguous(bias, dt) : Tensor();
  Tensor y = Tensor::uninitialized(out_shape, dt, dev);  // written in full by the backend
  if (dt == DType::Float64) {
    ref::conv2d_f64(g, ic.f64(), wc.f64(), opt_f64(bc), act, y.f64());
    return y;
  }
  with_op_name(op, [&] { backend_for(dev).conv2d_f32(g, ic.dev_f32(), wc.dev_f32(), opt_f32(bc), act, y.dev_f32()); });
  return y;
}

// The input gradient of conv for out_grad (= the transposed convolution), + bias per channel.
Tensor run_conv_data(const char* op, const ConvGeom& g, const Tensor& out_grad, const Tensor& w, const Tensor& bias,
                     const Shape& in_shape) {
  const Device dev = out_grad.device();
  const DType dt = conv_dtype(out_grad);
  const Tensor oc = as_contiguous(out_grad, dt), wc = as_contiguous(w, dt);
  const Tensor bc = bias.defined() ? as_contiguous(bias, dt) : Tensor();
  Tensor dx = Tensor::uninitialized(in_shape, dt, dev);  // written in full by the backend
  if (dt == DType::Float64) {
    ref::conv2d_backward_data_f64(g, oc.f64(), wc.f64(), opt_f64(bc), dx.f64());
    return dx;
  }
  with_op_name(op, [&] {
    backend_for(dev).conv2d_backward_data_f32(g, oc.dev_f32(), wc.dev_f32(), opt_f32(bc), dx.dev_f32());
  });
  return dx;
}

// The weight gradient of conv for its input and out_grad.
Tensor run_conv_weight(const char* op, const ConvGeom& g, const Tensor& in, const Tensor& out_grad,
                       const Shape& w_shape) {
  const Device dev = in.device();
  const DType dt = conv_dtype(in);
  const Tensor ic = as_contiguous(in, dt), oc = as_contiguous(out_grad, dt);
  Tensor dw = Tensor::uninitialized(w_shape, dt, dev);  // written in full by the backend
  if (dt == DType::Float64) {
    ref::conv2d_backward_weight_f64(g, ic.f64(), oc.f64(), dw.f64());
    return dw;
  }
  with_op_name(op, [&] { backend_for(dev).conv2d_backward_weight_f32(g, ic.dev_f32(), oc.dev_f32(), dw.dev_f32()); });
  return dw;
}

// ---- double backward: the convolution of geometry g and its two gradient maps as recorded ops,
// each differentiated through the others (while a gradient is recorded; PyTorch's
// _convolution_double_backward). in = conv's input side, out = its output side.
Tensor conv_out_rec(const ConvGeom& g, const Tensor& in, const Tensor& w, const Shape& out_shape);
Tensor conv_in_rec(const ConvGeom& g, const Tensor& out_grad, const Tensor& w, const Shape& in_shape);
Tensor conv_w_rec(const ConvGeom& g, const Tensor& in, const Tensor& out_grad, const Shape& w_shape);

// in ↦ conv(in, w).
Tensor conv_out_rec(const ConvGeom& g, const Tensor& in, const Tensor& w, const Shape& out_shape) {
  Tensor y = run_conv("conv", g, in, w, Tensor(), GemmAct::None, out_shape);
  return record("conv", y, {in, w}, {in, w}, [g](const Tensor& gg, const SavedTensors& s) {
    return std::vector<Tensor>{s[0].requires_grad() ? conv_in_rec(g, gg, s[1], s[0].shape()) : Tensor(),
                               s[1].requires_grad() ? conv_w_rec(g, s[0], gg, s[1].shape()) : Tensor()};
  });
}

// out_grad ↦ conv's input gradient (the transposed convolution).
Tensor conv_in_rec(const ConvGeom& g, const Tensor& out_grad, const Tensor& w, const Shape& in_shape) {
  Tensor dx = run_conv_data("convInputGrad", g, out_grad, w, Tensor(), in_shape);
  return record("convInputGrad", dx, {out_grad, w}, {out_grad, w}, [g](const Tensor& gg, const SavedTensors& s) {
    return std::vector<Tensor>{s[0].requires_grad() ? conv_out_rec(g, gg, s[1], s[0].shape()) : Tensor(),
                               s[1].requires_grad() ? conv_w_rec(g, gg, s[0], s[1].shape()) : Tensor()};
  });
}

// (in, out_grad) ↦ conv's weight gradient.
Tensor conv_w_rec(const ConvGeom& g, const Tensor& in, const Tensor& out_grad, const Shape& w_shape) {
  Tensor dw = run_conv_weight("convWeightGrad", g, in, out_grad, w_shape);
  return record("convWeightGrad", dw, {in, out_grad}, {in, out_grad}, [g](const Tensor& gg, const SavedTensors& s) {
    return std::vector<Tensor>{s[0].requires_grad() ? conv_in_rec(g, s[1], gg, s[0].shape()) : Tensor(),
                               s[1].requires_grad() ? conv_out_rec(g, s[0], gg, s[1].shape()) : Tensor()};
  });
}

// ReLU's backward at its output y: gy where y > 0. Recorded (y's mask as a constant: ReLU's
// second derivative is 0) while a gradient is recorded.
Tensor relu_grad(const char* op, const Tensor& y, const Tensor& gy) {
  if (recording_backward({gy}) || gy.dtype() == DType::Float64) return mul(gy, cast(gt(y, scalar_tensor(0.0)), gy.dtype()));
  return binary_f32(Binary::ReluBackward, y, as_contiguous(gy, DType::Float32), op);
}

// The gradients of x, w and b of a convolution whose output gradient is gz (after its
// activation), recorded while a gradient is being recorded.
std::vector<Tensor> conv_backward(const char* op, const ConvGeom& g, const Tensor& gz, const SavedTensors& s,
                                  bool need_x, bool need_w, bool need_b) {
  if (recording_backward({gz, s[0], s[1]}))
    return {need_x ? conv_in_rec(g, gz, s[1], s[0].shape()) : Tensor(),
            need_w ? conv_w_rec(g, s[0], gz, s[1].shape()) : Tensor(), need_b ? bias_grad_rec(gz) : Tensor()};
  const Tensor xc = s[0].detach(), wc = s[1].detach(), gc = as_contiguous(gz, conv_dtype(gz));
  return {need_x ? run_conv_data(op, g, gc, wc, Tensor(), xc.shape()) : Tensor(),
          need_w ? run_conv_weight(op, g, xc, gc, wc.shape()) : Tensor(), need_b ? bias_grad(gc, g.N, g.O) : Tensor()};
}

// Forward convolution of any dims, with ReLU optionally fused into the backend's write-back
// (its backward then goes through the output: y > 0 exactly where the pre-activation is).
Tensor conv_nd(const char* op, int nd, const Tensor& x, const Tensor& w, const Tensor& b, const Args& a,
               GemmAct act) {
  const Setup s = setup(op, nd, false, x, w, b, a);
  const ConvGeom g = s.geom;
  Tensor out = run_conv(op, g, x.detach(), w.detach(), b.defined() ? b.detach() : Tensor(), act, s.out_shape);
  const bool need_x = x.requires_grad(), need_w = w.requires_grad(), need_b = b.defined() && b.requires_grad();
  // With ReLU fused, the output is saved too (kept graph-free by the node: no reference cycle)
  // and dropped as soon as its mask is applied, with the incoming gradient (autograd/node.h).
  const SavedTensors saved = act == GemmAct::Relu ? SavedTensors{x, w, out} : SavedTensors{x, w};
  return record(op, out, {x, w, b}, saved, [g, act, need_x, need_w, need_b, op](Tensor& gy, SavedTensors& sv) {
    if (act != GemmAct::Relu) return conv_backward(op, g, gy, sv, need_x, need_w, need_b);
    const Tensor gz = relu_grad(op, sv[2].detach(), gy);
    gy = Tensor();
    sv[2] = Tensor();
    return conv_backward(op, g, gz, sv, need_x, need_w, need_b);
  });
}

}  // namespace

Tensor conv2d_relu_max_pool2d(const Tensor& x, const Tensor& w, const Tensor& b, const Ints& stride,
                              const ConvPadding& padding, const Ints& dilation, int64_t groups, const Ints& pool_kernel,
                              const Ints& pool_stride, const Ints& pool_padding, const Ints& pool_dilation,
                              bool ceil_mode) {
  const char* op = "conv2d_relu_max_pool2d";
  const Setup s = setup("conv2d", 2, false, x, w, b, Args{stride, dilation, {0}, padding, groups});
  check(x.dtype() == DType::Float32, op, ": the fused kernel is float32's, got a ", dtype_name(x.dtype()),
        " input (run conv2d, relu and maxPool2d)");
  const ConvGeom g = s.geom;
  const MaxPool2dPlan pool =
      max_pool2d_plan("max_pool2d", s.out_shape, pool_kernel, pool_stride, pool_padding, pool_dilation, ceil_mode);
  check(g.oH * g.oW <= INT32_MAX, op, ": a plane of ", g.oH * g.oW, " elements is too large");
  const Device dev = x.device();
  const Tensor xc = as_contiguous(x).detach(), wc = as_contiguous(w).detach();
  const Tensor bc = b.defined() ? as_contiguous(b).detach() : Tensor();
  Tensor out = Tensor::uninitialized(pool.out_shape, DType::Float32, dev);  // every window is written
  // The argmax only where a gradient will be taken (record() records exactly then).
  const bool need_idx = grad_enabled() && any_requires_grad({x, w, b});
  const Tensor idx = need_idx ? Tensor::uninitialized(pool.out_shape, DType::Int32, dev) : Tensor();
  if (out.numel() > 0)
    with_op_name(op, [&] {
      backend_for(dev).conv2d_maxpool2d_f32(g, xc.dev_f32(), wc.dev_f32(), opt_f32(bc), GemmAct::Relu, pool.geom,
                                            out.dev_f32(), need_idx ? idx.dev_i32() : nullptr);
    });
  const bool need_x = x.requires_grad(), need_w = w.requires_grad(), need_b = b.defined() && b.requires_grad();
  const Shape conv_shape = s.out_shape;
  const PoolGeom pg = pool.geom;
  const Tensor y = out.detach();
  return record(op, out, {x, w, b}, {x, w}, [=](const Tensor& gy, const SavedTensors& sv) {
    // max_pool2d(relu(z)) = relu(max_pool2d(z)) with the same argmax wherever the max is
    // positive; where it is not, ReLU's gradient is 0 either way. So: ReLU's backward at the
    // pooled output, then the pool's scatter to the convolution's output grid.
    const Tensor gz = max_pool_backward(pg, idx, relu_grad(op, y, gy), conv_shape);
    return conv_backward(op, g, gz, sv, need_x, need_w, need_b);
  });
}

Tensor conv1d(const Tensor& x, const Tensor& w, const Tensor& b, const Ints& stride, const ConvPadding& padding,
              const Ints& dilation, int64_t groups) {
  return conv_nd("conv1d", 1, x, w, b, Args{stride, dilation, {0}, padding, groups}, GemmAct::None);
}

Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& b, const Ints& stride, const ConvPadding& padding,
              const Ints& dilation, int64_t groups, const std::string& activation) {
  GemmAct act = GemmAct::None;
  if (activation == "relu") act = GemmAct::Relu;
  else check(activation == "none", "conv2d: expected activation to be 'none' or 'relu', got '", activation, "'");
  return conv_nd("conv2d", 2, x, w, b, Args{stride, dilation, {0}, padding, groups}, act);
}

Tensor conv_transpose2d(const Tensor& x, const Tensor& w, const Tensor& b, const Ints& stride,
                        const Ints& padding, const Ints& output_padding, int64_t groups, const Ints& dilation) {
  const char* op = "conv_transpose2d";
  const Setup s = setup(op, 2, true, x, w, b, Args{stride, dilation, output_padding, ConvPadding(padding), groups});
  // g describes the convolution from this op's output back to its input.
  const ConvGeom g = s.geom;
  Tensor out = run_conv_data(op, g, x.detach(), w.detach(), b.defined() ? b.detach() : Tensor(), s.out_shape);
  const bool need_x = x.requires_grad(), need_w = w.requires_grad(), need_b = b.defined() && b.requires_grad();
  return record(op, out, {x, w, b}, {x, w}, [g, need_x, need_w, need_b, op](const Tensor& gy, const SavedTensors& sv) {
    // This op is the conv's input-gradient map: its gradients are the conv itself and the
    // weight gradient with the roles of input and output swapped.
    if (recording_backward({gy, sv[0], sv[1]}))
      return std::vector<Tensor>{need_x ? conv_out_rec(g, gy, sv[1], sv[0].shape()) : Tensor(),
                                 need_w ? conv_w_rec(g, gy, sv[0], sv[1].shape()) : Tensor(),
                                 need_b ? bias_grad_rec(gy) : Tensor()};
    const Tensor gc = as_contiguous(gy, conv_dtype(gy)), xc = sv[0].detach(), wc = sv[1].detach();
    return std::vector<Tensor>{need_x ? run_conv(op, g, gc, wc, Tensor(), GemmAct::None, xc.shape()) : Tensor(),
                               need_w ? run_conv_weight(op, g, gc, xc, wc.shape()) : Tensor(),
                               need_b ? bias_grad(gc, g.N, g.C) : Tensor()};
  });
}

}  // namespace sg
