// Elementwise fusion (graph/passes.h, graph/fused_program.h).
//
// Grouping, in trace order: a fusable node joins the open groups that made its inputs when they
// have its output shape and device (merging them), else starts a group. A group closes when
// anything outside it reads one of its values (the fused node runs where its last member ran,
// so nothing between its members may need its values), and every group closes at an impure node
// or a callback (the fused node must read its inputs where its members did).
#include <algorithm>
#include <map>
#include <set>

#include "core/error.h"
#include "graph/fused_builder.h"
#include "graph/passes.h"

namespace sg::graph {

namespace {

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
  std::vector<ValueId> inputs;
  std::set<ValueId> made;
  for (size_t i : group.members) made.insert(g.nodes[i].outputs[0]);
  std::map<ValueId, int> operand;  // value → virtual operand (graph/fused_builder.h)
  for (size_t i : group.members)
    for (ValueId v : g.nodes[i].inputs)
      if (!made.count(v) && !operand.count(v)) {
        operand[v] = static_cast<int>(inputs.size());
        inputs.push_back(v);
      }
  ProgramBuilder b(group.shape, static_cast<int>(inputs.size()));
  std::vector<Node> members;
  for (size_t i : group.members) members.push_back(g.nodes[i]);
  write_members(b, members, operand);
  auto program = std::make_shared<FusedProgram>();
  std::vector<ValueId> outputs;
  for (size_t i : group.members) {
    const ValueId v = g.nodes[i].outputs[0];
    if (!read_outside[v]) continue;
    b.output(operand.at(v));
    outputs.push_back(v);
  }
  *program = b.finish();
  program->input_values = inputs;
  program->output_values = outputs;
  program->members = std::move(members);
  Node node;
  node.kind = NodeKind::Fused;
  node.op = "fused";
  node.fused = program;
  node.inputs = inputs;
  node.outputs = outputs;
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
