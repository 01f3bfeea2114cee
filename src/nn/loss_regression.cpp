// The elementwise regression losses (mse, l1, smooth_l1, huber, kl_div). Each loss is one
// graph node: the per-element loss is computed with unrecorded ops and the backward is
// PyTorch's derivative formula (e.g. sign(d) for l1, clamp(d, ±δ) for huber), times the
// per-element gradient of the reduction.
#include <functional>

#include "autograd/grad_mode.h"
#include "core/error.h"
#include "nn/loss.h"
#include "nn/loss_common.h"
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {

using namespace loss_detail;

namespace {

Tensor num(double v) { return scalar_tensor(v); }

// Checks a float32 input/target pair and returns their difference input − target (broadcast).
Tensor checked_diff(const char* op, const Tensor& input, const Tensor& target) {
  check_float(op, input, "input");
  check_float(op, target, "target");
  broadcast_shapes(input.shape(), target.shape(), op);
  return sub(input, target);
}

// An elementwise loss of d = input − target whose derivative in d is dloss(d): the input
// gets gl·dloss(d), the target its negative.
Tensor diff_loss(const char* op, const Tensor& input, const Tensor& target, Reduction r,
                 std::function<Tensor(const Tensor&)> loss_of,
                 std::function<Tensor(const Tensor&)> dloss) {
  Tensor d, per;
  {
    NoGradGuard no_grad;
    d = checked_diff(op, input, target);
    per = loss_of(d);
  }
  return loss_node(
      op, per, r, 1, {input, target},
      [d, dloss](const Tensor& gl, const std::vector<bool>& need) {
        Tensor gd = mul(gl, dloss(d));
        return std::vector<Tensor>{need[0] ? gd : Tensor(), need[1] ? neg(gd) : Tensor()};
      },
      [loss_of](const std::vector<Tensor>& in) { return loss_of(sub(in[0], in[1])); });
}

}  // namespace

Tensor mse_loss(const Tensor& input, const Tensor& target, const std::string& reduction) {
  const char* op = "mseLoss";
  return diff_loss(op, input, target, parse_reduction(op, reduction),
                   [](const Tensor& d) { return square(d); }, [](const Tensor& d) { return mul(d, num(2.0)); });
}

Tensor l1_loss(const Tensor& input, const Tensor& target, const std::string& reduction) {
  const char* op = "l1Loss";
  return diff_loss(op, input, target, parse_reduction(op, reduction), [](const Tensor& d) { return abs(d); },
                   [](const Tensor& d) { return sign(d); });
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const std::string& reduction, double beta) {
  const char* op = "smoothL1Loss";
  const Reduction r = parse_reduction(op, reduction);
  check(beta >= 0, op, ": beta must be non-negative, got ", beta);
  if (beta == 0)  // PyTorch's special case: exactly l1
    return diff_loss(op, input, target, r, [](const Tensor& d) { return abs(d); },
                     [](const Tensor& d) { return sign(d); });
  return diff_loss(
      op, input, target, r,
      [beta](const Tensor& d) {
        Tensor ad = abs(d);
        return where(lt(ad, scalar_like(beta, d)), mul(square(d), scalar_like(0.5 / beta, d)), sub(ad, scalar_like(0.5 * beta, d)));
      },
      [beta](const Tensor& d) { return where(lt(abs(d), scalar_like(beta, d)), mul(d, scalar_like(1.0 / beta, d)), sign(d)); });
}

Tensor huber_loss(const Tensor& input, const Tensor& target, const std::string& reduction, double delta) {
  const char* op = "huberLoss";
  const Reduction r = parse_reduction(op, reduction);
  check(delta > 0, op, ": delta must be positive, got ", delta);
  return diff_loss(
      op, input, target, r,
      [delta](const Tensor& d) {
        Tensor ad = abs(d);
        return where(lt(ad, scalar_like(delta, d)), mul(square(d), scalar_like(0.5, d)), mul(sub(ad, scalar_like(0.5 * delta, d)), scalar_like(delta, d)));
      },
      [delta](const Tensor& d) { return clamp(d, -delta, delta); });
}

Tensor kl_div(const Tensor& input, const Tensor& target, const std::string& reduction, bool log_target) {
  const char* op = "klDiv";
  const Reduction r = parse_reduction(op, reduction, true);
  check_float(op, input, "input");
  check_float(op, target, "target");
  broadcast_shapes(input.shape(), target.shape(), op);
  const int64_t batch = input.ndim() > 0 ? input.shape()[0] : 1;
  const Tensor x = input.detach(), t = target.detach();
  Tensor per;
  LossGrads grads;
  {
    NoGradGuard no_grad;
    if (log_target) {
      const Tensor et = exp(t);
      per = mul(et, sub(t, x));
      grads = [et, x, t](const Tensor& gl, const std::vector<bool>& need) {
        Tensor dx = need[0] ? neg(mul(gl, et)) : Tensor();
        Tensor dt = need[1] ? mul(gl, mul(et, add(sub(t, x), num(1.0)))) : Tensor();
        return std::vector<Tensor>{dx, dt};
      };
    } else {
      // xlogy(t, t) − t·x, with 0·log 0 = 0.
      const Tensor zero_t = eq(t, num(0.0));
      per = sub(where(zero_t, num(0.0), mul(t, log(t))), mul(t, x));
      grads = [zero_t, x, t](const Tensor& gl, const std::vector<bool>& need) {
        Tensor dx = need[0] ? neg(mul(gl, t)) : Tensor();
        // d/dt = log t + 1 − x, 0 where t = 0 (as PyTorch's kl_div_target_backward)
        Tensor dt = need[1] ? mul(gl, where(zero_t, num(0.0), sub(add(log(t), num(1.0)), x))) : Tensor();
        return std::vector<Tensor>{dx, dt};
      };
    }
  }
  return loss_node(op, per, r, batch, {input, target}, grads, [log_target](const std::vector<Tensor>& in) {
    const Tensor &x = in[0], &t = in[1];
    if (log_target) return mul(exp(t), sub(t, x));
    return sub(where(eq(t, num(0.0)), num(0.0), mul(t, log(t))), mul(t, x));
  });
}

}  // namespace sg
