#include "fake_device.h"

#include <cstdlib>
#include <cstring>

#include "core/error.h"
#include "kernels/backend.h"
#include "ops/ops.h"

namespace sgtest {

const sg::Backend& FakeDevice::kernels() const { return sg::reference_backend(); }

void* FakeDevice::allocate(size_t bytes, bool zero) {
  const size_t size = (bytes + 63) / 64 * 64 + 64;
  void* p = std::aligned_alloc(64, size);
  if (!p) sg::fail("fake device: out of memory");
  // Poison what is not zeroed, so a kernel reading memory nobody wrote shows up as NaN.
  if (zero) std::memset(p, 0, size);
  else std::memset(p, 0xff, size);
  ++live_buffers;
  return p;
}

void FakeDevice::release(void* addr, size_t) {
  std::free(addr);
  --live_buffers;
}

void FakeDevice::upload(void* dst, const void* src, size_t bytes) { std::memcpy(dst, src, bytes); }

void FakeDevice::download(std::vector<sg::Transfer> transfers, std::function<void()> then) {
  auto run = [transfers = std::move(transfers), then = std::move(then)] {
    for (const sg::Transfer& t : transfers) std::memcpy(t.dst, t.src, t.bytes);
    then();
  };
  if (defer_downloads) queue_.push_back(std::move(run));
  else run();
}

void FakeDevice::flush() {
  std::vector<std::function<void()>> queue;
  queue.swap(queue_);
  std::exception_ptr first;
  for (auto& step : queue) {
    try {
      step();
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
}

FakeDeviceScope::FakeDeviceScope()
    : device_(std::make_shared<FakeDevice>()), previous_backend_(sg::backend().name()) {
  sg::register_device(device_);
  sg::set_backend("reference");
}

FakeDeviceScope::~FakeDeviceScope() {
  sg::unregister_device(sg::Device::WebGPU);
  sg::set_backend(previous_backend_);
}

sg::Tensor host_copy(const sg::Tensor& t) { return sg::to_device(t.detach(), sg::Device::CPU); }

}  // namespace sgtest
