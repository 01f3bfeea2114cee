// A compute device other than the host CPU (today: WebGPU), seen from the core as three small
// parts, as tinygrad splits a device: memory (allocate/release), transfers (upload/download,
// ordered with the device's work) and kernels (a Backend). Ops never ask which device they run
// on: they allocate on their inputs' device and call backend_for(device) (kernels/backend.h).
//
// Device memory is addressed by opaque pointers that only the device's own kernels may
// dereference: Tensor::f32() and friends refuse tensors that are not on the CPU, and kernels
// get device pointers through Tensor::dev_f32() and friends.
//
// Devices work asynchronously (a GPU runs what was enqueued while the host goes on), so a
// download completes later: `then` runs once the bytes have arrived, before any work enqueued
// after the download is allowed to start. That is how an op without a kernel on the device
// runs on the CPU in the middle of device work (ops/fallback.cpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/dtype.h"

namespace sg {

class Backend;

// One device → host copy of a download: `bytes` bytes from device address `src` to host `dst`.
struct Transfer {
  const void* src;
  void* dst;
  size_t bytes;
};

class DeviceRuntime {
 public:
  virtual ~DeviceRuntime() = default;
  virtual Device device() const = 0;
  // The kernels of this device (every op's compute goes through them).
  virtual const Backend& kernels() const = 0;

  // `bytes` of device memory (contents undefined unless `zero`). Throws sg::Error when the
  // device cannot provide them (too large for one buffer, out of memory).
  virtual void* allocate(size_t bytes, bool zero) = 0;
  // Gives back what allocate returned. Work already enqueued that reads it still sees the data.
  virtual void release(void* addr, size_t bytes) = 0;

  // Host → device, ordered after all work enqueued so far; `src` may be reused on return.
  virtual void upload(void* dst, const void* src, size_t bytes) = 0;
  // Device → host: after all work enqueued so far, copies every transfer and then calls `then`
  // on the host thread, before any work enqueued after this call runs; device work that `then`
  // itself enqueues (uploads, kernels) also runs before that later work. May run at once (a
  // synchronous device) or later (WebGPU: at the next flush). An exception from `then` is kept
  // and reported by the device's next synchronization; the device stays usable.
  virtual void download(std::vector<Transfer> transfers, std::function<void()> then) = 0;

  // Whether op `name` (the JS op name of ops/registry.h) has kernels on this device for its
  // forward and backward; ops without run on the CPU through ops/fallback.cpp.
  virtual bool supports(const std::string& op) const = 0;

  // Called with a message the first time an op falls back to the CPU on this device (the
  // bindings route it to console.warn).
  virtual void warn(const std::string& message) = 0;
};

// The runtime serving `d`; nullptr for Device::CPU. Throws sg::Error naming the device when
// none is registered (e.g. WebGPU before init({ backend: 'webgpu' })).
DeviceRuntime* device_runtime(Device d);
// The same, shared: storages keep their runtime alive (a lost device replaced by a new init()
// must still take back the old buffers).
std::shared_ptr<DeviceRuntime> device_runtime_shared(Device d);
bool device_available(Device d);
// Installs (or, with nullptr, removes) the runtime of runtime->device() / `d`.
void register_device(std::shared_ptr<DeviceRuntime> runtime);
void unregister_device(Device d);

// Where creation functions called from JavaScript put new tensors when no device is given
// (init({ backend: 'webgpu' }) makes it WebGPU). C++ code always names the device it wants.
Device default_device();
void set_default_device(Device d);

Device device_from_name(const std::string& name);  // 'cpu' | 'webgpu'; throws otherwise

}  // namespace sg
