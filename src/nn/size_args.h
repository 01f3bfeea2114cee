// The size arguments of convolution and pooling (kernel size, stride, padding, dilation, output
// size) with PyTorch's int-or-tuple rule, and their range checks; shared by conv.cpp and pool.cpp.
#pragma once
#include <cstdint>
#include <vector>

#include "core/error.h"

namespace sg::size_args {

using Ints = std::vector<int64_t>;

// PyTorch's ints-or-tuple: one value for every spatial dim, or one per dim.
inline Ints per_dim(const char* op, const char* what, const Ints& v, int nd) {
  if (v.size() == 1) return Ints(nd, v[0]);
  if (static_cast<int>(v.size()) == nd) return v;
  fail(op, ": expected ", what, " to have ", nd == 1 ? "1 value" : "1 or 2 values", ", got ", v.size(),
       " (", v, ")");
}

// Every value at least `min` (1: "must be positive", 0: "must be non-negative").
inline void check_each(const char* op, const char* what, const Ints& v, int64_t min) {
  for (int64_t e : v)
    check(e >= min, op, ": ", what, min > 0 ? " must be positive" : " must be non-negative", ", got ", v);
}

}  // namespace sg::size_args
