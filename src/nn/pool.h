// Pooling with PyTorch's semantics (F.max_pool1d/2d, F.avg_pool1d/2d, F.adaptive_avg_pool2d)
// over the last 1 or 2 dims of a batched [N, C, ...] or unbatched [C, ...] input.
// Size arguments take 1 value (used for every pooled dim) or one per pooled dim; an empty
// stride means "= kernel_size", as PyTorch's stride=None.
#pragma once
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "kernels/backend.h"

namespace sg {

// Max over each window (padding never wins). The gradient goes to the window's max, the
// first one in row-major order on ties (NaN counts as the max), as PyTorch.
// padding ≤ kernel_size / 2. ceil_mode rounds the output size up, but a window must start
// inside the input or the left padding.
Tensor max_pool1d(const Tensor& x, const std::vector<int64_t>& kernel_size,
                  const std::vector<int64_t>& stride = {}, const std::vector<int64_t>& padding = {0},
                  const std::vector<int64_t>& dilation = {1}, bool ceil_mode = false);
Tensor max_pool2d(const Tensor& x, const std::vector<int64_t>& kernel_size,
                  const std::vector<int64_t>& stride = {}, const std::vector<int64_t>& padding = {0},
                  const std::vector<int64_t>& dilation = {1}, bool ceil_mode = false);

// The gradient of a max pool's input for gy, from the argmax idx the forward wrote (on idx's
// device); recorded (differentiable again) while a gradient is being recorded.
Tensor max_pool_backward(const PoolGeom& pg, const Tensor& idx, const Tensor& gy, const Shape& x_shape);

// max_pool2d's argument checks and geometry on an input of `shape` ([N, C, H, W] or [C, H, W]):
// the backend's PoolGeom and the output shape, for ops that pool what they compute themselves
// (conv2d_relu_max_pool2d).
struct MaxPool2dPlan {
  PoolGeom geom;
  Shape out_shape;
};
MaxPool2dPlan max_pool2d_plan(const char* op, const Shape& shape, const std::vector<int64_t>& kernel_size,
                              const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                              const std::vector<int64_t>& dilation, bool ceil_mode);

// Mean over each window. Divisor: with count_include_pad, the window's size clipped to the
// padded input (a ceil_mode window past the padding counts only up to it); without, the
// number of input elements in it.
Tensor avg_pool1d(const Tensor& x, const std::vector<int64_t>& kernel_size,
                  const std::vector<int64_t>& stride = {}, const std::vector<int64_t>& padding = {0},
                  bool ceil_mode = false, bool count_include_pad = true);
Tensor avg_pool2d(const Tensor& x, const std::vector<int64_t>& kernel_size,
                  const std::vector<int64_t>& stride = {}, const std::vector<int64_t>& padding = {0},
                  bool ceil_mode = false, bool count_include_pad = true);

// Output cell i averages input rows floor(i·H/out) .. ceil((i+1)·H/out) − 1 (likewise columns).
Tensor adaptive_avg_pool2d(const Tensor& x, const std::vector<int64_t>& output_size);

}  // namespace sg
