#include "graph/fused_backward.h"

#include <algorithm>
#include <map>
#include <set>

#include "graph/fused_builder.h"
#include "kernels/reference/scalar_math.h"

namespace sg::graph {

namespace {

using scalar::kLn10;
using scalar::kLn2;
using scalar::kSeluAlpha;
using scalar::kSeluScale;
using scalar::kTwoOverSqrtPi;

// The gradients a member sends to its inputs a and b (−1: none), given the forward operands
// x (and bb for a binary op), its result y and its output's gradient g: each op's eager
// formula, kernel for kernel (where(m, u, v) as KeepIf(m, u) + KeepUnless(m, v), exact). False
// when the op has no formula here.
bool member_gradient(ProgramBuilder& b, const Node& m, int x, int bb, int y, int g, int& ga, int& gb) {
  const auto mul = [&](int u, int v) { return b.binary(Binary::Mul, u, v); };
  const auto div = [&](int u, int v) { return b.binary(Binary::Div, u, v); };
  const auto add = [&](int u, int v) { return b.binary(Binary::Add, u, v); };
  const auto sub = [&](int u, int v) { return b.binary(Binary::Sub, u, v); };
  const auto neg = [&](int u) { return b.unary(Unary::Neg, u); };
  const auto un = [&](Unary op, int u) { return b.unary(op, u); };
  const auto cmp = [&](Binary op, int u, int v) { return b.binary(op, u, v); };
  const auto where = [&](int mask, int u, int v) {
    return add(b.binary(Binary::KeepIf, mask, u), b.binary(Binary::KeepUnless, mask, v));
  };
  const auto c = [&](double v) { return b.constant(v); };
  const std::string& op = m.op;
  const char* name = op.c_str();
  const Attrs& at = m.attrs;
  ga = gb = -1;
  // Binary ops: the gradient of each operand (ops/binary.cpp).
  if (op == "add") ga = gb = g;
  else if (op == "sub") ga = g, gb = neg(g);
  else if (op == "mul") ga = mul(g, bb), gb = mul(g, x);
  else if (op == "div") ga = div(g, bb), gb = neg(div(mul(g, y), bb));
  else if (op == "maximum" || op == "minimum") {  // ties share g; NaN pairs pass it to both
    const bool is_max = op == "maximum";
    const int zero = c(0), half_g = mul(g, c(0.5)), tie = cmp(Binary::Equal, x, bb);
    ga = where(tie, half_g, where(cmp(is_max ? Binary::Less : Binary::Greater, x, bb), zero, g));
    gb = where(tie, half_g, where(cmp(is_max ? Binary::Greater : Binary::Less, x, bb), zero, g));
  } else if (op == "pow") {  // b·a^(b−1), 0 where b = 0; a^b·log a, 0 where a = 0 and b ≥ 0
    const int zero = c(0);
    ga = mul(g, where(cmp(Binary::Equal, bb, zero), zero, mul(bb, b.binary(Binary::Pow, x, sub(bb, c(1))))));
    const int d = mul(y, un(Unary::Log, x));
    gb = mul(g, where(cmp(Binary::Equal, x, zero), where(cmp(Binary::GreaterEqual, bb, zero), zero, d), d));
  } else if (op == "clamp") {  // 1 on [lo, hi], 0 outside and at NaN
    int gx = g;
    if (auto lo = at.opt_number(name, "min")) gx = where(cmp(Binary::GreaterEqual, x, c(*lo)), gx, c(0));
    if (auto hi = at.opt_number(name, "max")) gx = where(cmp(Binary::LessEqual, x, c(*hi)), gx, c(0));
    ga = gx;
  }
  // Unary ops: g ⊙ derivative (ops/unary.cpp), the fused backward kernel or a selection
  // (activation.cpp).
  else if (op == "neg") ga = neg(g);
  else if (op == "exp") ga = mul(g, y);
  else if (op == "log") ga = div(g, x);
  else if (op == "log2") ga = div(g, mul(x, c(kLn2)));
  else if (op == "log10") ga = div(g, mul(x, c(kLn10)));
  else if (op == "log1p") ga = div(g, add(x, c(1)));
  else if (op == "expm1") ga = mul(g, add(y, c(1)));
  else if (op == "sqrt") ga = div(g, mul(y, c(2)));
  else if (op == "rsqrt") ga = mul(g, mul(mul(y, un(Unary::Square, y)), c(-0.5)));
  else if (op == "abs") ga = mul(g, un(Unary::Sign, x));
  else if (op == "sign") ga = c(0);  // piecewise constant: zeros
  else if (op == "sin") ga = mul(g, un(Unary::Cos, x));
  else if (op == "cos") ga = mul(g, neg(un(Unary::Sin, x)));
  else if (op == "erf") ga = mul(g, mul(un(Unary::Exp, neg(un(Unary::Square, x))), c(kTwoOverSqrtPi)));
  else if (op == "square") ga = mul(g, mul(x, c(2)));
  else if (op == "reciprocal") ga = mul(g, neg(un(Unary::Square, y)));
  else if (op == "relu") ga = b.binary(Binary::ReluBackward, x, g);
  else if (op == "sigmoid") ga = b.binary(Binary::SigmoidBackward, y, g);
  else if (op == "tanh") ga = b.binary(Binary::TanhBackward, y, g);
  else if (op == "silu") ga = b.binary(Binary::SiluBackward, x, g);
  else if (op == "gelu") {
    const Kernel k = *kernel_of(m);  // the forward fused, so its approximation is one of the two
    ga = b.binary(k.unary == Unary::GeluErf ? Binary::GeluErfBackward : Binary::GeluTanhBackward, x, g);
  } else if (op == "leakyRelu") {
    ga = where(cmp(Binary::Greater, x, c(0)), g, mul(g, c(at.number(name, "negativeSlope", 0.01))));
  } else if (op == "elu") {  // x ≤ 0: αeˣ = y + α
    ga = where(cmp(Binary::Greater, x, c(0)), g, mul(g, add(y, c(at.number(name, "alpha", 1.0)))));
  } else if (op == "selu") {  // x ≤ 0: scale·α·eˣ = y + scale·α
    ga = where(cmp(Binary::Greater, x, c(0)), mul(g, c(kSeluScale)), mul(g, add(y, c(kSeluScale * kSeluAlpha))));
  } else if (op == "softplus") {  // sigmoid(βx) below the threshold, 1 above
    const int bx = mul(x, c(at.number(name, "beta", 1.0)));
    ga = where(cmp(Binary::Greater, bx, c(at.number(name, "threshold", 20.0))), g, mul(g, un(Unary::Sigmoid, bx)));
  } else {
    return false;
  }
  return true;
}

// Whether a member's kernel is costly enough that its result is saved rather than computed
// again in the gradient kernel (a transcendental function; products and sums are recomputed).
bool costly(const Node& m) {
  if (is_clamp(m)) return false;
  const Kernel k = *kernel_of(m);
  if (k.binary) return k.op == Binary::Pow;
  switch (k.unary) {
    case Unary::Neg: case Unary::Abs: case Unary::Sign: case Unary::Square: case Unary::Reciprocal:
    case Unary::Relu: case Unary::LeakyRelu:
      return false;
    default:
      return true;
  }
}

// One gradient program: output k's gradient, given the values in `saved` as inputs after g.
// Writes into `parts` (per input) and returns the program; nullopt without a formula. `read`
// receives the members' results the program reads (when nothing is saved: what to save).
std::optional<FusedProgram> gradient_program(const FusedProgram& p, size_t k, const std::vector<bool>& wanted,
                                             const std::vector<bool>& broadcast, const std::vector<ValueId>& saved,
                                             std::vector<std::vector<int>>& parts, std::set<ValueId>* read) {
  const int n = p.num_inputs;
  const int g_out = n;  // the gradient of output k
  ProgramBuilder b(p.shape, n + 1 + static_cast<int>(saved.size()));
  std::map<ValueId, int> input_of, operand;  // value → fused input; value → forward operand
  std::map<ValueId, bool> needs;             // the value depends on a wanted input
  for (int i = 0; i < n; ++i) {
    input_of[p.input_values[i]] = i;
    operand[p.input_values[i]] = i;
    needs[p.input_values[i]] = wanted[i];
  }
  for (size_t j = 0; j < saved.size(); ++j) operand[saved[j]] = n + 1 + static_cast<int>(j);
  write_members(b, p.members, operand);  // the forward again, but for the saved values
  for (const Node& m : p.members) {
    bool any = false;
    for (ValueId v : m.inputs) any = any || needs[v];
    needs[m.outputs[0]] = any;
  }
  // Backward, members in reverse: each adds its inputs' gradients to theirs.
  std::map<ValueId, int> grad{{p.output_values.at(k), g_out}};
  std::vector<std::optional<int>> input_sum(static_cast<size_t>(n));
  std::vector<std::vector<int>> input_parts(static_cast<size_t>(n));
  const auto deliver = [&](ValueId v, int contribution) {
    if (auto it = input_of.find(v); it != input_of.end()) {
      const size_t i = static_cast<size_t>(it->second);
      if (broadcast[i]) input_parts[i].push_back(contribution);
      else input_sum[i] = input_sum[i] ? b.binary(Binary::Add, *input_sum[i], contribution) : contribution;
      return;
    }
    auto [slot, fresh] = grad.try_emplace(v, contribution);
    if (!fresh) slot->second = b.binary(Binary::Add, slot->second, contribution);
  };
  for (size_t j = p.members.size(); j-- > 0;) {
    const Node& m = p.members[j];
    const auto g = grad.find(m.outputs[0]);
    if (g == grad.end() || !needs[m.outputs[0]]) continue;  // no gradient reaches it, or none is wanted below
    const int x = operand.at(m.inputs[0]);
    const int bb = m.inputs.size() > 1 ? operand.at(m.inputs[1]) : 0;
    int ga, gb;
    if (!member_gradient(b, m, x, bb, operand.at(m.outputs[0]), g->second, ga, gb)) return std::nullopt;
    if (needs[m.inputs[0]]) deliver(m.inputs[0], ga);
    if (m.inputs.size() > 1 && needs[m.inputs[1]]) deliver(m.inputs[1], gb);
  }
  int next = 0;
  parts.assign(static_cast<size_t>(n), {});
  for (int i = 0; i < n; ++i) {
    std::vector<int> got = input_parts[i];
    if (input_sum[i]) got = {*input_sum[i]};
    for (int part : got) {
      b.output(part);
      parts[i].push_back(next++);
    }
  }
  if (read) {  // (nothing is saved yet: every member's result is a step, ≥ 0)
    const std::vector<bool> needed = b.needed();
    for (const Node& m : p.members)
      if (needed[operand.at(m.outputs[0])]) read->insert(m.outputs[0]);
  }
  FusedProgram out = b.finish();
  out.input_values = p.input_values;
  out.input_values.push_back(kNoValue);  // the output's gradient
  out.input_values.insert(out.input_values.end(), saved.begin(), saved.end());
  return out;
}

}  // namespace

std::optional<FusedGradient> fused_gradient(const FusedProgram& p, const std::vector<bool>& wanted,
                                            const std::vector<bool>& broadcast) {
  const size_t outputs = p.output_values.size();
  // First without saving anything: which members' results do the gradients read?
  FusedGradient out;
  out.parts.resize(outputs);
  std::set<ValueId> read;
  for (size_t k = 0; k < outputs; ++k) {
    auto program = gradient_program(p, k, wanted, broadcast, {}, out.parts[k], &read);
    if (!program) return std::nullopt;
    out.recomputing.push_back(std::move(*program));
  }
  std::vector<ValueId> saved;
  for (const Node& m : p.members)
    if (read.count(m.outputs[0]) && costly(m)) saved.push_back(m.outputs[0]);
  for (size_t k = 0; k < outputs; ++k)
    out.gradients.push_back(*gradient_program(p, k, wanted, broadcast, saved, out.parts[k], nullptr));
  // The forward, storing the saved values that are not outputs after the outputs.
  ProgramBuilder b(p.shape, p.num_inputs);
  std::map<ValueId, int> operand;
  for (int i = 0; i < p.num_inputs; ++i) operand[p.input_values[i]] = i;
  write_members(b, p.members, operand);
  std::vector<ValueId> stored = p.output_values;
  for (ValueId v : saved) {
    auto at = std::find(stored.begin(), stored.end(), v);
    if (at == stored.end()) at = stored.insert(stored.end(), v);
    out.saved_at.push_back(static_cast<int>(at - stored.begin()));
  }
  for (ValueId v : stored) b.output(operand.at(v));
  out.forward = b.finish();
  out.forward.input_values = p.input_values;
  out.forward.output_values = stored;
  return out;
}

}  // namespace sg::graph
