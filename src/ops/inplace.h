// In-place ops (PyTorch's add_, mul_, fill_, copy_, ...): each changes x's elements and returns
// x. PyTorch's rules:
//   - x's storage version goes up by one (shared by every view of it); a backward formula that
//     saved x (or a view of it) before then refuses to run (autograd/node.h);
//   - with grad mode on, x must not be a leaf that requires grad;
//   - when the change is recorded (grad mode on and x or an operand requires grad), x's history
//     is rebased: its grad_fn becomes the out-of-place op's node, fed by x's old history. Not
//     supported on storage that a recorded view shares (a view of a graph tensor, or the base of
//     one): an Error says so (use the out-of-place op, or change a clone());
//   - the result must have x's shape (no broadcasting x itself) and a dtype x can hold
//     (a float32 result does not go into an int32 tensor); copy_ casts like PyTorch's copy_.
// Elementwise ops that record nothing run their kernel in place on a contiguous x.
#pragma once
#include <optional>

#include "core/tensor.h"

namespace sg {

const Tensor& add_(const Tensor& x, const Tensor& other, double alpha = 1.0);
const Tensor& sub_(const Tensor& x, const Tensor& other, double alpha = 1.0);
const Tensor& mul_(const Tensor& x, const Tensor& other);
const Tensor& div_(const Tensor& x, const Tensor& other);
const Tensor& pow_(const Tensor& x, const Tensor& exponent);
const Tensor& clamp_(const Tensor& x, std::optional<double> min, std::optional<double> max);
const Tensor& masked_fill_(const Tensor& x, const Tensor& mask, double value);
// x ← x + value·t1·t2 and x ← x + value·t1/t2 (Adam-style updates).
const Tensor& addcmul_(const Tensor& x, const Tensor& t1, const Tensor& t2, double value = 1.0);
const Tensor& addcdiv_(const Tensor& x, const Tensor& t1, const Tensor& t2, double value = 1.0);
// x ← unary(x); `op` is the JS name: neg_, exp_, log_, sqrt_, abs_, sigmoid_, tanh_, relu_.
const Tensor& unary_(const char* op, const Tensor& x);
const Tensor& fill_(const Tensor& x, double value);
const Tensor& zero_(const Tensor& x);
// x ← src broadcast to x's shape, cast to x's dtype (float → int truncates).
const Tensor& copy_(const Tensor& x, const Tensor& src);
// x ← draws from the global generator (float32 x only).
const Tensor& normal_(const Tensor& x, double mean = 0.0, double std = 1.0);
const Tensor& uniform_(const Tensor& x, double from = 0.0, double to = 1.0);

}  // namespace sg
