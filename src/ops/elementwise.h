// Helpers shared by the elementwise op files (and by any op that runs a float32 kernel on
// broadcast operands): building a BroadcastPlan, running one Unary/Binary kernel of the active
// backend, and strided iteration over several operands for the int32/bool loops.
// None of these record autograd: they are the forward (or backward) compute of an op.
#pragma once
#include <array>
#include <initializer_list>
#include <vector>

#include "core/tensor.h"
#include "core/strided.h"
#include "kernels/backend.h"

namespace sg {

// The plan for a contiguous output of `shape` (the broadcast of a's and b's shapes) reading a
// and b through their own strides (views need no copy). Size-1 dims are dropped and dims that
// all three operands traverse contiguously are merged, so kernels see few, long dims: a 0-d
// operand becomes stride 0 over one long dim.
BroadcastPlan broadcast_plan(const Tensor& a, const Tensor& b, const Shape& shape);

// The device an op computes on: that of its operands, where a 0-d CPU tensor (a scalar) goes
// with any device. Throws naming `op` and both devices when two operands disagree.
Device operands_device(const char* op, std::initializer_list<const Tensor*> operands);
Device operands_device(const char* op, const std::vector<Tensor>& operands);
// t itself when on d, else (a scalar) its copy on d; no autograd.
Tensor moved_to(const Tensor& t, Device d);

// Floating ops compute in float32 or float64, chosen once per call, never per element:
// float64 exactly when torch.result_type of the operands is float64. Tensors with dims decide
// first; a 0-d tensor (a number from JS, a constant of a formula) widens the result only from a
// lower category (an int32 tensor times a 0-d float64 tensor is float64, a float32 tensor times a
// 0-d float64 tensor stays float32), as PyTorch's promotion does.
bool computes_f64(std::initializer_list<const Tensor*> operands);
inline bool computes_f64(const Tensor& x) { return x.dtype() == DType::Float64; }
// The floating dtype an op's result is in: Float64 or Float32.
inline DType float_dtype(bool f64) { return f64 ? DType::Float64 : DType::Float32; }
// The element pointer of a float64 tensor in its device's memory (checks the dtype).
double* dev_f64(const Tensor& t);

// out = op(a, b) with NumPy broadcasting, in float32 or float64 (computes_f64; other inputs are
// cast first). `name` names the op in broadcast errors. A new contiguous tensor, no autograd.
Tensor binary_float(Binary op, const Tensor& a, const Tensor& b, const char* name);

// y = op(x) elementwise in float32, or float64 for a float64 x (other inputs are cast to
// float32 first). New contiguous tensor, no autograd.
Tensor unary_float(Unary op, const Tensor& x, double param = 0.0);

// The older names, from before float64 (graph/ and linalg.cpp call them): the same functions.
inline Tensor binary_f32(Binary op, const Tensor& a, const Tensor& b, const char* name) {
  return binary_float(op, a, b, name);
}
inline Tensor unary_f32(Unary op, const Tensor& x, float param = 0.0f) { return unary_float(op, x, param); }

// out = op(a, b) over the broadcast shape, with a and b read as int32 (bool as 0/1); the result
// is stored as int32 (truncated, two's complement) or bool (nonzero). No autograd.
Tensor int_binary(IntBinary op, const Tensor& a, const Tensor& b, const char* name, DType out_dtype);

// out = op(x) over an int32 (or bool, read as 0/1) tensor, computed in int64 and truncated to
// int32 so that e.g. neg(INT32_MIN) wraps instead of being UB. No autograd.
Tensor int_unary(IntUnary op, const Tensor& x);

// A 0-d float32 tensor holding v, no autograd: constants in formulas (binary ops treat a 0-d
// operand as a stride-0 scalar, so no broadcast copy is made). With a float64 tensor it computes
// in float64 but holds v rounded to float: use scalar_like where v is not a float exactly.
Tensor f32_scalar(double v);
// A 0-d tensor holding v in like's floating dtype (float64 for float64, else float32): a constant
// of a formula that keeps full precision in float64 and does not widen a float32 result.
Tensor scalar_like(double v, const Tensor& like);

}  // namespace sg
