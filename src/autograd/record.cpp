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

bool recording_backward(std::initializer_list<Tensor> tensors) {
  return grad_enabled() && any_requires_grad(tensors);
}

namespace {

bool recording(const Tensor& out, const std::vector<Tensor>& inputs) {
  return grad_enabled() && out.dtype() == DType::Float32 && any_requires_grad(inputs);
}

std::vector<Edge> edges_to(const std::vector<Tensor>& inputs) {
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
  return next;
}

// The graph alias of `out`. A view of an input (same storage) marks the storage, so that an
// in-place op on it or its base, which would need the other's history rewritten, is refused.
Tensor attach(const Tensor& out, const std::vector<Tensor>& inputs, std::shared_ptr<Node> node) {
  for (const Tensor& t : inputs)
    if (t.defined() && t.impl()->storage == out.impl()->storage) out.impl()->storage->set_graph_view();
  Tensor result = out.detach();
  result.impl()->requires_grad = true;
  result.impl()->grad_fn = std::move(node);
  return result;
}

}  // namespace

Tensor record(const char* name, const Tensor& out, const std::vector<Tensor>& inputs, BackwardFn fn) {
  if (!recording(out, inputs)) return out;
  return attach(out, inputs, std::make_shared<Node>(name, edges_to(inputs), std::move(fn)));
}

Tensor record(const char* name, const Tensor& out, const std::vector<Tensor>& inputs, const SavedTensors& saved,
              SavedBackwardFn fn) {
  if (!recording(out, inputs)) return out;
  std::vector<SavedVariable> kept;
  kept.reserve(saved.size());
  for (const Tensor& t : saved) {
    if (!t.defined()) {
      kept.emplace_back();
      continue;
    }
    kept.push_back({t, t.impl()->storage->version(), t.same(out)});
  }
  return attach(out, inputs, std::make_shared<Node>(name, edges_to(inputs), std::move(kept), std::move(fn)));
}

}  // namespace sg
