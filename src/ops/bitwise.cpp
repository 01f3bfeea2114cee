// Bitwise ops and gcd/lcm (ops/bitwise.h). The operands' promoted dtype decides:
//   bool   and, or, xor and not are the logical ops (bool results, as PyTorch); shifts, gcd and
//          lcm are refused, as PyTorch refuses them for bool;
//   int32  the int32 kernels (kernels/data_kernels.h IntBinary), int32 results;
//   float  refused: PyTorch has no bitwise ops on floats.
// Shifts by an amount outside [0, 32) give 0 (left) or the sign fill (right): PyTorch ≥ 2.1's
// definition. PyTorch 1.13's CPU kernels leave it to the hardware (x86 takes the amount mod 32).
#include "ops/bitwise.h"

#include "core/error.h"
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {

namespace {

// The dtype both operands promote to, after refusing float32 (and bool where `bool_ok` is false).
DType integer_dtype(const char* op, const Tensor& a, const Tensor& b, bool bool_ok) {
  const DType d = promote(a.dtype(), b.dtype());
  if (d == DType::Float32 || (d == DType::Bool && !bool_ok))
    fail(op, ": expected int32", bool_ok ? " or bool" : "", " tensors, got ", dtype_name(a.dtype()), " and ",
         dtype_name(b.dtype()), " (PyTorch has no ", op, " for ", dtype_name(d), ")");
  return d;
}

template <class Logical>
Tensor bitwise(const char* op, IntBinary kernel, const Tensor& a, const Tensor& b, Logical logical) {
  if (integer_dtype(op, a, b, true) == DType::Bool) {
    broadcast_shapes(a.shape(), b.shape(), op);  // (so that shape errors name this op)
    return logical(a, b);
  }
  return int_binary(kernel, a, b, op, DType::Int32);
}

Tensor int_only(const char* op, IntBinary kernel, const Tensor& a, const Tensor& b) {
  integer_dtype(op, a, b, false);
  return int_binary(kernel, a, b, op, DType::Int32);
}

}  // namespace

Tensor bitwise_and(const Tensor& a, const Tensor& b) {
  return bitwise("bitwiseAnd", IntBinary::BitAnd, a, b, [](const Tensor& x, const Tensor& y) { return logical_and(x, y); });
}
Tensor bitwise_or(const Tensor& a, const Tensor& b) {
  return bitwise("bitwiseOr", IntBinary::BitOr, a, b, [](const Tensor& x, const Tensor& y) { return logical_or(x, y); });
}
Tensor bitwise_xor(const Tensor& a, const Tensor& b) {
  return bitwise("bitwiseXor", IntBinary::BitXor, a, b, [](const Tensor& x, const Tensor& y) { return logical_xor(x, y); });
}
Tensor bitwise_not(const Tensor& x) {
  if (x.dtype() == DType::Bool) return logical_not(x);
  check(x.dtype() == DType::Int32, "bitwiseNot: expected an int32 or bool tensor, got ", dtype_name(x.dtype()),
        " (PyTorch has no bitwiseNot for float32)");
  return int_unary(IntUnary::BitNot, x);
}
Tensor bitwise_left_shift(const Tensor& a, const Tensor& b) {
  return int_only("bitwiseLeftShift", IntBinary::ShiftLeft, a, b);
}
Tensor bitwise_right_shift(const Tensor& a, const Tensor& b) {
  return int_only("bitwiseRightShift", IntBinary::ShiftRight, a, b);
}
Tensor gcd(const Tensor& a, const Tensor& b) { return int_only("gcd", IntBinary::Gcd, a, b); }
Tensor lcm(const Tensor& a, const Tensor& b) { return int_only("lcm", IntBinary::Lcm, a, b); }

}  // namespace sg
