#include "ops/fallback.h"

#include <cstring>
#include <memory>
#include <mutex>
#include <set>

#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "autograd/record.h"
#include "core/copy.h"
#include "core/device.h"
#include "core/error.h"
#include "core/rng.h"
#include "ops/ops.h"

namespace sg {

namespace {

// The op's CPU inputs and outputs, filled by the forward host step and kept while any output's
// backward may still need the CPU graph between them.
struct CpuRun {
  std::vector<Tensor> inputs, outputs;
  bool failed = false;
};

class GradMode {
 public:
  explicit GradMode(bool on) : prev_(grad_enabled()) { set_grad_enabled(on); }
  ~GradMode() { set_grad_enabled(prev_); }
  GradMode(const GradMode&) = delete;
  GradMode& operator=(const GradMode&) = delete;

 private:
  bool prev_;
};

// Runs a scope with the global generator at `at`, then puts it back where it was.
class RngAt {
 public:
  explicit RngAt(RngState at) : saved_(rng_state()) { set_rng_state(at); }
  ~RngAt() { set_rng_state(saved_); }
  RngAt(const RngAt&) = delete;
  RngAt& operator=(const RngAt&) = delete;

 private:
  RngState saved_;
};

size_t bytes_of(const Tensor& t) { return static_cast<size_t>(t.numel()) * dtype_size(t.dtype()); }

void warn_once(DeviceRuntime& rt, const std::string& name) {
  static std::mutex mu;
  static std::set<std::string> warned;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (!warned.insert(name).second) return;
  }
  rt.warn("simdgrad: " + name + " has no " + device_name(rt.device()) + " kernel yet; running it on wasm");
}

thread_local bool stand_in_run = false;

// Stand-ins of the inputs' shapes and dtypes on the CPU: 1 for float32 (no log(0) or 0/0 in a
// shape-only run), 0 for indices and masks (always in range).
std::vector<Tensor> stand_ins(const std::vector<Tensor>& inputs) {
  std::vector<Tensor> out;
  for (const Tensor& t : inputs)
    out.push_back(t.defined() ? full(t.shape(), t.dtype() == DType::Float32 ? 1.0 : 0.0, t.dtype()) : Tensor());
  return out;
}

using Runtime = std::shared_ptr<DeviceRuntime>;

// Downloads `sources` (device tensors) into fresh CPU tensors, then calls then(cpu tensors).
template <class Then>
void bring_down(DeviceRuntime& rt, const std::vector<Tensor>& sources, Then then) {
  std::vector<Tensor> device_copies, host;
  std::vector<Transfer> transfers;
  for (const Tensor& t : sources) {
    if (!t.defined()) {
      device_copies.emplace_back();
      host.emplace_back();
      continue;
    }
    Tensor dc = as_contiguous(t);
    Tensor h = Tensor::uninitialized(t.shape(), t.dtype(), Device::CPU);
    if (bytes_of(t)) transfers.push_back({dc.dev_raw(), h.raw(), bytes_of(t)});
    device_copies.push_back(dc);
    host.push_back(h);
  }
  rt.download(std::move(transfers), [device_copies, host, then]() { then(host); });
}

void upload_into(DeviceRuntime& rt, const Tensor& device_out, const Tensor& host) {
  const Tensor hc = as_contiguous(host, device_out.dtype());
  check(hc.shape() == device_out.shape(), "internal error: the op's cpu result has shape ", hc.shape(),
        " where its stand-in run gave ", device_out.shape());
  if (bytes_of(hc)) rt.upload(device_out.dev_raw(), hc.raw(), bytes_of(hc));
}

// Byte copies of the host inputs, to find the ones the op modified in place (an optimizer
// step, batch norm's running statistics).
std::vector<std::vector<char>> snapshot(const std::vector<Tensor>& host) {
  std::vector<std::vector<char>> out;
  for (const Tensor& h : host) {
    if (!h.defined()) {
      out.emplace_back();
      continue;
    }
    const char* p = static_cast<const char*>(h.raw());
    out.emplace_back(p, p + bytes_of(h));
  }
  return out;
}

// Writes the inputs the op changed back into their device tensors (views included: uploaded
// whole, then copied into the view on the device).
void write_back_changes(DeviceRuntime& rt, const std::vector<Tensor>& device_inputs,
                        const std::vector<Tensor>& host, const std::vector<std::vector<char>>& before) {
  for (size_t i = 0; i < host.size(); ++i) {
    if (!host[i].defined() || bytes_of(host[i]) == 0) continue;
    if (std::memcmp(before[i].data(), host[i].raw(), before[i].size()) == 0) continue;
    Tensor staged = Tensor::uninitialized(host[i].shape(), host[i].dtype(), rt.device());
    upload_into(rt, staged, host[i]);
    copy_into(device_inputs[i], staged);
  }
}

}  // namespace

