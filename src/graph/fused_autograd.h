// Gradients through a fused kernel. Three ways, the first that applies:
//   - while the gradient is itself recorded (backward with createGraph), the members run again
//     with autograd from the inputs and their gradients are taken through the engine, joined to
//     the graph, so that a second derivative goes through them;
//   - the fused gradient (graph/fused_backward.h): the forward kernel also stores the costly
//     values the formulas read, and each output's gradient is one more fused kernel;
//   - otherwise (an op without a fused formula, or no kernel for it on the device) the forward
//     keeps nothing, and backward runs the members again one by one with autograd from the
//     saved inputs (rematerialization), then backpropagates through them.
// Each gives the gradients of the unfused graph (up to the order in which contributions meeting
// at one value are added).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "graph/fused_program.h"

namespace sg::graph {

// Runs the program on inputs of which one requires grad (grad mode on), its outputs joined to
// the autograd graph as results of `inputs`. Falls back to the members one by one where no
// kernel runs it.
std::vector<Tensor> run_fused_with_grad(const std::shared_ptr<const FusedProgram>& p, const std::vector<Tensor>& inputs);

// How many backward runs through this program's kernel ran as one fused gradient kernel, and
// how many replayed its members (f.stats().fusedBackward: tests and benchmarks see which way).
struct FusedBackwardCounts {
  int64_t fused = 0, replayed = 0;
};
FusedBackwardCounts fused_backward_counts(const FusedProgram& p);

}  // namespace sg::graph
