// linear: one gemm per call, forward and backward, with no transposed copies: the weight
// [out, in] is read as op(B) = wᵀ through gemm's trans_b (or, when w is itself a transposed
// view, straight through its strides), and the bias and activation are applied in the write-back.
#include "nn/linear.h"

#include <algorithm>

#include "autograd/grad_mode.h"
#include "autograd/record.h"
#include "core/copy.h"
#include "core/error.h"
#include "kernels/backend.h"
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {

namespace {

void check_f32(const char* op, const Tensor& t, const char* what) {
  check(t.dtype() == DType::Float32, op, ": expected ", what, " of dtype float32, got ", dtype_name(t.dtype()));
}

// w [out, in] as gemm's B operand for C = X · wᵀ. Row-major w: trans_b with ldb = in.
// A transposed view (column-major, e.g. w = v.T) already is wᵀ row-major: no trans, ldb = its
// column stride. Anything else is copied.
struct WeightOperand {
  Tensor data;  // the tensor the gemm reads
  bool trans_b;
  int64_t ldb;
};

WeightOperand weight_operand(const Tensor& w) {
  const int64_t out = w.shape()[0], in = w.shape()[1];
  const int64_t s0 = w.strides()[0], s1 = w.strides()[1];
  if ((in <= 1 || s1 == 1) && (out <= 1 || s0 >= std::max<int64_t>(in, 1)))
    return {w, true, out <= 1 ? std::max<int64_t>(in, 1) : s0};
  if ((out <= 1 || s0 == 1) && (in <= 1 || s1 >= std::max<int64_t>(out, 1)))
    return {w, false, in <= 1 ? std::max<int64_t>(out, 1) : s1};
  return {contiguous_copy(w), true, std::max<int64_t>(in, 1)};
}

GemmAct activation_of(const std::string& name) {
  if (name == "none") return GemmAct::None;
  if (name == "relu") return GemmAct::Relu;
  if (name == "gelu") return GemmAct::GeluErf;
  if (name == "gelu_tanh") return GemmAct::GeluTanh;
  fail("linear: expected activation to be one of 'none', 'relu', 'gelu', 'gelu_tanh', got '", name, "'");
}

// linear's gradients through differentiable ops (while a gradient is recorded): through the
// fused ReLU's mask first, then dX = G·W, dW = Gᵀ·X, db = Σ_rows G.
// x is given only when dW is needed and w only when dX is (what the forward saved).
std::vector<Tensor> linear_grads_ops(const Tensor& g, const Tensor& x, const Tensor& w, const Tensor& y, bool relu,
                                     bool need_x, bool need_w, bool need_b, int64_t out_f, int64_t in_f) {
  const Tensor gy = relu ? where(gt(y, f32_scalar(0)), g, f32_scalar(0)) : g;
  const Tensor g2 = reshape(gy, {-1, out_f});
  Tensor dx, dw, db;
  if (need_x) dx = matmul(gy, w);
  if (need_w) dw = matmul(transpose(g2, 0, 1), reshape(x, {-1, in_f}));
  if (need_b) db = sum(g2, {0});
  return {dx, dw, db};
}

// float64: x · wᵀ + b and the activation as separate recorded ops (matmul's float64 GEMM), so
// the gradients are theirs; the fused float32 kernel above is a speed path float64 does not need.
Tensor linear_f64(const Tensor& x, const Tensor& w, const Tensor& b, GemmAct act) {
  const char* op = "linear";
  auto same = [op](const Tensor& t, const char* what) {
    check(t.dtype() == DType::Float64, op, ": expected ", what, " of dtype float64 (as the other operands), got ",
          dtype_name(t.dtype()));
  };
  same(x, "input");
  same(w, "weight");
  check(w.ndim() == 2, op, ": expected weight of shape [out, in], got ", w.shape());
  check(x.ndim() >= 1, op, ": expected an input with at least 1 dim, got a 0-d tensor");
  check(x.shape().back() == w.shape()[1], op, ": input of shape ", x.shape(), " does not match weight of shape ",
        w.shape(), " (", x.shape().back(), " != ", w.shape()[1], ")");
  Tensor y = matmul(x, transpose(w, 0, 1));
  if (b.defined()) {
    same(b, "bias");
    check(b.ndim() == 1 && b.shape()[0] == w.shape()[0], op, ": expected bias of shape ", Shape{w.shape()[0]},
          ", got ", b.shape());
    y = add(y, b);
  }
  switch (act) {
    case GemmAct::None: return y;
    case GemmAct::Relu: return relu(y);
    case GemmAct::GeluErf: return gelu(y, "none");
    case GemmAct::GeluTanh: return gelu(y, "tanh");
  }
  return y;
}

}  // namespace

Tensor linear(const Tensor& x, const Tensor& w, const Tensor& b, const std::string& activation) {
  const char* op = "linear";
  const GemmAct act = activation_of(activation);
  // GELU's backward needs its input, which the fused write-back does not keep: when a graph is
  // recorded it runs as its own op after the plain product (ReLU's backward only needs y).
  if ((act == GemmAct::GeluErf || act == GemmAct::GeluTanh) && grad_enabled() && any_requires_grad({x, w, b}))
    return gelu(linear(x, w, b), act == GemmAct::GeluErf ? "none" : "tanh");
  check(x.defined() && w.defined(), op, ": input and weight must be given");
  if (x.dtype() == DType::Float64 || w.dtype() == DType::Float64 || (b.defined() && b.dtype() == DType::Float64))
    return linear_f64(x, w, b, act);
  check_f32(op, x, "input");
  check_f32(op, w, "weight");
  check(w.ndim() == 2, op, ": expected weight of shape [out, in], got ", w.shape());
  check(x.ndim() >= 1, op, ": expected an input with at least 1 dim, got a 0-d tensor");
  const int64_t out_f = w.shape()[0], in_f = w.shape()[1];
  check(x.shape().back() == in_f, op, ": input of shape ", x.shape(), " does not match weight of shape ",
        w.shape(), " (", x.shape().back(), " != ", in_f, ")");
  if (b.defined()) {
    check_f32(op, b, "bias");
    check(b.ndim() == 1 && b.shape()[0] == out_f, op, ": expected bias of shape ", Shape{out_f}, ", got ",
          b.shape());
  }
  Shape out_shape = x.shape();
  out_shape.back() = out_f;
  const int64_t rows = numel_of(Shape(x.shape().begin(), x.shape().end() - 1));

  const Device dev = operands_device(op, {&x, &w, &b});
  const Tensor xc = as_contiguous(x);
  const WeightOperand wo = weight_operand(w);
  // Written in full by the gemm (with in = 0 it writes just the bias, or zeros).
  Tensor y = Tensor::uninitialized(out_shape, DType::Float32, dev);
  // The bias is added in the gemm's write-back (with in = 0 the gemm writes just the bias).
  const Tensor bc = b.defined() ? as_contiguous(b) : Tensor();
  if (rows > 0 && out_f > 0)
    backend_for(dev).gemm_f32_bias(false, wo.trans_b, rows, out_f, in_f, 1.0f, xc.dev_f32(), in_f,
                                   wo.data.dev_f32(), wo.ldb, 0.0f, bc.defined() ? bc.dev_f32() : nullptr, act,
                                   y.dev_f32(), out_f);

  const bool need_x = x.requires_grad(), need_w = w.requires_grad(), need_b = b.defined() && b.requires_grad();
  const Shape x_shape = x.shape(), w_shape = w.shape();
  // w is the transposed view of a contiguous [in, out] tensor: its gradient is computed in that layout.
  const bool w_transposed = !wo.trans_b && wo.ldb == out_f;
  // y is read from the saved tensors, not captured: the formula drops it (and g) once the mask is
  // applied, so that an activation nothing else holds is freed before dX and dW are allocated;
  // only the fused ReLU needs it. x and w are read from the saved list too (a float16/bfloat16
  // operand's float32 copy is saved as the 16-bit original, widened again: autograd/record.h).
  const bool relu = act == GemmAct::Relu;
  // x is saved only for dW and w only for dX (PyTorch's addmm likewise): a frozen weight's input — a LoRA
  // base layer's, the hidden activation before a frozen MLP projection — is not held until backward.
  return record(op, y, {x, w, b}, {need_w ? x : Tensor(), need_x ? w : Tensor(), relu ? y : Tensor()},
                [=](Tensor& g, SavedTensors& s) {
    if (recording_backward({g, s[0], s[1]}))
      return linear_grads_ops(g, s[0], s[1], s[2], relu, need_x, need_w, need_b, out_f, in_f);
    // Through the fused ReLU first: g · (y > 0), as relu's backward (y > 0 exactly where its input is).
    const Tensor gc = relu ? binary_f32(Binary::ReluBackward, s[2], as_contiguous(g, DType::Float32), op)
                           : as_contiguous(g, DType::Float32);  // [rows, out]
    g = Tensor();
    s[2] = Tensor();
    Tensor dx, dw, db;
    const Backend& be = backend_for(dev);
    const bool work = rows > 0 && out_f > 0 && in_f > 0;
    if (need_x) {  // dX = G · W: W [out, in] is op(B) untransposed when stored row-major.
      const WeightOperand ws = weight_operand(s[1]);
      dx = work ? Tensor::uninitialized(x_shape, DType::Float32, dev) : Tensor::empty(x_shape, DType::Float32, dev);
      if (work)
        be.gemm_f32(false, !ws.trans_b, rows, in_f, out_f, 1.0f, gc.dev_f32(), out_f, ws.data.dev_f32(), ws.ldb,
                    0.0f, dx.dev_f32(), in_f);
    }
    if (need_w) {  // dW = Gᵀ · X
      const Tensor xs = as_contiguous(s[0]);
      // The weight's layout, from its strides (the weight itself is not saved when dX is not needed).
      if (w_transposed && work) {
        // w is the transposed view of a contiguous [in, out] tensor (GPT-2's Conv1D weight, a tied
        // head's wᵀ): dWᵀ = Xᵀ · G written contiguous and returned as the same transposed view, so
        // the gradient reaches the stored tensor as it is laid out, without a transposing copy.
        const Tensor dwt = Tensor::uninitialized({in_f, out_f}, DType::Float32, dev);
        be.gemm_f32(true, false, in_f, out_f, rows, 1.0f, xs.dev_f32(), in_f, gc.dev_f32(), out_f, 0.0f,
                    dwt.dev_f32(), out_f);
        dw = Tensor::view_of(dwt, w_shape, {1, out_f}, 0);
      } else {
        dw = work ? Tensor::uninitialized(w_shape, DType::Float32, dev) : Tensor::empty(w_shape, DType::Float32, dev);
        if (work)
          be.gemm_f32(true, false, out_f, in_f, rows, 1.0f, gc.dev_f32(), out_f, xs.dev_f32(), in_f, 0.0f,
                      dw.dev_f32(), in_f);
      }
    }
    if (need_b) {  // db = Σ over rows
      db = Tensor::uninitialized({out_f}, DType::Float32, dev);  // reduce_f32 writes it (rows = 0 gives 0)
      if (out_f > 0) be.reduce_f32(Reduce::Sum, gc.dev_f32(), 1, rows, out_f, db.dev_f32());
    }
    return std::vector<Tensor>{dx, dw, db};
  });
}

Tensor bilinear(const Tensor& x1, const Tensor& x2, const Tensor& w, const Tensor& b) {
  const char* op = "bilinear";
  check(x1.defined() && x2.defined() && w.defined(), op, ": input1, input2 and weight must be given");
  check_f32(op, x1, "input1");
  check_f32(op, x2, "input2");
  check_f32(op, w, "weight");
  check(w.ndim() == 3, op, ": expected weight of shape [out, in1, in2], got ", w.shape());
  check(x1.ndim() >= 1 && x2.ndim() >= 1, op, ": expected inputs with at least 1 dim");
  const int64_t out_f = w.shape()[0], in1 = w.shape()[1], in2 = w.shape()[2];
  check(x1.shape().back() == in1, op, ": input1 of shape ", x1.shape(), " does not match weight of shape ",
        w.shape(), " (", x1.shape().back(), " != ", in1, ")");
  check(x2.shape().back() == in2, op, ": input2 of shape ", x2.shape(), " does not match weight of shape ",
        w.shape(), " (", x2.shape().back(), " != ", in2, ")");
  const Shape lead(x1.shape().begin(), x1.shape().end() - 1);
  check(Shape(x2.shape().begin(), x2.shape().end() - 1) == lead, op,
        ": input1 and input2 must have the same leading dims, got ", x1.shape(), " and ", x2.shape());
  if (b.defined()) {
    check_f32(op, b, "bias");
    check(b.ndim() == 1 && b.shape()[0] == out_f, op, ": expected bias of shape ", Shape{out_f}, ", got ",
          b.shape());
  }
  const int64_t rows = numel_of(lead);
  // T[r, o, j] = Σ_i x1[r, i] w[o, i, j]: one matmul against w laid out as [in1, out·in2].
  Tensor wp = reshape(permute(w, {1, 0, 2}), {in1, out_f * in2});
  Tensor t = reshape(matmul(reshape(x1, {rows, in1}), wp), {rows, out_f, in2});
  Tensor y = sum(mul(t, unsqueeze(reshape(x2, {rows, in2}), 1)), {2});
  if (b.defined()) y = add(y, b);
  Shape out_shape = lead;
  out_shape.push_back(out_f);
  return reshape(y, out_shape);
}

}  // namespace sg
