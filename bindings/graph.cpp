// The graph compiler's boundary (sg.compile, sg.jsCall; bindings/README.md, "Compiled graphs"):
// plain wasm exports over the scratch area, as the op entry (op_call.cpp). A compiled call is one
// export per stage: sg_graph_run starts a run and goes to its first callback or its end,
// sg_graph_resume hands a callback's results back and goes on.
#include <emscripten/emscripten.h>

#include <cstdint>
#include <vector>

#include "core/device.h"
#include "core/error.h"
#include "glue.h"
#include "graph/callbacks.h"
#include "graph/fused_autograd.h"
#include "graph/session.h"

using namespace sgjs;

namespace {

namespace sgg = sg::graph;

// ids[0..n) → tensors (0: an undefined tensor), with errors naming `what`[i].
std::vector<sg::Tensor> tensors_at(size_t from, size_t n, const char* what) {
  std::vector<int32_t>& ids = scratch_ids();
  if (from + n > ids.size()) sg::fail(what, ": malformed call (", n, " tensors)");
  std::vector<sg::Tensor> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(get_or_null(ids[from + i], what));
  return out;
}

// The state of a run after a stage, for JS: 0 = done (words[1] results, their ids and dtypes in
// ids), else the id of the callback it waits for (words[1] inputs, their ids and dtypes in ids).
// words[0] is the run's id either way.
int report(int run_id) {
  sgg::Run& r = sgg::run(run_id);
  std::vector<double>& w = scratch_words();
  grow_to(w, 2);
  w[0] = run_id;
  if (r.done()) {
    const std::vector<sg::Tensor> outs = r.outputs();
    sgg::end_run(run_id);
    w[1] = write_results(outs);
    return 0;
  }
  const int callback = r.waiting_callback();
  w[1] = write_results(r.callback_inputs());
  return callback;
}

// A run that fails is dropped (everything it made is freed) and the error passed on.
template <class F>
int in_run(int run_id, F&& f) {
  try {
    return f();
  } catch (...) {
    if (run_id > 0) sgg::end_run(run_id);
    throw;
  }
}

}  // namespace

