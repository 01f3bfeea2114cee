// What JS asks of one tensor, by id (bindings/README.md, "Tensor handles"): plain wasm exports
// taking and returning numbers. Each returns -1 (or -1.0) on failure, with the message pending
// for sg_take_error; results that do not fit a number go to the scratch words.
#include <emscripten/emscripten.h>

#include <cstdint>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "glue.h"

using namespace sgjs;

namespace {
// The autograd state changes go through the op registry (graph/effect_ops.cpp), where the tracer
// of sg.compile sees them: effect(name, inputs, attrs) runs one.
std::vector<sg::Tensor> effect(const char* name, std::vector<sg::Tensor> inputs, sg::Attrs attrs = {}) {
  return sg::call_op(name, inputs, attrs);
}
sg::Attrs flag(const char* name, bool on) {
  sg::Attrs a;
  a.set(name, on);
  return a;
}

// Sizes or strides into words[0..n); returns n.
int write_dims(const std::vector<int64_t>& dims) {
  std::vector<double>& w = scratch_words();
  grow_to(w, dims.size());
  for (size_t i = 0; i < dims.size(); ++i) w[i] = static_cast<double>(dims[i]);
  return static_cast<int>(dims.size());
}
}  // namespace

extern "C" {

// ---- lifetime ----
EMSCRIPTEN_KEEPALIVE int sg_release(int id) {
  return catching(-1, [&] {
    release(id);
    return 0;
  });
}
// A second id on the same tensor.
EMSCRIPTEN_KEEPALIVE int sg_share(int id) {
  return catching(-1, [&] { return put(get(id, "share")); });
}
EMSCRIPTEN_KEEPALIVE int sg_same(int a, int b) {
  return catching(-1, [&] { return get(a, "same").same(get(b, "same")) ? 1 : 0; });
}
EMSCRIPTEN_KEEPALIVE int sg_live_handles() { return static_cast<int>(live_handles()); }

// ---- metadata ----
EMSCRIPTEN_KEEPALIVE int sg_dtype(int id) {
  return catching(-1, [&] { return static_cast<int>(get(id, "dtype").dtype()); });
}
// torch.promote_types over dtype codes (core/dtype.h): the JS layer's one promotion table.
EMSCRIPTEN_KEEPALIVE int sg_promote_types(int a, int b) {
  return catching(-1, [&] {
    if (a < 0 || a >= sg::kNumDTypes || b < 0 || b >= sg::kNumDTypes) sg::fail("promoteTypes: unknown dtype code");
    return static_cast<int>(sg::promote_types(static_cast<sg::DType>(a), static_cast<sg::DType>(b)));
  });
}
EMSCRIPTEN_KEEPALIVE int sg_device(int id) {
  return catching(-1, [&] { return static_cast<int>(get(id, "device").device()); });
}
EMSCRIPTEN_KEEPALIVE int sg_shape(int id) {
  return catching(-1, [&] { return write_dims(get(id, "shape").shape()); });
}
EMSCRIPTEN_KEEPALIVE int sg_strides(int id) {
  return catching(-1, [&] { return write_dims(get(id, "strides").strides()); });
}
EMSCRIPTEN_KEEPALIVE int sg_is_contiguous(int id) {
  return catching(-1, [&] { return get(id, "isContiguous").is_contiguous() ? 1 : 0; });
}

// ---- data ----
// Byte address of element 0 (at the offset) in the wasm heap. A double: addresses above 2 GiB
// do not fit a positive int32.
EMSCRIPTEN_KEEPALIVE double sg_data_ptr(int id) {
  return catching(-1.0, [&] {
    return static_cast<double>(reinterpret_cast<uintptr_t>(get(id, "dataPtr").raw()));
  });
}
// The only element (bool → 0/1) into words[0]; 0 or -1.
EMSCRIPTEN_KEEPALIVE int sg_item(int id) {
  return catching(-1, [&] {
    scratch_words()[0] = get(id, "item").item();
    return 0;
  });
}

// ---- autograd ----
EMSCRIPTEN_KEEPALIVE int sg_requires_grad(int id) {
  return catching(-1, [&] { return get(id, "requiresGrad").requires_grad() ? 1 : 0; });
}
EMSCRIPTEN_KEEPALIVE int sg_set_requires_grad(int id, int on) {
  return catching(-1, [&] {
    effect("setRequiresGrad", {get(id, "requiresGrad")}, flag("requiresGrad", on != 0));
    return 0;
  });
}
EMSCRIPTEN_KEEPALIVE int sg_is_leaf(int id) {
  return catching(-1, [&] { return get(id, "isLeaf").is_leaf() ? 1 : 0; });
}
// The address of the NUL-terminated name of the op that made the tensor, 0 for a leaf, -1.
EMSCRIPTEN_KEEPALIVE double sg_grad_fn_name(int id) {
  return catching(-1.0, [&] {
    const auto& node = get(id, "gradFn").grad_fn();
    return node ? static_cast<double>(reinterpret_cast<uintptr_t>(node->name.c_str())) : 0.0;
  });
}
// A new id on the tensor's .grad, 0 when it has none.
EMSCRIPTEN_KEEPALIVE int sg_grad(int id) {
  return catching(-1, [&] { return put(effect("grad", {get(id, "grad")})[0]); });
}
// Sets .grad to tensor `grad` (0 clears it); checks shape and dtype.
EMSCRIPTEN_KEEPALIVE int sg_set_grad(int id, int grad) {
  return catching(-1, [&] {
    effect("setGrad", {get(id, "grad"), get_or_null(grad, "grad")});
    return 0;
  });
}
EMSCRIPTEN_KEEPALIVE int sg_retain_grad(int id) {
  return catching(-1, [&] {
    effect("retainGrad", {get(id, "retainGrad")});
    return 0;
  });
}
// A new leaf id sharing the data, cut from the graph.
EMSCRIPTEN_KEEPALIVE int sg_detach(int id) {
  return catching(-1, [&] { return put(effect("detach", {get(id, "detach")})[0]); });
}
EMSCRIPTEN_KEEPALIVE int sg_is_grad_enabled() { return sg::grad_enabled() ? 1 : 0; }
// Through the registry as well: a compiled function replays the grad mode it set.
EMSCRIPTEN_KEEPALIVE void sg_set_grad_enabled(int on) {
  catching(0, [&] {
    effect("setGradEnabled", {}, flag("enabled", on != 0));
    return 0;
  });
}

}  // extern "C"
