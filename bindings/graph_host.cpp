// The JavaScript side of callbacks and host steps (graph/callbacks.h): JS installs one host
// object, setGraphHost({ describe, hasVjp, vjp, hostStep }), and C++ calls it on the JS thread
// (during a compiled call's stage, or a backward). The host's functions never throw: a JS
// error comes back as its message (a string), which becomes an sg::Error here.
//
// Ids: tensors passed to vjp are new ids the JS side releases; the gradients it returns are new
// ids (shared) that C++ takes over and releases.
#include <emscripten/bind.h>

#include <string>
#include <vector>

#include "core/error.h"
#include "glue.h"
#include "graph/callbacks.h"

namespace sgjs {
namespace {

// The gradients a JS vjp wrapper returned: an array of new ids (0: none), taken over and released
// here, or an error message.
std::vector<sg::Tensor> take_gradients(const val& r) {
  if (r.isString()) throw sg::Error(r.as<std::string>());
  if (!is_array(r)) sg::fail("jsCall: the vjp wrapper returned no gradient list");
  std::vector<sg::Tensor> grads;
  const int n = r["length"].as<int>();
  for (int i = 0; i < n; ++i) {
    const int32_t gid = r[i].as<int32_t>();
    grads.push_back(get_or_null(gid, "jsCall: vjp gradient"));
    if (gid != 0) release(gid);
  }
  return grads;
}

class JsHost final : public sg::graph::CallbackHost {
 public:
  val host = val::undefined();

  std::string describe(int id) override {
    const val r = host.call<val>("describe", id);
    return r.isString() ? r.as<std::string>() : "#" + std::to_string(id);
  }

  bool has_vjp(int id) override { return host.call<val>("hasVjp", id).isTrue(); }

  std::vector<sg::Tensor> vjp(int id, const std::vector<sg::Tensor>& inputs, const std::vector<sg::Tensor>& outputs,
                              const std::vector<sg::Tensor>& grad_outputs) override {
    return take_gradients(
        host.call<val>("vjp", id, handle_array(inputs), handle_array(outputs), handle_array(grad_outputs)));
  }

  void run_host_step(int id) override {
    const val r = host.call<val>("hostStep", id);
    if (r.isString()) throw sg::Error(r.as<std::string>());
  }
};

JsHost& js_host() {
  static JsHost host;
  return host;
}

void set_graph_host(val host) {
  if (host.isNull() || host.isUndefined()) {
    sg::graph::set_callback_host(nullptr);
    js_host().host = val::undefined();
    return;
  }
  js_host().host = host;
  sg::graph::set_callback_host(&js_host());
}

// An eager jsCall's results joined to autograd (graph/callbacks.h). `vjp` is null or a JS
// wrapper (inputs, outputs, grads: new ids) → new ids | message; the backward node holds it, so
// it lives exactly as long as the graph that may call it.
val link_callback(std::string name, val vjp, val inputs, val outputs) {
  sg::graph::VjpFn fn;
  if (!vjp.isNull() && !vjp.isUndefined()) {
    fn = [vjp](const std::vector<sg::Tensor>& in, const std::vector<sg::Tensor>& out, const std::vector<sg::Tensor>& g) {
      return take_gradients(vjp(handle_array(in), handle_array(out), handle_array(g)));
    };
  }
  return handle_array(sg::graph::link_callback(name, std::move(fn), tensor_list(inputs, "jsCall: inputs"),
                                               tensor_list(outputs, "jsCall: results")));
}

}  // namespace
}  // namespace sgjs

EMSCRIPTEN_BINDINGS(simdgrad_graph_host) {
  using namespace sgjs;
  std::string names;
  def<&set_graph_host>(names, "setGraphHost");
  def<&link_callback>(names, "linkCallback");
  install_stack_guards(names);
}
