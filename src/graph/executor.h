// Running a compiled graph (graph/program.h): the nodes in order, each op by the same registry
// function eager code calls (so autograd records exactly as in eager code, random ops draw
// fresh values and backward nodes run the engine), fused kernels where they can run, and a
// stop at every callback: the caller (JavaScript) runs the callback and hands its results
// back, then the run goes on. So a graph with k callbacks runs as k + 1 stages, each one call
// from the host, and JavaScript is only ever called from the thread that called the run.
//
// Memory: every value is released right after the node that reads it last; a fused kernel may
// write its output into an input that dies there (graph/fused_program.h).
#pragma once
#include <memory>
#include <vector>

#include "graph/program.h"

namespace sg::graph {

class Run {
 public:
  // Checks the arguments against the traced signature (count, shape, dtype, device).
  Run(std::shared_ptr<const Program> program, std::vector<Tensor> args);

  // Runs up to the next callback and returns its id, or -1 when the graph is done. A failure
  // throws and leaves the run unusable (nothing it made is kept but what was already handed out).
  int resume();
  // The id of the callback the run waits for (-1: none).
  int waiting_callback() const;
  // The tensor inputs of the callback the run waits for.
  std::vector<Tensor> callback_inputs() const;
  // The callback's results: checked against its template (count, shape, dtype), moved to its
  // device, joined to autograd (graph/callbacks.h).
  void provide(std::vector<Tensor> outputs);
  // The graph's outputs (once resume returned -1); undefined where an output is.
  std::vector<Tensor> outputs() const;

  bool done() const { return next_ >= program_->graph.nodes.size() && waiting_ < 0; }
  const Program& program() const { return *program_; }

 private:
  void run_node(size_t i);
  void run_fused_node(size_t i);
  void release(size_t i);

  std::shared_ptr<const Program> program_;
  std::vector<Tensor> values_;
  size_t next_ = 0;
  int waiting_ = -1;  // the node index of the callback awaiting its results
  bool failed_ = false;
};

}  // namespace sg::graph
