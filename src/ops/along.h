// How the ops that work along one dim (scans, sorting) see a tensor: as [outer, r, inner], where
// r is the size of the dim, outer the product of the sizes before it and inner after it. That is
// the layout of a contiguous copy, which is what their kernels take.
#pragma once
#include "core/shape.h"

namespace sg {

struct Along {
  int64_t dim = 0;  // normalized; 0 for a 0-d tensor, which is seen as one element
  int64_t outer = 1, r = 1, inner = 1;
};

inline Along along(const Shape& shape, int64_t dim, const char* op) {
  Along a;
  const int64_t nd = int64_t(shape.size());
  a.dim = normalize_dim(dim, nd, op);
  if (nd == 0) return a;
  for (int64_t d = 0; d < a.dim; ++d) a.outer *= shape[d];
  a.r = shape[a.dim];
  for (int64_t d = a.dim + 1; d < nd; ++d) a.inner *= shape[d];
  return a;
}

}  // namespace sg
