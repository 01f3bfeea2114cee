// Moving tensors between devices: to_device (differentiable) and the rules for which device an
// op computes on. Transfers go through the device runtime (core/device.h): uploads are ordered
// with the device's work, downloads arrive later into a pending CPU storage.
#include "autograd/record.h"
#include "core/copy.h"
#include "core/device.h"
#include "core/error.h"
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {

namespace {

bool is_scalar(const Tensor& t) { return t.ndim() == 0 && t.device() == Device::CPU; }

// The copy itself, without autograd.
Tensor transfer(const Tensor& x, Device d) {
  const size_t bytes = static_cast<size_t>(x.numel()) * dtype_size(x.dtype());
  if (x.device() == Device::CPU) {
    const Tensor xc = as_contiguous(x);
    Tensor out = Tensor::uninitialized(x.shape(), x.dtype(), d);
    if (bytes) device_runtime(d)->upload(out.dev_raw(), xc.raw(), bytes);
    return out;
  }
  check(d == Device::CPU, "to: cannot move a ", device_name(x.device()), " tensor to ", device_name(d));
  const Tensor xc = as_contiguous(x);
  Tensor out = Tensor::uninitialized(x.shape(), x.dtype(), Device::CPU);
  if (bytes == 0) return out;
  std::shared_ptr<Storage> storage = out.impl()->storage;
  storage->set_pending(true);
  void* host = static_cast<char*>(storage->data()) + out.offset() * dtype_size(out.dtype());
  // `then` holds the source (until the copy is done) and the destination storage.
  device_runtime(x.device())->download({{xc.dev_raw(), host, bytes}},
                                       [xc, storage] { storage->set_pending(false); });
  return out;
}

}  // namespace

namespace {
template <class List, class Get>
Device common_device(const char* op, const List& operands, Get get) {
  const Tensor* first = nullptr;
  int index = 0, first_index = 0;
  for (const auto& entry : operands) {
    const Tensor* t = get(entry);
    if (t && t->defined() && !is_scalar(*t)) {
      if (!first) {
        first = t;
        first_index = index;
      } else if (t->device() != first->device()) {
        fail(op, ": expected all tensors on one device, got ", device_name(first->device()), " (operand ",
             first_index, ") and ", device_name(t->device()), " (operand ", index,
             "); move one with .to(device)");
      }
    }
    ++index;
  }
  return first ? first->device() : Device::CPU;
}
}  // namespace

Device operands_device(const char* op, std::initializer_list<const Tensor*> operands) {
  return common_device(op, operands, [](const Tensor* t) { return t; });
}

Device operands_device(const char* op, const std::vector<Tensor>& operands) {
  return common_device(op, operands, [](const Tensor& t) { return &t; });
}

Tensor moved_to(const Tensor& t, Device d) { return t.device() == d ? t : transfer(t, d); }

Tensor to_device(const Tensor& x, Device d) {
  check(x.defined(), "to: undefined tensor");
  if (x.device() == d) return x;
  Tensor out = transfer(x, d);
  if (x.dtype() != DType::Float32) return out;
  const Device from = x.device();
  return record("to", out, {x}, [from](const Tensor& g) { return std::vector<Tensor>{to_device(g, from)}; });
}

}  // namespace sg
