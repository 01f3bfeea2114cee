// Thread control for the JS layer (npm/src/runtime/threads.ts). The same functions exist in both wasm
// modules: the default one is single-threaded (threadsSupported() false, only 1 thread).
#include <emscripten/bind.h>

#include <string>

#include "core/parallel.h"
#include "glue.h"

namespace sgjs {
namespace {

bool threads_supported() { return sg::threads_supported(); }
void set_num_threads(int n) { sg::set_num_threads(n); }
int num_threads() { return sg::num_threads(); }
int worker_threads() { return sg::worker_threads(); }
void shutdown_threads() { sg::shutdown_threads(); }
int max_threads() { return sg::kMaxThreads; }
// Calls that ran on the pool so far (a double: JS numbers), so tests can see a split happen.
double parallel_jobs() { return static_cast<double>(sg::parallel_jobs()); }
// Of those, the ones that had to wake a sleeping worker (bench diagnostics: thread_phases.mjs).
double parallel_wakes() { return static_cast<double>(sg::parallel_wakes()); }

}  // namespace
}  // namespace sgjs

EMSCRIPTEN_BINDINGS(simdgrad_threads) {
  using namespace sgjs;
  emscripten::function("threadsSupported", guarded<&threads_supported>);
  emscripten::function("setNumThreads", guarded<&set_num_threads>);
  emscripten::function("numThreads", guarded<&num_threads>);
  emscripten::function("workerThreads", guarded<&worker_threads>);
  emscripten::function("shutdownThreads", guarded<&shutdown_threads>);
  emscripten::function("maxThreads", guarded<&max_threads>);
  emscripten::function("parallelJobs", guarded<&parallel_jobs>);
  emscripten::function("parallelWakes", guarded<&parallel_wakes>);
  install_stack_guards(
      "threadsSupported,setNumThreads,numThreads,workerThreads,shutdownThreads,maxThreads,parallelJobs,parallelWakes");
}
