// Comparisons (bool results, not differentiable) and selection (where, masked_fill:
// differentiable in the selected values). Plain strided loops: no float math happens here,
// only comparisons and copies, so no backend kernel is needed.
#include <cmath>

#include "autograd/record.h"
#include "core/copy.h"
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {

namespace {

using Grads = std::vector<Tensor>;

Tensor to_dtype(const Tensor& t, DType dt) { return t.dtype() == dt ? t : contiguous_copy(t, dt); }

Shape strides_for(const Tensor& t, const Shape& shape) {
  return broadcast_strides(t.shape(), t.strides(), shape);
}

template <class T, class Cmp>
void compare_typed(const Tensor& a, const Tensor& b, const Shape& shape, uint8_t* out, Cmp cmp) {
  const T* pa = static_cast<const T*>(a.raw());
  const T* pb = static_cast<const T*>(b.raw());
  int64_t i = 0;
  for_each_offsets<2>(shape, {strides_for(a, shape), strides_for(b, shape)},
                      [&](const std::array<int64_t, 2>& o) { out[i++] = cmp(pa[o[0]], pb[o[1]]); });
}

// Compared in the promoted dtype (an int32 against a float32 compares as float32, as PyTorch).
// NaN compares false except under ne (IEEE).
template <class Cmp>
Tensor compare(const char* name, const Tensor& a, const Tensor& b, Cmp cmp) {
  const Shape shape = broadcast_shapes(a.shape(), b.shape(), name);
  const DType dt = promote(a.dtype(), b.dtype());
  const Tensor ac = to_dtype(a, dt), bc = to_dtype(b, dt);
  Tensor out = Tensor::empty(shape, DType::Bool);
  switch (dt) {
    case DType::Float32: compare_typed<float>(ac, bc, shape, out.u8(), cmp); break;
    case DType::Int32: compare_typed<int32_t>(ac, bc, shape, out.u8(), cmp); break;
    case DType::Bool: compare_typed<uint8_t>(ac, bc, shape, out.u8(), cmp); break;
  }
  return out;
}

template <class T>
void select_typed(const Tensor& cond, const Tensor& a, const Tensor& b, const Tensor& out) {
  const Shape& shape = out.shape();
  const uint8_t* pc = cond.u8();
  const T* pa = static_cast<const T*>(a.raw());
  const T* pb = static_cast<const T*>(b.raw());
  T* po = static_cast<T*>(out.raw());
  int64_t i = 0;
  for_each_offsets<3>(shape, {strides_for(cond, shape), strides_for(a, shape), strides_for(b, shape)},
                      [&](const std::array<int64_t, 3>& o) { po[i++] = pc[o[0]] ? pa[o[1]] : pb[o[2]]; });
}

// where's forward, without autograd: a where cond, else b, all three broadcast together.
Tensor select(const Tensor& cond, const Tensor& a, const Tensor& b, const char* name) {
  const Shape shape = broadcast_shapes(broadcast_shapes(cond.shape(), a.shape(), name), b.shape(), name);
  const DType dt = promote(a.dtype(), b.dtype());
  const Tensor ac = to_dtype(a, dt), bc = to_dtype(b, dt);
  Tensor out = Tensor::empty(shape, dt);
  switch (dt) {
    case DType::Float32: select_typed<float>(cond, ac, bc, out); break;
    case DType::Int32: select_typed<int32_t>(cond, ac, bc, out); break;
    case DType::Bool: select_typed<uint8_t>(cond, ac, bc, out); break;
  }
  return out;
}

// A 0-d tensor of dtype dt holding v (masked_fill's fill value), checked to fit.
Tensor scalar_of(double v, DType dt, const char* name) {
  Tensor t = Tensor::empty({}, dt);
  switch (dt) {
    case DType::Float32: t.f32()[0] = static_cast<float>(v); break;
    case DType::Int32:
      check(std::isfinite(v) && v > -2147483649.0 && v < 2147483648.0, name, ": value ", v,
            " cannot be converted to int32 without overflow");
      t.i32()[0] = static_cast<int32_t>(v);  // truncates toward zero
      break;
    case DType::Bool: t.u8()[0] = v != 0; break;
  }
  return t;
}

}  // namespace

Tensor eq(const Tensor& a, const Tensor& b) { return compare("eq", a, b, [](auto x, auto y) { return x == y; }); }
Tensor ne(const Tensor& a, const Tensor& b) { return compare("ne", a, b, [](auto x, auto y) { return x != y; }); }
Tensor lt(const Tensor& a, const Tensor& b) { return compare("lt", a, b, [](auto x, auto y) { return x < y; }); }
Tensor le(const Tensor& a, const Tensor& b) { return compare("le", a, b, [](auto x, auto y) { return x <= y; }); }
Tensor gt(const Tensor& a, const Tensor& b) { return compare("gt", a, b, [](auto x, auto y) { return x > y; }); }
Tensor ge(const Tensor& a, const Tensor& b) { return compare("ge", a, b, [](auto x, auto y) { return x >= y; }); }

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  check(cond.dtype() == DType::Bool, "where: expected condition of dtype bool, got ",
        dtype_name(cond.dtype()));
  Tensor out = select(cond, a, b, "where");
  return record("where", out, {cond, a, b},
                [cond, sa = a.shape(), sb = b.shape(), na = a.requires_grad(),
                 nb = b.requires_grad()](const Tensor& g) -> Grads {
                  const Tensor zero = f32_scalar(0);
                  return {Tensor(), na ? sum_to(select(cond, g, zero, "where"), sa) : Tensor(),
                          nb ? sum_to(select(cond, zero, g, "where"), sb) : Tensor()};
                });
}

Tensor masked_fill(const Tensor& x, const Tensor& mask, double value) {
  check(mask.dtype() == DType::Bool, "masked_fill: expected mask of dtype bool, got ",
        dtype_name(mask.dtype()));
  check(broadcast_shapes(x.shape(), mask.shape(), "masked_fill") == x.shape(),
        "masked_fill: mask of shape ", mask.shape(), " cannot be broadcast to the input's shape ",
        x.shape());
  Tensor out = select(mask, scalar_of(value, x.dtype(), "masked_fill"), x, "masked_fill");
  return record("maskedFill", out, {x, mask}, [mask](const Tensor& g) -> Grads {
    return {select(mask, f32_scalar(0), g, "masked_fill"), Tensor()};
  });
}

}  // namespace sg
