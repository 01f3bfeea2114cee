#include "core/copy.h"

namespace sg {

namespace {
template <class Dst, class Src>
void copy_typed(Dst* d, const Shape& shape, const Shape& ds, const Src* s, const Shape& ss) {
  for_each_offset2(shape, ds, ss, [&](int64_t od, int64_t os) {
    if constexpr (std::is_same_v<Dst, uint8_t>) d[od] = s[os] != Src(0);
    else d[od] = static_cast<Dst>(s[os]);
  });
}

template <class Dst>
void copy_from_any(Dst* d, const Shape& shape, const Shape& ds, const Tensor& src, const Shape& ss) {
  switch (src.dtype()) {
    case DType::Float32: copy_typed(d, shape, ds, src.f32(), ss); break;
    case DType::Int32: copy_typed(d, shape, ds, src.i32(), ss); break;
    case DType::Bool: copy_typed(d, shape, ds, src.u8(), ss); break;
  }
}
}  // namespace

void copy_into(const Tensor& dst, const Tensor& src) {
  Shape target = broadcast_shapes(dst.shape(), src.shape(), "copy");
  check(target == dst.shape(), "copy: cannot write a tensor of shape ", src.shape(),
        " into one of shape ", dst.shape());
  Shape ss = broadcast_strides(src.shape(), src.strides(), dst.shape());
  switch (dst.dtype()) {
    case DType::Float32: copy_from_any(dst.f32(), dst.shape(), dst.strides(), src, ss); break;
    case DType::Int32: copy_from_any(dst.i32(), dst.shape(), dst.strides(), src, ss); break;
    case DType::Bool: copy_from_any(dst.u8(), dst.shape(), dst.strides(), src, ss); break;
  }
}

Tensor contiguous_copy(const Tensor& t, DType dtype) {
  // copy_into writes every element.
  Tensor out = t.device() == Device::CPU ? Tensor::uninitialized(t.shape(), dtype)
                                         : Tensor::empty(t.shape(), dtype, t.device());
  copy_into(out, t);
  return out;
}

Tensor as_contiguous(const Tensor& t, DType dtype) {
  if (t.dtype() == dtype && t.is_contiguous()) return t;
  return contiguous_copy(t, dtype);
}

}  // namespace sg
