// Dropout draws one uniform word per mask element (rand) and keeps the element when u < 1 − p.
// The mask is stored as 0 or 1/(1 − p) in a float32 tensor of the mask's shape, so forward and
// backward are both one broadcast multiply on the tensors' device.
#include "nn/dropout.h"

#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/record.h"
#include "core/error.h"
#include "core/rng.h"
#include "ops/ops.h"

namespace sg {

namespace {

void check_args(const char* op, const Tensor& x, double p) {
  check(x.defined(), op, ": the input must be given");
  check(x.dtype() == DType::Float32, op, ": expected input of dtype float32, got ", dtype_name(x.dtype()));
  check(p >= 0.0 && p <= 1.0, op, ": dropout probability has to be between 0 and 1, got ", p);
}

// A float32 tensor of `shape` on `device`: 1/(1 − p) with probability 1 − p, else 0.
Tensor keep_mask(const Shape& shape, double p, Device device) {
  NoGradGuard no_grad;
  const Tensor u = rand(shape, device);
  const float keep = float(1.0 - p), scale = p < 1.0 ? float(1.0 / (1.0 - p)) : 0.0f;
  return mul(lt(u, scalar_tensor(keep)), scalar_tensor(scale));
}

// x · mask (mask broadcasts over x), one node whose backward is g · mask.
Tensor apply_mask(const char* op, const Tensor& x, const Tensor& mask) {
  Tensor y;
  {
    NoGradGuard no_grad;
    y = mul(x, mask);
  }
  const Shape x_shape = x.shape();
  return record(op, y, {x}, [mask, x_shape](const Tensor& g) {
    return std::vector<Tensor>{sum_to(mul(g, mask), x_shape)};
  });
}

}  // namespace

Tensor dropout(const Tensor& x, double p, bool training) {
  const char* op = "dropout";
  check_args(op, x, p);
  // p = 0 keeps every element: x itself, as PyTorch's _dropout returns its input for p == 0 (no
  // random draw, so the generator's stream is the same as without the call; no mask, no product).
  if (!training || p == 0.0) return x;
  return apply_mask(op, x, keep_mask(x.shape(), p, x.device()));
}

Tensor dropout2d(const Tensor& x, double p, bool training) {
  const char* op = "dropout2d";
  check_args(op, x, p);
  check(x.ndim() == 3 || x.ndim() == 4, op, ": expected an input of shape [N, C, H, W] or [C, H, W], got ",
        x.shape());
  if (!training || p == 0.0) return x;
  Shape mask_shape = x.shape();  // one draw per channel: [N, C, 1, 1] or [C, 1, 1]
  for (size_t d = mask_shape.size() - 2; d < mask_shape.size(); ++d) mask_shape[d] = 1;
  return apply_mask(op, x, keep_mask(mask_shape, p, x.device()));
}

}  // namespace sg
