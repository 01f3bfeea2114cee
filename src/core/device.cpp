#include "core/device.h"

#include <mutex>

#include "core/error.h"

namespace sg {

namespace {
// Registered at init() on the JS thread, read by ops (possibly on pool threads, which only
// ever see CPU tensors): a mutex keeps the shared_ptr copy safe.
std::mutex g_mu;
std::shared_ptr<DeviceRuntime> g_webgpu;
Device g_default = Device::CPU;
}  // namespace

std::shared_ptr<DeviceRuntime> device_runtime_shared(Device d) {
  if (d == Device::CPU) return nullptr;
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_webgpu)
    fail("device '", device_name(d), "' is not available: call init({ backend: 'webgpu' }) first");
  return g_webgpu;
}

DeviceRuntime* device_runtime(Device d) { return device_runtime_shared(d).get(); }

bool device_available(Device d) {
  if (d == Device::CPU) return true;
  std::lock_guard<std::mutex> lock(g_mu);
  return g_webgpu != nullptr;
}

void register_device(std::shared_ptr<DeviceRuntime> runtime) {
  check(runtime && runtime->device() == Device::WebGPU, "register_device: only a WebGPU runtime can be registered");
  std::lock_guard<std::mutex> lock(g_mu);
  g_webgpu = std::move(runtime);
}

void unregister_device(Device d) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (d == Device::WebGPU) g_webgpu.reset();
  if (g_default == d) g_default = Device::CPU;
}

Device default_device() {
  std::lock_guard<std::mutex> lock(g_mu);
  return g_default;
}

void set_default_device(Device d) {
  if (d != Device::CPU) device_runtime(d);  // throws when it is not there
  std::lock_guard<std::mutex> lock(g_mu);
  g_default = d;
}

Device device_from_name(const std::string& name) {
  if (name == "cpu") return Device::CPU;
  if (name == "webgpu") return Device::WebGPU;
  fail("expected a device name ('cpu' or 'webgpu'), got '", name, "'");
}

}  // namespace sg
