// Layer norm through the backend's row kernels (LayerKernels::layer_norm_f32 and its backward:
// one dispatch forward, two backward on WebGPU) instead of the ~25 ops of norm.cpp's composed
// form, on a device that has them.
#pragma once
#include <vector>

#include "core/tensor.h"

namespace sg {

// y = x̂·w + b over the last numel(normalized_shape) values of each row, with its gradient node
// over {x, weight, bias}; an undefined Tensor when x's backend has no such kernel (the CPU's:
// the caller then composes ops). Checks are the caller's (norm.cpp's layer_norm).
Tensor layer_norm_fused(const char* op, const Tensor& x, const Shape& normalized_shape, const Tensor& weight,
                        const Tensor& bias, double eps);

// The same node's gradients {dx, dweight, dbias} through differentiable ops, the statistics
// recomputed from x (norm.cpp): what its backward runs while a gradient is recorded.
std::vector<Tensor> layer_norm_grads_ops(const Tensor& g, const Tensor& x, const Shape& normalized_shape,
                                         const Tensor& weight, double eps);

}  // namespace sg