extern "C" {

// Starts tracing with the function's tensor arguments in ids[0..n).
EMSCRIPTEN_KEEPALIVE int sg_graph_trace_begin(int n) {
  return catching(-1, [&] {
    sgg::trace_begin(tensors_at(0, static_cast<size_t>(n), "sg.compile: arguments"));
    return 0;
  });
}

EMSCRIPTEN_KEEPALIVE int sg_graph_tracing() { return sgg::tracing() ? 1 : 0; }

// A callback while tracing: its inputs in ids[0..n_inputs), its template in words as
// [count, then per output: ndim, sizes..., dtype code, device code]. Writes the placeholder
// outputs (ids and dtypes) and returns their count.
EMSCRIPTEN_KEEPALIVE int sg_graph_trace_callback(int callback, int n_inputs, int pure) {
  return catching(-1, [&] {
    const std::vector<sg::Tensor> inputs = tensors_at(0, static_cast<size_t>(n_inputs), "jsCall: inputs");
    const std::vector<double>& w = scratch_words();
    std::vector<sgg::TensorSpec> specs;
    size_t at = 0;
    auto word = [&]() {
      if (at >= w.size()) sg::fail("jsCall: malformed template");
      return w[at++];
    };
    const int count = static_cast<int>(word());
    for (int k = 0; k < count; ++k) {
      sgg::TensorSpec s;
      const int ndim = static_cast<int>(word());
      for (int d = 0; d < ndim; ++d) s.shape.push_back(static_cast<int64_t>(word()));
      s.dtype = static_cast<sg::DType>(static_cast<int>(word()));
      const int device = static_cast<int>(word());  // -1: where new tensors go (sg's default)
      s.device = device < 0 ? sg::default_device() : static_cast<sg::Device>(device);
      specs.push_back(std::move(s));
    }
    return write_results(sgg::trace_callback(callback, inputs, specs, pure != 0));
  });
}

EMSCRIPTEN_KEEPALIVE int sg_graph_trace_host_step(int id) {
  return catching(-1, [&] {
    sgg::trace_host_step(id);
    return 0;
  });
}

// Ends the trace returning the tensors in ids[0..n) and compiles it: the program's id. options:
// bit 0 fuse, bit 1 CSE, bit 2 dead code; backend 0 = the active one, 1 'wasm', 2 'reference'.
// Writes [nodes, stages, callbacks, fused, fused ops] to words[0..5).
EMSCRIPTEN_KEEPALIVE int sg_graph_trace_end(int n, int options, int backend) {
  return catching(-1, [&] {
    const std::vector<sg::Tensor> outputs = tensors_at(0, static_cast<size_t>(n), "sg.compile: results");
    sgg::CompileOptions o;
    o.fuse = options & 1;
    o.cse = options & 2;
    o.dce = options & 4;
    o.backend = backend == 1 ? "wasm" : backend == 2 ? "reference" : "";
    const int id = sgg::trace_end(outputs, o);
    const sgg::ProgramStats& s = sgg::program(id).stats;
    std::vector<double>& w = scratch_words();
    grow_to(w, 5);
    w[0] = s.nodes;
    w[1] = s.stages;
    w[2] = s.callbacks;
    w[3] = s.fused;
    w[4] = s.fused_ops;
    return id;
  });
}

EMSCRIPTEN_KEEPALIVE void sg_graph_trace_abort() { sgg::trace_abort(); }

EMSCRIPTEN_KEEPALIVE void sg_graph_free(int program) { sgg::free_program(program); }

// Which of the tensors in ids[0..n) program `program` holds as externals (tensors the traced
// function read without making them): words[i] = 1 or 0. JS checks those on every call, so that
// a captured tensor disposed since is an Error instead of its old data used silently.
EMSCRIPTEN_KEEPALIVE int sg_graph_captured(int program, int n) {
  return catching(-1, [&] {
    const std::vector<sg::Tensor> ts = tensors_at(0, static_cast<size_t>(n), "sg.compile: captured tensors");
    const std::vector<sg::Tensor>& externals = sgg::program(program).graph.externals;
    std::vector<double>& w = scratch_words();
    grow_to(w, static_cast<size_t>(n));
    for (size_t i = 0; i < ts.size(); ++i) {
      w[i] = 0;
      for (const sg::Tensor& e : externals)
        if (ts[i].defined() && e.same(ts[i])) w[i] = 1;
    }
    return 0;
  });
}

// Runs program `program` on the arguments in ids[0..n) up to its first callback or its end
// (see report). -1 on failure (the run is gone).
EMSCRIPTEN_KEEPALIVE int sg_graph_run(int program, int n) {
  return catching(-1, [&] {
    const int id = sgg::start_run(program, tensors_at(0, static_cast<size_t>(n), "sg.compile: arguments"));
    return in_run(id, [&] {
      sgg::run(id).resume();
      return report(id);
    });
  });
}

// Gives the callback run `run` waits for its results (ids[0..n)) and runs the next stage.
EMSCRIPTEN_KEEPALIVE int sg_graph_resume(int run, int n) {
  return catching(-1, [&] {
    return in_run(run, [&] {
      sgg::Run& r = sgg::run(run);
      r.provide(tensors_at(0, static_cast<size_t>(n), "jsCall: results"));
      r.resume();
      return report(run);
    });
  });
}

// Drops a run (a callback failed): everything it made is freed.
EMSCRIPTEN_KEEPALIVE void sg_graph_abort(int run) { sgg::end_run(run); }

EMSCRIPTEN_KEEPALIVE int sg_graph_live_runs() { return sgg::live_runs(); }
EMSCRIPTEN_KEEPALIVE int sg_graph_live_programs() { return sgg::live_programs(); }

// How the backward runs through program `program`'s fused kernels went: words[0] as one fused
// kernel each (graph/fused_backward.h), words[1] replaying their members.
EMSCRIPTEN_KEEPALIVE int sg_graph_backward_counts(int program) {
  return catching(-1, [&] {
    int64_t fused = 0, replayed = 0;
    for (const sgg::Node& n : sgg::program(program).graph.nodes) {
      if (!n.fused) continue;
      const sgg::FusedBackwardCounts c = sgg::fused_backward_counts(*n.fused);
      fused += c.fused;
      replayed += c.replayed;
    }
    std::vector<double>& w = scratch_words();
    grow_to(w, 2);
    w[0] = static_cast<double>(fused);
    w[1] = static_cast<double>(replayed);
    return 0;
  });
}

}  // extern "C"
