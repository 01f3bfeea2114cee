// The gradient of a fused elementwise program (graph/fused_program.h) as fused programs: a
// forward that also stores the values the gradient formulas read and that are costly to compute
// again (results of exp, tanh, sigmoid, ...: what eager autograd saves), and per output one
// gradient kernel that recomputes the cheap values (products, sums) from the inputs and the
// saved ones, then runs every member's gradient formula in reverse order, each written with the
// very kernels and in the very order of the op's eager backward (ops/unary.cpp, binary.cpp,
// activation.cpp). Each value is the one the autograd engine would compute, in one pass over
// the elements instead of one op per formula step. Contributions meeting at one value are added
// in reverse member order, as the engine adds them; three or more may be ordered otherwise
// than the engine's walk (the 1e-6 bound).
#pragma once
#include <optional>
#include <vector>

#include "graph/fused_program.h"

namespace sg::graph {

struct FusedGradient {
  // The forward: the program's outputs, then the saved values that are not outputs already.
  FusedProgram forward;
  // Per saved value, its index among the forward's outputs.
  std::vector<int> saved_at;
  // Per output k: a program whose inputs are the forward's inputs, the gradient of output k,
  // then the saved values.
  std::vector<FusedProgram> gradients;
  // The same computing every value again from the inputs alone (after the plain forward), for
  // a device on which the forward with its saved values is more than one kernel may bind.
  std::vector<FusedProgram> recomputing;
  // Per output k and forward input, the gradient programs' outputs (the same in both kinds) that make that input's
  // gradient, in the order the engine adds them: none (not wanted, or not reached), one, or,
  // for an input read through a broadcast, one per use, each to be summed to the input's shape
  // (sum_to, as each op's backward does) before they are added.
  std::vector<std::vector<std::vector<int>>> parts;
};

// The gradients with respect to the inputs marked in `wanted` (`broadcast`: read at a shape
// other than the program's). Every fusable op has a formula; nullopt is for one that would not
// (the caller then replays the members with autograd).
std::optional<FusedGradient> fused_gradient(const FusedProgram& p, const std::vector<bool>& wanted,
                                            const std::vector<bool>& broadcast);

}  // namespace sg::graph
