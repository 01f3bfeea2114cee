// Training-mode batch norm as one forward and one backward pass over x [N, C, S] (contiguous
// float32), instead of the ~13 temporaries of the op-composed form in norm.cpp.
#pragma once
#include <vector>

#include "core/tensor.h"

namespace sg {

// y = (x − mean)·rstd·w + b per channel with the batch statistics (biased variance), the
// running statistics updated in place (unbiased variance) when given, and the gradient node
// over {x, weight, bias}. Checks are the caller's (norm.cpp's batch_norm).
Tensor batch_norm_training_fused(const char* op, const Tensor& x, const Tensor& running_mean,
                                 const Tensor& running_var, const Tensor& weight, const Tensor& bias,
                                 double momentum, double eps);

// The same node's gradients {dx, dweight, dbias} through differentiable ops, the statistics
// recomputed from x (norm.cpp): what its backward runs while a gradient is recorded.
std::vector<Tensor> batch_norm_training_grads_ops(const Tensor& g, const Tensor& x, const Tensor& weight,
                                                  double eps);

}  // namespace sg
