// Comparisons (bool results, not differentiable) and selection (where, masked_fill:
// differentiable in the selected values), on the backend's compare/select kernels.
#include <cmath>

#include "autograd/record.h"
#include "core/copy.h"
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {

namespace {

using Grads = std::vector<Tensor>;

Tensor to_dtype(const Tensor& t, DType dt) { return t.dtype() == dt ? t : contiguous_copy(t, dt); }

// Compared in the promoted dtype (an int32 against a float32 compares as float32, as PyTorch).
// NaN compares false except under ne (IEEE).
Tensor compare(const char* name, Compare op, const Tensor& a0, const Tensor& b0) {
  const Shape shape = broadcast_shapes(a0.shape(), b0.shape(), name);
  const Device dev = operands_device(name, {&a0, &b0});
  const DType dt = promote(a0.dtype(), b0.dtype());
  const Tensor ac = to_dtype(moved_to(a0, dev), dt), bc = to_dtype(moved_to(b0, dev), dt);
  Tensor out = Tensor::uninitialized(shape, DType::Bool, dev);
  if (out.numel() == 0) return out;
  backend_for(dev).compare(op, dt, broadcast_plan(ac, bc, shape), ac.dev_raw(), bc.dev_raw(), out.dev_u8());
  return out;
}

// where's forward, without autograd: a where cond, else b, all three broadcast together.
Tensor select(const Tensor& cond0, const Tensor& a0, const Tensor& b0, const char* name) {
  const Shape shape = broadcast_shapes(broadcast_shapes(cond0.shape(), a0.shape(), name), b0.shape(), name);
  const Device dev = operands_device(name, {&cond0, &a0, &b0});
  DType dt = promote(a0.dtype(), b0.dtype());
  // torch.result_type: a 0-d float64 (a formula's constant) does not widen a float32 tensor.
  if (dt == DType::Float64 && !computes_f64({&a0, &b0})) dt = DType::Float32;
  const Tensor cond = moved_to(cond0, dev);
  const Tensor ac = to_dtype(moved_to(a0, dev), dt), bc = to_dtype(moved_to(b0, dev), dt);
  Tensor out = Tensor::uninitialized(shape, dt, dev);
  if (out.numel() == 0) return out;
  SelectPlan plan{shape, broadcast_strides(cond.shape(), cond.strides(), shape),
                  broadcast_strides(ac.shape(), ac.strides(), shape),
                  broadcast_strides(bc.shape(), bc.strides(), shape)};
  backend_for(dev).select(dt, plan, cond.dev_u8(), ac.dev_raw(), bc.dev_raw(), out.dev_raw());
  return out;
}

// A 0-d tensor of dtype dt holding v (masked_fill's fill value), checked to fit.
Tensor scalar_of(double v, DType dt, const char* name) {
  Tensor t = Tensor::empty({}, dt);
  switch (dt) {
    case DType::Float32: t.f32()[0] = static_cast<float>(v); break;
    case DType::Float64: t.f64()[0] = v; break;
    case DType::Int32:
      check(std::isfinite(v) && v > -2147483649.0 && v < 2147483648.0, name, ": value ", v,
            " cannot be converted to int32 without overflow");
      t.i32()[0] = static_cast<int32_t>(v);  // truncates toward zero
      break;
    case DType::Bool: t.u8()[0] = v != 0; break;
  }
  return t;
}

}  // namespace

Tensor eq(const Tensor& a, const Tensor& b) { return compare("eq", Compare::Eq, a, b); }
Tensor ne(const Tensor& a, const Tensor& b) { return compare("ne", Compare::Ne, a, b); }
Tensor lt(const Tensor& a, const Tensor& b) { return compare("lt", Compare::Lt, a, b); }
Tensor le(const Tensor& a, const Tensor& b) { return compare("le", Compare::Le, a, b); }
Tensor gt(const Tensor& a, const Tensor& b) { return compare("gt", Compare::Gt, a, b); }
Tensor ge(const Tensor& a, const Tensor& b) { return compare("ge", Compare::Ge, a, b); }

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  check(cond.dtype() == DType::Bool, "where: expected condition of dtype bool, got ",
        dtype_name(cond.dtype()));
  Tensor out = select(cond, a, b, "where");
  // The gradient goes through where itself: recorded when it is differentiated again.
  return record("where", out, {cond, a, b}, {cond},
                [sa = a.shape(), sb = b.shape(), na = a.requires_grad(),
                 nb = b.requires_grad()](const Tensor& g, const SavedTensors& s) -> Grads {
                  const Tensor zero = f32_scalar(0);
                  return {Tensor(), na ? sum_to(where(s[0], g, zero), sa) : Tensor(),
                          nb ? sum_to(where(s[0], zero, g), sb) : Tensor()};
                });
}

Tensor masked_fill(const Tensor& x, const Tensor& mask, double value) {
  check(mask.dtype() == DType::Bool, "masked_fill: expected mask of dtype bool, got ",
        dtype_name(mask.dtype()));
  check(broadcast_shapes(x.shape(), mask.shape(), "masked_fill") == x.shape(),
        "masked_fill: mask of shape ", mask.shape(), " cannot be broadcast to the input's shape ",
        x.shape());
  Tensor out = select(mask, scalar_of(value, x.dtype(), "masked_fill"), x, "masked_fill");
  return record("maskedFill", out, {x, mask}, {mask}, [](const Tensor& g, const SavedTensors& s) -> Grads {
    return {where(s[0], f32_scalar(0), g), Tensor()};
  });
}

}  // namespace sg
