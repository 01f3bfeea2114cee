// Embind glue for the autograd calls that may run JavaScript: backward and computeGrads call the
// hooks registerHook installed. They stay Embind functions (tensors as ids) so that the stack
// guard (stack_guard.cpp) also covers a JS exception crossing their wasm frames.
#include <emscripten/bind.h>

#include <string>

#include "autograd/engine.h"
#include "core/error.h"
#include "glue.h"

namespace sgjs {
namespace {

// The C++ hook calls the JS function with a new id on the gradient (the JS side releases it) and
// reads its answer: undefined/null keeps the gradient, an id replaces it (the tensor is shared;
// JS still owns and releases that id), a string is the message of an error in the user's hook.
sg::Hook js_hook(val fn) {
  return [fn](const sg::Tensor& g) -> sg::Tensor {
    const val result = fn(put(g));
    if (result.isUndefined() || result.isNull()) return sg::Tensor();
    if (result.isString()) throw sg::Error("hook: " + result.as<std::string>());
    if (result.isNumber()) return get(result.as<int32_t>(), "hook: the returned tensor");
    sg::fail("hook: expected the hook to return a tensor id, undefined or a string");
  };
}

void register_hook(int32_t id, val fn) {
  if (fn.typeOf().as<std::string>() != "function") sg::fail("registerHook: expected a function");
  sg::Tensor t = get(id, "registerHook");
  t.register_hook(js_hook(fn));
}

// backward and computeGrads run as registry ops (graph/effect_ops.cpp), where the tracer of
// sg.compile sees them.
sg::Attrs grad_attrs(bool retain_graph, bool create_graph) {
  sg::Attrs a;
  a.set("retainGraph", retain_graph);
  a.set("createGraph", create_graph);
  return a;
}

void backward(int32_t id, int32_t grad, bool retain_graph, bool create_graph) {
  sg::call_op("backward", {get(id, "backward"), get_or_null(grad, "backward: grad")},
              grad_attrs(retain_graph, create_graph));
}

val compute_grads(int32_t root, int32_t grad, val inputs, bool retain_graph, bool create_graph) {
  std::vector<sg::Tensor> in{get(root, "computeGrads: root"), get_or_null(grad, "computeGrads: grad")};
  for (const sg::Tensor& t : tensor_list(inputs, "computeGrads: inputs")) in.push_back(t);
  return handle_array(sg::call_op("computeGrads", in, grad_attrs(retain_graph, create_graph)));
}

}  // namespace
}  // namespace sgjs

EMSCRIPTEN_BINDINGS(simdgrad_autograd) {
  using namespace sgjs;
  std::string names;
  def<&register_hook>(names, "registerHook");
  def<&backward>(names, "backward");
  def<&compute_grads>(names, "computeGrads");
  install_stack_guards(names);
}
