// Strided element iteration shared by every layer: copies and casts between layouts.
#pragma once
#include "core/tensor.h"

namespace sg {

// A new contiguous tensor with t's values (cast to `dtype`). Float→int truncates toward zero;
// anything nonzero → true.
Tensor contiguous_copy(const Tensor& t, DType dtype);
inline Tensor contiguous_copy(const Tensor& t) { return contiguous_copy(t, t.dtype()); }
// t itself when already contiguous with that dtype, else a copy.
Tensor as_contiguous(const Tensor& t, DType dtype);
inline Tensor as_contiguous(const Tensor& t) { return as_contiguous(t, t.dtype()); }
// Writes src (broadcast to dst's shape) into dst, whatever their layouts and dtypes.
void copy_into(const Tensor& dst, const Tensor& src);

// Calls fn(offset_a, offset_b) for every index of `shape`, row-major, with element offsets
// computed from the two stride lists.
template <class Fn>
void for_each_offset2(const Shape& shape, const Shape& sa, const Shape& sb, Fn&& fn) {
  int64_t n = numel_of(shape);
  if (n == 0) return;
  size_t nd = shape.size();
  if (nd == 0) {
    fn(int64_t(0), int64_t(0));
    return;
  }
  std::vector<int64_t> idx(nd, 0);
  int64_t oa = 0, ob = 0;
  const int64_t inner = shape[nd - 1], ia = sa[nd - 1], ib = sb[nd - 1];
  for (int64_t done = 0; done < n; done += inner) {
    for (int64_t j = 0; j < inner; ++j) fn(oa + j * ia, ob + j * ib);
    for (size_t d = nd - 1; d-- > 0;) {  // carry into the outer dims
      if (++idx[d] < shape[d]) {
        oa += sa[d];
        ob += sb[d];
        break;
      }
      oa -= sa[d] * (shape[d] - 1);
      ob -= sb[d] * (shape[d] - 1);
      idx[d] = 0;
    }
  }
}

}  // namespace sg
