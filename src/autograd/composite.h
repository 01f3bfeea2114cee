// Double backward for ops whose backward is a fused kernel with no recorded form: the op's
// forward is written again with differentiable ops, run on the saved inputs, and differentiated
// with create_graph (PyTorch's way for its composite ops). Used only while a gradient is being
// recorded; the fused kernel stays the first-order path.
#pragma once
#include <functional>
#include <vector>

#include "core/tensor.h"

namespace sg {

using CompositeFn = std::function<Tensor(const std::vector<Tensor>& inputs)>;

// The gradients of f(inputs)·g with respect to every input that requires grad (undefined for
// the others), recorded: differentiable with respect to the inputs and to g. Each input enters f
// through an alias node of its own, so that only the paths through f are differentiated (an input
// that depends on another is not counted twice).
std::vector<Tensor> composite_vjp(const Tensor& g, const std::vector<Tensor>& inputs, const CompositeFn& f);

}  // namespace sg
