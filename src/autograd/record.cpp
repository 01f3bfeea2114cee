#include "autograd/record.h"

#include "autograd/grad_mode.h"

namespace sg {

bool any_requires_grad(const std::vector<Tensor>& inputs) {
  for (const Tensor& t : inputs)
    if (t.defined() && t.requires_grad()) return true;
  return false;
}

bool any_requires_grad(std::initializer_list<Tensor> inputs) {
  for (const Tensor& t : inputs)
    if (t.defined() && t.requires_grad()) return true;
  return false;
}

Tensor record(const char* name, const Tensor& out, const std::vector<Tensor>& inputs, BackwardFn fn) {
  if (!grad_enabled() || !any_requires_grad(inputs) || out.dtype() != DType::Float32) return out;
  std::vector<Edge> next;
  next.reserve(inputs.size());
  for (const Tensor& t : inputs) {
    Edge e;
    if (t.defined() && t.requires_grad()) {
      if (t.is_leaf()) e.leaf = t.ptr();
      else e.node = t.grad_fn();
    }
    next.push_back(std::move(e));
  }
  Tensor result = out.detach();
  result.impl()->requires_grad = true;
  result.impl()->grad_fn = std::make_shared<Node>(name, std::move(next), std::move(fn));
  return result;
}

}  // namespace sg
