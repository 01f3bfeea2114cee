// The thread pool behind parallel_for (see parallel.h for the contract).
//
// One job at a time. The caller publishes it under the mutex (a new generation), wakes the
// workers and works on chunks itself; chunks are claimed through one atomic counter, so a worker
// the OS has not scheduled yet simply gets none. A worker joins a job only while it is open; the
// caller closes it once every chunk is claimed and waits only for the workers that joined, so a
// sleepy worker never holds up a call (the machine this runs on is often oversubscribed).
//
// Waiting spins briefly before it sleeps: a worker that finished a job watches the generation
// for kSpinMicros before it blocks on the condition variable, and the caller watches the
// joined count as long before it blocks on `done_`. A futex wake-up costs 15–35 µs in wasm
// on an idle 2-core AMD EPYC (Node 20: the time from notify to the worker's first chunk),
// which is most of a 100–300 µs GEMM's gain from a second thread; a training step runs its
// parallel jobs a few tens of µs apart, so a spinning worker starts the next one at once.
// The spin is bounded in time, so an idle pool sleeps and costs nothing.
#include "core/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>

#include "core/error.h"

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
#define SG_NO_THREADS 1
#else
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>
#endif

namespace sg {
namespace {

thread_local bool t_in_region = false;

// Marks the current thread as inside a chunk, restoring the old value on exit (also on throw).
struct RegionGuard {
  bool saved = t_in_region;
  RegionGuard() { t_in_region = true; }
  ~RegionGuard() { t_in_region = saved; }
};

void check_count(int n) {
  if (n < 1 || n > kMaxThreads)
    fail("setNumThreads: expected a thread count from 1 to ", kMaxThreads, ", got ", n);
}

#ifndef SG_NO_THREADS

// How long a waiting thread polls before it sleeps (see the header comment).
constexpr double kSpinMicros = 200.0;
// Spinning pays only while each thread has a core: on an oversubscribed machine a spinning
// worker takes the time slices of the thread it waits for (measured: the MLP train step 2.1×
// slower on 2 threads with spinning than without, with 7 compilers running on the 2 cores). A
// spin that finds itself preempted (two clock reads more than kPreemptedMicros apart) stops,
// and no thread spins for the next kNoSpinMicros: the pool then waits as it did before.
// The threshold is a scheduler time slice, not a short interruption: at 50 µs the spin was
// switched off on an idle machine too (V8's pauses and Node's own threads), and the MLP step on
// 2 threads ran 1.3× faster than on one instead of 1.85× (forward/backward/Adam 0.99/1.19/0.37 ms
// against 0.67/0.84/0.17; one thread 1.25/1.62/0.26); with four busy loops on the 2 cores both
// thresholds give the same times (2 threads 1.3/2.0/0.29 ms), no slower than before.
constexpr double kPreemptedMicros = 3000.0;
constexpr double kNoSpinMicros = 100000.0;

using Clock = std::chrono::steady_clock;
using Micros = std::chrono::duration<double, std::micro>;
std::atomic<Clock::rep> g_no_spin_until{0};  // a Clock time, in its ticks

// Polls done() for up to kSpinMicros (none while spinning is off); true once it holds. The
// clock is read every 64 polls (in wasm it is a call into JS).
template <class Done>
bool spin_until(Done&& done) {
  Clock::time_point last = Clock::now();
  if (last.time_since_epoch().count() < g_no_spin_until.load(std::memory_order_relaxed)) return done();
  const Clock::time_point end = last + std::chrono::duration_cast<Clock::duration>(Micros(kSpinMicros));
  for (;;) {
    for (int i = 0; i < 64; ++i)
      if (done()) return true;
    const Clock::time_point now = Clock::now();
    if (now - last > Micros(kPreemptedMicros)) {
      const auto off = now + std::chrono::duration_cast<Clock::duration>(Micros(kNoSpinMicros));
      g_no_spin_until.store(off.time_since_epoch().count(), std::memory_order_relaxed);
      return done();
    }
    if (now >= end) return done();
    last = now;
  }
}

class Pool {
 public:
  ~Pool() { shutdown(); }

  int size() const { return active_.load(std::memory_order_relaxed); }
  int workers() const { return started_.load(std::memory_order_relaxed); }
  uint64_t jobs() const { return jobs_.load(std::memory_order_relaxed); }
  uint64_t wakes() const { return wakes_.load(std::memory_order_relaxed); }
  // Every worker a job would use is polling (see workers_polling()). While spinning is off,
  // spin_until returns at once and a worker goes straight to sleep, so none counts here.
  bool polling() const {
    const int n = size();
    return n > 1 && polling_.load(std::memory_order_relaxed) >= n - 1;
  }

