#include "graph/fused_autograd.h"

#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "autograd/record.h"

namespace sg::graph {

namespace {

// d(output k)/d(inputs) · g, by running the members again from detached copies of the inputs.
std::vector<Tensor> backward_of(const FusedProgram& p, const std::vector<Tensor>& inputs, size_t k,
                                const Tensor& g) {
  GradModeGuard on(true);  // the engine runs backward formulas without recording
  std::vector<Tensor> leaves, wrt;
  std::vector<size_t> wrt_index;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Tensor leaf = inputs[i].detach();
    if (inputs[i].requires_grad()) {
      leaf.set_requires_grad(true);
      wrt.push_back(leaf);
      wrt_index.push_back(i);
    }
    leaves.push_back(leaf);
  }
  std::vector<Tensor> grads(inputs.size());
  const Tensor out = run_members(p, leaves)[k];
  if (!out.requires_grad()) return grads;  // output k does not depend on a differentiable input
  std::vector<Tensor> got = compute_grads(out, g, wrt, false);
  for (size_t j = 0; j < wrt.size(); ++j) grads[wrt_index[j]] = got[j];
  return grads;
}

}  // namespace

std::vector<Tensor> attach_fused_backward(const std::shared_ptr<const FusedProgram>& p,
                                          const std::vector<Tensor>& inputs, std::vector<Tensor> outputs) {
  if (!grad_enabled() || !any_requires_grad(inputs)) return outputs;
  for (size_t k = 0; k < outputs.size(); ++k) {
    outputs[k] = record("fused", outputs[k], inputs,
                        [p, inputs, k](const Tensor& g) { return backward_of(*p, inputs, k, g); });
  }
  return outputs;
}

}  // namespace sg::graph
