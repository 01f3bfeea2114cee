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

// out = op(a, b) with NumPy broadcasting, in float32 (non-float inputs are cast first).
// `name` names the op in broadcast errors. A new contiguous float32 tensor, no autograd.
Tensor binary_f32(Binary op, const Tensor& a, const Tensor& b, const char* name);

// y = op(x) elementwise in float32 (non-float inputs are cast first). New contiguous tensor,
// no autograd.
Tensor unary_f32(Unary op, const Tensor& x, float param = 0.0f);

// out = op(a, b) over the broadcast shape, with a and b read as int32 (bool as 0/1); the result
// is stored as int32 (truncated, two's complement) or bool (nonzero). No autograd.
Tensor int_binary(IntBinary op, const Tensor& a, const Tensor& b, const char* name, DType out_dtype);

// out = op(x) over an int32 (or bool, read as 0/1) tensor, computed in int64 and truncated to
// int32 so that e.g. neg(INT32_MIN) wraps instead of being UB. No autograd.
Tensor int_unary(IntUnary op, const Tensor& x);

// A 0-d float32 tensor holding v, no autograd: constants in formulas (binary ops treat a 0-d
// operand as a stride-0 scalar, so no broadcast copy is made).
Tensor f32_scalar(double v);

}  // namespace sg
