// Shapes, strides and the broadcasting rules (NumPy's), shared by every op.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"

namespace sg {

using Shape = std::vector<int64_t>;

int64_t numel_of(const Shape& shape);                 // 1 for a 0-d shape; checks for overflow
Shape contiguous_strides(const Shape& shape);         // row-major, in elements
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);
// Strides that read `shape`/`strides` as if it had been broadcast to `target` (0 where expanded).
Shape broadcast_strides(const Shape& shape, const Shape& strides, const Shape& target);
// Maps a possibly negative dim into [0, ndim); `ndim` 0 accepts -1 and 0 (PyTorch's scalar rule).
int64_t normalize_dim(int64_t dim, int64_t ndim, const char* op);
// Sorted unique normalized dims; an empty list means all dims.
std::vector<int64_t> normalize_dims(const std::vector<int64_t>& dims, int64_t ndim, const char* op);
// reshape/view: replaces one -1, checks the element count.
Shape infer_shape(const Shape& requested, int64_t numel, const char* op);

}  // namespace sg
