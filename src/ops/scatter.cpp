// scatter and scatter_add (out of place): gather's inverses. The output starts as a copy of x and
// the backend's scatter kernels write src's values at the indexed positions along dim. Indices
// are bounds-checked by a kernel before anything is written (as gather's are).
#include <climits>
#include <string>

#include "autograd/record.h"
#include "core/copy.h"
#include "kernels/backend.h"
#include "ops/elementwise.h"
#include "ops/ops_more.h"

namespace sg {

namespace {

using Grads = std::vector<Tensor>;

void check_args(const char* op, const Tensor& x, int64_t d, const Tensor& index, const Tensor& src, bool add) {
  check(index.dtype() == DType::Int32, op, ": expected an int32 index tensor, got ", dtype_name(index.dtype()));
  const int64_t nd = x.ndim();
  check(index.ndim() == nd, op, ": index must have as many dims as the input (", nd, "), got shape ", index.shape(),
        " for input shape ", x.shape());
  for (int64_t k = 0; k < nd; ++k)
    check(k == d || index.shape()[k] <= x.shape()[k], op, ": index shape ", index.shape(),
          " is larger than input shape ", x.shape(), " at dim ", k, " (", index.shape()[k], " > ", x.shape()[k], ")");
  if (add)
    check(x.dtype() != DType::Bool, op, ": expected a float32 or int32 input, got bool");
  if (src.ndim() == 0) return;  // one value for every index
  check(src.dtype() == x.dtype(), op, ": expected src of the input's dtype (", dtype_name(x.dtype()), "), got ",
        dtype_name(src.dtype()));
  check(src.ndim() == nd, op, ": src must have as many dims as the input (", nd, ") or none (one value), got shape ",
        src.shape());
  for (int64_t k = 0; k < nd; ++k)
    check(index.shape()[k] <= src.shape()[k], op, ": index shape ", index.shape(), " is larger than src shape ",
          src.shape(), " at dim ", k, " (", index.shape()[k], " > ", src.shape()[k], ")");
}

// Writing into a contiguous tensor of out_shape at the positions of an index of index_shape.
GatherGeom geometry(const Shape& out_shape, const Shape& index_shape, int64_t d) {
  GatherGeom g;
  g.index_shape = index_shape;
  g.walk_strides = contiguous_strides(out_shape);
  const bool nd = !out_shape.empty();
  g.dim = d;
  g.dim_stride = nd ? g.walk_strides[d] : 0;
  g.dim_size = nd ? out_shape[d] : 1;
  if (nd) g.walk_strides[d] = 0;
  return g;
}

// The part of src that index covers (its leading window of index's shape), contiguous, as dtype;
// a 0-d src is that one value repeated.
Tensor src_window(const Tensor& src, const Shape& index_shape, DType dtype) {
  if (src.ndim() == 0) return contiguous_copy(Tensor::view_of(src, index_shape, Shape(index_shape.size(), 0), src.offset()), dtype);
  return as_contiguous(Tensor::view_of(src, index_shape, src.strides(), src.offset()), dtype);
}

// The gradient of src: g gathered at the indices, in src's window (zeros elsewhere); summed for a
// 0-d src.
Tensor src_grad(const Tensor& g, int64_t d, const Tensor& ic, const Shape& src_shape) {
  const Tensor taken = gather(g, d, ic);
  if (src_shape.empty()) return sum(taken);
  if (taken.shape() == src_shape) return taken;
  Tensor z = zeros(src_shape, DType::Float32, g.device());
  copy_into(Tensor::view_of(z, taken.shape(), z.strides(), 0), taken);
  return z;
}

Tensor scatter_impl(const char* op, const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src, bool add) {
  const int64_t d = normalize_dim(dim, x.ndim(), op);
  check_args(op, x, d, index, src, add);
  const Device dev = operands_device(op, {&x, &index, &src});
  const Tensor ic = as_contiguous(moved_to(index, dev));
  Tensor out = contiguous_copy(moved_to(x, dev));
  const GatherGeom geom = geometry(out.shape(), index.shape(), d);
  const Backend& be = backend_for(dev);
  if (ic.numel() > 0) {
    be.check_indices(ic.dev_i32(), ic.numel(), 0, geom.dim_size, INT64_MIN, std::string(op) + ": index ",
                     " is out of bounds for dim " + std::to_string(d) + " with size " + std::to_string(geom.dim_size));
    const Tensor sw = src_window(moved_to(src, dev), index.shape(), x.dtype());
    if (!add) be.scatter(dtype_size(x.dtype()), geom, sw.dev_raw(), ic.dev_i32(), out.dev_raw());
    else if (x.dtype() == DType::Float32) be.scatter_add_f32(geom, sw.dev_f32(), ic.dev_i32(), out.dev_f32());
    else be.scatter_add_i32(geom, sw.dev_i32(), ic.dev_i32(), out.dev_i32());
  }
  if (x.dtype() != DType::Float32) return out;
  return record(op, out, {x, index, src},
                [add, d, ic, nx = x.requires_grad(), ns = src.requires_grad(), src_shape = src.shape()](const Tensor& g) {
                  Tensor gx;
                  // scatter overwrote the indexed positions: their old values get no gradient.
                  if (nx) gx = add ? g : scatter(g, d, ic, f32_scalar(0));
                  return Grads{gx, Tensor(), ns ? src_grad(g, d, ic, src_shape) : Tensor()};
                });
}

}  // namespace

Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_impl("scatter", x, dim, index, src, false);
}

Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_impl("scatterAdd", x, dim, index, src, true);
}

}  // namespace sg
