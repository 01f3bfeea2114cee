// Broadcast plans, the float32/float64 kernel runners every elementwise op goes through, and sum_to
// (the reduction that undoes broadcasting in backward formulas).
#include "autograd/record.h"
#include "core/copy.h"
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {

BroadcastPlan broadcast_plan(const Tensor& a, const Tensor& b, const Shape& shape) {
  const Shape sa = broadcast_strides(a.shape(), a.strides(), shape);
  const Shape sb = broadcast_strides(b.shape(), b.strides(), shape);
  BroadcastPlan plan;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;  // contributes nothing to the iteration
    // Merge into the previous dim when a, b (and the contiguous output) step through both as one.
    if (!plan.shape.empty() && plan.a_strides.back() == sa[d] * shape[d] &&
        plan.b_strides.back() == sb[d] * shape[d]) {
      plan.shape.back() *= shape[d];
      plan.a_strides.back() = sa[d];
      plan.b_strides.back() = sb[d];
      continue;
    }
    plan.shape.push_back(shape[d]);
    plan.a_strides.push_back(sa[d]);
    plan.b_strides.push_back(sb[d]);
  }
  if (plan.shape.empty()) {  // one element: keep a 1-d plan, kernels need not special-case 0-d
    plan.shape = {1};
    plan.a_strides = {0};
    plan.b_strides = {0};
  }
  return plan;
}

bool computes_f64(std::initializer_list<const Tensor*> operands) {
  // The result is float64 when the highest-priority group holding a floating tensor (tensors
  // with dims, else 0-d tensors) holds a float64 one; a group with no float in it defers to the
  // next (an int32 tensor with a 0-d float64 tensor: float64).
  for (bool dims : {true, false}) {
    bool any_float = false, any_f64 = false;
    for (const Tensor* t : operands) {
      if (!t->defined() || (t->ndim() > 0) != dims) continue;
      any_float |= is_floating(t->dtype());
      any_f64 |= t->dtype() == DType::Float64;
    }
    if (any_float) return any_f64;
  }
  return false;
}

double* dev_f64(const Tensor& t) {
  check(t.dtype() == DType::Float64, "internal error: expected a float64 tensor, got ", dtype_name(t.dtype()));
  return static_cast<double*>(t.dev_raw());
}

Tensor binary_float(Binary op, const Tensor& a0, const Tensor& b0, const char* name) {
  const Shape shape = broadcast_shapes(a0.shape(), b0.shape(), name);
  const Device dev = operands_device(name, {&a0, &b0});
  const Tensor a = moved_to(a0, dev), b = moved_to(b0, dev);
  const DType dt = float_dtype(computes_f64({&a, &b}));
  // Only a dtype change forces a copy; float views are read through their strides.
  const Tensor af = a.dtype() == dt ? a : contiguous_copy(a, dt);
  const Tensor bf = b.dtype() == dt ? b : contiguous_copy(b, dt);
  Tensor out = Tensor::uninitialized(shape, dt, dev);  // the kernel writes every element
  if (out.numel() == 0) return out;
  if (dt == DType::Float64)
    backend_for(dev).binary_f64(op, broadcast_plan(af, bf, shape), dev_f64(af), dev_f64(bf), dev_f64(out));
  else
    backend_for(dev).binary_f32(op, broadcast_plan(af, bf, shape), af.dev_f32(), bf.dev_f32(), out.dev_f32());
  return out;
}

Tensor unary_float(Unary op, const Tensor& x, double param) {
  if (x.dtype() == DType::Float64) {
    const Tensor xc = as_contiguous(x, DType::Float64);
    Tensor out = Tensor::uninitialized(x.shape(), DType::Float64, x.device());
    if (out.numel() > 0) backend_for(x.device()).unary_f64(op, param, dev_f64(xc), dev_f64(out), out.numel());
    return out;
  }
  const Tensor xc = as_contiguous(x, DType::Float32);
  Tensor out = Tensor::uninitialized(x.shape(), DType::Float32, x.device());  // the kernel writes every element
  if (out.numel() == 0) return out;
  backend_for(x.device()).unary_f32(op, static_cast<float>(param), xc.dev_f32(), out.dev_f32(), out.numel());
  return out;
}

