#include "autograd/engine.h"

#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "core/copy.h"
#include "core/error.h"
#include "kernels/backend.h"
#include "ops/ops.h"
#include "ops/registry.h"

namespace sg {

namespace {

// a + b through the op table's dispatch (ops/registry.cpp run_op), which computes each dtype
// where it has kernels (float16/bfloat16 in float32, rounded once on the store).
Tensor add_any_dtype(const Tensor& a, const Tensor& b) {
  static const OpInfo* const add_op = find_op("add");
  return run_op("add", *add_op, {a, b}, Attrs{})[0];
}

// a + b for two float32 tensors of one shape (gradients meeting at a node or leaf), into a new
// contiguous tensor, on their device.
Tensor add_same_shape(const Tensor& a, const Tensor& b) {
  check(a.device() == b.device(), "backward: gradients on two devices (", device_name(a.device()), " and ",
        device_name(b.device()), ") meet at one tensor");
  // Gradients of another floating dtype (float16, bfloat16, float64 tensors) add as the op table
  // adds them: in their own dtype, through the one dispatch point that knows each dtype's kernels.
  if (a.dtype() != DType::Float32 || b.dtype() != DType::Float32) return add_any_dtype(a, b);
  const Tensor ac = as_contiguous(a, DType::Float32), bc = as_contiguous(b, DType::Float32);
  Tensor out = Tensor::uninitialized(a.shape(), DType::Float32, a.device());
  const int64_t n = out.numel();
  if (n == 0) return out;
  const BroadcastPlan plan{{n}, {1}, {1}};
  backend_for(a.device()).binary_f32(Binary::Add, plan, ac.dev_f32(), bc.dev_f32(), out.dev_f32());
  return out;
}

Tensor run_hooks(const std::vector<Hook>& hooks, Tensor grad) {
  for (const Hook& h : hooks) {
    Tensor replaced = h(grad);
    if (replaced.defined()) {
      check(replaced.shape() == grad.shape(), "hook: expected a gradient of shape ", grad.shape(),
            ", got ", replaced.shape());
      grad = replaced;
    }
  }
  return grad;
}

// A gradient kept past the backward call gets a buffer of its own: backward formulas pass
// one tensor to several inputs (add), and an in-place update of one .grad (clipGradNorm_)
// must not reach another.
// A gradient still arriving from a device (pending, see core/device.h) is a fresh tensor
// nothing else shares: it is kept as it is, since it cannot be copied before it lands.
// A gradient nothing else holds (the only reference to its TensorImpl, the only tensor on its
// storage, which it covers exactly: a formula's fresh result) already is a buffer of its own:
// kept as it is, which saves a copy of every parameter's gradient on every backward.
Tensor owned(const Tensor& g) {
  if (g.impl()->storage->pending()) return g;
  const TensorImpl& t = *g.impl();
  const bool sole = g.ptr().use_count() == 1 && t.storage.use_count() == 1 && g.is_contiguous() && g.offset() == 0 &&
                    t.storage->nbytes() == static_cast<size_t>(g.numel()) * dtype_size(g.dtype());
  if (sole) return g;
  return contiguous_copy(g);  // in its own dtype: a float16 parameter's .grad is float16, as PyTorch's
}

struct Backward {
  Backward(bool retain, bool create) : retain_graph(retain), create_graph(create) {}

  bool retain_graph;
  // Build a graph of the gradients (backward with create_graph): formulas run with grad mode on,
  // and sums go through differentiable ops.
  bool create_graph;
  // compute_grads mode: capture instead of accumulating.
  bool capture = false;
  std::unordered_map<const void*, Tensor> captured;  // keyed by Node* or TensorImpl*
  std::unordered_set<const void*> wanted;

  Tensor sum(const Tensor& a, const Tensor& b) const {
    if (create_graph && (a.dtype() != DType::Float32 || b.dtype() != DType::Float32))
      return add_any_dtype(a, b);  // recorded, in the gradients' dtype
    return create_graph ? add(a, b) : add_same_shape(a, b);
  }
  // A gradient kept past the backward call (see owned()); with a graph, a recorded clone.
  Tensor kept(const Tensor& g) const { return create_graph ? clone(g) : owned(g); }

