// Lookup tables with PyTorch's semantics (F.embedding, F.one_hot).
#pragma once
#include <optional>

#include "core/tensor.h"

namespace sg {

// weight [n, d], indices int32 of any shape → indices.shape + [d], row i of weight per index.
// Indices must lie in [0, n). The gradient of weight scatter-adds the rows of g (repeated
// indices accumulate); the row padding_idx (negative counts from the end) gets none.
Tensor embedding(const Tensor& weight, const Tensor& indices, std::optional<int64_t> padding_idx = std::nullopt);

// int32 indices of any shape → int32 indices.shape + [num_classes] of 0/1; num_classes −1
// means max(indices) + 1. Not differentiable.
Tensor one_hot(const Tensor& indices, int64_t num_classes = -1);

}  // namespace sg