  void resize(int n) {
    check_count(n);
    if (t_in_region) fail("setNumThreads: cannot change the thread count inside a parallel region");
    std::lock_guard<std::mutex> d(dispatch_);
    while (static_cast<int>(threads_.size()) < n - 1) {
      const int id = static_cast<int>(threads_.size()) + 1;  // 0 is the caller
      try {
        threads_.emplace_back([this, id] { worker_main(id); });
        started_.store(static_cast<int>(threads_.size()), std::memory_order_relaxed);
      } catch (const std::system_error& e) {
        fail("setNumThreads: could not start thread ", id + 1, " of ", n, " (", e.what(),
             "); the threaded wasm module needs one loaded Web Worker per extra thread");
      }
    }
    active_.store(n, std::memory_order_relaxed);
  }

  void shutdown() {
    if (t_in_region) fail("shutdown: cannot stop the threads from inside a parallel region");
    std::lock_guard<std::mutex> d(dispatch_);
    {
      std::lock_guard<std::mutex> lk(m_);
      stop_.store(true, std::memory_order_relaxed);
    }
    wake_.notify_all();
    for (std::thread& t : threads_) t.join();
    threads_.clear();
    started_.store(0, std::memory_order_relaxed);
    std::lock_guard<std::mutex> lk(m_);
    stop_.store(false, std::memory_order_relaxed);
    active_.store(1, std::memory_order_relaxed);
  }

  // False when the pool is busy (another thread's job): the caller then runs serially.
  bool run(int64_t begin, int64_t chunk, int64_t nchunks, int64_t end, FunctionRef fn) {
    std::unique_lock<std::mutex> d(dispatch_, std::try_to_lock);
    if (!d.owns_lock()) return false;
    bool wake = false;
    {
      std::lock_guard<std::mutex> lk(m_);
      fn_ = &fn;
      begin_ = begin;
      end_ = end;
      chunk_ = chunk;
      nchunks_ = nchunks;
      next_.store(0, std::memory_order_relaxed);
      error_ = nullptr;
      workers_ = std::min(size() - 1, static_cast<int>(nchunks - 1));
      open_ = true;
      generation_.fetch_add(1, std::memory_order_release);
      // Workers that are polling see the new generation by themselves; only sleeping ones need
      // the futex wake (a call into JS in wasm). Read under m_, where a worker counts itself
      // in before it blocks, so none is missed.
      wake = sleepers_ > 0;
    }
    jobs_.fetch_add(1, std::memory_order_relaxed);
    if (wake) {
      wakes_.fetch_add(1, std::memory_order_relaxed);
      wake_.notify_all();
    }
    work();
    std::unique_lock<std::mutex> lk(m_);
    open_ = false;  // every chunk is claimed: no worker joins from now on
    if (joined_.load(std::memory_order_relaxed) != 0) {
      lk.unlock();
      spin_until([this] { return joined_.load(std::memory_order_acquire) == 0; });
      lk.lock();
    }
    if (joined_.load(std::memory_order_relaxed) != 0) {
      caller_waits_ = true;  // the last worker out notifies done_ only when this is set
      done_.wait(lk, [this] { return joined_.load(std::memory_order_relaxed) == 0; });
      caller_waits_ = false;
    }
    fn_ = nullptr;
    std::exception_ptr err = std::move(error_);
    error_ = nullptr;
    lk.unlock();
    if (err) std::rethrow_exception(err);
    return true;
  }

 private:
  // Claims and runs chunks until none is left (or one threw).
  void work() {
    RegionGuard region;
    for (;;) {
      const int64_t c = next_.fetch_add(1, std::memory_order_relaxed);
      if (c >= nchunks_) return;
      const int64_t lo = begin_ + c * chunk_;
      const int64_t hi = std::min(end_, lo + chunk_);
      try {
        (*fn_)(lo, hi);
      } catch (...) {
        std::lock_guard<std::mutex> lk(m_);
        if (!error_) error_ = std::current_exception();
        next_.store(nchunks_, std::memory_order_relaxed);  // hand out no more chunks
      }
    }
  }

