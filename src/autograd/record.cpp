#include "autograd/record.h"

#include "autograd/grad_mode.h"
#include "core/copy.h"
#include "ops/registry.h"

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

// Ops record in every floating dtype: their gradient formulas compute in float32 and float64,
bool recording(const Tensor& out, const std::vector<Tensor>& inputs) {
  // and float16/bfloat16 results are those of the casts that widen and narrow around an op
  // (ops/dtype_widening.h) and the views of such tensors, whose formulas work in any dtype.
  return grad_enabled() && is_floating(out.dtype()) && any_requires_grad(inputs);
}

// g in dtype `to`: recorded (the op table's differentiable cast) while a gradient is being
// differentiated, a plain copy otherwise.
Tensor grad_in(const Tensor& g, DType to) {
  if (!g.defined() || g.dtype() == to || !is_floating(g.dtype())) return g;
  if (!grad_enabled()) return contiguous_copy(g, to);
  static const OpInfo* const cast_op = find_op("cast");
  Attrs attrs;
  attrs.set("dtype", std::string(dtype_name(to)));
  return run_op("cast", *cast_op, {g}, attrs)[0];
}

// The dtype each input's gradient must have when it differs from the result's (a float32 input of
// a float64 op: PyTorch's engine casts the gradient to the input's dtype); empty when none does,
// which is every op of one dtype, so the common case wraps nothing.
thread_local SaveOriginals* innermost_scope = nullptr;

std::vector<DType> cast_back(const Tensor& out, const std::vector<Tensor>& inputs) {
  bool any = false;
  for (const Tensor& t : inputs) any |= t.defined() && t.requires_grad() && t.dtype() != out.dtype();
  if (!any) return {};
  std::vector<DType> to;
  for (const Tensor& t : inputs) to.push_back(t.defined() ? t.dtype() : out.dtype());
  return to;
}

void cast_grads(std::vector<Tensor>& grads, const std::vector<DType>& to) {
  for (size_t i = 0; i < grads.size() && i < to.size(); ++i) grads[i] = grad_in(grads[i], to[i]);
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
  if (std::vector<DType> to = cast_back(out, inputs); !to.empty())
    fn = [fn = std::move(fn), to](const Tensor& g) {
      std::vector<Tensor> grads = fn(g);
      cast_grads(grads, to);
      return grads;
    };
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
    if (const Tensor* original = SaveOriginals::original_of(t); original && !t.same(out)) {
      kept.push_back({*original, original->impl()->storage->version(), false, true, t.dtype()});
      continue;
    }
    kept.push_back({t, t.impl()->storage->version(), t.same(out)});
  }
  if (std::vector<DType> to = cast_back(out, inputs); !to.empty())
    fn = [fn = std::move(fn), to](Tensor& g, SavedTensors& saved) {
      std::vector<Tensor> grads = fn(g, saved);
      cast_grads(grads, to);
      return grads;
    };
  return attach(out, inputs, std::make_shared<Node>(name, edges_to(inputs), std::move(kept), std::move(fn)));
}

Tensor widen_saved(const Tensor& original, DType to) { return grad_in(original, to); }

SaveOriginals::SaveOriginals() : outer_(innermost_scope) { innermost_scope = this; }
SaveOriginals::~SaveOriginals() { innermost_scope = outer_; }

void SaveOriginals::add(const Tensor& widened, const Tensor& original) { pairs_.emplace_back(widened.impl(), original); }

const Tensor* SaveOriginals::original_of(const Tensor& t) {
  for (const SaveOriginals* scope = innermost_scope; scope; scope = scope->outer_)
    for (const auto& [impl, original] : scope->pairs_)
      if (impl == t.impl()) return &original;
  return nullptr;
}

}  // namespace sg
