// conv1d / conv2d / conv_transpose2d: argument checks with PyTorch's rules, output sizes, and
// the autograd wiring. The arithmetic is the three GEMM paths of conv_gemm.h:
//   conv2d            forward = forward path,     dx = input-grad path, dW = weight-grad path
//   conv_transpose2d  forward = input-grad path,  dx = forward path,    dW = weight-grad path
// (a transposed convolution is the input-gradient of the convolution that maps its output
// back onto its input). 1-d and unbatched inputs share the 2-d code: their buffers already
// have the layout of [N, C, 1, L] / [1, C, H, W].
#include "nn/conv.h"

#include <algorithm>
#include <string>

#include "autograd/record.h"
#include "core/copy.h"
#include "core/error.h"
#include "kernels/backend.h"
#include "nn/conv_gemm.h"
#include "ops/ops.h"

namespace sg {
namespace {

using Ints = std::vector<int64_t>;

// PyTorch's ints-or-tuple: one value for every spatial dim, or one per dim.
Ints per_dim(const char* op, const char* what, const Ints& v, int nd) {
  if (v.size() == 1) return Ints(nd, v[0]);
  if (static_cast<int>(v.size()) == nd) return v;
  fail(op, ": expected ", what, " to have ", nd == 1 ? "1 value" : "1 or 2 values", ", got ", v.size(),
       " (", v, ")");
}

void check_each(const char* op, const char* what, const Ints& v, int64_t min) {
  for (int64_t e : v)
    check(e >= min, op, ": ", what, min > 0 ? " must be positive" : " must be non-negative", ", got ", v);
}

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
  check(x.dtype() == DType::Float32, op, ": expected a float32 input, got ", dtype_name(x.dtype()));
  check(w.dtype() == DType::Float32, op, ": expected a float32 weight, got ", dtype_name(w.dtype()));
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
    check(b.dtype() == DType::Float32, op, ": expected a float32 bias, got ", dtype_name(b.dtype()));
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

// y[n, o, ...] += b[o] over a [N, O, S] buffer.
void add_channel_bias(float* y, const float* b, int64_t N, int64_t O, int64_t S) {
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o) {
      float* row = y + (n * O + o) * S;
      for (int64_t i = 0; i < S; ++i) row[i] += b[o];
    }
}

// Σ of g [N, O, S...] over everything but the channel dim → [O].
// db [O] = Σ over images and positions of g [N, O, S] (contiguous): per-row sums to [N, O],
// then the column sums over N, both straight reductions (sum over dims {0, 2} would first copy
// g into [O, N·S] order).
Tensor bias_grad(const Tensor& g, int64_t N, int64_t O) {
  const int64_t S = g.numel() / std::max<int64_t>(N * O, 1);
  Tensor rows = Tensor::uninitialized({N * O});
  Tensor db = Tensor::uninitialized({O});
  if (N * O > 0) backend().reduce_f32(Reduce::Sum, g.f32(), N * O, S, 1, rows.f32());
  if (O > 0) backend().reduce_f32(Reduce::Sum, rows.f32(), 1, N, O, db.f32());
  return db;
}

// ---- double backward: the convolution of geometry g and its two gradient maps as recorded ops,
// each differentiated through the others (while a gradient is recorded; PyTorch's
// _convolution_double_backward). in = conv's input side, out = its output side.
Tensor conv_out_rec(const ConvGeom& g, const Tensor& in, const Tensor& w, const Shape& out_shape);
Tensor conv_in_rec(const ConvGeom& g, const Tensor& out_grad, const Tensor& w, const Shape& in_shape);
Tensor conv_w_rec(const ConvGeom& g, const Tensor& in, const Tensor& out_grad, const Shape& w_shape);

// in ↦ conv(in, w).
Tensor conv_out_rec(const ConvGeom& g, const Tensor& in, const Tensor& w, const Shape& out_shape) {
  const Tensor ic = as_contiguous(in, DType::Float32), wc = as_contiguous(w, DType::Float32);
  Tensor y = Tensor::uninitialized(out_shape);
  conv_forward_f32(g, ic.f32(), wc.f32(), nullptr, y.f32());
  return record("conv", y, {in, w}, {in, w}, [g](const Tensor& gg, const SavedTensors& s) {
    return std::vector<Tensor>{s[0].requires_grad() ? conv_in_rec(g, gg, s[1], s[0].shape()) : Tensor(),
                               s[1].requires_grad() ? conv_w_rec(g, s[0], gg, s[1].shape()) : Tensor()};
  });
}

// out_grad ↦ conv's input gradient (the transposed convolution).
Tensor conv_in_rec(const ConvGeom& g, const Tensor& out_grad, const Tensor& w, const Shape& in_shape) {
  const Tensor oc = as_contiguous(out_grad, DType::Float32), wc = as_contiguous(w, DType::Float32);
  Tensor dx = Tensor::uninitialized(in_shape);
  conv_input_grad_f32(g, oc.f32(), wc.f32(), dx.f32());
  return record("convInputGrad", dx, {out_grad, w}, {out_grad, w}, [g](const Tensor& gg, const SavedTensors& s) {
    return std::vector<Tensor>{s[0].requires_grad() ? conv_out_rec(g, gg, s[1], s[0].shape()) : Tensor(),
                               s[1].requires_grad() ? conv_w_rec(g, gg, s[0], s[1].shape()) : Tensor()};
  });
}

// (in, out_grad) ↦ conv's weight gradient.
Tensor conv_w_rec(const ConvGeom& g, const Tensor& in, const Tensor& out_grad, const Shape& w_shape) {
  const Tensor ic = as_contiguous(in, DType::Float32), oc = as_contiguous(out_grad, DType::Float32);
  Tensor dw = Tensor::uninitialized(w_shape);
  conv_weight_grad_f32(g, ic.f32(), oc.f32(), dw.f32());
  return record("convWeightGrad", dw, {in, out_grad}, {in, out_grad}, [g](const Tensor& gg, const SavedTensors& s) {
    return std::vector<Tensor>{s[0].requires_grad() ? conv_in_rec(g, s[1], gg, s[0].shape()) : Tensor(),
                               s[1].requires_grad() ? conv_out_rec(g, s[0], gg, s[1].shape()) : Tensor()};
  });
}

// bias_grad through ops: Σ over every dim but the channel dim 1.
Tensor bias_grad_rec(const Tensor& g) {
  Dims dims{0};
  for (int64_t d = 2; d < g.ndim(); ++d) dims.push_back(d);
  return sum(g, dims);
}

Tensor conv_nd(const char* op, int nd, const Tensor& x, const Tensor& w, const Tensor& b, const Args& a) {
  const Setup s = setup(op, nd, false, x, w, b, a);
  const ConvGeom g = s.geom;
  Tensor xc = as_contiguous(x).detach(), wc = as_contiguous(w).detach();
  Tensor out = Tensor::uninitialized(s.out_shape);  // conv_forward_f32 writes all of it
  Tensor bc = b.defined() ? as_contiguous(b) : Tensor();
  conv_forward_f32(g, xc.f32(), wc.f32(), bc.defined() ? bc.f32() : nullptr, out.f32());

  const bool need_x = x.requires_grad(), need_w = w.requires_grad(), need_b = b.defined() && b.requires_grad();
  return record(op, out, {x, w, b}, {x, w}, [g, xc, wc, need_x, need_w, need_b](const Tensor& gy, const SavedTensors& s) {
    if (recording_backward({gy, s[0], s[1]}))
      return std::vector<Tensor>{need_x ? conv_in_rec(g, gy, s[1], s[0].shape()) : Tensor(),
                                 need_w ? conv_w_rec(g, s[0], gy, s[1].shape()) : Tensor(),
                                 need_b ? bias_grad_rec(gy) : Tensor()};
    Tensor gc = as_contiguous(gy, DType::Float32);
    Tensor dx, dw, db;
    if (need_x) {
      dx = Tensor::uninitialized(xc.shape());  // written in full by the conv kernel
      conv_input_grad_f32(g, gc.f32(), wc.f32(), dx.f32());
    }
    if (need_w) {
      dw = Tensor::uninitialized(wc.shape());  // zeroed, then accumulated, by the kernel
      conv_weight_grad_f32(g, xc.f32(), gc.f32(), dw.f32());
    }
    if (need_b) db = bias_grad(gc, g.N, g.O);
    return std::vector<Tensor>{dx, dw, db};
  });
}

}  // namespace

