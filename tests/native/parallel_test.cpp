// The thread pool (core/parallel.h): coverage of every index exactly once for many ranges and
// grains, chunk boundaries, real concurrency, exceptions from any thread, nested and concurrent
// callers, and repeated resizing. Also built into simdgrad_tsan_tests (ThreadSanitizer).
// In the single-threaded wasm build (the wasm doctest run) only the last case runs: there the
// pool must refuse more than one thread and run everything inline.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/parallel.h"
#include "core/storage.h"

namespace {

// Sets the thread count for one test and puts 1 back afterwards (also when a check throws).
struct Threads {
  explicit Threads(int n) { sg::set_num_threads(n); }
  ~Threads() { sg::set_num_threads(1); }
};

// Runs parallel_for and checks that every index of [begin, end) was visited once, by chunks
// that start on begin + k·grain and are grain long (the last one shorter).
void check_cover(int64_t begin, int64_t end, int64_t grain) {
  const int64_t n = end > begin ? end - begin : 0;
  std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
  for (auto& h : hits) h.store(0);
  std::atomic<int64_t> calls{0};
  std::atomic<bool> bad_chunk{false};
  const int64_t chunk = grain < 1 ? 1 : grain;
  sg::parallel_for(begin, end, grain, [&](int64_t lo, int64_t hi) {
    calls.fetch_add(1);
    const bool serial = lo == begin && hi == end;  // one thread, or a single chunk
    if (!serial && ((lo - begin) % chunk != 0 || (hi - lo != chunk && hi != end))) bad_chunk = true;
    for (int64_t i = lo; i < hi; ++i) hits[static_cast<size_t>(i - begin)].fetch_add(1);
  });
  CHECK_FALSE(bad_chunk.load());
  int64_t wrong = 0;
  for (auto& h : hits) wrong += h.load() != 1;
  CHECK_MESSAGE(wrong == 0, "range [", begin, ", ", end, ") grain ", grain);
  if (n == 0) CHECK(calls.load() == 0);
}

}  // namespace

TEST_CASE("parallel: every index exactly once, for 1..4 threads, small and large ranges" * doctest::skip(!sg::threads_supported())) {
  for (int t = 1; t <= 4; ++t) {
    Threads threads(t);
    CHECK(sg::num_threads() == t);
    for (int64_t n : {0, 1, 2, 3, 7, 64, 1000, 4097, 100003})
      for (int64_t grain : {0, 1, 3, 64, 1000, 1 << 20}) {
        check_cover(0, n, grain);
        check_cover(-17, n - 17, grain);  // ranges need not start at 0
      }
    check_cover(5, 3, 1);  // reversed: nothing
  }
}

TEST_CASE("parallel: chunk_size is a multiple of align, at least the grain, one chunk per thread" * doctest::skip(!sg::threads_supported())) {
  Threads threads(2);
  CHECK(sg::chunk_size(1000, 1, 1, 1) == 500);
  CHECK(sg::chunk_size(1000, 1, 64, 1) == 512);
  CHECK(sg::chunk_size(1000, 600, 1, 1) == 600);
  CHECK(sg::chunk_size(1000, 1, 1, 2) == 250);
  CHECK(sg::chunk_size(0, 0, 1, 1) == 1);
  CHECK(sg::chunk_size(7, 1, 0, 0) == 4);  // align and per_thread below 1 count as 1
}

