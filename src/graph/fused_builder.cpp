#include "graph/fused_builder.h"

#include <algorithm>
#include <map>
#include <string>

namespace sg::graph {

std::optional<Kernel> kernel_of(const Node& n) {
  static const std::map<std::string, Unary> plain = {
      {"neg", Unary::Neg},       {"exp", Unary::Exp},         {"log", Unary::Log},
      {"log2", Unary::Log2},     {"log10", Unary::Log10},     {"log1p", Unary::Log1p},
      {"expm1", Unary::Expm1},   {"sqrt", Unary::Sqrt},       {"rsqrt", Unary::Rsqrt},
      {"abs", Unary::Abs},       {"sign", Unary::Sign},       {"sin", Unary::Sin},
      {"cos", Unary::Cos},       {"erf", Unary::Erf},         {"square", Unary::Square},
      {"reciprocal", Unary::Reciprocal}, {"relu", Unary::Relu}, {"sigmoid", Unary::Sigmoid},
      {"tanh", Unary::Tanh},     {"silu", Unary::Silu},       {"selu", Unary::Selu},
  };
  static const std::map<std::string, Binary> binaries = {
      {"add", Binary::Add}, {"sub", Binary::Sub},         {"mul", Binary::Mul},         {"div", Binary::Div},
      {"pow", Binary::Pow}, {"maximum", Binary::Maximum}, {"minimum", Binary::Minimum},
  };
  const std::string& op = n.op;
  const Attrs& a = n.attrs;
  const char* name = op.c_str();
  if (auto it = plain.find(op); it != plain.end()) return unary_kernel(it->second);
  if (auto it = binaries.find(op); it != binaries.end()) return binary_kernel(it->second);
  if (op == "leakyRelu") return unary_kernel(Unary::LeakyRelu, static_cast<float>(a.number(name, "negativeSlope", 0.01)));
  if (op == "elu") return unary_kernel(Unary::Elu, static_cast<float>(a.number(name, "alpha", 1.0)));
  if (op == "gelu") {
    const std::string approximate = a.str(name, "approximate", "none");
    if (approximate == "none") return unary_kernel(Unary::GeluErf);
    if (approximate == "tanh") return unary_kernel(Unary::GeluTanh);
    return std::nullopt;
  }
  // Other thresholds add a select on top of the kernel (activation.cpp).
  if (op == "softplus" && a.number(name, "threshold", 20.0) >= 20.0)
    return unary_kernel(Unary::Softplus, static_cast<float>(a.number(name, "beta", 1.0)));
  return std::nullopt;
}

ProgramBuilder::ProgramBuilder(Shape shape, int num_inputs) : shape_(std::move(shape)), num_inputs_(num_inputs) {}

int ProgramBuilder::constant(double v) {
  constants_.push_back(static_cast<float>(v));
  return ~static_cast<int>(constants_.size() - 1);
}

int ProgramBuilder::step(const Kernel& k, int a, int b) {
  steps_.push_back({k, a, k.binary ? b : a});
  return num_inputs_ + static_cast<int>(steps_.size() - 1);
}

std::vector<int> ProgramBuilder::last_reads() const {
  const int n_in = num_inputs_, n_steps = static_cast<int>(steps_.size());
  std::vector<int> last_read(static_cast<size_t>(n_in + n_steps), -1);
  for (int v : outputs_)
    if (v >= 0) last_read[v] = n_steps;
  // Backwards: a step counts when an output or a counted step reads its result.
  for (int s = n_steps; s-- > 0;) {
    if (last_read[n_in + s] < 0) continue;
    for (int operand : {steps_[s].a, steps_[s].b})
      if (operand >= 0) last_read[operand] = std::max(last_read[operand], s);
  }
  return last_read;
}

std::vector<bool> ProgramBuilder::needed() const {
  std::vector<bool> out;
  for (int r : last_reads()) out.push_back(r >= 0);
  return out;
}

FusedProgram ProgramBuilder::finish() const {
  FusedProgram p;
  p.shape = shape_;
  p.num_inputs = num_inputs_;
  p.constants = constants_;
  const int n_in = num_inputs_, n_steps = static_cast<int>(steps_.size());
  const auto temp = [&](int v) { return v >= n_in; };
  const std::vector<int> last_read = last_reads();
  // Physical registers: the inputs, then the constants, then temporaries reused once dead.
  const int first_temp = n_in + static_cast<int>(constants_.size());
  std::vector<int> physical(static_cast<size_t>(n_in + n_steps), -1);
  for (int i = 0; i < n_in; ++i) physical[i] = i;
  auto resolve = [&](int v) { return v < 0 ? n_in + ~v : physical[v]; };
  std::vector<int> free_slots;
  int slots = 0;
  for (int s = 0; s < n_steps; ++s) {
    if (last_read[n_in + s] < 0) continue;  // nothing stored depends on it
    const Step& st = steps_[s];
    FusedInstr ins{st.k.binary, st.k.unary, st.k.op, st.k.param, resolve(st.a), st.k.binary ? resolve(st.b) : 0, 0};
    // Free the slots read for the last time here (the kernels allow the output to be one of
    // the inputs' buffers); x·x frees x once.
    for (int operand : {st.a, st.b != st.a ? st.b : -1})
      if (temp(operand) && last_read[operand] == s) free_slots.push_back(physical[operand]);
    int slot;
    if (!free_slots.empty()) {
      slot = free_slots.back();
      free_slots.pop_back();
    } else {
      slot = first_temp + slots++;
    }
    physical[n_in + s] = slot;
    ins.out = slot;
    p.code.push_back(ins);
  }
  p.num_registers = first_temp + slots;
  for (int v : outputs_) p.output_registers.push_back(resolve(v));
  return p;
}

void write_members(ProgramBuilder& b, const std::vector<Node>& members, std::map<ValueId, int>& operand) {
  for (const Node& m : members) {
    if (operand.count(m.outputs[0])) continue;  // given
    int y = operand.at(m.inputs[0]);
    if (is_clamp(m)) {
      if (auto lo = m.attrs.opt_number("clamp", "min")) y = b.binary(Binary::Maximum, y, b.constant(*lo));
      if (auto hi = m.attrs.opt_number("clamp", "max")) y = b.binary(Binary::Minimum, y, b.constant(*hi));
    } else {
      const Kernel k = *kernel_of(m);
      y = b.step(k, y, k.binary ? operand.at(m.inputs[1]) : 0);
    }
    operand[m.outputs[0]] = y;
  }
}

}  // namespace sg::graph
