// Binary losses (binary_cross_entropy, binary_cross_entropy_with_logits) as single nodes with
// PyTorch's derivative formulas, and cosine_embedding_loss, composed from recorded ops as in
// PyTorch (so autograd differentiates it).
#include <optional>

#include "autograd/grad_mode.h"
#include "core/copy.h"
#include "core/error.h"
#include "nn/loss.h"
#include "nn/loss_common.h"
#include "kernels/backend.h"
#include "ops/ops.h"

namespace sg {

using namespace loss_detail;

namespace {

Tensor num(double v) { return scalar_tensor(v); }

// target must have input's shape (PyTorch's check), an optional weight must broadcast to it
// without growing it.
void check_pair(const char* op, const Tensor& input, const Tensor& target) {
  check_float(op, input, "input");
  check_float(op, target, "target");
  check(target.shape() == input.shape(), op, ": expected target of the input's shape ", input.shape(), ", got ",
        target.shape());
}

void check_weight(const char* op, const Tensor& w, const char* name, const Shape& input_shape) {
  if (!w.defined()) return;
  check_float(op, w, name);
  const Shape b = broadcast_shapes(input_shape, w.shape(), op);
  check(b == input_shape, op, ": ", name, " of shape ", w.shape(), " does not broadcast to the input's shape ",
        input_shape);
}

// log(v) clamped to ≥ −100, PyTorch's guard against log 0 = −inf.
Tensor clamped_log(const Tensor& v) { return clamp(log(v), -100.0, std::nullopt); }

// softplus(−x) = log(1 + e^−x) without overflow: max(−x, 0) + log1p(e^−|x|).
Tensor softplus_neg(const Tensor& x) { return add(relu(neg(x)), log1p(exp(neg(abs(x))))); }

}  // namespace

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight,
                            const std::string& reduction) {
  const char* op = "binaryCrossEntropy";
  const Reduction r = parse_reduction(op, reduction);
  check_pair(op, input, target);
  check_weight(op, weight, "weight", input.shape());
  const Tensor x = input.detach(), t = target.detach(), w = weight.defined() ? weight.detach() : Tensor();
  Tensor per, log_x, log_1mx;
  {
    NoGradGuard no_grad;
    const Tensor xc = as_contiguous(x);
    const std::string range_message = std::string(op) + ": all elements of input should be between 0 and 1, got ";
    if (xc.dtype() == DType::Float64) {  // on the cpu (float64's device): checked in double
      const double* v = xc.f64();
      for (int64_t i = 0; i < xc.numel(); ++i)
        check(v[i] >= 0.0 && v[i] <= 1.0, range_message, v[i]);
    } else if (xc.numel() > 0) {
      backend_for(xc.device()).check_range_f32(xc.dev_f32(), xc.numel(), 0.0f, 1.0f, range_message);
    }
    log_x = clamped_log(x);
    log_1mx = clamped_log(sub(num(1.0), x));
    // (t − 1)·log(1 − x) − t·log x
    per = sub(mul(sub(t, num(1.0)), log_1mx), mul(t, log_x));
    if (w.defined()) per = mul(per, w);
  }
  return loss_node(op, per, r, 1, {input, target, weight},
                   [x, t, w, log_x, log_1mx](const Tensor& gl, const std::vector<bool>& need) {
                     const Tensor gw = w.defined() ? mul(gl, w) : gl;
                     Tensor dx, dt;
                     // (x − t) / max(x·(1 − x), 1e-12), PyTorch's clamped derivative
                     if (need[0])
                       dx = mul(gw, div(sub(x, t), clamp(mul(x, sub(num(1.0), x)), 1e-12, std::nullopt)));
                     if (need[1]) dt = mul(gw, sub(log_1mx, log_x));
                     return std::vector<Tensor>{dx, dt, Tensor()};
                   },
                   [](const std::vector<Tensor>& in) {
                     const Tensor &x = in[0], &t = in[1];
                     const Tensor per = sub(mul(sub(t, num(1.0)), clamped_log(sub(num(1.0), x))), mul(t, clamped_log(x)));
                     return in[2].defined() ? mul(per, in[2]) : per;
                   },
                   {false, false, true});
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight,
                                        const Tensor& pos_weight, const std::string& reduction) {
  const char* op = "binaryCrossEntropyWithLogits";
  const Reduction r = parse_reduction(op, reduction);
  check_pair(op, input, target);
  check_weight(op, weight, "weight", input.shape());
  check_weight(op, pos_weight, "posWeight", input.shape());
  const Tensor x = input.detach(), t = target.detach();
  const Tensor w = weight.defined() ? weight.detach() : Tensor();
  const Tensor pw = pos_weight.defined() ? pos_weight.detach() : Tensor();
  Tensor per, sp_neg;
  {
    NoGradGuard no_grad;
    sp_neg = softplus_neg(x);
    // (1 − t)·x + (1 + (p − 1)·t)·softplus(−x)
    const Tensor lw = pw.defined() ? add(num(1.0), mul(sub(pw, num(1.0)), t)) : Tensor();
    per = add(mul(sub(num(1.0), t), x), lw.defined() ? mul(lw, sp_neg) : sp_neg);
    if (w.defined()) per = mul(per, w);
  }
  return loss_node(op, per, r, 1, {input, target, weight, pos_weight},
                   [x, t, w, pw, sp_neg](const Tensor& gl, const std::vector<bool>& need) {
                     const Tensor gw = w.defined() ? mul(gl, w) : gl;
                     Tensor dx, dt;
                     if (need[0]) {  // (p·t + 1 − t)·σ(x) − p·t, or σ(x) − t
                       const Tensor s = sigmoid(x);
                       if (pw.defined()) {
                         const Tensor pt = mul(pw, t);
                         dx = mul(gw, sub(mul(add(pt, sub(num(1.0), t)), s), pt));
                       } else {
                         dx = mul(gw, sub(s, t));
                       }
                     }
                     if (need[1]) {  // (p − 1)·softplus(−x) − x, or −x
                       dt = pw.defined() ? mul(gw, sub(mul(sub(pw, num(1.0)), sp_neg), x)) : neg(mul(gw, x));
                     }
                     return std::vector<Tensor>{dx, dt, Tensor(), Tensor()};
                   },
                   [](const std::vector<Tensor>& in) {
                     const Tensor &x = in[0], &t = in[1], &w = in[2], &pw = in[3];
                     const Tensor lw = pw.defined() ? add(num(1.0), mul(sub(pw, num(1.0)), t)) : Tensor();
                     const Tensor sp = softplus_neg(x);
                     const Tensor per = add(mul(sub(num(1.0), t), x), lw.defined() ? mul(lw, sp) : sp);
                     return w.defined() ? mul(per, w) : per;
                   },
                   {false, false, true, true});
}