TEST_CASE("parallel: two chunks really run at the same time with 2 threads" * doctest::skip(!sg::threads_supported())) {
  Threads threads(2);
  const uint64_t jobs0 = sg::parallel_jobs();
  // Each chunk announces itself, then waits (up to 20 s) for the other: only possible if both
  // run concurrently. A serial run would see the first chunk time out.
  std::atomic<int> started{0};
  std::atomic<bool> timed_out{false};
  std::atomic<int> on_caller{0};
  const auto caller = std::this_thread::get_id();
  sg::parallel_for(0, 2, 1, [&](int64_t, int64_t) {
    if (std::this_thread::get_id() == caller) on_caller.fetch_add(1);
    CHECK(sg::in_parallel_region());
    started.fetch_add(1);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (started.load() < 2) {
      if (std::chrono::steady_clock::now() > deadline) {
        timed_out = true;
        return;
      }
      std::this_thread::yield();
    }
  });
  CHECK_FALSE(timed_out.load());
  CHECK(on_caller.load() == 1);  // the caller takes part
  CHECK(sg::parallel_jobs() == jobs0 + 1);
  CHECK_FALSE(sg::in_parallel_region());
}

TEST_CASE("parallel: a job wakes a worker only when one sleeps; workers_polling() only on more than one thread" * doctest::skip(!sg::threads_supported())) {
  {
    Threads one(1);
    const uint64_t wakes0 = sg::parallel_wakes(), jobs0 = sg::parallel_jobs();
    sg::parallel_for(0, 100, 1, [](int64_t, int64_t) {});
    CHECK(sg::parallel_wakes() == wakes0);
    CHECK(sg::parallel_jobs() == jobs0);
    CHECK_FALSE(sg::workers_polling());
  }
  Threads threads(2);
  const uint64_t wakes0 = sg::parallel_wakes(), jobs0 = sg::parallel_jobs();
  // An idle worker spins for ~200 µs, then sleeps: after 20 ms of nothing the next job must wake
  // it (tried up to 25 times: a worker that had no core yet may not have reached its sleep).
  uint64_t woke = 0;
  for (int k = 0; k < 25 && woke == 0; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const uint64_t w0 = sg::parallel_wakes();
    std::atomic<int> chunks{0};
    sg::parallel_for(0, 2, 1, [&](int64_t, int64_t) { chunks.fetch_add(1); });
    CHECK(chunks.load() == 2);
    woke += sg::parallel_wakes() - w0;
  }
  CHECK(woke >= 1);
  CHECK(sg::parallel_wakes() - wakes0 <= sg::parallel_jobs() - jobs0);  // at most one wake a job
}

TEST_CASE("parallel: an exception in any chunk is rethrown on the caller; the pool keeps working" * doctest::skip(!sg::threads_supported())) {
  for (int t = 1; t <= 4; ++t) {
    Threads threads(t);
    for (int64_t bad : {0, 1, 999}) {
      std::atomic<int64_t> ran{0};
      bool caught = false;
      try {
        sg::parallel_for(0, 1000, 1, [&](int64_t lo, int64_t hi) {
          for (int64_t i = lo; i < hi; ++i) {
            if (i == bad) throw std::runtime_error("chunk " + std::to_string(i) + " failed");
            ran.fetch_add(1);
          }
        });
      } catch (const std::runtime_error& e) {
        caught = true;
        CHECK(std::string(e.what()) == "chunk " + std::to_string(bad) + " failed");
      }
      CHECK(caught);
      CHECK(ran.load() < 1000);
      check_cover(0, 5000, 7);  // still usable
    }
    // Every chunk throws: one of them arrives, the others are dropped.
    CHECK_THROWS_AS(sg::parallel_for(0, 64, 1, [](int64_t, int64_t) { throw sg::Error("x"); }),
                    sg::Error);
    check_cover(0, 100, 1);
  }
}

TEST_CASE("parallel: nested parallel_for runs serially inside a chunk" * doctest::skip(!sg::threads_supported())) {
  Threads threads(3);
  std::atomic<int> inner_calls{0}, inner_wrong{0};
  std::atomic<int64_t> total{0};
  sg::parallel_for(0, 12, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i)
      sg::parallel_for(0, 100, 1, [&](int64_t a, int64_t b) {
        inner_calls.fetch_add(1);
        if (a != 0 || b != 100) inner_wrong.fetch_add(1);  // serial: one call, whole range
        total.fetch_add(b - a);
      });
  });
  CHECK(inner_calls.load() == 12);
  CHECK(inner_wrong.load() == 0);
  CHECK(total.load() == 1200);
  // Resizing from inside a chunk is refused, not a deadlock.
  std::atomic<int> refused{0};
  sg::parallel_for(0, 3, 1, [&](int64_t, int64_t) {
    try {
      sg::set_num_threads(2);
    } catch (const sg::Error&) {
      refused.fetch_add(1);
    }
  });
  CHECK(refused.load() == 3);
}

