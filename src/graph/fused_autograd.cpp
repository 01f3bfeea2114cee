#include "graph/fused_autograd.h"

#include <atomic>
#include <map>
#include <mutex>
#include <optional>

#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "autograd/record.h"
#include "graph/fused_backward.h"
#include "ops/ops.h"

namespace sg {
namespace graph {

// Per program: its fused gradients by which inputs are wanted and broadcast (nullopt where a
// member has no formula), and how its backward runs went.
struct FusedGradientCache {
  std::mutex mutex;
  std::map<std::vector<uint8_t>, std::optional<FusedGradient>> by_key;
  std::atomic<int64_t> fused{0}, replayed{0};
};

namespace {

using Grads = std::vector<Tensor>;

FusedGradientCache& cache_of(const FusedProgram& p) {
  static std::mutex make_cache;
  std::lock_guard<std::mutex> lock(make_cache);
  if (!p.gradient_cache) p.gradient_cache = std::make_shared<FusedGradientCache>();
  return *p.gradient_cache;
}

// The program's fused gradient for these inputs, made on first use; nullptr without one.
const FusedGradient* gradient_for(const FusedProgram& p, const std::vector<Tensor>& inputs) {
  std::vector<bool> wanted, broadcast;
  std::vector<uint8_t> key;
  for (const Tensor& t : inputs) {
    wanted.push_back(t.requires_grad());
    broadcast.push_back(t.shape() != p.shape);
    key.push_back(static_cast<uint8_t>(wanted.back() | broadcast.back() << 1));
  }
  FusedGradientCache& cache = cache_of(p);
  std::lock_guard<std::mutex> lock(cache.mutex);
  auto it = cache.by_key.find(key);
  if (it == cache.by_key.end()) it = cache.by_key.emplace(key, fused_gradient(p, wanted, broadcast)).first;
  return it->second ? &*it->second : nullptr;
}

// d(output k)/d(inputs) · g from the members run again, with autograd, on `leaves` (stand-ins
// for the inputs, requiring grad where the inputs do); `create_graph` records the result.
Grads through_members(const FusedProgram& p, const std::vector<Tensor>& leaves, size_t k, const Tensor& g,
                      bool create_graph) {
  std::vector<Tensor> wrt;
  std::vector<size_t> wrt_index;
  for (size_t i = 0; i < leaves.size(); ++i)
    if (leaves[i].requires_grad()) {
      wrt.push_back(leaves[i]);
      wrt_index.push_back(i);
    }
  Grads grads(leaves.size());
  Tensor out;
  {
    GradModeGuard on(true);
    out = run_members(p, leaves)[k];
  }
  if (!out.requires_grad()) return grads;  // output k does not depend on a differentiable input
  const Grads got = compute_grads(out, g, wrt, /*retain_graph=*/create_graph, create_graph);
  for (size_t j = 0; j < wrt.size(); ++j) grads[wrt_index[j]] = got[j];
  return grads;
}

// While the gradient is recorded (createGraph): each input that requires grad is seen through a
// fresh alias, at which the engine stops (the inputs' own history is the outer backward's to
// walk), so the result is a function of the inputs and of g, joined to the graph.
Grads recorded(const FusedProgram& p, const std::vector<Tensor>& inputs, size_t k, const Tensor& g) {
  ++cache_of(p).replayed;
  std::vector<Tensor> leaves;
  for (const Tensor& t : inputs)
    leaves.push_back(t.requires_grad()
                         ? record("fusedInput", t.detach(), {t}, [](const Tensor& gi) -> Grads { return {gi}; })
                         : t);
  return through_members(p, leaves, k, g, true);
}

// From detached copies of the inputs, nothing recorded: the members one by one.
Grads replayed(const FusedProgram& p, const std::vector<Tensor>& inputs, size_t k, const Tensor& g) {
  ++cache_of(p).replayed;
  std::vector<Tensor> leaves;
  for (const Tensor& t : inputs) {
    Tensor leaf = t.detach();
    if (t.requires_grad()) leaf.set_requires_grad(true);
    leaves.push_back(leaf);
  }
  return through_members(p, leaves, k, g, false);
}

// Output k's gradient kernel `program` on the inputs, g and the saved values; nullopt where it
// cannot run (no kernel for it on the device).
std::optional<Grads> fused(const FusedProgram& p, const FusedProgram& program, const std::vector<std::vector<int>>& parts,
                           const std::vector<Tensor>& inputs, const std::vector<Tensor>& saved, const Tensor& g) {
  std::vector<Tensor> args = inputs;
  args.push_back(g);
  args.insert(args.end(), saved.begin(), saved.end());
  if (!can_run_fused(program, args)) return std::nullopt;
  const std::vector<Tensor> outs = run_fused(program, args, {});
  if (outs.size() != program.output_registers.size()) return std::nullopt;
  ++cache_of(p).fused;
  Grads grads(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    for (int part : parts[i]) {
      const Tensor t = sum_to(outs[part], inputs[i].shape());  // the part itself at the program's shape
      grads[i] = grads[i].defined() ? add(grads[i], t) : t;
    }
  }
  return grads;
}

}  // namespace

std::vector<Tensor> run_fused_with_grad(const std::shared_ptr<const FusedProgram>& p, const std::vector<Tensor>& inputs) {
  const size_t n_out = p->output_registers.size();
  const FusedGradient* fg = gradient_for(*p, inputs);
  // The forward that keeps the costly values, else the plain one (the gradient kernels then
  // compute them again), else the ops one by one.
  std::vector<Tensor> outputs, saved;
  bool keeps = false;
  if (fg) {
    outputs = run_fused(fg->forward, inputs, {});
    keeps = outputs.size() == fg->forward.output_registers.size();
    if (keeps) {
      for (int at : fg->saved_at) saved.push_back(outputs[at]);
      outputs.resize(n_out);
    }
  }
  if (!keeps) outputs = run_fused(*p, inputs, {});
  if (outputs.size() != n_out) return run_members(*p, inputs);  // no kernel at all: the ops, recorded
  for (size_t k = 0; k < n_out; ++k) {
    outputs[k] = record("fused", outputs[k], inputs, [p, fg, keeps, inputs, saved, k](const Tensor& g) -> Grads {
      if (grad_enabled()) return recorded(*p, inputs, k, g);  // the engine records: createGraph
      // The kernel reading the saved values, else (a device that cannot bind that many
      // buffers) the one computing them again, else the members one by one.
      if (fg && keeps)
        if (auto grads = fused(*p, fg->gradients[k], fg->parts[k], inputs, saved, g)) return std::move(*grads);
      if (fg)
        if (auto grads = fused(*p, fg->recomputing[k], fg->parts[k], inputs, {}, g)) return std::move(*grads);
      return replayed(*p, inputs, k, g);
    });
  }
  return outputs;
}

FusedBackwardCounts fused_backward_counts(const FusedProgram& p) {
  if (!p.gradient_cache) return {};
  return {p.gradient_cache->fused.load(), p.gradient_cache->replayed.load()};
}

}  // namespace graph
}  // namespace sg
