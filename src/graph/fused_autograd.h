// Gradients through a fused kernel, by rematerialization: the fused forward keeps none of the
// chain's intermediates, and its backward runs the member ops again, one by one with autograd
// on, from the saved inputs, then backpropagates through them. The recomputed values are the
// forward's bit for bit, and the backward formulas are the ops' own, so the gradients are those
// of the unfused graph (up to the order in which contributions meeting at one input are summed).
// Cost: the chain's forward once more during backward; saving: its intermediates are neither
// kept nor (in the forward) written.
#pragma once
#include <memory>
#include <vector>

#include "graph/fused_program.h"

namespace sg::graph {

// outputs (from run_fused) joined to the autograd graph as results of `inputs`, when grad mode
// is on and an input requires grad; otherwise returned as they are.
std::vector<Tensor> attach_fused_backward(const std::shared_ptr<const FusedProgram>& p,
                                          const std::vector<Tensor>& inputs, std::vector<Tensor> outputs);

}  // namespace sg::graph
