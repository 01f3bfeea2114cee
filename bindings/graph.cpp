// Embind glue for the graph compiler (sg.compile, sg.jsCall; bindings/README.md, "Compiled
// graphs"): tracing, compiled programs and runs by id (graph/session.h), the host object through
// which C++ calls JavaScript (callback names, vjps, host steps: graph/callbacks.h), and eager
// jsCall linking. Glue only. A compiled call is one call per stage: graphRun starts a run and
// goes to its first callback or its end; graphResume hands a callback's results back and goes on.
#include <emscripten/bind.h>

#include <string>
#include <vector>

#include "core/device.h"
#include "core/error.h"
#include "glue.h"
#include "graph/callbacks.h"
#include "graph/session.h"

namespace sgjs {
namespace {

namespace sgg = sg::graph;

// ---- tracing ----

void trace_begin(val args) { sgg::trace_begin(tensor_list(args, "sg.compile: arguments")); }

// specs: [{ shape: number[], dtype, device }] → placeholder results.
val trace_callback(int callback, val inputs, val specs, bool pure) {
  if (!is_array(specs)) sg::fail("jsCall: malformed template");
  std::vector<sgg::TensorSpec> out;
  const int n = specs["length"].as<int>();
  for (int i = 0; i < n; ++i) {
    const val s = specs[i];
    sgg::TensorSpec spec;
    spec.shape = shape_list(s["shape"], "jsCall: template");
    spec.dtype = sg::dtype_from_name(s["dtype"].as<std::string>());
    spec.device = sg::device_from_name(s["device"].as<std::string>());
    out.push_back(std::move(spec));
  }
  return handle_array(sgg::trace_callback(callback, tensor_list(inputs, "jsCall: inputs"), out, pure));
}

void trace_host_step(int id) { sgg::trace_host_step(id); }

// Ends the trace returning `outputs` and compiles it: { program, nodes, stages, callbacks, fused, fusedOps }.
val trace_end(val outputs, bool fuse, std::string backend) {
  sgg::CompileOptions o;
  o.fuse = fuse;
  o.backend = backend;
  const int id = sgg::trace_end(tensor_list(outputs, "sg.compile: results"), o);
  const sgg::ProgramStats& s = sgg::program(id).stats;
  val r = val::object();
  r.set("program", id);
  r.set("nodes", s.nodes);
  r.set("stages", s.stages);
  r.set("callbacks", s.callbacks);
  r.set("fused", s.fused);
  r.set("fusedOps", s.fused_ops);
  return r;
}

void trace_abort() { sgg::trace_abort(); }
void free_program(int id) { sgg::free_program(id); }

// ---- runs ----

// { run, callback, tensors }: callback 0 when done (tensors: the results), else the callback the
// run waits for (tensors: its inputs).
val report(int run_id) {
  sgg::Run& r = sgg::run(run_id);
  val out = val::object();
  out.set("run", run_id);
  if (r.done()) {
    const std::vector<sg::Tensor> results = r.outputs();
    sgg::end_run(run_id);
    out.set("callback", 0);
    out.set("tensors", handle_array(results));
    return out;
  }
  out.set("callback", r.waiting_callback());
  out.set("tensors", handle_array(r.callback_inputs()));
  return out;
}

// A run that fails is dropped (everything it made is freed) and the error passed on.
template <class F>
val in_run(int run_id, F&& f) {
  try {
    return f();
  } catch (...) {
    sgg::end_run(run_id);
    throw;
  }
}

val run(int program, val args) {
  const int id = sgg::start_run(program, tensor_list(args, "sg.compile: arguments"));
  return in_run(id, [&] {
    sgg::run(id).resume();
    return report(id);
  });
}

val resume(int run_id, val results) {
  return in_run(run_id, [&] {
    sgg::Run& r = sgg::run(run_id);
    r.provide(tensor_list(results, "jsCall: results"));
    r.resume();
    return report(run_id);
  });
}

void abort_run(int run_id) { sgg::end_run(run_id); }

val live_counts() {
  val r = val::object();
  r.set("programs", sgg::live_programs());
  r.set("runs", sgg::live_runs());
  return r;
}

// ---- the JavaScript side of callbacks ----

// The gradients a JS vjp wrapper returned: an array of new TensorHandles (null: none), which are
// handed over (read, then deleted here), or an error message.
std::vector<sg::Tensor> gradients_of(const val& r) {
  if (r.isString()) throw sg::Error(r.as<std::string>());
  std::vector<sg::Tensor> grads = tensor_list(r, "jsCall: vjp gradients");
  const int n = r["length"].as<int>();
  for (int i = 0; i < n; ++i)
    if (is_handle(r[i])) r[i].call<void>("delete");
  return grads;
}

// What the host object JS installs answers (setGraphHost). Its functions never throw: an error
// comes back as its message. Handles given to JS are new ones that JS deletes.
class JsHost final : public sgg::CallbackHost {
 public:
  val host = val::undefined();

  std::string describe(int id) override {
    const val r = host.call<val>("describe", id);
    return r.isString() ? r.as<std::string>() : "#" + std::to_string(id);
  }
  bool has_vjp(int id) override { return host.call<val>("hasVjp", id).isTrue(); }
  std::vector<sg::Tensor> vjp(int id, const std::vector<sg::Tensor>& inputs, const std::vector<sg::Tensor>& outputs,
                              const std::vector<sg::Tensor>& grad_outputs) override {
    return gradients_of(
        host.call<val>("vjp", id, handle_array(inputs), handle_array(outputs), handle_array(grad_outputs)));
  }
  void run_host_step(int id) override {
    const val r = host.call<val>("hostStep", id);
    if (r.isString()) throw sg::Error(r.as<std::string>());
  }
};

void set_graph_host(val host) {
  static JsHost js_host;
  js_host.host = host;
  sgg::set_callback_host(host.isNull() || host.isUndefined() ? nullptr : &js_host);
}

// An eager jsCall's results joined to autograd. `vjp`: null or a wrapper (inputs, outputs,
// grads) → TensorHandles | message, held by the backward node (it lives as long as the graph).
val link_callback(std::string name, val vjp, val inputs, val outputs) {
  sgg::VjpFn fn;
  if (!vjp.isNull() && !vjp.isUndefined()) {
    fn = [vjp](const std::vector<sg::Tensor>& in, const std::vector<sg::Tensor>& out, const std::vector<sg::Tensor>& g) {
      return gradients_of(vjp(handle_array(in), handle_array(out), handle_array(g)));
    };
  }
  return handle_array(sgg::link_callback(name, std::move(fn), tensor_list(inputs, "jsCall: inputs"),
                                         tensor_list(outputs, "jsCall: results")));
}

template <auto F>
void def(std::string& names, const char* name) {
  emscripten::function(name, guarded<F>);
  names += name;
  names += ',';
}

}  // namespace
}  // namespace sgjs

EMSCRIPTEN_BINDINGS(simdgrad_graph) {
  using namespace sgjs;
  std::string names;
  def<&trace_begin>(names, "graphTraceBegin");
  def<&trace_callback>(names, "graphTraceCallback");
  def<&trace_host_step>(names, "graphTraceHostStep");
  def<&trace_end>(names, "graphTraceEnd");
  def<&trace_abort>(names, "graphTraceAbort");
  def<&free_program>(names, "graphFree");
  def<&run>(names, "graphRun");
  def<&resume>(names, "graphResume");
  def<&abort_run>(names, "graphAbort");
  def<&live_counts>(names, "graphLiveCounts");
  def<&set_graph_host>(names, "setGraphHost");
  def<&link_callback>(names, "linkCallback");
  install_stack_guards(names);
}
