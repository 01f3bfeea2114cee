// The caching allocator: size classes, reuse of freed blocks, the cache's accounting, the cap,
// empty_cache, and Storage/Tensor on top of it (zeros() stays zero on a reused block).
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <limits>

#include "core/allocator.h"
#include "core/storage.h"
#include "core/tensor.h"

namespace alloc = sg::alloc;

TEST_CASE("allocator: size classes") {
  CHECK(alloc::size_class(0) == 64);
  CHECK(alloc::size_class(1) == 64);
  CHECK(alloc::size_class(64) == 64);
  CHECK(alloc::size_class(65) == 128);
  CHECK(alloc::size_class(4096) == 4096);
  // Above 4 KiB: 4 classes per power of two (steps of a quarter of it).
  CHECK(alloc::size_class(4097) == 5120);
  CHECK(alloc::size_class(5120) == 5120);
  CHECK(alloc::size_class(8191) == 8192);
  CHECK(alloc::size_class(8193) == 10240);
  CHECK(alloc::size_class(size_t(1) << 22) == (size_t(1) << 22));
  CHECK(alloc::size_class((size_t(1) << 22) + 1) == (size_t(1) << 22) + (size_t(1) << 20));
  for (size_t n : {size_t(5000), size_t(123457), size_t(1) << 27, (size_t(3) << 27) + 5}) {
    const size_t c = alloc::size_class(n);
    CHECK(c >= n);
    CHECK(c <= n + n / 4 + 64);  // at most 25 % slack
    CHECK(c % 64 == 0);
  }
  CHECK(alloc::size_class(std::numeric_limits<size_t>::max()) == 0);  // overflow is reported
}

TEST_CASE("allocator: freed blocks are reused, counted, capped and released") {
  alloc::empty_cache();
  CHECK(alloc::cached_bytes() == 0);
  CHECK(alloc::cached_blocks() == 0);
  const size_t cls = alloc::size_class(100000);
  void* p = alloc::acquire(cls);
  REQUIRE(p != nullptr);
  CHECK(reinterpret_cast<uintptr_t>(p) % alloc::kAlign == 0);
  std::memset(p, 1, cls);
  alloc::release(p, cls);
  if (alloc::cache_limit() == 0) {  // sanitizer builds cache nothing
    CHECK(alloc::cached_bytes() == 0);
    return;
  }
  CHECK(alloc::cached_bytes() == int64_t(cls));
  CHECK(alloc::cached_blocks() == 1);
  void* q = alloc::acquire(cls);  // the same class: the cached block
  CHECK(q == p);
  CHECK(alloc::cached_bytes() == 0);
  void* other = alloc::acquire(alloc::size_class(200000));  // another class: a new block
  CHECK(other != q);
  alloc::release(q, cls);
  alloc::release(other, alloc::size_class(200000));
  CHECK(alloc::cached_blocks() == 2);
  alloc::empty_cache();
  CHECK(alloc::cached_bytes() == 0);
  CHECK(alloc::cached_blocks() == 0);
  // A block past the cap goes straight back to malloc.
  const size_t huge = alloc::size_class(size_t(alloc::cache_limit()) + 1);
  void* h = alloc::acquire(huge);
  if (h) {
    alloc::release(h, huge);
    CHECK(alloc::cached_bytes() == 0);
  }
}

TEST_CASE("allocator: storages and tensors on reused blocks") {
  sg::empty_cache();
  const int64_t live = sg::memory_stats().bytes;
  {
    sg::Tensor t = sg::Tensor::uninitialized({1000});
    for (int64_t i = 0; i < 1000; ++i) t.f32()[i] = 7.0f;
    CHECK(sg::memory_stats().bytes == live + 4000);
  }
  CHECK(sg::memory_stats().bytes == live);  // cached bytes are not live bytes
  if (sg::alloc::cache_limit() > 0) CHECK(sg::memory_stats().cached_bytes == int64_t(alloc::size_class(4000)));
  sg::Tensor z = sg::Tensor::empty({1000});  // likely the block just freed: still zeros
  bool zeros = true;
  for (int64_t i = 0; i < 1000; ++i) zeros = zeros && z.f32()[i] == 0.0f;
  CHECK(zeros);
  sg::empty_cache();
  CHECK(sg::memory_stats().cached_bytes == 0);
}
