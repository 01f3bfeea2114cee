#include "core/storage.h"

#include <cstdlib>
#include <cstring>

#include "core/error.h"

namespace sg {

namespace {
MemoryStats g_stats;
constexpr size_t kAlign = 64;  // a cache line; also enough for any SIMD load
}  // namespace

Storage::Storage(size_t nbytes, Device device) : data_(nullptr), nbytes_(nbytes), device_(device) {
  size_t rounded = (nbytes + kAlign - 1) / kAlign * kAlign;
  if (rounded < nbytes) fail("cannot allocate ", nbytes, " bytes: size overflows");
  if (rounded == 0) rounded = kAlign;
  data_ = std::aligned_alloc(kAlign, rounded);
  if (!data_) {
    fail("out of memory: could not allocate ", nbytes, " bytes (live tensors hold ", g_stats.bytes,
         " bytes; dispose() or tidy() frees them)");
  }
  std::memset(data_, 0, nbytes);
  g_stats.storages += 1;
  g_stats.bytes += static_cast<int64_t>(nbytes);
  if (g_stats.bytes > g_stats.peak_bytes) g_stats.peak_bytes = g_stats.bytes;
}

Storage::~Storage() {
  std::free(data_);
  g_stats.storages -= 1;
  g_stats.bytes -= static_cast<int64_t>(nbytes_);
}

const MemoryStats& memory_stats() { return g_stats; }
void reset_peak_bytes() { g_stats.peak_bytes = g_stats.bytes; }

}  // namespace sg
