#include "graph/executor.h"

#include <algorithm>
#include <string>

#include "autograd/grad_mode.h"
#include "autograd/record.h"
#include "core/error.h"
#include "graph/callbacks.h"
#include "graph/fused_autograd.h"
#include "graph/fused_program.h"
#include "kernels/backend.h"
#include "ops/ops.h"

namespace sg::graph {

namespace {

// Runs a scope with the program's CPU kernels, then puts back the active ones.
class BackendScope {
 public:
  explicit BackendScope(const std::string& name) {
    if (name.empty() || name == backend().name()) return;
    previous_ = backend().name();
    set_backend(name);
  }
  ~BackendScope() {
    if (!previous_.empty()) set_backend(previous_);
  }
  BackendScope(const BackendScope&) = delete;
  BackendScope& operator=(const BackendScope&) = delete;

 private:
  std::string previous_;
};

std::string spec_str(const TensorSpec& s) {
  return shape_str(s.shape) + " " + dtype_name(s.dtype);
}

}  // namespace

Run::Run(std::shared_ptr<const Program> program, std::vector<Tensor> args) : program_(std::move(program)) {
  const Graph& g = program_->graph;
  check(static_cast<int>(args.size()) == g.num_args, "sg.compile: expected ", g.num_args,
        " tensor arguments, got ", args.size());
  values_.resize(g.values.size());
  for (size_t v = 0; v < g.values.size(); ++v) {
    const ValueInfo& info = g.values[v];
    if (info.source == ValueSource::External) values_[v] = g.externals[info.index];
    if (info.source != ValueSource::Argument) continue;
    const Tensor& a = args[info.index];
    // (The message is built only on failure: this runs for every argument of every call.)
    if (!a.defined() || spec_of(a) != info.spec)
      fail("sg.compile: argument ", info.index, " should be ", spec_str(info.spec), " on ", device_name(info.spec.device),
           " as when traced, got ", a.defined() ? spec_str(spec_of(a)) + " on " + device_name(a.device()) : std::string("nothing"));
    values_[v] = a;
  }
}

void Run::release(size_t i) {
  for (ValueId v : program_->dying[i]) values_[v] = Tensor();
}

void Run::run_fused_node(size_t i) {
  const Node& n = program_->graph.nodes[i];
  const FusedProgram& p = *n.fused;
  const std::vector<ValueId>& dying = program_->dying[i];
  std::vector<Tensor> inputs;
  inputs.reserve(n.inputs.size());
  for (ValueId v : n.inputs) inputs.push_back(values_[v]);
  std::vector<Tensor> outputs;
  if (can_run_fused(p, inputs)) {
    if (grad_enabled() && any_requires_grad(inputs)) {
      outputs = run_fused_with_grad(n.fused, inputs);
    } else {
      // An input dying here, made by the graph, may lend its buffer to an output: the table
      // lets go of it first, so that the kernel can tell whether anything else holds it.
      std::vector<bool> donated(inputs.size(), false);
      for (size_t k = 0; k < inputs.size(); ++k) {
        const ValueId v = n.inputs[k];
        if (program_->graph.values[v].source != ValueSource::Node) continue;
        if (std::find(dying.begin(), dying.end(), v) == dying.end()) continue;
        values_[v] = Tensor();
        donated[k] = true;
      }
      outputs = run_fused(p, inputs, donated);
      if (outputs.size() != p.output_registers.size()) outputs = run_members(p, inputs);  // no kernel for it
    }
  } else {
    outputs = run_members(p, inputs);
  }
  for (size_t k = 0; k < outputs.size(); ++k) values_[n.outputs[k]] = std::move(outputs[k]);
}

void Run::run_node(size_t i) {
  const Node& n = program_->graph.nodes[i];
  if (n.kind == NodeKind::Fused) return run_fused_node(i);
  if (n.kind == NodeKind::Host) {
    CallbackHost* host = callback_host();
    check(host != nullptr, "sg.compile: no host to run host step #", n.callback);
    return host->run_host_step(n.callback);
  }
  std::vector<Tensor> args;
  args.reserve(n.inputs.size());
  for (ValueId v : n.inputs) args.push_back(v == kNoValue ? Tensor() : values_[v]);
  std::vector<Tensor> outs = run_op(n.op, *n.info, args, n.attrs);
  check(outs.size() == n.outputs.size(), "sg.compile: '", n.op, "' returned ", outs.size(),
        " results where the trace had ", n.outputs.size());
  for (size_t k = 0; k < outs.size(); ++k) values_[n.outputs[k]] = std::move(outs[k]);
}

int Run::resume() {
  check(!failed_, "sg.compile: this run failed earlier");
  check(waiting_ < 0, "sg.compile: the run waits for the results of a callback");
  BackendScope kernels(program_->options.backend);
  const std::vector<Node>& nodes = program_->graph.nodes;
  try {
    for (; next_ < nodes.size(); ++next_) {
      const Node& n = nodes[next_];
      if (n.kind == NodeKind::Callback) {
        waiting_ = static_cast<int>(next_);
        return n.callback;
      }
      run_node(next_);
      release(next_);
    }
  } catch (...) {
    failed_ = true;
    values_.clear();
    throw;
  }
  return -1;
}

int Run::waiting_callback() const {
  return waiting_ < 0 ? -1 : program_->graph.nodes[waiting_].callback;
}

std::vector<Tensor> Run::callback_inputs() const {
  check(waiting_ >= 0, "sg.compile: the run waits for no callback");
  std::vector<Tensor> out;
  for (ValueId v : program_->graph.nodes[waiting_].inputs) out.push_back(values_[v]);
  return out;
}

void Run::provide(std::vector<Tensor> outputs) {
  check(waiting_ >= 0 && !failed_, "sg.compile: the run waits for no callback");
  const Graph& g = program_->graph;
  const Node& n = g.nodes[waiting_];
  try {
    check(outputs.size() == n.outputs.size(), "jsCall: expected ", n.outputs.size(), " results from callback #",
          n.callback, ", got ", outputs.size());
    for (size_t k = 0; k < outputs.size(); ++k) {
      const TensorSpec& want = g.values[n.outputs[k]].spec;
      if (!outputs[k].defined() || outputs[k].shape() != want.shape || outputs[k].dtype() != want.dtype)
        fail("jsCall: result ", k, " of callback #", n.callback, " should be ", spec_str(want), ", got ",
             outputs[k].defined() ? spec_str(spec_of(outputs[k])) : std::string("nothing"));
      if (outputs[k].device() != want.device) outputs[k] = to_device(outputs[k].detach(), want.device);
    }
    outputs = link_callback(n.callback, callback_inputs(), std::move(outputs));
  } catch (...) {
    failed_ = true;
    values_.clear();
    throw;
  }
  for (size_t k = 0; k < outputs.size(); ++k) values_[n.outputs[k]] = std::move(outputs[k]);
  release(static_cast<size_t>(waiting_));
  waiting_ = -1;
  ++next_;
}

std::vector<Tensor> Run::outputs() const {
  check(done() && !failed_, "sg.compile: the run has not finished");
  std::vector<Tensor> out;
  for (ValueId v : program_->graph.outputs) out.push_back(v == kNoValue ? Tensor() : values_[v]);
  return out;
}

}  // namespace sg::graph
