// A persistent thread pool for the kernels: parallel_for(begin, end, grain, fn) splits [begin, end)
// into chunks of at least `grain` indices and runs fn(lo, hi) on them over a fixed set of
// std::threads plus the calling thread, which takes part in the work.
//
// Why this shape:
// - Threads are created by set_num_threads(n) and then kept (only grown; a smaller n leaves the
//   extra ones asleep): in wasm a thread needs a Web Worker that was loaded beforehand, and one
//   that exits goes back to the JS side's pool only when the JS event loop runs, so a shrink and
//   regrow inside one synchronous call could find no worker left.
// - No allocation per call in the steady state: fn is passed by reference (FunctionRef), and the
//   job lives in the pool's fixed state.
// - An exception thrown by fn on any thread stops the handing out of chunks and is rethrown on
//   the caller once every thread has left the job (the job references the caller's stack).
// - A parallel_for inside a chunk (nested), or from a second thread while the pool is busy, runs
//   serially on the thread that called it: there is one job at a time and never a wait on it.
// - In a build without threads (the default single-threaded wasm module) everything runs inline
//   and set_num_threads accepts only 1.
#pragma once
#include <cstdint>
#include <type_traits>
#include <utility>

namespace sg {

// The most threads (the caller included) set_num_threads accepts.
constexpr int kMaxThreads = 16;

// True when this build can run threads (native, or wasm compiled with -pthread).
bool threads_supported();

// Sets how many threads (the caller included) parallel_for uses: 1 ≤ n ≤ kMaxThreads.
// Starts missing worker threads. Throws sg::Error on a bad n, without thread support for n > 1,
// when a thread cannot be started, or when called from inside a parallel_for.
void set_num_threads(int n);
int num_threads();

// Worker threads started so far (they are kept when num_threads() is lowered).
int worker_threads();

// parallel_for calls that ran on the pool (not serially) since the start: lets tests check that
// a kernel really was split.
uint64_t parallel_jobs();

// Those of them that found a worker asleep and woke it (a futex wake-up, 15–35 µs in wasm before
// the worker takes a chunk): on an idle machine a measure of how often the gaps between a step's
// jobs outlast the workers' spin (tests/bench/thread_phases.mjs prints it per phase).
uint64_t parallel_wakes();

// Asks every worker thread to finish and joins them; num_threads() becomes 1. A later
// set_num_threads(n > 1) starts new ones.
void shutdown_threads();

// True on a thread that is running a chunk of a parallel_for.
bool in_parallel_region();

// True when every worker thread a parallel_for would use is spinning for its next job right
// now (it finished one within the last ~200 µs and has its core), so a job starts on all
// threads at once instead of paying a futex wake-up (15–35 µs in wasm) for each sleeping one.
// False on one thread, inside a parallel region, and while spinning is off (the machine is
// oversubscribed). A hint that may be stale the next moment: the GEMM gives each thread one row
// block instead of two then (parallel_kernels.cpp), which changes no result. (Splitting 16K-64K-
// element ops while it holds was tried and measured at no gain: parallel_kernels.h.)
bool workers_polling();

// A non-owning reference to a callable void(int64_t, int64_t): no allocation, unlike
// std::function with a large capture.
class FunctionRef {
 public:
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, FunctionRef>>>
  FunctionRef(F&& f)  // NOLINT: implicit on purpose, so lambdas pass straight through
      : obj_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* o, int64_t lo, int64_t hi) {
          (*static_cast<std::remove_reference_t<F>*>(o))(lo, hi);
        }) {}
  void operator()(int64_t lo, int64_t hi) const { call_(obj_, lo, hi); }

 private:
  void* obj_;
  void (*call_)(void*, int64_t, int64_t);
};

// Runs fn(lo, hi) over disjoint chunks covering [begin, end): chunk boundaries are
// begin + k·chunk with chunk ≥ max(grain, 1) (the last chunk may be shorter). Serial (one call
// fn(begin, end)) when there is one thread, one chunk, or when nested. An empty range calls
// nothing. Returns after every chunk is done; rethrows the first exception fn threw.
void parallel_for(int64_t begin, int64_t end, int64_t grain, FunctionRef fn);

// The chunk length parallel_for would use for this range: a multiple of `align` (≥ 1) that
// gives about `per_thread` chunks per thread and at least `grain` indices each. Kernels that
// must cut at fixed boundaries (vector tails, GEMM tiles) pass the result as the grain.
int64_t chunk_size(int64_t n, int64_t grain, int64_t align = 1, int per_thread = 1);

}  // namespace sg
