// The optimizations sg.compile runs on a traced graph, in this order:
//   1. common subexpressions: a pure op called twice on the same values with the same attributes
//      is computed once (not across an impure node, not for values that escape the graph: an
//      output, or an input of an impure node or a callback, which may keep or change it);
//   2. dead code: nodes none of whose results are used are dropped; impure nodes (backward,
//      setGrad, random draws, callbacks unless pure) and the outputs are the roots;
//   3. elementwise fusion: chains of float32 elementwise ops of one shape become one kernel
//      (graph/fused_program.h), never across an impure node.
// Buffer reuse by liveness is the executor's (graph/executor.h): each value is released after
// its last use, and a fused kernel may write its output into a dying input.
#pragma once
#include "graph/ir.h"

namespace sg::graph {

void eliminate_common_subexpressions(Graph& g);
void eliminate_dead_code(Graph& g);
void fuse_elementwise(Graph& g);

// After nodes were removed or merged: every value made by a node names that node's index again.
void renumber(Graph& g);

// Whether node n is an elementwise op fusion may take (graph/fusion.cpp).
bool fusable(const Graph& g, const Node& n);

}  // namespace sg::graph
