// Tracing: sg.compile runs the function once, eagerly, while a Tracer watches the op registry
// (ops/registry.h's OpObserver) and records every op called from outside any op, with its
// input and output values and its attributes. Calls an op makes itself, and those of backward
// hooks, are nested and not recorded: replaying the top-level calls repeats them.
//
// The trace has no lasting effects: what an op does besides making its outputs (a leaf's
// .grad, running statistics written in place, the random generator's position) is put back
// when the trace ends, so that the first compiled call, which runs the graph after tracing it,
// does everything exactly once. Ops with such effects either trace through OpInfo::trace
// (backward: placeholder gradients instead of running the engine) or are run on the real
// state and journaled (setGrad, batchNorm's running statistics: restored afterwards).
#pragma once
#include <functional>
#include <unordered_map>
#include <vector>

#include "core/rng.h"
#include "graph/ir.h"

namespace sg::graph {

class Tracer final : public OpObserver {
 public:
  // Starts tracing on this thread; `args` are the function's tensor arguments (bound anew on
  // every compiled call). Throws if this thread is already tracing.
  explicit Tracer(const std::vector<Tensor>& args);
  // Stops tracing and undoes the trace's effects (the journal, in reverse order; the generator).
  ~Tracer() override;
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  // The tracer of this thread, or nullptr.
  static Tracer* active();

  std::vector<Tensor> on_op(const std::string& name, const OpInfo& info, const std::vector<Tensor>& inputs,
                            const Attrs& attrs) override;

  // Records a JS callback (sg.jsCall) taking `inputs`; its outputs are placeholders (zeros of
  // the template), since the callback itself never runs while tracing, joined to autograd as
  // its results are on every call (link_callback). Not pure: never removed or merged.
  std::vector<Tensor> callback(int id, const std::vector<Tensor>& inputs, const std::vector<TensorSpec>& outputs,
                               bool pure);

  // Records a host step (graph/callbacks.h): JS code with effects the graph cannot see into (an
  // optimizer's step), run in its place on every call. Nothing runs now.
  void host_step(int id);

  // Records how to put back a change the trace made outside itself; run when the trace ends.
  void journal(std::function<void()> undo);

  // The recorded graph, returning `outputs` (tensors made in the trace, arguments or externals).
  // Recording stops; the tracer still undoes the trace's effects when destroyed.
  Graph finish(const std::vector<Tensor>& outputs);

 private:
  ValueId value_of(const Tensor& t);  // an undefined tensor → kNoValue; a new tensor → external
  std::vector<ValueId> values_of(const std::vector<Tensor>& ts);
  void produce(Node& node, const std::vector<Tensor>& outputs);

  Graph graph_;
  std::unordered_map<const TensorImpl*, ValueId> ids_;
  // Values are known by their TensorImpl's address: every tensor the trace saw is kept alive
  // until it ends, so that no address is reused by another tensor meanwhile.
  std::vector<Tensor> keep_;
  std::vector<std::function<void()>> undo_;
  RngState rng_;
  OpObserver* previous_;
  bool recording_ = true;
};

}  // namespace sg::graph
