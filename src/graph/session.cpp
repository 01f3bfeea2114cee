#include "graph/session.h"

#include <memory>
#include <unordered_map>

#include "core/error.h"
#include "graph/tracer.h"

namespace sg::graph {

namespace {

std::unique_ptr<Tracer> g_tracer;
std::unordered_map<int, std::shared_ptr<const Program>> g_programs;
std::unordered_map<int, std::unique_ptr<Run>> g_runs;
int g_next_id = 0;

int next_id() {
  g_next_id = g_next_id == 0x3fffffff ? 1 : g_next_id + 1;
  return g_next_id;
}

Tracer& active_trace(const char* what) {
  check(g_tracer != nullptr, what, ": no function is being traced");
  return *g_tracer;
}

}  // namespace

void trace_begin(const std::vector<Tensor>& args) {
  check(g_tracer == nullptr, "sg.compile: a function is already being traced");
  g_tracer = std::make_unique<Tracer>(args);
}

bool tracing() { return g_tracer != nullptr; }

std::vector<Tensor> trace_callback(int callback, const std::vector<Tensor>& inputs,
                                   const std::vector<TensorSpec>& outputs, bool pure) {
  return active_trace("jsCall").callback(callback, inputs, outputs, pure);
}

void trace_host_step(int id) { active_trace("sg.compile").host_step(id); }

int trace_end(const std::vector<Tensor>& outputs, const CompileOptions& options) {
  Tracer& t = active_trace("sg.compile");
  std::shared_ptr<const Program> p;
  try {
    p = compile(t.finish(outputs), options);
  } catch (...) {
    g_tracer.reset();
    throw;
  }
  g_tracer.reset();  // undoes the trace's effects before the program first runs
  const int id = next_id();
  g_programs.emplace(id, std::move(p));
  return id;
}

void trace_abort() { g_tracer.reset(); }

const Program& program(int id) {
  auto it = g_programs.find(id);
  check(it != g_programs.end(), "sg.compile: ", id, " is not a live compiled program");
  return *it->second;
}

void free_program(int id) { g_programs.erase(id); }
int live_programs() { return static_cast<int>(g_programs.size()); }

int start_run(int program_id, std::vector<Tensor> args) {
  auto it = g_programs.find(program_id);
  check(it != g_programs.end(), "sg.compile: ", program_id, " is not a live compiled program");
  auto r = std::make_unique<Run>(it->second, std::move(args));
  const int id = next_id();
  g_runs.emplace(id, std::move(r));
  return id;
}

Run& run(int id) {
  auto it = g_runs.find(id);
  check(it != g_runs.end(), "sg.compile: ", id, " is not a run in progress");
  return *it->second;
}

void end_run(int id) { g_runs.erase(id); }
int live_runs() { return static_cast<int>(g_runs.size()); }

}  // namespace sg::graph
