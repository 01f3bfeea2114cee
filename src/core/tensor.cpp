#include "core/tensor.h"

#include <cstdint>
#include <limits>

#include "autograd/engine.h"
#include "autograd/node.h"
#include "core/dtype_dispatch.h"
#include "core/error.h"

namespace sg {

// The largest buffer a tensor may ask for. The byte count is checked in 64 bits *before* it
// becomes a size_t: on wasm32 size_t is 32 bits, so 2^30 floats would wrap to 0 bytes and the
// op would then write gigabytes past a 64-byte buffer. Natively 2^40 bytes: far beyond any RAM
// (malloc fails cleanly below that), and within what ASan's allocator accepts.
constexpr uint64_t kMaxTensorBytes =
    sizeof(size_t) >= 8 ? (uint64_t(1) << 40) : uint64_t(std::numeric_limits<size_t>::max());

namespace {

std::shared_ptr<TensorImpl> new_impl(const Shape& shape, DType dtype, Device device, bool zero) {
  // WGSL has no f64 (as PyTorch's MPS device refuses float64). The other dtypes live on the GPU
  // in their own width (web/webgpu/kernels/casts.ts packs 8- and 16-bit elements into words).
  if (device == Device::WebGPU && dtype == DType::Float64)
    fail("float64 tensors cannot live on the webgpu device (WGSL has no 64-bit floats; keep them on the cpu, "
         "or cast to float32)");
  const int64_t n = numel_of(shape);
  const uint64_t elem = dtype_size(dtype);
  if (uint64_t(n) > kMaxTensorBytes / elem) {
    fail("cannot allocate a tensor of shape ", shape, ": ", n, " ", dtype_name(dtype), " elements (",
         elem, " bytes each) exceed the largest possible tensor of ", kMaxTensorBytes, " bytes",
         sizeof(size_t) < 8 ? " (what a 32-bit wasm module can address)" : "");
  }
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = std::make_shared<Storage>(static_cast<size_t>(uint64_t(n) * elem), device, zero);
  impl->shape = shape;
  impl->strides = contiguous_strides(shape);
  impl->dtype = dtype;
  return impl;
}

}  // namespace

Tensor Tensor::empty(const Shape& shape, DType dtype, Device device) {
  return Tensor(new_impl(shape, dtype, device, true));
}

Tensor Tensor::uninitialized(const Shape& shape, DType dtype, Device device) {
  return Tensor(new_impl(shape, dtype, device, false));
}

Tensor Tensor::view_of(const Tensor& base, Shape shape, Shape strides, int64_t offset) {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = base.impl_->storage;
  impl->shape = std::move(shape);
  impl->strides = std::move(strides);
  impl->offset = offset;
  impl->dtype = base.dtype();
  return Tensor(std::move(impl));
}

int64_t Tensor::size(int64_t dim) const { return shape()[normalize_dim(dim, ndim(), "size")]; }

bool Tensor::is_contiguous() const {
  if (numel() == 0) return true;  // nothing to address: any strides will do (as in PyTorch)
  int64_t expected = 1;
  for (size_t i = shape().size(); i-- > 0;) {
    if (shape()[i] == 1) continue;
    if (strides()[i] != expected) return false;
    expected *= shape()[i];
  }
  return true;
}

void* Tensor::dev_raw() const {
  const Storage& s = *impl_->storage;
  if (s.pending())
    fail("this tensor's data is still on its way from the gpu (made by `to('cpu')`): "
         "`await sg.sync()` or `await t.data()` before using it");
  return static_cast<char*>(s.data()) + impl_->offset * dtype_size(dtype());
}

void* Tensor::raw() const {
  const Storage& s = *impl_->storage;
  if (s.device() != Device::CPU)
    fail("a ", device_name(s.device()), " tensor cannot be read or written on the cpu here: read it with "
         "`await t.data()`, or move it with `t.to('cpu')`");
  return dev_raw();
}

namespace {
void check_dtype(DType got, DType want) {
  check(got == want, "expected a ", dtype_name(want), " tensor, got ", dtype_name(got));
}
}  // namespace

float* Tensor::f32() const {
  check_dtype(dtype(), DType::Float32);
  return static_cast<float*>(raw());
}
int32_t* Tensor::i32() const {
  check_dtype(dtype(), DType::Int32);
  return static_cast<int32_t*>(raw());
}
uint8_t* Tensor::u8() const {
  check_dtype(dtype(), DType::Bool);
  return static_cast<uint8_t*>(raw());
}
double* Tensor::f64() const {
  check_dtype(dtype(), DType::Float64);
  return static_cast<double*>(raw());
}
int64_t* Tensor::i64() const {
  check_dtype(dtype(), DType::Int64);
  return static_cast<int64_t*>(raw());
}
float* Tensor::dev_f32() const {
  check_dtype(dtype(), DType::Float32);
  return static_cast<float*>(dev_raw());
}
int32_t* Tensor::dev_i32() const {
  check_dtype(dtype(), DType::Int32);
  return static_cast<int32_t*>(dev_raw());
}
uint8_t* Tensor::dev_u8() const {
  check_dtype(dtype(), DType::Bool);
  return static_cast<uint8_t*>(dev_raw());
}

double Tensor::at(int64_t flat) const {
  check(flat >= 0 && flat < numel(), "index ", flat, " is out of range for ", numel(), " elements");
  int64_t off = 0;
  for (size_t i = shape().size(); i-- > 0;) {
    off += (flat % shape()[i]) * strides()[i];
    flat /= shape()[i];
  }
  const void* base = raw();
  return visit_dtype(dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return element_as_double(static_cast<const T*>(base)[off]);
  });
}

double Tensor::item() const {
  check(numel() == 1, "item: expected a tensor with one element, got shape ", shape());
  return at(0);
}

void Tensor::set_requires_grad(bool on) {
  if (on) {
    check(is_floating(dtype()), "requiresGrad: only floating point tensors can require gradients, got ",
          dtype_name(dtype()));
  } else {
    check(is_leaf(), "requiresGrad: can only be turned off on a leaf tensor, got a non-leaf (the result of '",
          grad_fn()->name, "'); use detach() instead");
  }
  impl_->requires_grad = on;
}

void Tensor::set_grad(const Tensor& g) {
  if (!g.defined()) {
    impl_->grad.reset();
    return;
  }
  check(g.shape() == shape(), "grad: expected a gradient of shape ", shape(), ", got ", g.shape());
  check(g.dtype() == dtype(), "grad: expected a gradient of dtype ", dtype_name(dtype()), ", got ",
        dtype_name(g.dtype()));
  impl_->grad = g.ptr();
}

void Tensor::retain_grad() {
  check(requires_grad(), "retainGrad: the tensor does not require grad");
  if (!is_leaf()) impl_->grad_fn->retained = impl_;
}

void Tensor::register_hook(Hook hook) {
  check(requires_grad(), "registerHook: cannot register a hook on a tensor that does not require grad");
  if (is_leaf()) impl_->hooks.push_back(std::move(hook));
  else impl_->grad_fn->hooks.push_back(std::move(hook));
}

void Tensor::backward(const Tensor& grad_output, bool retain_graph, bool create_graph) const {
  run_backward(*this, grad_output, retain_graph, create_graph);
}

Tensor Tensor::detach() const { return view_of(*this, shape(), strides(), offset()); }

}  // namespace sg
