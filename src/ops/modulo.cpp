// fmod, remainder, floorDivide and div's rounding modes, as PyTorch 1.13 (values from
// DataKernels::modulo): int32 operands give int32 (a zero divisor is PyTorch's
// ZeroDivisionError), a float32 operand makes it float32, bool is refused (as PyTorch).
// Gradients, PyTorch's: fmod and remainder pass g to a and −g·(a / b rounded toward zero, or
// down) to b; div with a rounding mode gives g·0 to both; floorDivide has none (an Error, as
// PyTorch's "derivative not implemented").
#include "autograd/record.h"
#include "core/copy.h"
#include "ops/elementwise.h"
#include "ops/fallback.h"
#include "ops/ops.h"

namespace sg {

namespace {

using Grads = std::vector<Tensor>;

Tensor as_dtype(const Tensor& t, DType d) { return t.dtype() == d ? t : contiguous_copy(t, d); }

// Throws the ZeroDivisionError of an integer division at the first zero of divisor b (int32; on
// a GPU at the next sync). A shape-only run on stand-in zeros (ops/fallback.h) checks nothing.
void check_nonzero(const char* op, const Tensor& b) {
  if (in_stand_in_run() || b.numel() == 0) return;
  const Tensor c = as_contiguous(b);
  backend_for(c.device()).check_nonzero_i32(c.dev_i32(), c.numel(), std::string(op) +
      ": expected nonzero divisors for integer tensors, got ", " (PyTorch raises ZeroDivisionError)");
}

Tensor modulo_values(const char* op, Modulo m, const Tensor& a0, const Tensor& b0) {
  check(a0.dtype() != DType::Bool && b0.dtype() != DType::Bool, op,
        ": expected float32 or int32 tensors (bool is not supported, as in PyTorch), got ",
        dtype_name(a0.dtype()), " and ", dtype_name(b0.dtype()));
  const Shape shape = broadcast_shapes(a0.shape(), b0.shape(), op);
  const Device dev = operands_device(op, {&a0, &b0});
  const DType dt = promote(a0.dtype(), b0.dtype());
  const Tensor a = as_dtype(moved_to(a0, dev), dt), b = as_dtype(moved_to(b0, dev), dt);
  if (dt == DType::Int32) check_nonzero(op, b);
  Tensor out = Tensor::uninitialized(shape, dt, dev);
  if (out.numel() > 0) backend_for(dev).modulo(m, dt, broadcast_plan(a, b, shape), a.dev_raw(), b.dev_raw(), out.dev_raw());
  return out;
}

// fmod and remainder: g to a; −g·(a / b rounded by `rounding`) to b.
Tensor modulo_with_grad(const char* op, Modulo m, const char* rounding, const Tensor& a, const Tensor& b) {
  Tensor out = modulo_values(op, m, a, b);
  if (out.dtype() != DType::Float32) return out;
  const bool need_a = a.requires_grad(), need_b = b.requires_grad();
  return record(op, out, {a, b}, {a, b}, [need_a, need_b, rounding, sa = a.shape(), sb = b.shape()](
                                             const Tensor& g, const SavedTensors& s) -> Grads {
    return {need_a ? sum_to(g, sa) : Tensor(),
            need_b ? sum_to(mul(neg(g), div_rounded(s[0], s[1], rounding)), sb) : Tensor()};
  });
}

}  // namespace

Tensor fmod(const Tensor& a, const Tensor& b) { return modulo_with_grad("fmod", Modulo::Fmod, "trunc", a, b); }

Tensor remainder(const Tensor& a, const Tensor& b) {
  return modulo_with_grad("remainder", Modulo::Remainder, "floor", a, b);
}

Tensor div_rounded(const Tensor& a, const Tensor& b, const std::string& rounding) {
  check(rounding == "trunc" || rounding == "floor",
        "div: expected roundingMode to be 'trunc' or 'floor' (or absent), got '", rounding, "'");
  Tensor out = modulo_values("div", rounding == "floor" ? Modulo::FloorDivide : Modulo::TruncDivide, a, b);
  if (out.dtype() != DType::Float32) return out;
  // Piecewise constant: PyTorch's grad · 0 (NaN where g is not finite).
  return record("div", out, {a, b}, [na = a.requires_grad(), nb = b.requires_grad(), sa = a.shape(),
                                     sb = b.shape()](const Tensor& g) -> Grads {
    const Tensor zero = mul(g, f32_scalar(0));
    return {na ? sum_to(zero, sa) : Tensor(), nb ? sum_to(zero, sb) : Tensor()};
  });
}

Tensor floor_divide(const Tensor& a, const Tensor& b) {
  Tensor out = modulo_values("floorDivide", Modulo::FloorDivide, a, b);
  if (out.dtype() != DType::Float32) return out;
  return record("floorDivide", out, {a, b}, [](const Tensor&) -> Grads {
    fail("floorDivide: its derivative is not implemented (as in PyTorch); use div(a, b, { roundingMode: "
         "'floor' }) for the same values with zero gradients, or detach the inputs");
  });
}

}  // namespace sg
