// Normalization layers with PyTorch's semantics (F.batch_norm, F.layer_norm, F.group_norm,
// F.instance_norm). Each is one graph node over (x, weight, bias): the statistics, the
// normalization and the affine step run without recording, and one backward formula gives
// the gradients of x (through the batch statistics when they were used), weight and bias.
// weight and bias may be undefined (no affine step). Running statistics are buffers: updated
// in place, never differentiated.
#pragma once
#include "core/tensor.h"

namespace sg {

// x [N, C, ...]; running_mean, running_var [C] or undefined; weight, bias [C] or undefined.
// training: normalize with the batch statistics over every dim but 1 (biased variance) and,
// when given, update running = (1 − momentum)·running + momentum·batch in place, with the
// UNBIASED batch variance for running_var (PyTorch's cumulative average, momentum None, is
// momentum = 1 / num_batches_tracked, computed by the caller). Needs more than one value per
// channel. Eval: normalize with the running statistics (both required).
Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight = Tensor(), const Tensor& bias = Tensor(), bool training = false,
                  double momentum = 0.1, double eps = 1e-5);

// Normalizes over the last normalized_shape.size() dims of x, which must equal
// normalized_shape; weight and bias have that shape.
Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight = Tensor(),
                  const Tensor& bias = Tensor(), double eps = 1e-5);

// x [N, C, ...] with C divisible by num_groups: statistics per sample and group of C / groups
// channels (and every spatial position); weight, bias [C].
Tensor group_norm(const Tensor& x, int64_t num_groups, const Tensor& weight = Tensor(),
                  const Tensor& bias = Tensor(), double eps = 1e-5);

// x [N, C, ...]: statistics per sample and channel over the spatial dims (use_input_stats,
// PyTorch's default for InstanceNorm without tracked stats; needs more than one spatial
// element). Given running stats [C] are then updated in place with the mean over the batch of
// the per-instance statistics (unbiased variance). use_input_stats false normalizes with the
// running statistics (both required), as an InstanceNorm that tracks them does in eval mode.
Tensor instance_norm(const Tensor& x, const Tensor& running_mean = Tensor(),
                     const Tensor& running_var = Tensor(), const Tensor& weight = Tensor(),
                     const Tensor& bias = Tensor(), bool use_input_stats = true, double momentum = 0.1,
                     double eps = 1e-5);

}  // namespace sg