Tensor conv1d(const Tensor& x, const Tensor& w, const Tensor& b, const Ints& stride, const ConvPadding& padding,
              const Ints& dilation, int64_t groups) {
  return conv_nd("conv1d", 1, x, w, b, Args{stride, dilation, {0}, padding, groups});
}

Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& b, const Ints& stride, const ConvPadding& padding,
              const Ints& dilation, int64_t groups) {
  return conv_nd("conv2d", 2, x, w, b, Args{stride, dilation, {0}, padding, groups});
}

Tensor conv_transpose2d(const Tensor& x, const Tensor& w, const Tensor& b, const Ints& stride,
                        const Ints& padding, const Ints& output_padding, int64_t groups, const Ints& dilation) {
  const char* op = "conv_transpose2d";
  const Setup s = setup(op, 2, true, x, w, b, Args{stride, dilation, output_padding, ConvPadding(padding), groups});
  // g describes the convolution from this op's output back to its input.
  const ConvGeom g = s.geom;
  Tensor xc = as_contiguous(x).detach(), wc = as_contiguous(w).detach();
  Tensor out = Tensor::uninitialized(s.out_shape);  // conv_input_grad_f32 writes all of it
  conv_input_grad_f32(g, xc.f32(), wc.f32(), out.f32());
  if (b.defined()) add_channel_bias(out.f32(), as_contiguous(b).f32(), g.N, g.C, g.H * g.W);

  const bool need_x = x.requires_grad(), need_w = w.requires_grad(), need_b = b.defined() && b.requires_grad();
  return record(op, out, {x, w, b}, {x, w}, [g, xc, wc, need_x, need_w, need_b](const Tensor& gy, const SavedTensors& s) {
    // This op is the conv's input-gradient map: its gradients are the conv itself and the
    // weight gradient with the roles of input and output swapped.
    if (recording_backward({gy, s[0], s[1]}))
      return std::vector<Tensor>{need_x ? conv_out_rec(g, gy, s[1], s[0].shape()) : Tensor(),
                                 need_w ? conv_w_rec(g, gy, s[0], s[1].shape()) : Tensor(),
                                 need_b ? bias_grad_rec(gy) : Tensor()};
    Tensor gc = as_contiguous(gy, DType::Float32);
    Tensor dx, dw, db;
    if (need_x) {
      dx = Tensor::uninitialized(xc.shape());  // written in full by the conv kernel
      conv_forward_f32(g, gc.f32(), wc.f32(), nullptr, dx.f32());
    }
    if (need_w) {
      dw = Tensor::uninitialized(wc.shape());  // zeroed, then accumulated, by the kernel
      conv_weight_grad_f32(g, gc.f32(), xc.f32(), dw.f32());
    }
    if (need_b) db = bias_grad(gc, g.N, g.C);
    return std::vector<Tensor>{dx, dw, db};
  });
}

}  // namespace sg
