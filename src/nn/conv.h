// Convolutions with PyTorch's semantics (F.conv1d, F.conv2d, F.conv_transpose2d), NCL / NCHW,
// batched or unbatched (the batch dim left out, as PyTorch allows). Differentiable in the
// input, the weight and the bias. Size arguments take 1 value (used for every spatial dim)
// or one per spatial dim, like PyTorch's ints-or-tuples.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace sg {

// A convolution's padding: explicit sizes (symmetric per dim) or PyTorch's 'same' / 'valid'.
// 'same' keeps the input size (stride 1 only); when the total padding d·(k−1) of a dim is
// odd, the extra row/column goes at the end (bottom/right), as PyTorch does.
struct ConvPadding {
  std::vector<int64_t> sizes;  // used when mode is empty
  std::string mode;            // "", "same" or "valid"

  ConvPadding(std::initializer_list<int64_t> s) : sizes(s) {}
  ConvPadding(std::vector<int64_t> s) : sizes(std::move(s)) {}
  ConvPadding(const char* m) : mode(m) {}
  ConvPadding(std::string m) : mode(std::move(m)) {}
};

// x [N, C, L] or [C, L]; w [O, C/groups, kL]; b [O] or undefined → [N, O, Lout] (or [O, Lout]).
Tensor conv1d(const Tensor& x, const Tensor& w, const Tensor& b = Tensor(),
              const std::vector<int64_t>& stride = {1}, const ConvPadding& padding = {0},
              const std::vector<int64_t>& dilation = {1}, int64_t groups = 1);

// x [N, C, H, W] or [C, H, W]; w [O, C/groups, kH, kW]; b [O] or undefined. activation
// "relu" applies ReLU in the backend's write-back (the values and gradients of relu(conv2d)).
Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& b = Tensor(),
              const std::vector<int64_t>& stride = {1}, const ConvPadding& padding = {0},
              const std::vector<int64_t>& dilation = {1}, int64_t groups = 1,
              const std::string& activation = "none");

// max_pool2d(relu(conv2d(x, w, b))) as one op (nn.Sequential's Conv2d + ReLU + MaxPool2d): the
// convolution's output is pooled as it is computed and not kept; the gradients are those of
// the three ops one after the other. Convolution arguments as conv2d's, pool ones as
// max_pool2d's (an empty pool_stride means the kernel size).
Tensor conv2d_relu_max_pool2d(const Tensor& x, const Tensor& w, const Tensor& b, const std::vector<int64_t>& stride,
                              const ConvPadding& padding, const std::vector<int64_t>& dilation, int64_t groups,
                              const std::vector<int64_t>& pool_kernel, const std::vector<int64_t>& pool_stride,
                              const std::vector<int64_t>& pool_padding, const std::vector<int64_t>& pool_dilation,
                              bool ceil_mode);

// The adjoint of conv2d: x [N, C, H, W] or [C, H, W]; w [C, O/groups, kH, kW]; b [O] or
// undefined. Output size (H−1)·stride − 2·padding + dilation·(k−1) + output_padding + 1, where
// output_padding must be smaller than the stride or the dilation. Argument order as PyTorch's.
Tensor conv_transpose2d(const Tensor& x, const Tensor& w, const Tensor& b = Tensor(),
                        const std::vector<int64_t>& stride = {1},
                        const std::vector<int64_t>& padding = {0},
                        const std::vector<int64_t>& output_padding = {0}, int64_t groups = 1,
                        const std::vector<int64_t>& dilation = {1});

}  // namespace sg