  // g by value and moved in, so that a gradient only the formula made reaches owned() unshared.
  void to_leaf(const std::shared_ptr<TensorImpl>& leaf, Tensor g) {
    g = run_hooks(leaf->hooks, std::move(g));
    if (capture) {
      if (wanted.count(leaf.get())) accumulate(captured[leaf.get()], g);
      return;
    }
    Tensor holder(leaf);
    check(g.shape() == holder.shape(), "backward: internal error, gradient of shape ", g.shape(),
          " for a leaf of shape ", holder.shape());
    leaf->grad = leaf->grad ? sum(Tensor(leaf->grad), g).ptr() : kept(g).ptr();
  }

  void accumulate(Tensor& slot, const Tensor& g) const { slot = slot.defined() ? sum(slot, g) : g; }

  // compute_grads: the nodes worth running are those from which a wanted tensor is reached
  // (PyTorch's autograd.grad does not run the rest of the graph either).
  std::unordered_set<Node*> useful;
  void find_useful(Node* root) {
    // Post-order over the graph: a node is useful when one of its edges reaches a wanted leaf or
    // a wanted or useful node.
    std::unordered_set<Node*> seen{root};
    std::vector<std::pair<Node*, size_t>> stack{{root, 0}};
    while (!stack.empty()) {
      auto& [n, i] = stack.back();
      if (i < n->next.size()) {
        Node* child = n->next[i++].node.get();
        if (child && seen.insert(child).second) stack.push_back({child, 0});
        continue;
      }
      bool reaches = false;
      for (const Edge& e : n->next)
        reaches = reaches || (e.leaf && wanted.count(e.leaf.get())) ||
                  (e.node && (wanted.count(e.node.get()) || useful.count(e.node.get())));
      if (reaches) useful.insert(n);
      stack.pop_back();
    }
  }