TEST_CASE("parallel: callers on two threads at once both finish (one runs serially)" * doctest::skip(!sg::threads_supported())) {
  Threads threads(2);
  std::atomic<int64_t> sum_a{0}, sum_b{0};
  auto body = [](std::atomic<int64_t>& sum) {
    for (int rep = 0; rep < 200; ++rep)
      sg::parallel_for(0, 1000, 10, [&](int64_t lo, int64_t hi) {
        int64_t s = 0;
        for (int64_t i = lo; i < hi; ++i) s += i;
        sum.fetch_add(s);
      });
  };
  std::thread other([&] { body(sum_b); });
  body(sum_a);
  other.join();
  CHECK(sum_a.load() == 200 * 499500);
  CHECK(sum_b.load() == 200 * 499500);
}

TEST_CASE("parallel: repeated set_num_threads, shrink, grow and shutdown" * doctest::skip(!sg::threads_supported())) {
  for (int rep = 0; rep < 3; ++rep)
    for (int t : {4, 1, 3, 2, 4, 1, 2}) {
      sg::set_num_threads(t);
      CHECK(sg::num_threads() == t);
      CHECK(sg::worker_threads() >= t - 1);
      check_cover(0, 10007, 13);
    }
  sg::shutdown_threads();
  CHECK(sg::num_threads() == 1);
  CHECK(sg::worker_threads() == 0);
  check_cover(0, 1000, 1);
  {
    Threads threads(2);
    CHECK(sg::worker_threads() == 1);
    check_cover(0, 1000, 1);
  }
  CHECK_THROWS_AS(sg::set_num_threads(0), sg::Error);
  CHECK_THROWS_AS(sg::set_num_threads(sg::kMaxThreads + 1), sg::Error);
  CHECK_THROWS_AS(sg::set_num_threads(-3), sg::Error);
  CHECK(sg::num_threads() == 1);
}

TEST_CASE("parallel: storages made and freed on pool threads keep memory_stats exact" * doctest::skip(!sg::threads_supported())) {
  // No kernel allocates on a pool thread today (scratch comes from the caller), but the
  // counters must not lose updates when one does: two threads each create and free 20,000
  // storages of distinct sizes, so a lost increment or decrement would leave a residue.
  Threads threads(2);
  const sg::MemoryStats before = sg::memory_stats();
  std::atomic<int64_t> made{0};
  sg::parallel_for(0, 40000, 20000, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      sg::Storage s(static_cast<size_t>(4 + i % 97 * 4), sg::Device::CPU, false);
      made.fetch_add(1);
    }
  });
  const sg::MemoryStats after = sg::memory_stats();
  CHECK(made.load() == 40000);
  CHECK(after.storages == before.storages);
  CHECK(after.bytes == before.bytes);
  CHECK(after.peak_bytes >= before.bytes + 4);
}

TEST_CASE("parallel: a build without threads accepts only 1 thread and runs inline" *
          doctest::skip(sg::threads_supported())) {
  CHECK_THROWS_AS(sg::set_num_threads(2), sg::Error);
  sg::set_num_threads(1);
  CHECK(sg::num_threads() == 1);
  CHECK(sg::worker_threads() == 0);
  int calls = 0;
  sg::parallel_for(3, 1003, 10, [&](int64_t lo, int64_t hi) {
    ++calls;
    CHECK(lo == 3);
    CHECK(hi == 1003);
  });
  CHECK(calls == 1);
  sg::shutdown_threads();  // a no-op
  CHECK(sg::parallel_jobs() == 0);
}
