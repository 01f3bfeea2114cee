// scatter, scatter_add and scatter_reduce (out of place): gather's inverses. The output starts
// as a copy of x and the backend's scatter kernels write (or combine) src's values at the indexed
// positions along dim. Indices are bounds-checked by a kernel before anything is written (as
// gather's are).
#include <climits>
#include <string>
#include <utility>

#include "autograd/record.h"
#include "core/copy.h"
#include "kernels/backend.h"
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {

namespace {

using Grads = std::vector<Tensor>;

// numeric: bool inputs refused; scalar_src: a 0-d src stands for one value at every index.
void check_args(const char* op, const Tensor& x, int64_t d, const Tensor& index, const Tensor& src, bool numeric,
                bool scalar_src = true) {
  check(index.dtype() == DType::Int32, op, ": expected an int32 index tensor, got ", dtype_name(index.dtype()));
  const int64_t nd = x.ndim();
  check(index.ndim() == nd, op, ": index must have as many dims as the input (", nd, "), got shape ", index.shape(),
        " for input shape ", x.shape());
  for (int64_t k = 0; k < nd; ++k)
    check(k == d || index.shape()[k] <= x.shape()[k], op, ": index shape ", index.shape(),
          " is larger than input shape ", x.shape(), " at dim ", k, " (", index.shape()[k], " > ", x.shape()[k], ")");
  if (numeric)
    check(x.dtype() != DType::Bool, op, ": expected a float32 or int32 input, got bool");
  if (src.ndim() == 0 && scalar_src) return;  // one value for every index
  check(src.dtype() == x.dtype(), op, ": expected src of the input's dtype (", dtype_name(x.dtype()), "), got ",
        dtype_name(src.dtype()));
  check(src.ndim() == nd, op, ": src must have as many dims as the input (", nd,
        scalar_src ? ") or none (one value)" : ")", ", got shape ", src.shape());
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

// A gradient of src's window (index's shape) as one of src's shape: zeros outside the window
// (a differentiable pad, so second derivatives hold); summed for a 0-d src.
Tensor window_grad(const Tensor& taken, const Shape& src_shape) {
  if (src_shape.empty()) return sum(taken);
  if (taken.shape() == src_shape) return taken;
  std::vector<int64_t> pads;  // F.pad order: last dim first
  for (size_t k = src_shape.size(); k-- > 0;) pads.insert(pads.end(), {0, src_shape[k] - taken.shape()[k]});
  return pad(taken, pads);
}

// The gradient of src: g gathered at the indices, in src's window.
Tensor src_grad(const Tensor& g, int64_t d, const Tensor& ic, const Shape& src_shape) {
  return window_grad(gather(g, d, ic), src_shape);
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
    else if (x.dtype() == DType::Float64)
      be.scatter_add_f64(geom, static_cast<const double*>(sw.dev_raw()), ic.dev_i32(), static_cast<double*>(out.dev_raw()));
    else be.scatter_add_i32(geom, sw.dev_i32(), ic.dev_i32(), out.dev_i32());
  }
  if (!is_floating(x.dtype())) return out;
  return record(op, out, {x, index, src},
                [add, d, ic, nx = x.requires_grad(), ns = src.requires_grad(), src_shape = src.shape()](const Tensor& g) {
                  Tensor gx;
                  // scatter overwrote the indexed positions: their old values get no gradient.
                  if (nx) gx = add ? g : scatter(g, d, ic, f32_scalar(0));
                  return Grads{gx, Tensor(), ns ? src_grad(g, d, ic, src_shape) : Tensor()};
                });
}

// scatter_reduce's reduce strings, PyTorch's.
ScatterReduce reduce_named(const char* op, const std::string& reduce) {
  static const std::pair<const char*, ScatterReduce> names[] = {{"sum", ScatterReduce::Sum},
                                                                {"prod", ScatterReduce::Prod},
                                                                {"mean", ScatterReduce::Mean},
                                                                {"amax", ScatterReduce::Amax},
                                                                {"amin", ScatterReduce::Amin}};
  for (const auto& [name, r] : names)
    if (reduce == name) return r;
  fail(op, ": expected reduce 'sum', 'prod', 'mean', 'amax' or 'amin', got '", reduce, "'");
}

// x reduced with sw (src's window, contiguous, x's dtype) at the indices ic (checked): a new
// contiguous tensor, recorded nowhere.
Tensor reduced(const Tensor& x, int64_t d, const Tensor& ic, const Tensor& sw, ScatterReduce r, bool include_self) {
  Tensor out = contiguous_copy(x);
  if (ic.numel() == 0) return out;
  const Tensor s = as_contiguous(sw, x.dtype());
  backend_for(out.device())
      .scatter_reduce(out.dtype(), r, geometry(out.shape(), ic.shape(), d), s.dev_raw(), ic.dev_i32(), out.numel(),
                      include_self, out.dev_raw());
  return out;
}

// PyTorch 1.13's scatter_reduce_backward (FunctionsManual.cpp) for x, src's window sw and the
// result res: {grad of x, grad of sw}.
Grads reduce_backward(const Tensor& g, const Tensor& x, const Tensor& sw, const Tensor& res, int64_t d,
                      const Tensor& ic, ScatterReduce r, bool include_self) {
  const Device dev = g.device();
  const Tensor zero = f32_scalar(0), one = f32_scalar(1);
  Tensor gx, gs;
  switch (r) {
    case ScatterReduce::Sum:
      gx = g;
      gs = gather(g, d, ic);
      break;
    case ScatterReduce::Mean: {  // each value's share: 1 / the count (the input counts when include_self)
      Tensor n = scatter_add(full(x.shape(), include_self ? 1 : 0, DType::Float32, dev), d, ic, one);
      n = masked_fill(n, eq(n, zero), 1);
      gx = div(g, n);
      gs = div(gather(g, d, ic), gather(n, d, ic));
      break;
    }
    case ScatterReduce::Prod: {  // the product of the others, exactly where a factor is 0
      // Through the recorded op (not the raw kernel), so second derivatives hold.
      const Tensor x1 = masked_fill(x, eq(x, zero), 1);
      gx = div(mul(g, scatter_reduce(x1, d, ic, sw, "prod", include_self)), x1);
      const Tensor src_zero = eq(sw, zero);
      const Tensor zeros_there =
          gather(scatter_add(zeros(x.shape(), DType::Float32, dev), d, ic, cast(src_zero, DType::Float32)), d, ic);
      // As PyTorch 1.13 (its DelayedError): this formula's own derivative is wrong there.
      if (recording_backward({g, x, sw, res}) && any(gt(zeros_there, one)).item() != 0)
        fail("scatterReduce: double backward of 'prod' is unsupported for src when more than one zero of src is "
             "scattered to the same position (as in PyTorch 1.13)");
      const Tensor single_zero = logical_and(src_zero, eq(zeros_there, one));
      const Tensor others = scatter_reduce(x, d, ic, masked_fill(sw, single_zero, 1), "prod", include_self);
      gs = where(single_zero, gather(mul(g, others), d, ic),
                 div(gather(mul(g, res), d, ic), masked_fill(sw, src_zero, 1)));
      break;
    }
    case ScatterReduce::Amax:
    case ScatterReduce::Amin: {  // split evenly among the values equal to the result
      const Tensor self_is = cast(eq(x, res), DType::Float32);
      const Tensor src_is = cast(eq(sw, gather(res, d, ic)), DType::Float32);
      const Tensor spread = div(g, scatter_add(self_is, d, ic, src_is));
      gx = mul(self_is, spread);
      gs = mul(src_is, gather(spread, d, ic));
      break;
    }
  }
  // Without include_self the input's value at a position that received one took no part. (For
  // amax/amin PyTorch still counts it in the split when it ties, so that share is lost; as 1.13.)
  if (!include_self) gx = masked_fill(gx, eq(scatter(zeros(x.shape(), DType::Float32, dev), d, ic, one), one), 0);
  return {gx, gs};
}

}  // namespace

Tensor scatter_reduce(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce,
                      bool include_self) {
  const char* op = "scatterReduce";
  const ScatterReduce r = reduce_named(op, reduce);
  const int64_t d = normalize_dim(dim, x.ndim(), op);
  check_args(op, x, d, index, src, true, false);
  const Device dev = operands_device(op, {&x, &index, &src});
  const Tensor ic = as_contiguous(moved_to(index, dev));
  const int64_t size = x.ndim() ? x.shape()[d] : 1;
  if (ic.numel() > 0)
    backend_for(dev).check_indices(ic.dev_i32(), ic.numel(), 0, size, INT64_MIN, std::string(op) + ": index ",
                                   " is out of bounds for dim " + std::to_string(d) + " with size " + std::to_string(size));
  const Tensor out = reduced(moved_to(x, dev), d, ic, src_window(moved_to(src, dev), index.shape(), x.dtype()), r,
                             include_self);
  if (!is_floating(x.dtype())) return out;
  return record(op, out, {x, index, src}, {x, src, out},
                [r, d, ic, include_self, nx = x.requires_grad(), ns = src.requires_grad(), src_shape = src.shape()](
                    const Tensor& g, const SavedTensors& s) -> Grads {
                  // src's window by differentiable narrows (second derivatives reach src).
                  Tensor sw = s[1];
                  for (int64_t k = 0; k < sw.ndim(); ++k)
                    if (sw.shape()[k] != ic.shape()[k]) sw = narrow(sw, k, 0, ic.shape()[k]);
                  Grads gr = reduce_backward(g, s[0], sw, s[2], d, ic, r, include_self);
                  return Grads{nx ? gr[0] : Tensor(), Tensor(), ns ? window_grad(gr[1], src_shape) : Tensor()};
                });
}

Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_impl("scatter", x, dim, index, src, false);
}

Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_impl("scatterAdd", x, dim, index, src, true);
}

}  // namespace sg