bool in_stand_in_run() { return stand_in_run; }

std::vector<Tensor> run_on_cpu(const std::string& name, const OpFn& fn, const std::vector<Tensor>& inputs,
                               const Attrs& attrs, Device device) {
  const Runtime runtime = device_runtime_shared(device);
  DeviceRuntime& rt = *runtime;
  warn_once(rt, name);
  // The stand-in run draws what the real run will draw (dropout's masks: counts depend on
  // shapes only), which keeps the global stream where an op run now would leave it; the real
  // run later draws the same words again from `rng_at_call`.
  const RngState rng_at_call = rng_state();
  const bool grad = grad_enabled() && any_requires_grad(inputs);
  std::vector<bool> wants_grad;
  for (const Tensor& t : inputs) wants_grad.push_back(grad && t.defined() && t.requires_grad());
  // Under the real run's grad mode, with the same inputs requiring grad: which outputs are
  // differentiable is known now (slogdet's sign is not), so only those get a device node.
  std::vector<Tensor> shapes;
  {
    GradMode mode(grad);
    struct StandIn {
      StandIn() { stand_in_run = true; }
      ~StandIn() { stand_in_run = false; }
    } flag;
    std::vector<Tensor> standing = stand_ins(inputs);
    for (size_t i = 0; i < standing.size(); ++i)
      if (wants_grad[i]) standing[i].set_requires_grad(true);
    shapes = fn(standing, attrs);
  }
  std::vector<Tensor> outs;
  for (const Tensor& s : shapes) outs.push_back(Tensor::uninitialized(s.shape(), s.dtype(), device));
  auto run = std::make_shared<CpuRun>();
  bring_down(rt, inputs, [runtime, run, fn, attrs, inputs, outs, grad, wants_grad, rng_at_call](const std::vector<Tensor>& host) {
    run->inputs = host;
    for (size_t i = 0; i < host.size(); ++i)
      if (wants_grad[i]) run->inputs[i].set_requires_grad(true);
    const auto before = snapshot(host);
    run->failed = true;  // until the op returns
    {
      GradMode mode(grad);
      RngAt rng(rng_at_call);
      run->outputs = fn(run->inputs, attrs);
    }
    check(run->outputs.size() == outs.size(), "internal error: the op gave ", run->outputs.size(),
          " results on the cpu and ", outs.size(), " in its stand-in run");
    for (size_t j = 0; j < outs.size(); ++j) upload_into(*runtime, outs[j], run->outputs[j]);
    write_back_changes(*runtime, inputs, host, before);
    run->failed = false;
    if (!grad) *run = CpuRun{};
  });
  if (!grad) return outs;

  std::vector<Shape> in_shapes;
  for (const Tensor& t : inputs) in_shapes.push_back(t.defined() ? t.shape() : Shape{});
  for (size_t j = 0; j < outs.size(); ++j) {
    if (!shapes[j].requires_grad()) continue;
    outs[j] = record(name.c_str(), outs[j], inputs, [runtime, run, j, wants_grad, in_shapes, device](const Tensor& g) {
      std::vector<Tensor> grads(wants_grad.size());
      for (size_t i = 0; i < grads.size(); ++i)
        if (wants_grad[i]) grads[i] = Tensor::empty(in_shapes[i], DType::Float32, device);
      bring_down(*runtime, {g}, [runtime, run, j, wants_grad, grads](const std::vector<Tensor>& host) {
        check(!run->failed && j < run->outputs.size(),
              "backward: the op this gradient flows through failed on the cpu earlier");
        const Tensor& out = run->outputs[j];
        if (!out.requires_grad()) return;  // not differentiable on the cpu either: zeros
        std::vector<Tensor> wanted;
        for (size_t i = 0; i < wants_grad.size(); ++i)
          if (wants_grad[i]) wanted.push_back(run->inputs[i]);
        std::vector<Tensor> cpu_grads = compute_grads(out, host[0], wanted, /*retain_graph=*/true);
        for (size_t i = 0, k = 0; i < wants_grad.size(); ++i)
          if (wants_grad[i]) upload_into(*runtime, grads[i], cpu_grads[k++]);
      });
      return grads;
    });
  }
  return outs;
}

}  // namespace sg
