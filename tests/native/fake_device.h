// A stand-in for a GPU in the native tests: a DeviceRuntime (core/device.h) registered as the
// WebGPU device whose memory is host memory, so that the reference kernels can run on it, but
// which the core treats as a device: host access (Tensor::f32() and friends) throws. Any op that
// touches tensor memory outside its kernels therefore fails on it, which is what these tests
// look for before a real GPU runs the same op code.
//
// Ops named in `unsupported` have "no kernel" here and take the CPU fallback (ops/fallback.h).
// With `defer_downloads`, downloads wait for flush(), as a GPU's answer comes later (kernels
// still run at once: only use it where no later kernel reads what a download's `then` writes).
#pragma once
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/device.h"
#include "core/tensor.h"

namespace sgtest {

class FakeDevice final : public sg::DeviceRuntime {
 public:
  sg::Device device() const override { return sg::Device::WebGPU; }
  const sg::Backend& kernels() const override;
  void* allocate(size_t bytes, bool zero) override;
  void release(void* addr, size_t bytes) override;
  void upload(void* dst, const void* src, size_t bytes) override;
  void download(std::vector<sg::Transfer> transfers, std::function<void()> then) override;
  bool supports(const std::string& op) const override { return unsupported.count(op) == 0; }
  void warn(const std::string& message) override { warnings.push_back(message); }

  // Runs the deferred downloads in order; the first error any of them raised is rethrown.
  void flush();

  std::set<std::string> unsupported;
  bool defer_downloads = false;
  std::vector<std::string> warnings;
  int64_t live_buffers = 0;

 private:
  std::vector<std::function<void()>> queue_;
};

// Registers a FakeDevice for the lifetime of the guard (and makes the CPU backend 'reference',
// so that both sides of a comparison run the same kernels bit for bit).
class FakeDeviceScope {
 public:
  FakeDeviceScope();
  ~FakeDeviceScope();
  FakeDevice& device() { return *device_; }

 private:
  std::shared_ptr<FakeDevice> device_;
  std::string previous_backend_;
};

// A CPU copy of a device tensor's values (downloads run at once unless deferred).
sg::Tensor host_copy(const sg::Tensor& t);

}  // namespace sgtest
