// Internals shared by the loss files: reductions, argument checks, and the one-node shape
// of an elementwise loss (per-element loss computed unrecorded + its own backward).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace sg::loss_detail {

enum class Reduction { None, Mean, Sum, BatchMean };

// "mean" | "sum" | "none" (| "batchmean" when allowed); an error listing them otherwise.
Reduction parse_reduction(const char* op, const std::string& name, bool allow_batchmean = false);

// The per-element loss reduced (recorded when `per` requires grad, so composed losses may
// use it). BatchMean divides the sum by batch (input.size(0), or 1 for a 0-d input).
Tensor reduce_loss(const Tensor& per, Reduction r, int64_t batch = 1);

// The gradient of each element of the per-element loss given the reduced output's
// gradient g: g itself for None, g / n (0-d, broadcasting) for Mean, g / batch for BatchMean.
Tensor per_element_grad(const Tensor& g, Reduction r, int64_t n, int64_t batch = 1);

void check_float(const char* op, const Tensor& t, const char* what);

// Computes the derivatives of the per-element loss times `gl` (the per-element gradient),
// one per input of the node; undefined where need[i] is false or the input has none.
using LossGrads = std::function<std::vector<Tensor>(const Tensor& gl, const std::vector<bool>& need)>;

// The per-element loss as a function of the node's inputs, written with differentiable ops.
using PerElement = std::function<Tensor(const std::vector<Tensor>& inputs)>;

// One graph node `op` over `inputs` whose output is `per` (the per-element loss, computed
// unrecorded, of shape `per.shape()`) reduced by r; grads' results are broadcast to the
// per-element shape and summed to each input's shape. While a gradient is recorded (double
// backward), the gradients come from per_of (the same loss from the saved inputs, recorded)
// instead, when it is given; inputs marked in `constant` (weights PyTorch gives no gradient) are
// not differentiated there either.
Tensor loss_node(const char* op, const Tensor& per, Reduction r, int64_t batch, const std::vector<Tensor>& inputs,
                 LossGrads grads, PerElement per_of = nullptr, std::vector<bool> constant = {});

}  // namespace sg::loss_detail
