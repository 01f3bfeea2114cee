#include "graph/tracer.h"

#include "core/copy.h"
#include "core/error.h"
#include "graph/callbacks.h"
#include "ops/ops.h"

namespace sg::graph {

namespace {
thread_local Tracer* current = nullptr;
}  // namespace

Tracer* Tracer::active() { return current; }

Tracer::Tracer(const std::vector<Tensor>& args) : rng_(rng_state()) {
  check(current == nullptr, "sg.compile: a function is already being traced on this thread");
  graph_.num_args = static_cast<int>(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    check(args[i].defined(), "sg.compile: argument ", i, " is not a tensor");
    ValueInfo v{ValueSource::Argument, static_cast<int32_t>(i), true, spec_of(args[i])};
    // An argument passed twice is one value (the signature records the repetition).
    ids_.try_emplace(args[i].impl(), graph_.add_value(std::move(v)));
    keep_.push_back(args[i]);
  }
  previous_ = set_op_observer(this);
  current = this;
}

Tracer::~Tracer() {
  set_op_observer(previous_);
  current = nullptr;
  // Undo in reverse: a state changed twice goes back to what it was before the first change.
  for (auto it = undo_.rbegin(); it != undo_.rend(); ++it) {
    try {
      (*it)();
    } catch (...) {
      // Putting back host state does not fail (pointer and flag swaps, copies into existing
      // buffers); a destructor must not throw regardless.
    }
  }
  set_rng_state(rng_);
}

void Tracer::journal(std::function<void()> undo) { undo_.push_back(std::move(undo)); }

ValueId Tracer::value_of(const Tensor& t) {
  if (!t.defined()) return kNoValue;
  auto [it, fresh] = ids_.try_emplace(t.impl(), kNoValue);
  if (fresh) {
    ValueInfo v{ValueSource::External, static_cast<int32_t>(graph_.externals.size()), true, spec_of(t)};
    graph_.externals.push_back(t);
    keep_.push_back(t);
    it->second = graph_.add_value(std::move(v));
  }
  return it->second;
}

std::vector<ValueId> Tracer::values_of(const std::vector<Tensor>& ts) {
  std::vector<ValueId> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.push_back(value_of(t));
  return out;
}

// Every output is a new value, even a tensor seen before (contiguous(x) returns x): later uses
// then refer to this node, which returns the same tensor again when replayed.
void Tracer::produce(Node& node, const std::vector<Tensor>& outputs) {
  const auto index = static_cast<int32_t>(graph_.nodes.size());
  for (const Tensor& t : outputs) {
    ValueInfo v{ValueSource::Node, index, t.defined(), t.defined() ? spec_of(t) : TensorSpec{}};
    const ValueId id = graph_.add_value(std::move(v));
    node.outputs.push_back(id);
    if (t.defined()) {
      ids_[t.impl()] = id;
      keep_.push_back(t);
    }
  }
}

std::vector<Tensor> Tracer::on_op(const std::string& name, const OpInfo& info, const std::vector<Tensor>& inputs,
                                  const Attrs& attrs) {
  if (!recording_) return run_op(name, info, inputs, attrs);
  // Inputs the op writes in place are copied first and written back when the trace ends.
  if (info.mutates) {
    for (size_t i : info.mutates(inputs, attrs)) {
      const Tensor target = inputs[i];
      const Tensor saved = contiguous_copy(target);
      journal([target, saved] { copy_into(target, saved); });
    }
  }
  std::vector<Tensor> outputs = run_op(name, info, inputs, attrs, true);
  Node node;
  node.op = name;
  node.info = &info;
  node.attrs = attrs;
  node.inputs = values_of(inputs);
  node.impure = is_impure(info, inputs, attrs);
  produce(node, outputs);
  graph_.nodes.push_back(std::move(node));
  return outputs;
}

std::vector<Tensor> Tracer::callback(int id, const std::vector<Tensor>& inputs, const std::vector<TensorSpec>& outputs,
                                     bool pure) {
  check(recording_, "jsCall: the trace has ended");
  std::vector<Tensor> placeholders;
  for (const TensorSpec& s : outputs) placeholders.push_back(zeros(s.shape, s.dtype, s.device));
  // The placeholders join autograd as the callback's results will on every call (the executor
  // links them the same way), so that a backward or grad inside the traced function reaches the
  // leaves behind the callback. The ops that linking runs (views, casts) are its own, not the
  // function's: not recorded; the node's outputs are the linked tensors.
  recording_ = false;
  try {
    placeholders = link_callback(id, inputs, std::move(placeholders));
  } catch (...) {
    recording_ = true;
    throw;
  }
  recording_ = true;
  Node node;
  node.kind = NodeKind::Callback;
  node.op = "jsCall";
  node.callback = id;
  node.inputs = values_of(inputs);
  node.impure = !pure;
  produce(node, placeholders);
  graph_.nodes.push_back(std::move(node));
  return placeholders;
}

void Tracer::host_step(int id) {
  check(recording_, "sg.compile: the trace has ended");
  Node node;
  node.kind = NodeKind::Host;
  node.op = "hostStep";
  node.callback = id;
  node.impure = true;
  graph_.nodes.push_back(std::move(node));
}

Graph Tracer::finish(const std::vector<Tensor>& outputs) {
  check(recording_, "sg.compile: the trace has already ended");
  graph_.outputs = values_of(outputs);
  recording_ = false;
  return std::move(graph_);
}

}  // namespace sg::graph
