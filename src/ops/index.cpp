// Indexing with int32 index tensors: index_select and gather. Indices are bounds-checked
// before anything is written; negative indices are errors (as in PyTorch's index_select).
// The gradients scatter-add g back into zeros, so repeated indices accumulate.
#include <climits>
#include <cstring>
#include <string>
#include <type_traits>

#include "autograd/record.h"
#include "core/copy.h"
#include "core/error.h"
#include "kernels/backend.h"
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {

namespace {

using Grads = std::vector<Tensor>;

void check_index(const char* op, const Tensor& index) {
  check(index.defined(), op, ": the index tensor is undefined");
  check(index.dtype() == DType::Int32, op, ": expected an int32 index tensor, got ",
        dtype_name(index.dtype()));
}

// Every index in [0, size) before anything reads through them.
void check_bounds(const Backend& be, const char* op, const Tensor& ic, int64_t dim, int64_t size) {
  if (ic.numel() == 0) return;
  be.check_indices(ic.dev_i32(), ic.numel(), 0, size, INT64_MIN, std::string(op) + ": index ",
                   " is out of bounds for dim " + std::to_string(dim) + " with size " + std::to_string(size));
}

// Product of the sizes before / after `dim` (x viewed as [outer, size, inner]).
int64_t prod_range(const Shape& s, int64_t from, int64_t to) {
  int64_t n = 1;
  for (int64_t d = from; d < to; ++d) n *= s[d];
  return n;
}

// grad of index_select: out[o, j, :] was x[o, idx[j], :], so grad[o, idx[j], :] += g[o, j, :].
Tensor index_add_into_zeros(const Tensor& g, const Shape& in_shape, int64_t dim, const Tensor& idx) {
  const DType dt = g.dtype() == DType::Float64 ? DType::Float64 : DType::Float32;  // the gradient's own
  Tensor gc = as_contiguous(g, dt);
  Tensor out = zeros(in_shape, dt, g.device());
  const int64_t nd = int64_t(in_shape.size());
  const int64_t outer = prod_range(in_shape, 0, dim), inner = prod_range(in_shape, dim + 1, nd);
  const int64_t size = nd ? in_shape[dim] : 1;
  if (out.numel() > 0 && idx.numel() > 0) {
    const Backend& be = backend_for(g.device());
    if (dt == DType::Float64)
      be.index_add_f64(static_cast<const double*>(gc.dev_raw()), outer, idx.numel(), inner, idx.dev_i32(), size,
                       static_cast<double*>(out.dev_raw()));
    else
      be.index_add_f32(gc.dev_f32(), outer, idx.numel(), inner, idx.dev_i32(), size, out.dev_f32());
  }
  // A float16/bfloat16 gradient is summed in float32 and rounded once to its own dtype.
  return out.dtype() == g.dtype() || !is_floating(g.dtype()) ? out : contiguous_copy(out, g.dtype());
}

}  // namespace

Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index) {
  const char* op = "indexSelect";  // the JS name: users read these messages
  check_index(op, index);
  check(index.ndim() <= 1, op, ": expected a 1-D index tensor, got shape ", index.shape());
  int64_t d = normalize_dim(dim, x.ndim(), op);
  int64_t nd = x.ndim();
  int64_t size = nd ? x.shape()[d] : 1;
  const Device dev = operands_device(op, {&x, &index});
  const Tensor ic = as_contiguous(moved_to(index, dev));
  const int64_t n = ic.numel();
  check(nd > 0 || n == 1, op, ": a 0-dim input needs exactly one index, got ", n);

  Tensor xc = as_contiguous(x);
  Shape shape = x.shape();
  if (nd) shape[d] = n;
  Tensor out = Tensor::uninitialized(shape, x.dtype(), dev);
  const int64_t outer = prod_range(x.shape(), 0, d), inner = prod_range(x.shape(), d + 1, nd);
  const Backend& be = backend_for(dev);
  check_bounds(be, op, ic, d, size);
  if (n > 0) be.index_select(dtype_size(x.dtype()), xc.dev_raw(), outer, size, inner, ic.dev_i32(), n, out.dev_raw());

  Shape in_shape = x.shape();
  return record(op, out, {x, index}, [in_shape, d, ic](const Tensor& g) {
    return Grads{linear_grad("indexSelectBackward", g, index_add_into_zeros(g, in_shape, d, ic),
                             [d, ic](const Tensor& gg) { return index_select(gg, d, ic); }),
                 Tensor()};
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
  const Device dev = operands_device(op, {&x, &index});
  const Tensor ic = as_contiguous(moved_to(index, dev));
  // Walk the index shape with x's strides, the gathered dim's stride zeroed: the offset of
  // x[i0, .., idx, .., ik] is then that walk's offset + idx · stride(dim).
  GatherGeom geom;
  geom.index_shape = index.shape();
  geom.walk_strides = nd ? x.strides() : Shape{};
  geom.dim = d;
  geom.dim_stride = nd ? geom.walk_strides[d] : 0;
  geom.dim_size = nd ? x.shape()[d] : 1;
  if (nd) geom.walk_strides[d] = 0;
  Tensor out = Tensor::uninitialized(index.shape(), x.dtype(), dev);
  const Backend& be = backend_for(dev);
  check_bounds(be, op, ic, d, geom.dim_size);
  if (out.numel() > 0) be.gather(dtype_size(x.dtype()), geom, x.dev_raw(), ic.dev_i32(), out.dev_raw());

  Shape in_shape = x.shape();
  return record(op, out, {x, index}, [in_shape, d, ic](const Tensor& g) {
    const DType dt = g.dtype() == DType::Float64 ? DType::Float64 : DType::Float32;  // the gradient's own
    Tensor gc = as_contiguous(g, dt);
    Tensor grad = zeros(in_shape, dt, g.device());
    const int64_t n = int64_t(in_shape.size());
    GatherGeom geom;
    geom.index_shape = ic.shape();
    geom.walk_strides = contiguous_strides(in_shape);
    geom.dim = d;
    geom.dim_stride = n ? geom.walk_strides[d] : 0;
    geom.dim_size = n ? in_shape[d] : 1;
    if (n) geom.walk_strides[d] = 0;
    if (gc.numel() > 0 && dt == DType::Float64)
      backend_for(g.device()).scatter_add_f64(geom, static_cast<const double*>(gc.dev_raw()), ic.dev_i32(),
                                              static_cast<double*>(grad.dev_raw()));
    else if (gc.numel() > 0)
      backend_for(g.device()).scatter_add_f32(geom, gc.dev_f32(), ic.dev_i32(), grad.dev_f32());
    // A float16/bfloat16 gradient is summed in float32 and rounded once to its own dtype.
    if (grad.dtype() != g.dtype() && is_floating(g.dtype())) grad = contiguous_copy(grad, g.dtype());
    return Grads{linear_grad("gatherBackward", g, grad, [d, ic](const Tensor& gg) { return gather(gg, d, ic); }),
                 Tensor()};
  });
}

}  // namespace sg
