#include "core/copy.h"

#include "kernels/backend.h"

namespace sg {

namespace {

// The same copy over the fewest dims: size-1 dims dropped, and each dim merged into the next one
// in where both sides step through it as one run (outer stride = inner stride · inner size). A
// contiguous tensor becomes one dim, a transposed matrix stays two, a broadcast row keeps its 0
// stride. Backends then see the longest inner runs there are (the CPU's copy moves an inner run
// that is contiguous on both sides with one memmove).
void coalesce(StridedCopy& c) {
  std::vector<int64_t> shape, ds, ss;
  for (size_t d = 0; d < c.shape.size(); ++d) {
    if (c.shape[d] == 1) continue;
    if (!shape.empty() && ds.back() == c.dst_strides[d] * c.shape[d] && ss.back() == c.src_strides[d] * c.shape[d]) {
      shape.back() *= c.shape[d];
      ds.back() = c.dst_strides[d];
      ss.back() = c.src_strides[d];
      continue;
    }
    shape.push_back(c.shape[d]);
    ds.push_back(c.dst_strides[d]);
    ss.push_back(c.src_strides[d]);
  }
  if (shape.empty()) shape = {1}, ds = {1}, ss = {1};  // one element
  c.shape = std::move(shape);
  c.dst_strides = std::move(ds);
  c.src_strides = std::move(ss);
}

}  // namespace

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
  coalesce(c);
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
