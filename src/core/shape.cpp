#include "core/shape.h"

#include <algorithm>
#include <limits>

namespace sg {

std::string shape_str(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

int64_t numel_of(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    check(d >= 0, "invalid shape ", shape, ": sizes must be non-negative");
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d)
      fail("shape ", shape, " has too many elements");
    n *= d;
  }
  return n;
}

Shape contiguous_strides(const Shape& shape) {
  Shape strides(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= std::max<int64_t>(shape[i], 1);
  }
  return strides;
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      fail(op, ": shapes ", a, " and ", b, " cannot be broadcast together (", da, " vs ", db,
           " at dim ", i, ")");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Shape broadcast_strides(const Shape& shape, const Shape& strides, const Shape& target) {
  Shape out(target.size(), 0);
  size_t off = target.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i)
    out[off + i] = (shape[i] == 1 && target[off + i] != 1) ? 0 : strides[i];
  return out;
}

int64_t normalize_dim(int64_t dim, int64_t ndim, const char* op) {
  int64_t lo = ndim == 0 ? -1 : -ndim, hi = ndim == 0 ? 0 : ndim - 1;
  if (dim < lo || dim > hi)
    fail(op, ": dim ", dim, " is out of range for a tensor with ", ndim,
         " dims (expected a dim in [", lo, ", ", hi, "])");
  return dim < 0 ? dim + std::max<int64_t>(ndim, 1) : dim;
}

std::vector<int64_t> normalize_dims(const std::vector<int64_t>& dims, int64_t ndim, const char* op) {
  std::vector<int64_t> out;
  if (dims.empty()) {
    for (int64_t i = 0; i < ndim; ++i) out.push_back(i);
    return out;
  }
  for (int64_t d : dims) out.push_back(normalize_dim(d, ndim, op));
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end())
    fail(op, ": dim ", shape_str(dims), " repeats a dim");
  if (ndim == 0) out.clear();
  return out;
}

Shape infer_shape(const Shape& requested, int64_t numel, const char* op) {
  Shape out = requested;
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      check(infer < 0, op, ": only one dimension can be -1, got ", requested);
      infer = static_cast<int>(i);
    } else {
      check(out[i] >= 0, op, ": invalid size ", out[i], " in shape ", requested);
      known *= out[i];
    }
  }
  if (infer >= 0) {
    check(known != 0 && numel % known == 0, op, ": shape ", requested,
          " is invalid for input of size ", numel);
    out[infer] = numel / known;
  }
  check(numel_of(out) == numel, op, ": shape ", requested, " is invalid for input of size ", numel);
  return out;
}

}  // namespace sg
