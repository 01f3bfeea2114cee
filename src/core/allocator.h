// The caching allocator behind every Storage. A training step allocates and frees the same
// buffer sizes step after step; going to malloc (and, on wasm, to a heap that may have to
// grow) for each of them is slow, so freed blocks are kept in per-size-class free lists and
// handed out again. The cache is capped; empty_cache() gives every cached block back to malloc
// (as PyTorch's torch.cuda.empty_cache()).
#pragma once
#include <cstddef>
#include <cstdint>

namespace sg::alloc {

constexpr size_t kAlign = 64;  // a cache line; also enough for any SIMD load

// The bytes a request of `nbytes` really gets: multiples of 64 up to 4 KiB (exact small
// classes), then 4 classes per power of two (steps of 2^k / 4, so at most 25 % slack).
// 0 when the rounding overflows size_t. nbytes == 0 gets the smallest class.
size_t size_class(size_t nbytes);

// A block of size_class(nbytes) bytes, aligned to kAlign: from the cache when one of that
// class is free, else from malloc; when malloc fails the cache is emptied and malloc tried
// once more. nullptr when that fails too. Contents are undefined.
void* acquire(size_t cls);
// Gives back a block acquire(cls) returned: cached, or freed when the cache would exceed
// its cap.
void release(void* p, size_t cls);

void empty_cache();
int64_t cached_bytes();   // bytes held by the cache (not by any tensor)
int64_t cached_blocks();
// The cache's cap in bytes (blocks past it go straight back to malloc).
int64_t cache_limit();

}  // namespace sg::alloc
