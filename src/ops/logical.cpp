// Logical ops and the any/all tests, composed from comparisons and reductions: a value is true
// when it is nonzero (NaN included), as in PyTorch. Results are bool and carry no gradient.
// Shapes and dims are checked here first, so that errors name the op the user called.
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {

namespace {

// x as bool: nonzero → true (bool inputs as they are).
Tensor truth(const Tensor& x) { return x.dtype() == DType::Bool ? x : ne(x, scalar_tensor(0, x.dtype())); }

template <class F>
Tensor logical(const char* op, const Tensor& a, const Tensor& b, F combine) {
  broadcast_shapes(a.shape(), b.shape(), op);
  operands_device(op, {&a, &b});
  return combine(truth(a), truth(b));
}

}  // namespace

Tensor logical_and(const Tensor& a, const Tensor& b) {
  return logical("logicalAnd", a, b, [](const Tensor& x, const Tensor& y) { return minimum(x, y); });
}
Tensor logical_or(const Tensor& a, const Tensor& b) {
  return logical("logicalOr", a, b, [](const Tensor& x, const Tensor& y) { return maximum(x, y); });
}
Tensor logical_xor(const Tensor& a, const Tensor& b) {
  return logical("logicalXor", a, b, [](const Tensor& x, const Tensor& y) { return ne(x, y); });
}
Tensor logical_not(const Tensor& x) { return eq(x, scalar_tensor(0, x.dtype())); }

// Counting the true (false) values makes empty reductions come out right without a special case.
Tensor any(const Tensor& x, const Dims& dims, bool keepdim) {
  normalize_dims(dims, x.ndim(), "any");
  return gt(sum(truth(x), dims, keepdim), scalar_tensor(0, DType::Int32));
}

Tensor all(const Tensor& x, const Dims& dims, bool keepdim) {
  normalize_dims(dims, x.ndim(), "all");
  return eq(sum(logical_not(x), dims, keepdim), scalar_tensor(0, DType::Int32));
}

}  // namespace sg
