// Helpers shared by the elementwise op files (and by any op that runs a float32 kernel on
// broadcast operands): building a BroadcastPlan, running one Unary/Binary kernel of the active
// backend, and strided iteration over several operands for the int32/bool loops.
// None of these record autograd: they are the forward (or backward) compute of an op.
#pragma once
#include <array>
#include <vector>

#include "core/tensor.h"
#include "kernels/backend.h"

namespace sg {

// The plan for a contiguous output of `shape` (the broadcast of a's and b's shapes) reading a
// and b through their own strides (views need no copy). Size-1 dims are dropped and dims that
// all three operands traverse contiguously are merged, so kernels see few, long dims: a 0-d
// operand becomes stride 0 over one long dim.
BroadcastPlan broadcast_plan(const Tensor& a, const Tensor& b, const Shape& shape);

// out = op(a, b) with NumPy broadcasting, in float32 (non-float inputs are cast first).
// `name` names the op in broadcast errors. A new contiguous float32 tensor, no autograd.
Tensor binary_f32(Binary op, const Tensor& a, const Tensor& b, const char* name);

// y = op(x) elementwise in float32 (non-float inputs are cast first). New contiguous tensor,
// no autograd.
Tensor unary_f32(Unary op, const Tensor& x, float param = 0.0f);

// A 0-d float32 tensor holding v, no autograd: constants in formulas (binary ops treat a 0-d
// operand as a stride-0 scalar, so no broadcast copy is made).
Tensor f32_scalar(double v);

// Calls fn(offsets) for every index of `shape` in row-major order, where offsets[k] is the
// element offset of operand k under strides[k] (already broadcast to `shape`, 0 where expanded).
template <size_t N, class Fn>
void for_each_offsets(const Shape& shape, const std::array<Shape, N>& strides, Fn&& fn) {
  int64_t n = numel_of(shape);
  if (n == 0) return;
  std::array<int64_t, N> off{};
  const size_t nd = shape.size();
  if (nd == 0) {
    fn(off);
    return;
  }
  std::vector<int64_t> idx(nd, 0);
  const int64_t inner = shape[nd - 1];
  for (int64_t done = 0; done < n; done += inner) {
    std::array<int64_t, N> o = off;
    for (int64_t j = 0; j < inner; ++j) {
      fn(o);
      for (size_t k = 0; k < N; ++k) o[k] += strides[k][nd - 1];
    }
    for (size_t d = nd - 1; d-- > 0;) {  // carry into the outer dims
      if (++idx[d] < shape[d]) {
        for (size_t k = 0; k < N; ++k) off[k] += strides[k][d];
        break;
      }
      for (size_t k = 0; k < N; ++k) off[k] -= strides[k][d] * (shape[d] - 1);
      idx[d] = 0;
    }
  }
}

}  // namespace sg