Tensor cosine_embedding_loss(const Tensor& x1, const Tensor& x2, const Tensor& y, double margin,
                             const std::string& reduction) {
  const char* op = "cosineEmbeddingLoss";
  const Reduction r = parse_reduction(op, reduction);
  check_float(op, x1, "input1");
  check_float(op, x2, "input2");
  check(y.defined(), op, ": target must be given");
  check(y.dtype() == DType::Float32 || y.dtype() == DType::Int32, op,
        ": expected target of dtype float32 or int32, got ", dtype_name(y.dtype()));
  check(y.ndim() <= 1, op, ": expected a 0-d or 1-d target, got ", y.shape());
  if (y.ndim() == 1)
    check(x1.ndim() == 2 && x2.ndim() == 2, op, ": a 1-d target expects 2-d inputs, got ", x1.shape(), " and ",
          x2.shape());
  else
    check(x1.ndim() == 1 && x2.ndim() == 1, op, ": a 0-d target expects 1-d inputs, got ", x1.shape(), " and ",
          x2.shape());
  check(x1.shape() == x2.shape(), op, ": input1 and input2 must have the same shape, got ", x1.shape(), " and ",
        x2.shape());
  check(y.ndim() == 0 || y.shape()[0] == x1.shape()[0], op, ": expected target of shape ", Shape{x1.shape()[0]},
        ", got ", y.shape());
  const int64_t d = y.ndim();  // the feature dim
  const double eps = 1e-12;
  Tensor prod_sum = sum(mul(x1, x2), {d});
  Tensor denom = sqrt(mul(add(sum(mul(x1, x1), {d}), num(eps)), add(sum(mul(x2, x2), {d}), num(eps))));
  Tensor cos = div(prod_sum, denom);
  Tensor zero = num(0.0);
  Tensor pos = where(eq(y, num(1.0)), sub(num(1.0), cos), zero);
  Tensor neg_part = where(eq(y, num(-1.0)), clamp(sub(cos, num(margin)), 0.0, std::nullopt), zero);
  return reduce_loss(add(pos, neg_part), r);
}

}  // namespace sg
