// A compiled graph (sg.compile): the traced graph after the passes (graph/passes.h), with what
// the executor needs to know ahead: the values each node reads for the last time.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "graph/ir.h"

namespace sg::graph {

struct CompileOptions {
  bool cse = true;
  bool dce = true;
  bool fuse = true;
  // The CPU kernels the graph runs with ('wasm', 'reference'); empty: whichever is active.
  std::string backend;
};

struct ProgramStats {
  int nodes = 0;      // after the passes
  int stages = 1;     // callback-free stretches: callbacks + 1
  int callbacks = 0;  // callback nodes
  int fused = 0;      // fused kernels
  int fused_ops = 0;  // ops inside them
};

struct Program {
  Graph graph;
  CompileOptions options;
  // dying[i]: the values node i reads for the last time; released (or given to a fused
  // kernel's output) right after. Outputs never die.
  std::vector<std::vector<ValueId>> dying;
  ProgramStats stats;
};

// Runs the passes the options ask for and plans the run.
std::shared_ptr<const Program> compile(Graph g, const CompileOptions& options = {});

}  // namespace sg::graph