  void run(const Tensor& root, Tensor grad) {
    NoGradGuard no_grad;
    std::optional<EnableGradGuard> with_graph;
    if (create_graph) with_graph.emplace();
    if (root.is_leaf()) {
      to_leaf(root.ptr(), grad);
      return;
    }
    if (capture) find_useful(root.grad_fn().get());
    // Count, for each reachable node, how many edges lead into it.
    std::unordered_map<Node*, int> deps;
    std::vector<Node*> stack{root.grad_fn().get()};
    deps[root.grad_fn().get()] = 0;
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      for (const Edge& e : n->next) {
        if (!e.node) continue;
        auto [it, fresh] = deps.try_emplace(e.node.get(), 0);
        it->second += 1;
        if (fresh) stack.push_back(e.node.get());
      }
    }
    std::unordered_map<Node*, Tensor> pending;
    pending[root.grad_fn().get()] = grad;
    std::vector<std::shared_ptr<Node>> ready{root.grad_fn()};
    while (!ready.empty()) {
      std::shared_ptr<Node> node = ready.back();
      ready.pop_back();
      auto slot = pending.find(node.get());
      if (slot == pending.end() || (capture && !useful.count(node.get()))) {
        // Every path into this node delivered no gradient (or, for compute_grads, nothing wanted
        // lies below it): it does not run, but the nodes below it must still learn that this
        // path is done.
        if (slot != pending.end()) {
          Tensor g = run_hooks(node->hooks, slot->second);
          pending.erase(slot);
          if (wanted.count(node.get())) accumulate(captured[node.get()], g);
        }
        for (const Edge& e : node->next)
          if (e.node && --deps[e.node.get()] == 0) ready.push_back(e.node);
        continue;
      }
      Tensor g = run_hooks(node->hooks, slot->second);
      pending.erase(slot);
      if (auto out = node->retained.lock(); out && !capture) out->grad = kept(g).ptr();
      if (capture && wanted.count(node.get())) accumulate(captured[node.get()], g);
      if (node->released())
        fail("backward: trying to backward through the graph a second time (through '", node->name,
             "'); its saved tensors were freed by the first backward. Pass { retainGraph: true } "
             "to the first backward to keep them");
      // The formula gets the engine's only reference to g (and, on the node's last run, its saved
      // tensors): it may drop them before allocating its results (autograd/node.h).
      std::vector<Tensor> grads = node->apply(std::move(g), node, !retain_graph);
      check(grads.size() == node->next.size(), "backward: internal error, '", node->name,
            "' returned ", grads.size(), " gradients for ", node->next.size(), " inputs");
      // A node runs once per backward: without retain_graph its saved tensors go now (as in
      // PyTorch), so that activations nothing else holds are freed while backward goes on.
      if (!retain_graph) node->release();
      for (size_t i = 0; i < grads.size(); ++i) {
        const Edge& e = node->next[i];
        if (e.leaf) {
          if (grads[i].defined()) to_leaf(e.leaf, std::move(grads[i]));
          continue;
        }
        if (!e.node) continue;
        // The edge counts as delivered even without a gradient, so the node runs (or is
        // skipped, when nothing reached it) once every path into it is done.
        if (grads[i].defined()) accumulate(pending[e.node.get()], grads[i]);
        if (--deps[e.node.get()] == 0) ready.push_back(e.node);
      }
    }
  }
};

// A float32 tensor of `shape` on `d` with every element v.
Tensor filled(const Shape& shape, double v, Device d) {
  Tensor t = Tensor::uninitialized(shape, DType::Float32, d);
  if (t.numel() > 0) backend_for(d).fill(DType::Float32, v, t.dev_raw(), t.numel());
  return t;
}

// The seed of a root of another floating dtype is in that dtype (ones_like(root), as PyTorch).
Tensor in_dtype(const Tensor& t, DType dtype) {
  return is_floating(dtype) && dtype != t.dtype() ? contiguous_copy(t, dtype) : t;
}

// The gradient backward starts from. With create_graph a given one keeps its own graph (a
// gradient may itself depend on tensors that require grad, as in PyTorch).
Tensor seed_gradient(const Tensor& root, const Tensor& grad_output, bool create_graph) {
  check(root.requires_grad(), "backward: the tensor does not require grad and has no grad_fn");
  if (!grad_output.defined()) {
    check(root.numel() == 1, "backward: a gradient must be given for a non-scalar output of shape ",
          root.shape(), " (grad can be implicitly created only for one-element outputs)");
    return in_dtype(filled(root.shape(), 1.0, root.device()), root.dtype());
  }
  check(grad_output.shape() == root.shape(), "backward: expected a gradient of shape ", root.shape(),
        ", got ", grad_output.shape());
  if (grad_output.device() != root.device()) {
    // A number given for a one-element root on a device (backward(1.0) from JS) is a CPU scalar.
    check(grad_output.device() == Device::CPU && grad_output.numel() == 1, "backward: expected a gradient on ",
          device_name(root.device()), ", got one on ", device_name(grad_output.device()));
    return in_dtype(filled(root.shape(), grad_output.item(), root.device()), root.dtype());
  }
  if (create_graph && grad_output.requires_grad()) return contiguous(grad_output);
  // A gradient of another dtype is cast to the root's, as PyTorch's validate_outputs does.
  return as_contiguous(grad_output, is_floating(root.dtype()) ? root.dtype() : DType::Float32);
}

}  // namespace

void run_backward(const Tensor& root, const Tensor& grad_output, bool retain_graph, bool create_graph) {
  Backward b(retain_graph, create_graph);
  b.run(root, seed_gradient(root, grad_output, create_graph));
}

std::vector<Tensor> compute_grads(const Tensor& root, const Tensor& grad_output,
                                  const std::vector<Tensor>& inputs, bool retain_graph, bool create_graph) {
  Backward b(retain_graph, create_graph);
  b.capture = true;
  for (const Tensor& t : inputs) {
    check(t.requires_grad(), "grad: every input must require grad");
    b.wanted.insert(t.is_leaf() ? static_cast<const void*>(t.impl())
                                : static_cast<const void*>(t.grad_fn().get()));
  }
  b.run(root, seed_gradient(root, grad_output, create_graph));
  std::vector<Tensor> out;
  for (const Tensor& t : inputs) {
    const void* key = t.is_leaf() ? static_cast<const void*>(t.impl())
                                  : static_cast<const void*>(t.grad_fn().get());
    auto it = b.captured.find(key);
    out.push_back(it != b.captured.end() ? it->second : Tensor::empty(t.shape(), t.dtype(), t.device()));
  }
  return out;
}

}  // namespace sg
