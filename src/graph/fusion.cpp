// Elementwise fusion (graph/passes.h, graph/fused_program.h).
//
// Grouping, in trace order: a fusable node joins the open groups that made its inputs when they
// have its output shape and device (merging them), else starts a group. A group closes when
// anything outside it reads one of its values (the fused node runs where its last member ran,
// so nothing between its members may need its values), and every group closes at an impure node
// or a callback (the fused node must read its inputs where its members did).
#include <algorithm>
#include <map>
#include <optional>

#include "core/error.h"
#include "graph/fused_program.h"
#include "graph/passes.h"

namespace sg::graph {

namespace {

// What one member computes: a Unary or Binary kernel, with a parameter or constant operands.
struct Kernel {
  bool binary = false;
  Unary unary = Unary::Neg;
  Binary op = Binary::Add;
  float param = 0;
};

std::optional<Kernel> unary(Unary u, float param = 0) { return Kernel{false, u, Binary::Add, param}; }
std::optional<Kernel> binary(Binary b) { return Kernel{true, Unary::Neg, b, 0}; }

// The kernel each fusable op runs in its float32 forward (ops/unary.cpp, binary.cpp,
// activation.cpp): exactly one unary_f32 or binary_f32 call on its inputs.
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
  if (auto it = plain.find(op); it != plain.end()) return unary(it->second);
  if (auto it = binaries.find(op); it != binaries.end()) return binary(it->second);
  if (op == "leakyRelu") return unary(Unary::LeakyRelu, static_cast<float>(a.number(name, "negativeSlope", 0.01)));
  if (op == "elu") return unary(Unary::Elu, static_cast<float>(a.number(name, "alpha", 1.0)));
  if (op == "gelu") {
    const std::string approximate = a.str(name, "approximate", "none");
    if (approximate == "none") return unary(Unary::GeluErf);
    if (approximate == "tanh") return unary(Unary::GeluTanh);
    return std::nullopt;
  }
  // Other thresholds add a select on top of the kernel (activation.cpp).
  if (op == "softplus" && a.number(name, "threshold", 20.0) >= 20.0)
    return unary(Unary::Softplus, static_cast<float>(a.number(name, "beta", 1.0)));
  return std::nullopt;
}

// clamp(x, lo?, hi?) is maximum(x, lo) then minimum(·, hi) with float32 constants (binary.cpp).
bool is_clamp(const Node& n) { return n.op == "clamp"; }

struct Group {
  std::vector<size_t> members;  // node indices, in order
  Shape shape;
  Device device;
  bool open = true;
};

}  // namespace

bool fusable(const Graph& g, const Node& n) {
  if (n.kind != NodeKind::Op || n.impure || n.outputs.size() != 1) return false;
  const ValueInfo& out = g.values[n.outputs[0]];
  if (!out.defined || out.spec.dtype != DType::Float32) return false;
  for (ValueId v : n.inputs) {
    if (v == kNoValue) return false;
    const TensorSpec& s = g.values[v].spec;
    if (s.dtype != DType::Float32) return false;
    // A one-element CPU value (a number operand, x.mul(2)) may join a program on another device.
    if (s.device != out.spec.device && !(s.device == Device::CPU && numel_of(s.shape) == 1)) return false;
  }
  if (is_clamp(n)) return n.inputs.size() == 1;
  try {
    return kernel_of(n).has_value();
  } catch (const Error&) {  // attributes the op itself would reject
    return false;
  }
}

