// Ops with effects besides their outputs, so that what the JS layer does to autograd state and
// to existing tensors inside a compiled function is recorded like any op and replayed in order:
// reading and setting .grad, backward, torch.autograd.grad (computeGrads), detach, requiresGrad,
// retainGrad, the grad mode (sg.noGrad), and addInPlace (a counter such as BatchNorm's
// num_batches_tracked).
//
// Their trace forms (OpInfo::trace) leave no trace behind (graph/tracer.h): backward does not
// run the engine (no hooks, no vjp callbacks at trace time) but gives every leaf it reaches a
// placeholder gradient of the right shape, journaled; setGrad, requiresGrad and retainGrad act
// and journal the previous state.
#include <unordered_set>

#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "core/copy.h"
#include "autograd/node.h"
#include "core/error.h"
#include "graph/tracer.h"
#include "ops/ops.h"
#include "ops/registry.h"

namespace sg {

namespace {

using Inputs = std::vector<Tensor>;
using Outputs = std::vector<Tensor>;
using graph::Tracer;

Tensor opt(const Inputs& in, size_t i) { return i < in.size() ? in[i] : Tensor(); }

void require(const char* op, const Inputs& in, size_t count) {
  for (size_t i = 0; i < count; ++i)
    if (!in[i].defined()) fail(op, ": tensor argument ", i, " is null");
}

Tracer& tracer(const char* op) {
  Tracer* t = Tracer::active();
  check(t != nullptr, op, ": internal error, traced without a tracer");
  return *t;
}

// Sets impl's .grad to g for the rest of the trace.
void set_grad_journaled(const std::shared_ptr<TensorImpl>& impl, std::shared_ptr<TensorImpl> g) {
  tracer("setGrad").journal([impl, old = impl->grad] { impl->grad = old; });
  impl->grad = std::move(g);
}

// A traced backward replays the recorded graph's formulas once; recording them again (double
// backward) inside a compiled function is not supported yet: a clear error, not a wrong graph.
void no_create_graph_in_trace(const char* op, const Attrs& a) {
  check(!a.flag(op, "createGraph", false), op,
        ": createGraph (double backward) is not supported inside sg.compile yet; take higher-order "
        "gradients eagerly, outside the compiled function");
}

// What backward checks before running (engine.cpp's seed_gradient), with its messages.
void check_backward_root(const Tensor& root, const Tensor& grad) {
  check(root.requires_grad(), "backward: the tensor does not require grad and has no grad_fn");
  if (!grad.defined()) {
    check(root.numel() == 1, "backward: a gradient must be given for a non-scalar output of shape ", root.shape(),
          " (grad can be implicitly created only for one-element outputs)");
  } else {
    check(grad.shape() == root.shape(), "backward: expected a gradient of shape ", root.shape(), ", got ",
          grad.shape());
  }
}

// Backward while tracing: every leaf the graph of `root` reaches, and every retained non-leaf,
// gets a zero gradient of its shape and dtype (journaled), as if the engine had run: later
// traced ops on .grad (an optimizer's update of a float64 weight) then see the dtype they will get.
void placeholder_backward(const Tensor& root) {
  auto give = [](const std::shared_ptr<TensorImpl>& impl) {
    set_grad_journaled(impl, zeros(impl->shape, impl->dtype, impl->storage->device()).ptr());
  };
  if (root.is_leaf()) return give(root.ptr());
  std::unordered_set<Node*> seen{root.grad_fn().get()};
  std::vector<Node*> stack{root.grad_fn().get()};
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    if (auto out = n->retained.lock()) give(out);
    for (const Edge& e : n->next) {
      if (e.leaf) give(e.leaf);
      if (e.node && seen.insert(e.node.get()).second) stack.push_back(e.node.get());
    }
  }
}

void add(std::map<std::string, OpInfo>& t, const char* name, int min_inputs, int max_inputs, OpFn fn,
         OpFn trace = nullptr) {
  OpInfo info{min_inputs, max_inputs, std::move(fn)};
  info.impure = true;
  info.any_device = true;
  // Autograd state, not arithmetic: every dtype (what they compute goes through gated ops).
  info.any_dtype = true;
  info.trace = std::move(trace);
  t.emplace(name, std::move(info));
}

}  // namespace

