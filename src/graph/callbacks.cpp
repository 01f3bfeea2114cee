#include "graph/callbacks.h"

#include "autograd/grad_mode.h"
#include "autograd/record.h"
#include "core/copy.h"
#include "core/error.h"
#include "ops/ops.h"

namespace sg::graph {

namespace {

CallbackHost* g_host = nullptr;

// The gradients of the inputs from `vjp`, checked against the inputs' shapes. `needs[i]`: whether
// input i requires grad (the saved inputs are detached copies).
std::vector<Tensor> call_vjp(const std::string& name, const VjpFn& vjp, const std::vector<Tensor>& inputs,
                             const std::vector<bool>& needs, const std::vector<Tensor>& outputs,
                             const std::vector<Tensor>& grad_outputs) {
  if (!vjp)
    fail("jsCall: cannot differentiate through callback ", name,
         ": it has no vjp (pass { vjp: (residuals, gradOutputs) => gradInputs } in the options of sg.jsCall, "
         "or detach its inputs)");
  std::vector<Tensor> grads = vjp(inputs, outputs, grad_outputs);
  check(grads.size() == inputs.size(), "jsCall: the vjp of callback ", name, " returned ", grads.size(),
        " gradients for ", inputs.size(), " tensor inputs");
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!grads[i].defined() || !needs[i]) {
      grads[i] = Tensor();
      continue;
    }
    check(grads[i].shape() == inputs[i].shape() && is_floating(grads[i].dtype()), "jsCall: the vjp of callback ",
          name, " returned a gradient of shape ", grads[i].shape(), " (", dtype_name(grads[i].dtype()),
          ") for input ", i, " of shape ", inputs[i].shape(), " (", dtype_name(inputs[i].dtype()), ")");
    // A floating gradient of another dtype arrives in the input's, as every op's does (PyTorch's
    // validate_outputs casts a custom Function's gradients the same way).
    if (grads[i].dtype() != inputs[i].dtype()) grads[i] = cast(grads[i], inputs[i].dtype());
  }
  return grads;
}

std::vector<Tensor> detached(const std::vector<Tensor>& ts) {
  std::vector<Tensor> out;
  for (const Tensor& t : ts) out.push_back(t.defined() ? t.detach() : t);
  return out;
}

}  // namespace

CallbackHost* set_callback_host(CallbackHost* host) {
  CallbackHost* prev = g_host;
  g_host = host;
  return prev;
}

CallbackHost* callback_host() { return g_host; }

bool callback_needs_grad(const std::vector<Tensor>& inputs) { return grad_enabled() && any_requires_grad(inputs); }

std::vector<Tensor> link_callback(int id, const std::vector<Tensor>& inputs, std::vector<Tensor> outputs) {
  if (!callback_needs_grad(inputs)) return link_callback(std::string(), nullptr, inputs, std::move(outputs));
  CallbackHost* host = g_host;
  const std::string name = host ? host->describe(id) : "#" + std::to_string(id);
  VjpFn vjp;
  if (host && host->has_vjp(id))
    vjp = [host, id](const std::vector<Tensor>& in, const std::vector<Tensor>& out, const std::vector<Tensor>& g) {
      return host->vjp(id, in, out, g);
    };
  return link_callback(name, std::move(vjp), inputs, std::move(outputs));
}

std::vector<Tensor> link_callback(const std::string& name, VjpFn vjp, const std::vector<Tensor>& inputs,
                                  std::vector<Tensor> outputs) {
  // The callback is a black box: whatever graph its results carry from the ops it ran is cut.
  for (Tensor& o : outputs)
    if (o.defined()) o = o.detach();
  if (!callback_needs_grad(inputs)) return outputs;
  std::vector<size_t> floats;  // the outputs that carry gradients: every floating dtype
  for (size_t k = 0; k < outputs.size(); ++k)
    if (is_floating(outputs[k].dtype())) floats.push_back(k);
  if (floats.empty()) return outputs;
  // The flat tensor's dtype: one that holds every floating output exactly (float16 and bfloat16
  // meet in float32, anything with float64 in float64), so that an output of another dtype is a
  // cast of its part, and its gradient cast back is the one it got.
  DType flat_dtype = outputs[floats[0]].dtype();
  for (size_t k : floats) flat_dtype = promote_types(flat_dtype, outputs[k].dtype());
  const std::vector<Tensor> saved_in = detached(inputs), saved_out = outputs;
  std::vector<bool> needs;
  for (const Tensor& t : inputs) needs.push_back(t.defined() && t.requires_grad());
  // One node for every output, so that the vjp runs once: the floating outputs are packed into
  // one flat tensor (the node's result) and handed out as views of it (casts where their dtype is
  // not the flat one's), whose gradients the engine sums into the flat gradient before the node runs.
  std::vector<Tensor> flat_parts;
  for (size_t k : floats) {
    const Tensor part = reshape(outputs[k], {outputs[k].numel()});
    flat_parts.push_back(part.dtype() == flat_dtype ? part : cast(part, flat_dtype));
  }
  const Tensor flat = floats.size() == 1 ? contiguous(flat_parts[0]) : cat(flat_parts, 0);
  std::vector<Shape> shapes;
  std::vector<DType> dtypes;
  for (size_t k : floats) {
    shapes.push_back(outputs[k].shape());
    dtypes.push_back(outputs[k].dtype());
  }
  const size_t n_out = outputs.size();
  const Tensor linked = record("jsCall", flat, inputs,
                               [name, vjp, saved_in, needs, saved_out, floats, shapes, dtypes, n_out](const Tensor& g) {
                                 std::vector<Tensor> grad_outputs(n_out);
                                 int64_t at = 0;
                                 for (size_t j = 0; j < floats.size(); ++j) {
                                   const int64_t n = numel_of(shapes[j]);
                                   Tensor gj = contiguous(reshape(narrow(g, 0, at, n), shapes[j]));
                                   grad_outputs[floats[j]] = gj.dtype() == dtypes[j] ? gj : cast(gj, dtypes[j]);
                                   at += n;
                                 }
                                 return call_vjp(name, vjp, saved_in, needs, saved_out, grad_outputs);
                               });
  int64_t at = 0;
  for (size_t j = 0; j < floats.size(); ++j) {
    const int64_t n = numel_of(shapes[j]);
    const Tensor part = reshape(narrow(linked, 0, at, n), shapes[j]);
    outputs[floats[j]] = part.dtype() == dtypes[j] ? part : cast(part, dtypes[j]);
    at += n;
  }
  return outputs;
}

}  // namespace sg::graph
