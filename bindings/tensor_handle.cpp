// Embind glue: class TensorHandle (bindings/README.md). Each method is a free function taking
// the handle first, so that guarded<> (glue.h) wraps methods exactly as it wraps functions.
#include <emscripten/bind.h>

#include <cstdint>
#include <string>
#include <vector>

#include "autograd/node.h"
#include "core/error.h"
#include "glue.h"

namespace sgjs {
namespace {

val numbers(const std::vector<int64_t>& xs) {
  val out = val::array();
  for (int64_t x : xs) out.call<void>("push", static_cast<double>(x));
  return out;
}

val shape(TensorHandle& h) { return numbers(h.t.shape()); }
val strides(TensorHandle& h) { return numbers(h.t.strides()); }
std::string dtype(TensorHandle& h) { return sg::dtype_name(h.t.dtype()); }
std::string device(TensorHandle& h) { return sg::device_name(h.t.device()); }
double numel(TensorHandle& h) { return static_cast<double>(h.t.numel()); }
double ndim(TensorHandle& h) { return static_cast<double>(h.t.ndim()); }
bool is_contiguous(TensorHandle& h) { return h.t.is_contiguous(); }
double data_ptr(TensorHandle& h) { return static_cast<double>(reinterpret_cast<uintptr_t>(h.t.raw())); }
double item(TensorHandle& h) { return h.t.item(); }

bool requires_grad(TensorHandle& h) { return h.t.requires_grad(); }
// The autograd state changes go through the op registry (graph/effect_ops.cpp), where a
// compiled function's tracer sees them; effect(name, inputs, attrs) runs one.
std::vector<sg::Tensor> effect(const char* name, std::vector<sg::Tensor> inputs, sg::Attrs attrs = {}) {
  return sg::call_op(name, inputs, attrs);
}
sg::Attrs flag(const char* name, bool on) {
  sg::Attrs a;
  a.set(name, on);
  return a;
}

void set_requires_grad(TensorHandle& h, bool on) { effect("setRequiresGrad", {h.t}, flag("requiresGrad", on)); }
bool is_leaf(TensorHandle& h) { return h.t.is_leaf(); }
val grad_fn_name(TensorHandle& h) {
  return h.t.grad_fn() ? val(h.t.grad_fn()->name) : val::null();
}
val grad(TensorHandle& h) { return handle_value(effect("grad", {h.t})[0]); }
void set_grad(TensorHandle& h, val g) { effect("setGrad", {h.t, tensor_or_null(g, "setGrad")}); }
void retain_grad(TensorHandle& h) { effect("retainGrad", {h.t}); }

// The C++ hook calls the JS function with a new handle on the gradient and reads its answer:
// undefined/null keeps the gradient, a TensorHandle replaces it (the tensor is copied out;
// JS deletes its handle), a string is the message of an error in the user's hook.
sg::Hook js_hook(val fn) {
  return [fn](const sg::Tensor& g) -> sg::Tensor {
    val result = fn(TensorHandle{g});
    if (result.isUndefined() || result.isNull()) return sg::Tensor();
    if (result.isString()) throw sg::Error("hook: " + result.as<std::string>());
    if (is_handle(result))
      return result.as<TensorHandle*>(emscripten::allow_raw_pointers())->t;
    sg::fail("hook: expected the hook to return a TensorHandle, undefined or a string");
  };
}
void register_hook(TensorHandle& h, val fn) {
  if (fn.typeOf().as<std::string>() != "function") sg::fail("registerHook: expected a function");
  h.t.register_hook(js_hook(fn));
}

void backward(TensorHandle& h, val g, bool retain_graph) {
  effect("backward", {h.t, tensor_or_null(g, "backward: grad")}, flag("retainGraph", retain_graph));
}
TensorHandle detach(TensorHandle& h) { return {effect("detach", {h.t})[0]}; }
TensorHandle share(TensorHandle& h) { return {h.t}; }
bool same(TensorHandle& h, TensorHandle& other) { return h.t.same(other.t); }

}  // namespace
}  // namespace sgjs

EMSCRIPTEN_BINDINGS(simdgrad_tensor_handle) {
  using namespace sgjs;
  emscripten::class_<TensorHandle>("TensorHandle")
      .function("shape", guarded<&shape>)
      .function("strides", guarded<&strides>)
      .function("dtype", guarded<&dtype>)
      .function("device", guarded<&device>)
      .function("numel", guarded<&numel>)
      .function("ndim", guarded<&ndim>)
      .function("isContiguous", guarded<&is_contiguous>)
      .function("dataPtr", guarded<&data_ptr>)
      .function("item", guarded<&item>)
      .function("requiresGrad", guarded<&requires_grad>)
      .function("setRequiresGrad", guarded<&set_requires_grad>)
      .function("isLeaf", guarded<&is_leaf>)
      .function("gradFnName", guarded<&grad_fn_name>)
      .function("grad", guarded<&grad>)
      .function("setGrad", guarded<&set_grad>)
      .function("retainGrad", guarded<&retain_grad>)
      .function("registerHook", guarded<&register_hook>)
      .function("backward", guarded<&backward>)
      .function("detach", guarded<&detach>)
      .function("share", guarded<&share>)
      .function("same", guarded<&same>);
}
