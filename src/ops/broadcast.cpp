// Broadcast plans, the float32 kernel runners every elementwise op goes through, and sum_to
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

Tensor binary_f32(Binary op, const Tensor& a0, const Tensor& b0, const char* name) {
  const Shape shape = broadcast_shapes(a0.shape(), b0.shape(), name);
  const Device dev = operands_device(name, {&a0, &b0});
  const Tensor a = moved_to(a0, dev), b = moved_to(b0, dev);
  // Only a dtype change forces a copy; float views are read through their strides.
  const Tensor af = a.dtype() == DType::Float32 ? a : contiguous_copy(a, DType::Float32);
  const Tensor bf = b.dtype() == DType::Float32 ? b : contiguous_copy(b, DType::Float32);
  Tensor out = Tensor::uninitialized(shape, DType::Float32, dev);  // the kernel writes every element
  if (out.numel() == 0) return out;
  backend_for(dev).binary_f32(op, broadcast_plan(af, bf, shape), af.dev_f32(), bf.dev_f32(), out.dev_f32());
  return out;
}

Tensor unary_f32(Unary op, const Tensor& x, float param) {
  const Tensor xc = as_contiguous(x, DType::Float32);
  Tensor out = Tensor::uninitialized(x.shape(), DType::Float32, x.device());  // the kernel writes every element
  if (out.numel() == 0) return out;
  backend_for(x.device()).unary_f32(op, param, xc.dev_f32(), out.dev_f32(), out.numel());
  return out;
}

Tensor f32_scalar(double v) {
  Tensor t = Tensor::empty({});
  t.f32()[0] = static_cast<float>(v);
  return t;
}

namespace {

// g (contiguous float32) summed over the flagged dims of `gshape`, as a contiguous tensor of
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
    Tensor next = Tensor::uninitialized({outer * inner}, DType::Float32, g.device());  // reduce_f32 writes it all
    if (next.numel() > 0)
      backend_for(g.device()).reduce_f32(Reduce::Sum, cur.dev_f32(), outer, groups[i].size, inner, next.dev_f32());
    groups[i].size = 1;
    cur = next;
  }
  return Tensor::view_of(cur, shape, contiguous_strides(shape), cur.offset());
}

}  // namespace

Tensor sum_to(const Tensor& g, const Shape& shape) {
  check(g.dtype() == DType::Float32, "sum_to: expected a float32 tensor, got ",
        dtype_name(g.dtype()));
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
    Tensor e = Tensor::uninitialized(gshape, DType::Float32, gg.device());
    copy_into(e, gg);
    return {e};
  });
}

}  // namespace sg
