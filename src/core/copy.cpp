#include "core/copy.h"

#include "kernels/backend.h"

namespace sg {

void copy_into(const Tensor& dst, const Tensor& src) {
  Shape target = broadcast_shapes(dst.shape(), src.shape(), "copy");
  check(target == dst.shape(), "copy: cannot write a tensor of shape ", src.shape(),
        " into one of shape ", dst.shape());
  check(dst.device() == src.device(), "copy: expected both tensors on one device, got ",
        device_name(src.device()), " → ", device_name(dst.device()), " (use to(device) to move data)");
  if (dst.numel() == 0) return;
  StridedCopy c;
  c.shape = dst.shape();
  c.dst_strides = dst.strides();
  c.src_strides = broadcast_strides(src.shape(), src.strides(), dst.shape());
  c.dst_dtype = dst.dtype();
  c.src_dtype = src.dtype();
  backend_for(dst.device()).copy_strided(c, src.dev_raw(), dst.dev_raw());
}

Tensor contiguous_copy(const Tensor& t, DType dtype) {
  // copy_into writes every element.
  Tensor out = Tensor::uninitialized(t.shape(), dtype, t.device());
  copy_into(out, t);
  return out;
}

Tensor as_contiguous(const Tensor& t, DType dtype) {
  if (t.dtype() == dtype && t.is_contiguous()) return t;
  return contiguous_copy(t, dtype);
}

}  // namespace sg