void register_effect_ops(std::map<std::string, OpInfo>& t) {
  // [t] → [t.grad] (undefined when there is none).
  add(t, "grad", 1, 1, [](const Inputs& in, const Attrs&) -> Outputs {
    require("grad", in, 1);
    return {in[0].grad()};
  });

  // [t, g | null]: t.grad = g (null clears it).
  add(
      t, "setGrad", 1, 2,
      [](const Inputs& in, const Attrs&) -> Outputs {
        require("setGrad", in, 1);
        Tensor(in[0]).set_grad(opt(in, 1));
        return {};
      },
      [](const Inputs& in, const Attrs&) -> Outputs {
        require("setGrad", in, 1);
        const std::shared_ptr<TensorImpl> old = in[0].impl()->grad;
        Tensor(in[0]).set_grad(opt(in, 1));  // checks shape and dtype
        std::shared_ptr<TensorImpl> now = in[0].impl()->grad;
        in[0].impl()->grad = old;
        set_grad_journaled(in[0].ptr(), std::move(now));
        return {};
      });

  // [root, grad | null] { retainGraph, createGraph }: accumulates into the .grad of every leaf.
  add(
      t, "backward", 1, 2,
      [](const Inputs& in, const Attrs& a) -> Outputs {
        require("backward", in, 1);
        in[0].backward(opt(in, 1), a.flag("backward", "retainGraph", false), a.flag("backward", "createGraph", false));
        return {};
      },
      [](const Inputs& in, const Attrs& a) -> Outputs {
        require("backward", in, 1);
        a.flag("backward", "retainGraph", false);  // checks the type
        no_create_graph_in_trace("backward", a);
        check_backward_root(in[0], opt(in, 1));
        placeholder_backward(in[0]);
        return {};
      });

  // [root, grad | null, inputs...] { retainGraph, createGraph } → d root / d inputs (torch.autograd.grad).
  add(
      t, "computeGrads", 3, -1,
      [](const Inputs& in, const Attrs& a) -> Outputs {
        require("computeGrads", in, 1);
        const Inputs wrt(in.begin() + 2, in.end());
        require("computeGrads", wrt, wrt.size());
        return compute_grads(in[0], in[1], wrt, a.flag("computeGrads", "retainGraph", false),
                             a.flag("computeGrads", "createGraph", false));
      },
      [](const Inputs& in, const Attrs& a) -> Outputs {
        require("computeGrads", in, 1);
        a.flag("computeGrads", "retainGraph", false);
        no_create_graph_in_trace("computeGrads", a);
        check_backward_root(in[0], in[1]);
        Outputs out;
        for (size_t i = 2; i < in.size(); ++i) {
          require("computeGrads", {in[i]}, 1);
          check(in[i].requires_grad(), "grad: every input must require grad");
          out.push_back(zeros(in[i].shape(), in[i].dtype(), in[i].device()));  // the gradient has its input's dtype
        }
        return out;
      });

  // [t] { requiresGrad }: sets the flag (leaves; turning it on needs float32).
  add(
      t, "setRequiresGrad", 1, 1,
      [](const Inputs& in, const Attrs& a) -> Outputs {
        require("setRequiresGrad", in, 1);
        Tensor(in[0]).set_requires_grad(a.flag("setRequiresGrad", "requiresGrad", true));
        return {};
      },
      [](const Inputs& in, const Attrs& a) -> Outputs {
        require("setRequiresGrad", in, 1);
        const bool old = in[0].requires_grad();
        Tensor(in[0]).set_requires_grad(a.flag("setRequiresGrad", "requiresGrad", true));
        tracer("setRequiresGrad").journal([impl = in[0].ptr(), old] { impl->requires_grad = old; });
        return {};
      });

  // [t]: keep .grad of a non-leaf after backward.
  add(
      t, "retainGrad", 1, 1,
      [](const Inputs& in, const Attrs&) -> Outputs {
        require("retainGrad", in, 1);
        Tensor(in[0]).retain_grad();
        return {};
      },
      [](const Inputs& in, const Attrs&) -> Outputs {
        require("retainGrad", in, 1);
        if (!in[0].is_leaf()) {
          tracer("retainGrad").journal([node = in[0].grad_fn(), old = in[0].grad_fn()->retained] { node->retained = old; });
        }
        Tensor(in[0]).retain_grad();
        return {};
      });

  // [] { enabled }: turns gradient recording on or off (sg.noGrad, enableGrad).
  add(
      t, "setGradEnabled", 0, 0,
      [](const Inputs&, const Attrs& a) -> Outputs {
        set_grad_enabled(a.flag("setGradEnabled", "enabled", true));
        return {};
      },
      [](const Inputs&, const Attrs& a) -> Outputs {
        const bool old = grad_enabled();
        set_grad_enabled(a.flag("setGradEnabled", "enabled", true));
        tracer("setGradEnabled").journal([old] { set_grad_enabled(old); });
        return {};
      });

  // [t] → a new leaf sharing t's data, outside the graph. Pure: nothing else changes.
  add(t, "detach", 1, 1, [](const Inputs& in, const Attrs&) -> Outputs {
    require("detach", in, 1);
    return {in[0].detach()};
  });
  t.at("detach").impure = false;

  // [t] { value }: t += value in place (float32 or int32), outside autograd. The tracer saves t
  // and writes it back when the trace ends (OpInfo::mutates).
  t.emplace("addInPlace", OpInfo{1, 1, [](const Inputs& in, const Attrs& a) -> Outputs {
    require("addInPlace", in, 1);
    const Tensor& x = in[0];
    check(x.dtype() != DType::Bool, "addInPlace: expected a float32 or int32 tensor, got bool");
    NoGradGuard no_grad;
    copy_into(x, add(x, scalar_tensor(a.number("addInPlace", "value"), x.dtype())));
    return {};
  }});
  t.at("addInPlace").mutates = [](const Inputs&, const Attrs&) { return std::vector<size_t>{0}; };
  // Its work is ops (add, a copy), which run on x's device themselves.
  t.at("addInPlace").any_device = true;
}

}  // namespace sg
