// A fused elementwise kernel: a chain of float32 elementwise ops (add, mul, exp, relu, ...) over
// one shape, run as one pass in blocks of kBlock elements instead of one pass (and one
// allocation) per op. Per block, each input is loaded once (through its broadcast strides),
// then each op runs as the backend's own Unary/Binary kernel on the block, in registers of
// kBlock floats, and only the values needed outside the chain are stored. Every element goes
// through the same kernel functions as in the op-by-op run, in the same order, so the results
// are bit-identical to it.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "graph/ir.h"
#include "kernels/backend.h"

namespace sg::graph {

// Elements per block: a few registers of this size stay in the L1 cache.
constexpr int64_t kBlock = 1024;

// Registers: [0, num_inputs) the node's inputs, then one per constant (a broadcast scalar),
// then the temporaries (shared by values whose lifetimes do not overlap).
struct FusedProgram {
  Shape shape;  // every member's output shape
  int num_inputs = 0;
  std::vector<float> constants;
  int num_registers = 0;
  std::vector<FusedInstr> code;
  std::vector<int> output_registers;  // one per node output
  // The ops it replaces (graph value ids), in order: run one by one where the kernel cannot
  // run (another device, other shapes); their gradients are written into the fused gradient,
  // or replayed where it cannot run (graph/fused_autograd.h).
  std::vector<Node> members;
  std::vector<ValueId> input_values, output_values;
  // The fused gradients made for it so far, by which inputs are wanted and broadcast, and how
  // its backward runs went (graph/fused_autograd.cpp).
  mutable std::shared_ptr<struct FusedGradientCache> gradient_cache;
};

// Whether the program can run on these inputs: all on one device, float32, with the traced
// shapes (broadcastable to them).
bool can_run_fused(const FusedProgram& p, const std::vector<Tensor>& inputs);

// Runs the program: on the CPU block by block; on another device as one kernel of its backend
// (Backend::fused_f32), or not at all (an empty result: the caller runs the members instead).
// On the CPU, an input the caller gives up (`donated[i]`, contiguous, float32, not shared
// with any other tensor) may become the buffer of an output of its size (peak memory).
// No autograd.
std::vector<Tensor> run_fused(const FusedProgram& p, const std::vector<Tensor>& inputs,
                              const std::vector<bool>& donated);

// Runs the members one by one (registry ops, with autograd as usual) on the inputs and returns
// the outputs: the unfused path.
std::vector<Tensor> run_members(const FusedProgram& p, const std::vector<Tensor>& inputs);

}  // namespace sg::graph
