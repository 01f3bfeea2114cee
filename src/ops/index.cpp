// Indexing with int32 index tensors: index_select and gather. Indices are bounds-checked
// before anything is written; negative indices are errors (as in PyTorch's index_select).
// The gradients scatter-add g back into zeros, so repeated indices accumulate.
#include <cstring>
#include <type_traits>

#include "autograd/record.h"
#include "core/copy.h"
#include "core/error.h"
#include "ops/ops.h"

namespace sg {

namespace {

using Grads = std::vector<Tensor>;

void check_index(const char* op, const Tensor& index) {
  check(index.defined(), op, ": the index tensor is undefined");
  check(index.dtype() == DType::Int32, op, ": expected an int32 index tensor, got ",
        dtype_name(index.dtype()));
}

void check_bound(const char* op, int64_t i, int64_t dim, int64_t size) {
  if (i < 0 || i >= size) fail(op, ": index ", i, " is out of bounds for dim ", dim, " with size ", size);
}

// Product of the sizes before / after `dim` (x viewed as [outer, size, inner]).
int64_t prod_range(const Shape& s, int64_t from, int64_t to) {
  int64_t n = 1;
  for (int64_t d = from; d < to; ++d) n *= s[d];
  return n;
}

// grad of index_select: out[o, j, :] was x[o, idx[j], :], so grad[o, idx[j], :] += g[o, j, :].
Tensor index_add_into_zeros(const Tensor& g, const Shape& in_shape, int64_t dim,
                            const std::vector<int32_t>& idx) {
  Tensor gc = as_contiguous(g, DType::Float32);
  Tensor out = zeros(in_shape, DType::Float32);
  int64_t nd = int64_t(in_shape.size());
  int64_t outer = prod_range(in_shape, 0, dim), inner = prod_range(in_shape, dim + 1, nd);
  int64_t size = nd ? in_shape[dim] : 1, n = int64_t(idx.size());
  const float* src = gc.f32();
  float* dst = out.f32();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < n; ++j) {
      const float* s = src + (o * n + j) * inner;
      float* d = dst + (o * size + idx[j]) * inner;
      for (int64_t k = 0; k < inner; ++k) d[k] += s[k];
    }
  return out;
}

}  // namespace

Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index) {
  const char* op = "indexSelect";  // the JS name: users read these messages
  check_index(op, index);
  check(index.ndim() <= 1, op, ": expected a 1-D index tensor, got shape ", index.shape());
  int64_t d = normalize_dim(dim, x.ndim(), op);
  int64_t nd = x.ndim();
  int64_t size = nd ? x.shape()[d] : 1;
  Tensor ic = as_contiguous(index);
  std::vector<int32_t> idx(ic.i32(), ic.i32() + ic.numel());
  for (int32_t i : idx) check_bound(op, i, d, size);
  check(nd > 0 || idx.size() == 1, op, ": a 0-dim input needs exactly one index, got ", idx.size());

  Tensor xc = as_contiguous(x);
  Shape shape = x.shape();
  if (nd) shape[d] = int64_t(idx.size());
  Tensor out = Tensor::empty(shape, x.dtype(), x.device());
  int64_t outer = prod_range(x.shape(), 0, d), inner = prod_range(x.shape(), d + 1, nd);
  int64_t n = int64_t(idx.size());
  size_t row = size_t(inner) * dtype_size(x.dtype());  // one [inner] run, in bytes
  const char* src = static_cast<const char*>(xc.raw());
  char* dst = static_cast<char*>(out.raw());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < n; ++j)
      if (row) std::memcpy(dst + (o * n + j) * row, src + (o * size + idx[j]) * row, row);

  Shape in_shape = x.shape();
  return record(op, out, {x, index}, [in_shape, d, idx](const Tensor& g) {
    return Grads{index_add_into_zeros(g, in_shape, d, idx), Tensor()};
  });
}

Tensor gather(const Tensor& x, int64_t dim, const Tensor& index) {
  const char* op = "gather";
  check_index(op, index);
  int64_t nd = x.ndim();
  int64_t d = normalize_dim(dim, nd, op);
  check(index.ndim() == nd, op, ": index must have as many dims as the input (", nd, "), got shape ",
        index.shape(), " for input shape ", x.shape());
  for (int64_t k = 0; k < nd; ++k)
    check(k == d || index.shape()[k] <= x.shape()[k], op, ": index shape ", index.shape(),
          " is larger than input shape ", x.shape(), " at dim ", k, " (", index.shape()[k], " > ",
          x.shape()[k], ")");
  int64_t size = nd ? x.shape()[d] : 1;
  Tensor ic = as_contiguous(index);
  const int32_t* ip = ic.i32();
  for (int64_t i = 0, n = ic.numel(); i < n; ++i) check_bound(op, ip[i], d, size);

  // Walk the index shape with x's strides, the gathered dim's stride zeroed: the offset of
  // x[i0, .., idx, .., ik] is then that walk's offset + idx · stride(dim).
  Shape walk = nd ? x.strides() : Shape{};
  int64_t dstride = nd ? walk[d] : 0;
  if (nd) walk[d] = 0;
  Shape ones_strides = contiguous_strides(index.shape());
  Tensor out = Tensor::empty(index.shape(), x.dtype(), x.device());
  // Elements move as 1- or 4-byte memcpys of a constant size (plain loads/stores, no
  // dtype switch in the loop, no aliasing questions).
  auto copy_elems = [&](auto size) {
    constexpr size_t es = decltype(size)::value;
    const char* src = static_cast<const char*>(x.raw());
    char* dst = static_cast<char*>(out.raw());
    for_each_offset2(index.shape(), ones_strides, walk, [&](int64_t oi, int64_t ox) {
      std::memcpy(dst + oi * es, src + (ox + int64_t(ip[oi]) * dstride) * es, es);
    });
  };
  if (dtype_size(x.dtype()) == 1)
    copy_elems(std::integral_constant<size_t, 1>());
  else
    copy_elems(std::integral_constant<size_t, 4>());

  Shape in_shape = x.shape();
  Tensor saved_index = ic;
  return record(op, out, {x, index}, [in_shape, d, saved_index](const Tensor& g) {
    Tensor gc = as_contiguous(g, DType::Float32);
    Tensor grad = zeros(in_shape, DType::Float32);
    int64_t n = int64_t(in_shape.size());
    Shape walk = contiguous_strides(in_shape);
    int64_t ds = n ? walk[d] : 0;
    if (n) walk[d] = 0;
    const int32_t* ip = saved_index.i32();
    const float* gp = gc.f32();
    float* out = grad.f32();
    for_each_offset2(saved_index.shape(), contiguous_strides(saved_index.shape()), walk,
                     [&](int64_t oi, int64_t ox) { out[ox + int64_t(ip[oi]) * ds] += gp[oi]; });
    return Grads{grad, Tensor()};
  });
}

}  // namespace sg