Tensor f32_scalar(double v) {
  Tensor t = Tensor::empty({});
  t.f32()[0] = static_cast<float>(v);
  return t;
}

Tensor scalar_like(double v, const Tensor& like) {
  if (like.dtype() != DType::Float64) return f32_scalar(v);
  Tensor t = Tensor::empty({}, DType::Float64);
  t.f64()[0] = v;
  return t;
}

namespace {

// g (contiguous float32 or float64) summed over the flagged dims of `gshape`, as a contiguous tensor of
// `shape` (same element count as gshape with the flagged dims set to 1 and leading dims removed).
Tensor sum_flagged(const Tensor& g, const Shape& gshape, const std::vector<bool>& reduce,
                   const Shape& shape) {
  // Group consecutive dims with the same flag; size-1 dims join any group.
  struct Group { int64_t size; bool reduce; };
  std::vector<Group> groups;
  for (size_t d = 0; d < gshape.size(); ++d) {
    if (gshape[d] == 1) continue;
    if (!groups.empty() && groups.back().reduce == reduce[d]) groups.back().size *= gshape[d];
    else groups.push_back({gshape[d], reduce[d]});
  }
  Tensor cur = g;
  for (size_t i = 0; i < groups.size(); ++i) {
    if (!groups[i].reduce) continue;
    int64_t outer = 1, inner = 1;
    for (size_t j = 0; j < i; ++j) outer *= groups[j].size;
    for (size_t j = i + 1; j < groups.size(); ++j) inner *= groups[j].size;
    Tensor next = Tensor::uninitialized({outer * inner}, g.dtype(), g.device());  // the reduction writes it all
    if (next.numel() > 0) {
      if (g.dtype() == DType::Float64)
        backend_for(g.device()).reduce_f64(Reduce::Sum, dev_f64(cur), outer, groups[i].size, inner, dev_f64(next));
      else
        backend_for(g.device()).reduce_f32(Reduce::Sum, cur.dev_f32(), outer, groups[i].size, inner, next.dev_f32());
    }
    groups[i].size = 1;
    cur = next;
  }
  return Tensor::view_of(cur, shape, contiguous_strides(shape), cur.offset());
}

}  // namespace

Tensor sum_to(const Tensor& g, const Shape& shape) {
  check(g.dtype() == DType::Float32 || g.dtype() == DType::Float64,
        "sum_to: expected a float32 or float64 tensor, got ", dtype_name(g.dtype()));
  const Shape& gshape = g.shape();
  bool ok = shape.size() <= gshape.size();
  for (size_t d = 0; ok && d < shape.size(); ++d) {
    const int64_t have = gshape[gshape.size() - shape.size() + d];
    ok = shape[d] == have || shape[d] == 1;
  }
  check(ok, "sum_to: cannot sum a tensor of shape ", gshape, " to shape ", shape,
        " (the target must broadcast to the tensor's shape)");
  if (shape == gshape) return g;
  const size_t lead = gshape.size() - shape.size();
  std::vector<bool> reduce(gshape.size());
  for (size_t d = 0; d < gshape.size(); ++d)
    reduce[d] = d < lead || (shape[d - lead] == 1 && gshape[d] != 1);
  Tensor out = sum_flagged(as_contiguous(g), gshape, reduce, shape);
  // The backward of a sum over broadcast dims is the broadcast back.
  return record("sum_to", out, {g}, [gshape](const Tensor& gg) -> std::vector<Tensor> {
    Tensor e = Tensor::uninitialized(gshape, gg.dtype(), gg.device());
    copy_into(e, gg);
    return {e};
  });
}

}  // namespace sg
