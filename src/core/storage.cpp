#include "core/storage.h"

#include <cstring>
#include <mutex>

#include "core/allocator.h"
#include "core/device.h"
#include "core/error.h"

namespace sg {

namespace {
// Storage may be created and freed on pool threads (the allocator locks for the same reason).
std::mutex g_stats_mu;
MemoryStats g_stats;
}  // namespace

Storage::Storage(size_t nbytes, Device device, bool zero)
    : data_(nullptr), nbytes_(nbytes), capacity_(alloc::size_class(nbytes)), device_(device) {
  if (capacity_ == 0) fail("cannot allocate ", nbytes, " bytes: size overflows");
  if (device != Device::CPU) {
    runtime_ = device_runtime_shared(device);
    data_ = runtime_->allocate(capacity_, zero);
    std::lock_guard<std::mutex> lock(g_stats_mu);
    g_stats.device_storages += 1;
    g_stats.device_bytes += static_cast<int64_t>(nbytes);
    return;
  }
  data_ = alloc::acquire(capacity_);
  if (!data_) {
    std::lock_guard<std::mutex> lock(g_stats_mu);
    fail("out of memory: could not allocate ", nbytes, " bytes (live tensors hold ", g_stats.bytes,
         " bytes; dispose() or tidy() frees them)");
  }
  if (zero) std::memset(data_, 0, nbytes);
  std::lock_guard<std::mutex> lock(g_stats_mu);
  g_stats.storages += 1;
  g_stats.bytes += static_cast<int64_t>(nbytes);
  if (g_stats.bytes > g_stats.peak_bytes) g_stats.peak_bytes = g_stats.bytes;
}

Storage::~Storage() {
  if (runtime_) {
    runtime_->release(data_, capacity_);
    std::lock_guard<std::mutex> lock(g_stats_mu);
    g_stats.device_storages -= 1;
    g_stats.device_bytes -= static_cast<int64_t>(nbytes_);
    return;
  }
  alloc::release(data_, capacity_);
  std::lock_guard<std::mutex> lock(g_stats_mu);
  g_stats.storages -= 1;
  g_stats.bytes -= static_cast<int64_t>(nbytes_);
}

MemoryStats memory_stats() {
  MemoryStats s;
  {
    std::lock_guard<std::mutex> lock(g_stats_mu);
    s = g_stats;
  }
  s.cached_bytes = alloc::cached_bytes();
  s.cached_blocks = alloc::cached_blocks();
  return s;
}
void reset_peak_bytes() {
  std::lock_guard<std::mutex> lock(g_stats_mu);
  g_stats.peak_bytes = g_stats.bytes;
}
void empty_cache() { alloc::empty_cache(); }

}  // namespace sg
