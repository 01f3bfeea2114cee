#include "autograd/composite.h"

#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "autograd/node.h"

namespace sg {

namespace {

// x again, as the output of an identity node fed by x (its storage is shared, but this is no
// user-visible view: nothing marks the storage).
Tensor alias_node(const Tensor& x) {
  Edge e;
  if (x.is_leaf()) e.leaf = x.ptr();
  else e.node = x.grad_fn();
  auto impl = std::make_shared<TensorImpl>(*x.detach().impl());
  impl->requires_grad = true;
  impl->grad_fn = std::make_shared<Node>("alias", std::vector<Edge>{std::move(e)},
                                         [](const Tensor& g) { return std::vector<Tensor>{g}; });
  return Tensor(std::move(impl));
}

}  // namespace

std::vector<Tensor> composite_vjp(const Tensor& g, const std::vector<Tensor>& inputs, const CompositeFn& f) {
  std::vector<Tensor> proxies, wanted;
  std::vector<int> slot;
  for (const Tensor& x : inputs) {
    const bool differentiable = x.defined() && x.requires_grad();
    slot.push_back(differentiable ? int(wanted.size()) : -1);
    proxies.push_back(differentiable ? alias_node(x) : x);
    if (differentiable) wanted.push_back(proxies.back());
  }
  std::vector<Tensor> out(inputs.size());
  if (wanted.empty()) return out;
  EnableGradGuard recording;
  const Tensor y = f(proxies);
  if (!y.requires_grad()) return out;
  const std::vector<Tensor> grads = compute_grads(y, g, wanted, /*retain_graph=*/true, /*create_graph=*/true);
  for (size_t i = 0; i < inputs.size(); ++i)
    if (slot[i] >= 0) out[i] = grads[size_t(slot[i])];
  return out;
}

}  // namespace sg
