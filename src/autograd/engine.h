// The backward engine: runs the graph's nodes in reverse topological order, summing the
// gradients that reach each node before running it.
#pragma once
#include <vector>

#include "core/tensor.h"

namespace sg {

// Accumulates d(root)/d(leaf) · grad_output into every reachable leaf's .grad.
// grad_output may be undefined when root has one element (it is then 1).
// Without retain_graph the nodes' saved tensors are freed; a second backward then throws.
// With create_graph the gradients are recorded too (every formula computes through
// differentiable ops), so they can be differentiated again; .grad then carries a graph.
// (PyTorch's default retain_graph = create_graph is the caller's: the JS layer applies it.)
void run_backward(const Tensor& root, const Tensor& grad_output, bool retain_graph, bool create_graph = false);

// The gradients of root with respect to `inputs` (leaves or not), leaving every .grad untouched
// (torch.autograd.grad). An input root does not depend on gets a zero gradient. Only the nodes
// from which an input is reached run.
std::vector<Tensor> compute_grads(const Tensor& root, const Tensor& grad_output,
                                  const std::vector<Tensor>& inputs, bool retain_graph, bool create_graph = false);

}  // namespace sg
