// A reference-counted buffer on one device. Tensors share Storage through views.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/dtype.h"

namespace sg {

class DeviceRuntime;

struct MemoryStats {
  int64_t storages = 0;  // live buffers
  int64_t bytes = 0;     // bytes in live buffers
  int64_t peak_bytes = 0;
  // Filled in by memory_stats(): what the caching allocator holds for reuse (not in `bytes`).
  int64_t cached_bytes = 0;
  int64_t cached_blocks = 0;
  // Buffers and bytes on other devices (WebGPU), not in `storages`/`bytes`.
  int64_t device_storages = 0;
  int64_t device_bytes = 0;
};

class Storage {
 public:
  // Zero-filled unless `zero` is false (then the contents are whatever the reused block held:
  // only for buffers the caller writes in full before reading). Throws sg::Error (never
  // aborts) when the allocation fails.
  // On a device other than the CPU the memory comes from its DeviceRuntime (core/device.h)
  // and data() is a device address.
  Storage(size_t nbytes, Device device = Device::CPU, bool zero = true);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }

  // A CPU storage whose bytes are still on their way from a device (Tensor::to of a device
  // tensor): host access throws until the download has landed (core/device.h).
  bool pending() const { return pending_; }
  void set_pending(bool p) { pending_ = p; }

  // PyTorch's version counter, shared by every view of the storage: in-place ops bump it, and
  // autograd compares it with the version a backward formula saved a tensor at (autograd/node.h).
  uint32_t version() const { return version_; }
  void bump_version() { ++version_; }
  // Set once a view of this storage joined the autograd graph: in-place ops that would record
  // a node on such storage are refused (a view's history cannot be rebased cleanly here).
  bool graph_view() const { return graph_view_; }
  void set_graph_view() { graph_view_ = true; }

 private:
  void* data_;
  size_t nbytes_;
  size_t capacity_;  // the allocator's size class (≥ nbytes)
  Device device_;
  bool pending_ = false;
  bool graph_view_ = false;
  uint32_t version_ = 0;
  std::shared_ptr<DeviceRuntime> runtime_;  // null on the CPU
};

MemoryStats memory_stats();
void reset_peak_bytes();
// Frees every block the caching allocator keeps for reuse (PyTorch's empty_cache).
void empty_cache();

}  // namespace sg