  void worker_main(int id) {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lk(m_);
    for (;;) {
      const auto news = [&] {
        return stop_.load(std::memory_order_relaxed) ||
               generation_.load(std::memory_order_acquire) != seen;
      };
      if (!news()) {
        lk.unlock();
        polling_.fetch_add(1, std::memory_order_relaxed);
        spin_until(news);
        polling_.fetch_sub(1, std::memory_order_relaxed);
        lk.lock();
      }
      if (!news()) {
        ++sleepers_;
        wake_.wait(lk, news);
        --sleepers_;
      }
      if (stop_.load(std::memory_order_relaxed)) return;
      seen = generation_.load(std::memory_order_relaxed);
      // Workers beyond this job's count (fewer chunks, or a smaller set_num_threads) sit it out.
      if (!open_ || id > workers_) continue;
      joined_.fetch_add(1, std::memory_order_relaxed);
      lk.unlock();
      work();  // the job's fields were published under m_, which this thread has taken since
      lk.lock();
      if (joined_.fetch_sub(1, std::memory_order_release) == 1 && !open_ && caller_waits_) done_.notify_one();
    }
  }

  std::mutex dispatch_;  // held by the one thread whose job is running (and by resize/shutdown)
  std::mutex m_;         // guards everything below except next_ and active_ (atomics are
                         // also read without it, while spinning)
  std::condition_variable wake_, done_;
  std::vector<std::thread> threads_;
  std::atomic<int> active_{1};
  std::atomic<uint64_t> jobs_{0};
  std::atomic<uint64_t> wakes_{0};  // jobs that found a worker asleep
  std::atomic<int> started_{0};  // threads_.size(), readable without the dispatch lock
  // Changed under m_; also read while spinning:
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> generation_{0};
  bool open_ = false;
  int workers_ = 0;  // workers with id ≤ workers_ may join the current job
  int sleepers_ = 0;  // workers blocked on wake_
  bool caller_waits_ = false;  // the caller is blocked on done_
  std::atomic<int> polling_{0};  // workers spinning for the next job (read without m_: a hint)
  std::atomic<int> joined_{0};  // workers inside the current job (changed under m_)
  const FunctionRef* fn_ = nullptr;
  int64_t begin_ = 0, end_ = 0, chunk_ = 1, nchunks_ = 0;
  std::atomic<int64_t> next_{0};
  std::exception_ptr error_;
};

Pool& pool() {
  static Pool p;
  return p;
}

#endif  // !SG_NO_THREADS

}  // namespace

bool threads_supported() {
#ifdef SG_NO_THREADS
  return false;
#else
  return true;
#endif
}

void set_num_threads(int n) {
  check_count(n);
#ifdef SG_NO_THREADS
  if (n != 1)
    fail("setNumThreads: this build of simdgrad is single-threaded (got ", n,
         " threads); load the threaded module with init({ threads: n })");
#else
  pool().resize(n);
#endif
}

int num_threads() {
#ifdef SG_NO_THREADS
  return 1;
#else
  return pool().size();
#endif
}

int worker_threads() {
#ifdef SG_NO_THREADS
  return 0;
#else
  return pool().workers();
#endif
}

uint64_t parallel_jobs() {
#ifdef SG_NO_THREADS
  return 0;
#else
  return pool().jobs();
#endif
}

uint64_t parallel_wakes() {
#ifdef SG_NO_THREADS
  return 0;
#else
  return pool().wakes();
#endif
}

void shutdown_threads() {
#ifndef SG_NO_THREADS
  pool().shutdown();
#endif
}

bool in_parallel_region() { return t_in_region; }

bool workers_polling() {
#ifdef SG_NO_THREADS
  return false;
#else
  return !t_in_region && pool().polling();
#endif
}

int64_t chunk_size(int64_t n, int64_t grain, int64_t align, int per_thread) {
  align = std::max<int64_t>(align, 1);
  const int64_t parts = std::max<int64_t>(int64_t(num_threads()) * std::max(per_thread, 1), 1);
  int64_t c = std::max<int64_t>({(n + parts - 1) / parts, grain, 1});
  return (c + align - 1) / align * align;
}

void parallel_for(int64_t begin, int64_t end, int64_t grain, FunctionRef fn) {
  if (end <= begin) return;
  const int64_t chunk = std::max<int64_t>(grain, 1);
  const int64_t nchunks = (end - begin + chunk - 1) / chunk;
#ifndef SG_NO_THREADS
  if (nchunks > 1 && !t_in_region && num_threads() > 1 &&
      pool().run(begin, chunk, nchunks, end, fn))
    return;
#endif
  (void)nchunks;
  fn(begin, end);
}

}  // namespace sg
