// Common subexpressions, dead code, renumbering (graph/passes.h).
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "graph/passes.h"

namespace sg::graph {

namespace {

// Values another party may keep or change: the graph's outputs and the inputs of impure nodes
// and callbacks. Two calls that make them must stay two tensors.
std::vector<bool> escaping(const Graph& g) {
  std::vector<bool> out(g.values.size(), false);
  for (ValueId v : g.outputs)
    if (v != kNoValue) out[v] = true;
  for (const Node& n : g.nodes)
    if (n.impure || n.kind == NodeKind::Callback)
      for (ValueId v : n.inputs)
        if (v != kNoValue) out[v] = true;
  return out;
}

void append_bits(std::string& key, double d) {
  char bytes[sizeof d];
  std::memcpy(bytes, &d, sizeof d);
  key.append(bytes, sizeof d);
}

// The identity of a call: op, attributes (exact bits), inputs, and the impure nodes before it.
std::string call_key(const Node& n, int epoch) {
  std::string key = n.kind == NodeKind::Callback ? "#" + std::to_string(n.callback) : n.op;
  key += '\0';
  for (const auto& [name, v] : n.attrs.values()) {
    key += name;
    key += static_cast<char>('0' + v.index());
    if (const double* d = std::get_if<double>(&v)) append_bits(key, *d);
    else if (const bool* b = std::get_if<bool>(&v)) key += *b ? '1' : '0';
    else if (const std::string* s = std::get_if<std::string>(&v)) key += *s + '\0';
    else
      for (double d : std::get<std::vector<double>>(v)) append_bits(key, d);
    key += '\0';
  }
  for (ValueId v : n.inputs) key += std::to_string(v) + ',';
  key += '|' + std::to_string(epoch);
  return key;
}

}  // namespace

void renumber(Graph& g) {
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (ValueId v : g.nodes[i].outputs) g.values[v].index = static_cast<int32_t>(i);
}

void eliminate_common_subexpressions(Graph& g) {
  const std::vector<bool> escapes = escaping(g);
  std::vector<ValueId> same(g.values.size());
  for (size_t v = 0; v < same.size(); ++v) same[v] = static_cast<ValueId>(v);
  std::map<std::string, size_t> seen;
  int epoch = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = g.nodes[i];
    for (ValueId& v : n.inputs)
      if (v != kNoValue) v = same[v];
    // Pure callbacks (jsCall { pure: true }) merge like pure ops; anything impure is a barrier.
    if (n.impure || (n.kind != NodeKind::Op && n.kind != NodeKind::Callback)) {
      ++epoch;
      continue;
    }
    bool escapes_here = false;
    for (ValueId v : n.outputs) escapes_here = escapes_here || escapes[v];
    if (escapes_here) continue;
    auto [it, fresh] = seen.try_emplace(call_key(n, epoch), i);
    if (fresh) continue;
    const Node& first = g.nodes[it->second];
    for (size_t k = 0; k < n.outputs.size(); ++k) same[n.outputs[k]] = first.outputs[k];
  }
  for (ValueId& v : g.outputs)
    if (v != kNoValue) v = same[v];
}

void eliminate_dead_code(Graph& g) {
  std::vector<bool> used(g.values.size(), false);
  for (ValueId v : g.outputs)
    if (v != kNoValue) used[v] = true;
  std::vector<bool> keep(g.nodes.size(), false);
  for (size_t i = g.nodes.size(); i-- > 0;) {
    const Node& n = g.nodes[i];
    bool live = n.impure;
    for (ValueId v : n.outputs) live = live || used[v];
    if (!live) continue;
    keep[i] = true;
    for (ValueId v : n.inputs)
      if (v != kNoValue) used[v] = true;
  }
  std::vector<Node> kept;
  kept.reserve(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (keep[i]) kept.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(kept);
  renumber(g);
}

}  // namespace sg::graph
