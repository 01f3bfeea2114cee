#include "graph/ir.h"

#include <sstream>

#include "graph/fused_program.h"

namespace sg::graph {

ValueId Graph::add_value(ValueInfo info) {
  values.push_back(std::move(info));
  return static_cast<ValueId>(values.size() - 1);
}

TensorSpec spec_of(const Tensor& t) { return {t.shape(), t.dtype(), t.device()}; }

namespace {
void print_values(std::ostringstream& os, const std::vector<ValueId>& ids) {
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i) os << ", ";
    if (ids[i] == kNoValue) os << "null";
    else os << '%' << ids[i];
  }
}
}  // namespace

std::string Graph::to_string() const {
  std::ostringstream os;
  for (const Node& n : nodes) {
    print_values(os, n.outputs);
    os << (n.outputs.empty() ? "" : " = ") << n.op;
    if (n.kind == NodeKind::Fused) os << '[' << n.fused->members.size() << ']';
    if (n.kind == NodeKind::Callback || n.kind == NodeKind::Host) os << '#' << n.callback;
    os << '(';
    print_values(os, n.inputs);
    os << ')' << (n.impure ? " impure" : "") << '\n';
  }
  os << "return ";
  print_values(os, outputs);
  os << '\n';
  return os.str();
}

}  // namespace sg::graph
