// A reference-counted buffer on one device. Tensors share Storage through views.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/dtype.h"

namespace sg {

struct MemoryStats {
  int64_t storages = 0;  // live buffers
  int64_t bytes = 0;     // bytes in live buffers
  int64_t peak_bytes = 0;
};

class Storage {
 public:
  // Zero-filled. Throws sg::Error (never aborts) when the allocation fails.
  Storage(size_t nbytes, Device device = Device::CPU);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }

 private:
  void* data_;
  size_t nbytes_;
  Device device_;
};

const MemoryStats& memory_stats();
void reset_peak_bytes();

}  // namespace sg
