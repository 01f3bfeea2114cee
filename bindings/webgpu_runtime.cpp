// The WebGPU DeviceRuntime: memory, transfers and the op list forwarded to the JS runtime
// (web/webgpu/runtime.ts), device addresses mapped to buffers (webgpu_glue.h), and the
// bindings that install it (init({ backend: 'webgpu' })) and call back into it.
#include <emscripten/bind.h>

#include <mutex>

#include "core/copy.h"
#include "core/device.h"
#include "core/error.h"
#include "glue.h"
#include "webgpu_glue.h"

namespace sgjs::webgpu {

namespace {

constexpr uint64_t kAddressEnd = uint64_t(1) << 32;

// Downloads' continuations, by id, until the JS runtime calls them back.
std::mutex g_then_mu;
std::map<int, std::function<void()>> g_thens;
int g_next_then = 1;
std::string g_then_error;

val heap_view(const void* p, size_t bytes) {
  return val(emscripten::typed_memory_view(bytes, static_cast<const uint8_t*>(p)));
}

}  // namespace

Args& Args::buf(const void* device_ptr) {
  if (!device_ptr) {
    v_.push_back(-1);
    v_.push_back(0);
    return *this;
  }
  const auto [id, offset] = rt_.locate(device_ptr);
  v_.push_back(id);
  v_.push_back(offset);
  return *this;
}

Runtime::Runtime(val js) : js_(std::move(js)), backend_(*this) {}

void Runtime::fail_with_js_error() const { sg::fail(js_.call<std::string>("lastError")); }

std::pair<int, double> Runtime::locate(const void* addr) const {
  const uintptr_t a = reinterpret_cast<uintptr_t>(addr);
  auto it = live_.upper_bound(a);
  if (it != live_.begin()) {
    --it;
    if (a - it->first <= it->second.bytes) return {it->second.id, double(a - it->first)};
  }
  sg::fail("webgpu: internal error: address ", a, " is not in any live GPU buffer");
}

void* Runtime::allocate(size_t bytes, bool zero) {
  const int id = js_.call<int>("alloc", double(bytes), zero);
  if (id < 0) sg::fail(js_.call<std::string>("lastError"));
  uintptr_t base;
  auto reuse = free_ranges_.find(bytes);
  if (reuse != free_ranges_.end()) {
    base = reuse->second;
    free_ranges_.erase(reuse);
  } else {
    const uint64_t span = (uint64_t(bytes) + 255) / 256 * 256 + 256;  // a gap between buffers
    if (uint64_t(next_address_) + span > kAddressEnd) {
      js_.call<void>("free", id);
      sg::fail("webgpu: out of device address space (2 GiB of GPU buffers are live; dispose() or tidy() frees them)");
    }
    base = next_address_;
    next_address_ = uintptr_t(uint64_t(next_address_) + span);
  }
  live_[base] = {id, bytes};
  return reinterpret_cast<void*>(base);
}

void Runtime::release(void* addr, size_t bytes) {
  auto it = live_.find(reinterpret_cast<uintptr_t>(addr));
  if (it == live_.end()) return;
  js_.call<void>("free", it->second.id);
  free_ranges_.emplace(bytes, it->first);
  live_.erase(it);
}

void Runtime::upload(void* dst, const void* src, size_t bytes) {
  const auto [id, offset] = locate(dst);
  checked("upload", id, offset, heap_view(src, bytes));
}

void Runtime::download(std::vector<sg::Transfer> transfers, std::function<void()> then) {
  int then_id;
  {
    std::lock_guard<std::mutex> lock(g_then_mu);
    then_id = g_next_then++;
    g_thens[then_id] = std::move(then);
  }
  std::vector<double> flat;
  for (const sg::Transfer& t : transfers) {
    const auto [id, offset] = locate(t.src);
    flat.insert(flat.end(), {double(id), offset, double(reinterpret_cast<uintptr_t>(t.dst)), double(t.bytes)});
  }
  const int status = js_.call<int>("download", then_id, val::array(flat));
  if (status != 0) {
    std::lock_guard<std::mutex> lock(g_then_mu);
    g_thens.erase(then_id);
    sg::fail(js_.call<std::string>("lastError"));
  }
}

bool Runtime::supports(const std::string& op) const { return js_.call<bool>("supports", op); }

void Runtime::warn(const std::string& message) { js_.call<void>("warn", message); }

void run_then(int id) {
  std::function<void()> then;
  {
    std::lock_guard<std::mutex> lock(g_then_mu);
    auto it = g_thens.find(id);
    if (it == g_thens.end()) return;
    then = std::move(it->second);
    g_thens.erase(it);
  }
  try {
    then();
  } catch (const std::exception& e) {
    std::lock_guard<std::mutex> lock(g_then_mu);
    if (g_then_error.empty()) g_then_error = e.what();
  }
}

std::string take_then_error() {
  std::lock_guard<std::mutex> lock(g_then_mu);
  std::string e;
  e.swap(g_then_error);
  return e;
}

void Backend::call(const char* kernel, const Args& args) const {
  const std::vector<double>& v = args.values();
  rt_.checked("call", std::string(kernel), val(emscripten::typed_memory_view(v.size(), v.data())));
}

namespace {

// init({ backend: 'webgpu' }): `js` is the runtime object (web/webgpu/runtime.ts).
void register_runtime(val js) { sg::register_device(std::make_shared<Runtime>(std::move(js))); }
void unregister_runtime() { sg::unregister_device(sg::Device::WebGPU); }
void set_default_device(std::string name) { sg::set_default_device(sg::device_from_name(name)); }
std::string default_device() { return sg::device_name(sg::default_device()); }
// dst ← src in place, same device (loadStateDict and nn.init write device tensors this way).
void copy_into(int32_t dst_id, int32_t src_id) {
  const sg::Tensor& dst = get(dst_id, "copyInto: dst");
  const sg::Tensor& src = get(src_id, "copyInto: src");
  if (dst.device() != src.device())
    sg::fail("copyInto: expected both tensors on one device, got ", sg::device_name(dst.device()), " and ",
             sg::device_name(src.device()));
  sg::copy_into(dst, src);
}
// Drops the continuations of downloads a lost device will never answer (their tensors stay
// pending; a new device starts clean).
void forget_thens() {
  std::lock_guard<std::mutex> lock(g_then_mu);
  g_thens.clear();
}

}  // namespace

EMSCRIPTEN_BINDINGS(simdgrad_webgpu) {
  emscripten::function("webgpuRegister", guarded<&register_runtime>);
  emscripten::function("webgpuUnregister", guarded<&unregister_runtime>);
  emscripten::function("webgpuRunThen", &run_then);
  emscripten::function("webgpuTakeError", &take_then_error);
  emscripten::function("webgpuForgetThens", &forget_thens);
  emscripten::function("setDefaultDevice", guarded<&set_default_device>);
  emscripten::function("copyInto", guarded<&copy_into>);
  emscripten::function("getDefaultDevice", guarded<&default_device>);
  install_stack_guards("webgpuRegister,webgpuUnregister,setDefaultDevice,getDefaultDevice,copyInto");
}

}  // namespace sgjs::webgpu
