// Strided iteration over several operands at once: the loop every elementwise kernel, copy and
// gather of the scalar (reference) kernels is written with.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "core/shape.h"

namespace sg {

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
