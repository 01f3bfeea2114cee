// sg.compile's state as the bindings see it: one trace at a time, compiled programs and runs in
// progress kept under integer ids (JavaScript holds the ids), so that the bindings only convert.
// All of it belongs to the thread that calls it (the JS thread).
#pragma once
#include <vector>

#include "graph/executor.h"
#include "graph/program.h"

namespace sg::graph {

// Tracing (graph/tracer.h): begin, then the function runs, then end (→ a program id) or abort.
void trace_begin(const std::vector<Tensor>& args);
bool tracing();
std::vector<Tensor> trace_callback(int callback, const std::vector<Tensor>& inputs,
                                   const std::vector<TensorSpec>& outputs, bool pure);
void trace_host_step(int id);
int trace_end(const std::vector<Tensor>& outputs, const CompileOptions& options);
void trace_abort();

const Program& program(int id);  // throws for an unknown id
void free_program(int id);
int live_programs();

// A run of program `id` on `args` (graph/executor.h): its id.
int start_run(int program_id, std::vector<Tensor> args);
Run& run(int id);  // throws for an unknown id
void end_run(int id);
int live_runs();

}  // namespace sg::graph
