// JS callbacks (sg.jsCall) and host steps as seen from C++. The functions live in JavaScript;
// C++ knows them by the integer id the host (the bindings) gave them, and asks the host for what
// only JS can do: their name (for messages), their vjp (gradients, called during backward) and
// host steps (called in the middle of a run). All of these run on the thread that made the
// call: JavaScript is never called from a worker.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace sg::graph {

class CallbackHost {
 public:
  virtual ~CallbackHost() = default;
  // "'tokenize' (jsCall #3)": how messages name callback `id`.
  virtual std::string describe(int id) = 0;
  // Whether the callback was given a vjp.
  virtual bool has_vjp(int id) = 0;
  // The gradients of its tensor inputs (undefined where none), given its inputs, outputs and
  // the gradients of its outputs (undefined for outputs that got none). Throws sg::Error.
  virtual std::vector<Tensor> vjp(int id, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
                                  const std::vector<Tensor>& grad_outputs) = 0;
  // Runs host step `id` (an optimizer's step, ...). Throws sg::Error with its message.
  virtual void run_host_step(int id) = 0;
};

// Installs the host (nullptr: none); returns the previous one.
CallbackHost* set_callback_host(CallbackHost* host);
CallbackHost* callback_host();

// A callback's gradient rule: the gradients of its tensor inputs (undefined where none) given
// its inputs, outputs and the gradients of its outputs (undefined for outputs that got none).
using VjpFn = std::function<std::vector<Tensor>(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
                                                const std::vector<Tensor>& grad_outputs)>;

// Whether a callback's results must join the autograd graph: grad mode is on and an input
// requires grad.
bool callback_needs_grad(const std::vector<Tensor>& inputs);

// A callback's results (detached from whatever graph they carry) joined to the autograd graph
// when callback_needs_grad: the floating outputs (every floating dtype) get one backward node that
// calls `vjp` once with every output's gradient (each in its output's dtype), or, when vjp is
// empty, throws an Error naming the callback (`name`) and the option. The vjp's results are
// checked against the inputs' shapes and cast to the inputs' dtypes (floating ones only).
std::vector<Tensor> link_callback(const std::string& name, VjpFn vjp, const std::vector<Tensor>& inputs,
                                  std::vector<Tensor> outputs);
// The same for callback `id` of a compiled graph: name and vjp from the host.
std::vector<Tensor> link_callback(int id, const std::vector<Tensor>& inputs, std::vector<Tensor> outputs);

}  // namespace sg::graph
