#include "core/allocator.h"

#include <cstdlib>
#include <limits>
#include <mutex>

#include "core/sanitizers.h"

namespace sg::alloc {
namespace {

// wasm32 has at most 4 GiB (usually far less) of heap: keep the cache to 256 MiB there, 1 GiB
// natively. A steady training loop needs about its peak of live bytes in the cache. Under
// AddressSanitizer nothing is cached, so a use after free still reaches ASan's free().
#ifdef SG_UNDER_ASAN
constexpr int64_t kCacheLimit = 0;
#else
constexpr int64_t kCacheLimit = sizeof(size_t) >= 8 ? (int64_t(1) << 30) : (int64_t(1) << 28);
#endif
constexpr size_t kSmall = 4096;

constexpr int kSmallClasses = int(kSmall / kAlign);              // 64, 128, …, 4096
constexpr int kClasses = kSmallClasses + 4 * (int(sizeof(size_t)) * 8 - 12);

// The free-list index of a size class (a value size_class returned).
int class_index(size_t cls) {
  if (cls <= kSmall) return int(cls / kAlign) - 1;
  int k = 12;  // cls ≥ 2^12
  while ((cls >> k) > 1) ++k;
  const size_t top = size_t(1) << k;
  return kSmallClasses + 4 * (k - 12) + int((cls - top) / (top / 4));
}

// Free blocks are kept in intrusive singly linked lists (the next pointer lives in the free
// block itself), so caching allocates nothing: malloc's count moves only when a block is
// really allocated or freed.
struct Cache {
  std::mutex mu;  // Storage may be created on pool threads
  void* head[kClasses] = {};
  int64_t bytes = 0;
  int64_t blocks = 0;

  static void*& next(void* p) { return *static_cast<void**>(p); }

  // Caller holds mu.
  void drain() {
    for (void*& h : head) {
      while (h) {
        void* n = next(h);
        std::free(h);
        h = n;
      }
    }
    bytes = 0;
    blocks = 0;
  }
};

Cache& cache() {
  static Cache* c = new Cache();  // never destroyed: Storage may outlive static destructors
  return *c;
}

}  // namespace

size_t size_class(size_t nbytes) {
  const size_t max = std::numeric_limits<size_t>::max();
  if (nbytes <= kSmall) return nbytes == 0 ? kAlign : (nbytes + kAlign - 1) / kAlign * kAlign;
  size_t top = kSmall;  // the largest power of two ≤ nbytes
  while (top <= nbytes / 2) top *= 2;
  const size_t step = top / 4;
  if (nbytes > max - (step - 1)) return 0;
  return (nbytes + step - 1) / step * step;
}

void* acquire(size_t cls) {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  void*& h = c.head[class_index(cls)];
  if (h) {
    void* p = h;
    h = Cache::next(p);
    c.bytes -= static_cast<int64_t>(cls);
    c.blocks -= 1;
    return p;
  }
  void* p = std::aligned_alloc(kAlign, cls);
  if (!p && c.blocks > 0) {  // the cache may hold what malloc lacks: give it back, try again
    c.drain();
    p = std::aligned_alloc(kAlign, cls);
  }
  return p;
}

void release(void* p, size_t cls) {
  if (!p) return;
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  if (c.bytes + static_cast<int64_t>(cls) > kCacheLimit) {
    std::free(p);
    return;
  }
  void*& h = c.head[class_index(cls)];
  Cache::next(p) = h;
  h = p;
  c.bytes += static_cast<int64_t>(cls);
  c.blocks += 1;
}

void empty_cache() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  c.drain();
}

int64_t cached_bytes() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  return c.bytes;
}

int64_t cached_blocks() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  return c.blocks;
}

int64_t cache_limit() { return kCacheLimit; }

}  // namespace sg::alloc
