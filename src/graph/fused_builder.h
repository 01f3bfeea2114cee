// Writing fused elementwise programs (graph/fused_program.h): which kernel each fusable op runs,
// and a builder that takes steps over virtual registers (one per value, as written) and lays
// them out on as few physical registers as their lifetimes allow. Elementwise fusion
// (graph/fusion.cpp) writes a group's forward with it, the fused backward
// (graph/fused_backward.cpp) a forward recomputation followed by the gradient formulas.
#pragma once
#include <map>
#include <optional>
#include <vector>

#include "graph/fused_program.h"

namespace sg::graph {

// What one member computes: a Unary or Binary kernel, with a parameter.
struct Kernel {
  bool binary = false;
  Unary unary = Unary::Neg;
  Binary op = Binary::Add;
  float param = 0;
};

inline Kernel unary_kernel(Unary u, float param = 0) { return Kernel{false, u, Binary::Add, param}; }
inline Kernel binary_kernel(Binary b) { return Kernel{true, Unary::Neg, b, 0}; }

// The kernel a fusable op runs in its float32 forward (ops/unary.cpp, binary.cpp,
// activation.cpp): exactly one unary_f32 or binary_f32 call on its inputs; nullopt for other
// ops (clamp, two calls, is written by the builder's caller). Throws on attributes the op
// itself would reject.
std::optional<Kernel> kernel_of(const Node& n);

// clamp(x, lo?, hi?) is maximum(x, lo) then minimum(·, hi) with float32 constants (binary.cpp).
inline bool is_clamp(const Node& n) { return n.op == "clamp"; }

// Virtual operands: [0, num_inputs) the program's inputs; ~c (negative) the constant c; from
// num_inputs on, the results of the steps in the order they were taken.
class ProgramBuilder {
 public:
  ProgramBuilder(Shape shape, int num_inputs);

  int constant(double v);  // a broadcast float32 constant: float(v), as f32_scalar(v)
  int step(const Kernel& k, int a, int b = 0);
  int unary(Unary u, int a, float param = 0) { return step(unary_kernel(u, param), a); }
  int binary(Binary op, int a, int b) { return step(binary_kernel(op), a, b); }
  // Stores operand v (any kind) as the program's next output.
  void output(int v) { outputs_.push_back(v); }

  // Per virtual operand ≥ 0 (inputs, then steps): whether the stored outputs depend on it.
  std::vector<bool> needed() const;

  // The program: steps no output depends on are dropped, and a temporary's physical register
  // is free again after its last read (an op may write over one of its own operands). Sets
  // shape, num_inputs, constants, num_registers, code and output_registers.
  FusedProgram finish() const;

 private:
  struct Step {
    Kernel k;
    int a, b;
  };
  Shape shape_;
  int num_inputs_;
  std::vector<float> constants_;
  std::vector<Step> steps_;
  std::vector<int> outputs_;

  // Per virtual operand (inputs, then steps): the last step reading it, num_steps for the
  // stores, −1 for none (only steps the outputs depend on count).
  std::vector<int> last_reads() const;
};

// Writes the forward of fused members (graph nodes of fusable ops, in order) into b: `operand`
// holds the virtual operand of every value they read from outside and receives each member's
// result; a member whose result is already in `operand` (given to the program as an input) is
// not computed again.
void write_members(ProgramBuilder& b, const std::vector<Node>& members, std::map<ValueId, int>& operand);

}  // namespace sg::graph
