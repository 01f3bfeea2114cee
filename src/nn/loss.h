// Loss functions with PyTorch's semantics (torch.nn.functional). `reduction` is "mean",
// "sum" or "none" (kl_div also "batchmean": the sum divided by input.size(0)); any other
// string is an error that lists the allowed ones. Each loss is differentiable in its input
// and, where PyTorch differentiates it, in its target (noted per loss); weights are not
// differentiated.
#pragma once
#include <string>

#include "core/tensor.h"

namespace sg {

// Log-softmax over the class dim + negative log-likelihood, fused: one pass over rows of
// classes with the max shift (finite for logits of ±1e4) and its own backward
// (softmax − target distribution). input [C], [N, C] or [N, C, d1, ...] (class dim 1).
// target: int32 class indices of input's shape without the class dim, or float32
// probabilities of input's shape (then differentiable too). weight [C] or undefined.
// Index targets equal to ignore_index contribute nothing; 'mean' divides by the summed weight
// of the non-ignored targets. label_smoothing ε in [0, 1] mixes the target with the uniform
// distribution: (1 − ε)·NLL + ε/C·Σ_c w_c·(−log p_c), as PyTorch (for probability targets:
// target·(1 − ε) + ε/C, and 'mean' divides by the number of rows).
Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = Tensor(),
                     int64_t ignore_index = -100, const std::string& reduction = "mean",
                     double label_smoothing = 0.0);

// −weight[t]·input[t] per row for log-probabilities input (layouts as cross_entropy) and
// int32 class-index targets; ignore_index and 'mean' as cross_entropy.
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight = Tensor(),
                int64_t ignore_index = -100, const std::string& reduction = "mean");

// Elementwise losses: input and target broadcast together (as PyTorch, which warns) and the
// loss has the broadcast shape for 'none'. Differentiable in input and target.
Tensor mse_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean");
Tensor l1_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean");
// 0.5·d²/β where |d| < β, else |d| − 0.5·β; β = 0 is l1_loss, β < 0 an error.
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean",
                      double beta = 1.0);
// 0.5·d² where |d| < δ, else δ·(|d| − 0.5·δ); δ must be positive.
Tensor huber_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean",
                  double delta = 1.0);
// target·(log target − input) (0 where target = 0), or with log_target
// exp(target)·(target − input). input holds log-probabilities.
Tensor kl_div(const Tensor& input, const Tensor& target, const std::string& reduction = "mean",
              bool log_target = false);

// −w·(t·log x + (1 − t)·log(1 − x)) with each log clamped to ≥ −100, for probabilities x in
// [0, 1]; target has input's shape, weight broadcasts to it. Differentiable in input and target.
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = Tensor(),
                            const std::string& reduction = "mean");
// −w·(p·t·log σ(x) + (1 − t)·log(1 − σ(x))) for logits x in the overflow-free form
// (1 − t)·x + (1 + (p − 1)·t)·softplus(−x); weight and pos_weight (p, e.g. [C] over the last
// dim) broadcast to input's shape. Differentiable in input and target.
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const Tensor& weight = Tensor(), const Tensor& pos_weight = Tensor(),
                                        const std::string& reduction = "mean");

// x1, x2 [N, D] with y [N] (or [D], [D] with a 0-d y) of ±1 (int32 or float32):
// 1 − cos(x1, x2) where y = 1, max(0, cos − margin) where y = −1 (0 elsewhere), with
// cos = x1·x2 / sqrt((|x1|² + 1e-12)(|x2|² + 1e-12)). Differentiable in x1 and x2.
Tensor cosine_embedding_loss(const Tensor& x1, const Tensor& x2, const Tensor& y, double margin = 0.0,
                             const std::string& reduction = "mean");

}  // namespace sg
