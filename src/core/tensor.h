// Tensor: a cheap, shareable handle on a TensorImpl (shape, strides and offset into a
// Storage, dtype, and autograd metadata). Copying a Tensor copies the handle, never the data.
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "core/dtype.h"
#include "core/shape.h"
#include "core/storage.h"

namespace sg {

class Node;
class Tensor;

// A gradient hook: gets the incoming gradient, returns a replacement or an undefined Tensor
// to keep it as it is.
using Hook = std::function<Tensor(const Tensor&)>;

struct TensorImpl {
  std::shared_ptr<Storage> storage;
  Shape shape;
  Shape strides;  // in elements
  int64_t offset = 0;
  DType dtype = DType::Float32;

  // Autograd. A tensor with requires_grad and no grad_fn is a leaf; gradients accumulate in `grad`.
  bool requires_grad = false;
  std::shared_ptr<TensorImpl> grad;
  std::shared_ptr<Node> grad_fn;  // the node that produced this tensor (non-leaf only)
  std::vector<Hook> hooks;        // leaf hooks (a non-leaf's hooks live on its grad_fn)
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  // A new zero-filled contiguous tensor.
  static Tensor empty(const Shape& shape, DType dtype = DType::Float32, Device device = Device::CPU);
  // A new contiguous tensor whose contents are undefined (a reused buffer): only for outputs
  // the caller writes in full before anything reads them. Saves the zero fill.
  static Tensor uninitialized(const Shape& shape, DType dtype = DType::Float32,
                              Device device = Device::CPU);
  // A tensor that shares `base`'s storage with another shape/strides/offset. No autograd.
  static Tensor view_of(const Tensor& base, Shape shape, Shape strides, int64_t offset);

  bool defined() const { return impl_ != nullptr; }
  TensorImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& ptr() const { return impl_; }
  bool same(const Tensor& o) const { return impl_ == o.impl_; }

  const Shape& shape() const { return impl_->shape; }
  const Shape& strides() const { return impl_->strides; }
  int64_t offset() const { return impl_->offset; }
  int64_t ndim() const { return static_cast<int64_t>(impl_->shape.size()); }
  int64_t numel() const { return numel_of(impl_->shape); }
  int64_t size(int64_t dim) const;  // dim may be negative
  DType dtype() const { return impl_->dtype; }
  Device device() const { return impl_->storage->device(); }
  bool is_contiguous() const;

  // Host pointer to the first element (at the offset), for code that reads or writes the
  // elements itself. Checks the dtype, and throws unless the data is on the CPU and has arrived
  // (a device tensor's memory is not addressable by the host: see core/device.h).
  float* f32() const;
  int32_t* i32() const;
  uint8_t* u8() const;  // bool
  double* f64() const;
  int64_t* i64() const;
  void* raw() const;    // untyped, at the offset
  // Pointer to the first element in the tensor's own device memory, to pass to that device's
  // kernels (backend_for(device())) and nowhere else. Checks the dtype only.
  float* dev_f32() const;
  int32_t* dev_i32() const;
  uint8_t* dev_u8() const;
  void* dev_raw() const;

  // Element i of a contiguous-or-not tensor in row-major order, as double (slow; for tests, item()).
  double at(int64_t flat_index) const;
  double item() const;  // the only element; throws unless numel == 1

  // Autograd
  bool requires_grad() const { return impl_->requires_grad; }
  void set_requires_grad(bool on);  // leaves only, float32 only
  bool is_leaf() const { return impl_->grad_fn == nullptr; }
  const std::shared_ptr<Node>& grad_fn() const { return impl_->grad_fn; }
  Tensor grad() const { return Tensor(impl_->grad); }
  void set_grad(const Tensor& g);  // undefined clears; checks shape and dtype
  void retain_grad();              // non-leaf: keep .grad after backward
  void register_hook(Hook hook);
  // Gradient of every leaf this tensor depends on, accumulated into their .grad.
  void backward(const Tensor& grad_output = Tensor(), bool retain_graph = false, bool create_graph = false) const;
  // Same data, cut from the graph.
  Tensor detach() const;

 private:
  std::shared_ptr<TensorImpl> impl_;
};

}  // namespace sg
