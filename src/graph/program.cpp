#include "graph/program.h"

#include <algorithm>

#include "graph/fused_program.h"
#include "graph/passes.h"
#include "kernels/backend.h"

namespace sg::graph {

namespace {

std::vector<std::vector<ValueId>> plan_releases(const Graph& g) {
  std::vector<int> last(g.values.size(), -1);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (ValueId v : g.nodes[i].inputs)
      if (v != kNoValue) last[v] = static_cast<int>(i);
  for (ValueId v : g.outputs)
    if (v != kNoValue) last[v] = -1;  // kept to the end
  std::vector<std::vector<ValueId>> dying(g.nodes.size());
  for (size_t v = 0; v < last.size(); ++v)
    if (last[v] >= 0) dying[last[v]].push_back(static_cast<ValueId>(v));
  // A value nobody reads dies where it is made (a callback's unused result, a backward's none).
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (ValueId v : g.nodes[i].outputs)
      if (last[v] < 0 && std::find(g.outputs.begin(), g.outputs.end(), v) == g.outputs.end())
        dying[i].push_back(v);
  return dying;
}

}  // namespace

std::shared_ptr<const Program> compile(Graph g, const CompileOptions& options) {
  if (!options.backend.empty()) backend_named(options.backend);  // checks the name
  if (options.cse) eliminate_common_subexpressions(g);
  if (options.dce || options.cse) eliminate_dead_code(g);  // CSE leaves its duplicates to DCE
  if (options.fuse) fuse_elementwise(g);
  auto p = std::make_shared<Program>();
  p->options = options;
  p->dying = plan_releases(g);
  p->stats.nodes = static_cast<int>(g.nodes.size());
  for (const Node& n : g.nodes) {
    if (n.kind == NodeKind::Callback) ++p->stats.callbacks;
    if (n.kind == NodeKind::Fused) {
      ++p->stats.fused;
      p->stats.fused_ops += static_cast<int>(n.fused->members.size());
    }
  }
  p->stats.stages = p->stats.callbacks + 1;
  p->graph = std::move(g);
  return p;
}

}  // namespace sg::graph