namespace {

// The fused node for a group: inputs are the values members read but do not make; outputs the
// member values read outside the group.
Node build_fused(const Graph& g, const Group& group, const std::vector<bool>& read_outside) {
  auto program = std::make_shared<FusedProgram>();
  FusedProgram& p = *program;
  p.shape = group.shape;
  std::map<ValueId, int> reg;  // value → register
  std::vector<ValueId> made;
  for (size_t i : group.members) made.push_back(g.nodes[i].outputs[0]);
  auto is_made = [&](ValueId v) { return std::find(made.begin(), made.end(), v) != made.end(); };
  for (size_t i : group.members)
    for (ValueId v : g.nodes[i].inputs)
      if (!is_made(v) && !reg.count(v)) {
        reg[v] = static_cast<int>(p.input_values.size());
        p.input_values.push_back(v);
      }
  p.num_inputs = static_cast<int>(p.input_values.size());

  // Constants first (their registers follow the inputs), then the code into virtual registers.
  struct Step {
    Kernel k;
    int a, b;          // virtual operands: ≥ 0 a register so far; < 0 the constant ~c
    ValueId value;     // the value it makes (the member's result, on its last step)
  };
  std::vector<Step> steps;
  auto constant = [&](double v) {
    p.constants.push_back(static_cast<float>(v));
    return ~static_cast<int>(p.constants.size() - 1);
  };
  int next_virtual = p.num_inputs;  // temporaries, renumbered below
  std::map<ValueId, int> vreg = reg;
  for (size_t i : group.members) {
    const Node& n = g.nodes[i];
    const ValueId out = n.outputs[0];
    const int x = vreg.at(n.inputs[0]);
    if (is_clamp(n)) {
      int cur = x;
      const char* name = "clamp";
      if (auto lo = n.attrs.opt_number(name, "min")) {
        steps.push_back({*binary(Binary::Maximum), cur, constant(*lo), out});
        cur = next_virtual++;
      }
      if (auto hi = n.attrs.opt_number(name, "max")) {
        steps.push_back({*binary(Binary::Minimum), cur, constant(*hi), out});
        cur = next_virtual++;
      }
      vreg[out] = cur;
      continue;
    }
    const Kernel k = *kernel_of(n);
    steps.push_back({k, x, k.binary ? vreg.at(n.inputs[1]) : 0, out});
    vreg[out] = next_virtual++;
  }
  const int nc = static_cast<int>(p.constants.size());
  // Register allocation: a temporary's slot is free again after its last read.
  const int first_temp = p.num_inputs + nc;
  std::vector<int> last_read(static_cast<size_t>(next_virtual), -1);
  for (size_t s = 0; s < steps.size(); ++s) {
    if (steps[s].a >= 0) last_read[steps[s].a] = static_cast<int>(s);
    if (steps[s].k.binary && steps[s].b >= 0) last_read[steps[s].b] = static_cast<int>(s);
  }
  for (size_t m = 0; m < group.members.size(); ++m) {
    const ValueId v = made[m];
    if (read_outside[v]) last_read[vreg.at(v)] = static_cast<int>(steps.size());  // stored at the end
  }
  std::vector<int> physical(static_cast<size_t>(next_virtual), -1);
  for (int i = 0; i < p.num_inputs; ++i) physical[i] = i;
  std::vector<int> free_slots;
  int slots = 0;
  auto resolve = [&](int operand) { return operand < 0 ? p.num_inputs + ~operand : physical[operand]; };
  for (size_t s = 0; s < steps.size(); ++s) {
    const Step& st = steps[s];
    FusedInstr ins{st.k.binary, st.k.unary, st.k.op, st.k.param, resolve(st.a), st.k.binary ? resolve(st.b) : 0, 0};
    // Free the slots whose value is read for the last time here (the kernels allow the output
    // to be one of the inputs' buffers).
    for (int operand : {st.a, st.k.binary && st.b != st.a ? st.b : -1})  // x·x frees x once
      if (operand >= p.num_inputs && last_read[operand] == static_cast<int>(s))
        free_slots.push_back(physical[operand]);
    const int virt = p.num_inputs + static_cast<int>(s);  // steps create virtual registers in order
    int slot;
    if (!free_slots.empty()) {
      slot = free_slots.back();
      free_slots.pop_back();
    } else {
      slot = first_temp + slots++;
    }
    physical[virt] = slot;
    ins.out = slot;
    p.code.push_back(ins);
  }
  p.num_registers = first_temp + slots;
  Node node;
  node.kind = NodeKind::Fused;
  node.op = "fused";
  node.fused = program;
  node.inputs = p.input_values;
  for (size_t m = 0; m < group.members.size(); ++m) {
    const ValueId v = made[m];
    if (!read_outside[v]) continue;
    p.output_values.push_back(v);
    p.output_registers.push_back(physical[vreg.at(v)]);
    node.outputs.push_back(v);
  }
  for (size_t i : group.members) p.members.push_back(g.nodes[i]);
  return node;
}

}  // namespace

void fuse_elementwise(Graph& g) {
  std::vector<Group> groups;
  std::vector<int> group_of(g.values.size(), -1);  // the group whose member made the value
  auto close_reader_groups = [&](const Node& n) {
    for (ValueId v : n.inputs)
      if (v != kNoValue && group_of[v] >= 0) groups[group_of[v]].open = false;
  };
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.impure || n.kind != NodeKind::Op) {
      for (Group& gr : groups) gr.open = false;
      continue;
    }
    if (!fusable(g, n)) {
      close_reader_groups(n);
      continue;
    }
    const TensorSpec& out = g.values[n.outputs[0]].spec;
    int target = -1;
    for (ValueId v : n.inputs) {
      const int gi = group_of[v];
      if (gi < 0) continue;
      Group& src = groups[gi];
      if (!src.open || src.shape != out.shape || src.device != out.device) {
        src.open = false;  // its value is read outside it
        continue;
      }
      if (target < 0) {
        target = gi;
      } else if (gi != target) {  // merge src into target
        for (size_t m : src.members) {
          groups[target].members.push_back(m);
          group_of[g.nodes[m].outputs[0]] = target;
        }
        src.members.clear();
        src.open = false;
      }
    }
    if (target < 0) {
      target = static_cast<int>(groups.size());
      groups.push_back({{}, out.shape, out.device, true});
    }
    groups[target].members.push_back(i);
    group_of[n.outputs[0]] = target;
  }

  // Values read outside their group (by other nodes or as graph outputs) must be stored.
  std::vector<int> node_group(g.nodes.size(), -1);
  for (size_t gi = 0; gi < groups.size(); ++gi)
    for (size_t m : groups[gi].members) node_group[m] = static_cast<int>(gi);
  std::vector<bool> read_outside(g.values.size(), false);
  for (ValueId v : g.outputs)
    if (v != kNoValue) read_outside[v] = true;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (ValueId v : g.nodes[i].inputs)
      if (v != kNoValue && group_of[v] >= 0 && node_group[i] != group_of[v]) read_outside[v] = true;

  std::vector<Node> out;
  std::vector<int> fused_at(g.nodes.size(), -1);  // last member → its group
  std::vector<bool> absorbed(g.nodes.size(), false);
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    Group& gr = groups[gi];
    if (gr.members.size() < 2) continue;
    std::sort(gr.members.begin(), gr.members.end());
    for (size_t m : gr.members) absorbed[m] = true;
    fused_at[gr.members.back()] = static_cast<int>(gi);
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (fused_at[i] >= 0) out.push_back(build_fused(g, groups[fused_at[i]], read_outside));
    else if (!absorbed[i]) out.push_back(std::move(g.nodes[i]));
  }
  g.nodes = std::move(out);
  renumber(g);
}

}  // namespace sg::graph
