// Embind glue: the free functions of the module (bindings/README.md). Glue only: each
// function converts its arguments (convert.cpp), calls the C++ API and converts back;
// every one is registered through guarded<> (glue.h), which turns C++ exceptions into JS Errors.
#include <emscripten/bind.h>
#include <malloc.h>

#include <cmath>
#include <string>
#include <vector>

#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "core/error.h"
#include "core/rng.h"
#include "core/storage.h"
#include "glue.h"
#include "kernels/backend.h"
#include "ops/registry.h"

namespace sgjs {
namespace {

TensorHandle empty(val shape, std::string dtype) {
  return {sg::Tensor::empty(shape_list(shape, "empty"), sg::dtype_from_name(dtype))};
}

val call_op(std::string name, val inputs, val attrs) {
  return handle_array(sg::call_op(name, tensor_list(inputs, name, ": inputs"), attrs_of(attrs)));
}

// Through the registry (graph/effect_ops.cpp), where a compiled function's tracer sees it.
val compute_grads(const TensorHandle& root, val grad, val inputs, bool retain_graph) {
  std::vector<sg::Tensor> in{root.t, tensor_or_null(grad, "computeGrads: grad")};
  for (const sg::Tensor& t : tensor_list(inputs, "computeGrads: inputs")) in.push_back(t);
  sg::Attrs a;
  a.set("retainGraph", retain_graph);
  return handle_array(sg::call_op("computeGrads", in, a));
}

void set_backend(std::string name) { sg::set_backend(name); }
std::string get_backend() { return sg::backend().name(); }

// JS numbers are doubles: accept the integers they hold exactly.
void manual_seed(double seed) {
  if (!(seed >= 0 && seed <= 9007199254740991.0 && seed == std::floor(seed)))
    sg::fail("manualSeed: expected a non-negative integer, got ", seed);
  sg::manual_seed(static_cast<uint64_t>(seed));
}

// Through the registry, so that a compiled function replays the grad mode it set.
void set_grad_enabled(bool on) {
  sg::Attrs a;
  a.set("enabled", on);
  sg::call_op("setGradEnabled", {}, a);
}
bool is_grad_enabled() { return sg::grad_enabled(); }

val memory_stats() {
  const sg::MemoryStats s = sg::memory_stats();
  val out = val::object();
  out.set("storages", static_cast<double>(s.storages));
  out.set("bytes", static_cast<double>(s.bytes));
  out.set("peakBytes", static_cast<double>(s.peak_bytes));
  out.set("cachedBytes", static_cast<double>(s.cached_bytes));
  out.set("cachedBlocks", static_cast<double>(s.cached_blocks));
  // Bytes malloc has handed out and not taken back (tensors, graph nodes, caches, everything):
  // a leak below the tensor level shows here long before the heap has to grow.
  out.set("heapUsed", static_cast<double>(mallinfo().uordblks));
  return out;
}

void empty_cache() { sg::empty_cache(); }

val op_names() {
  val out = val::array();
  for (const std::string& name : sg::op_names()) out.call<void>("push", name);
  return out;
}

bool simd_enabled() {
#ifdef __wasm_simd128__
  return true;
#else
  return false;
#endif
}

// Registers F under `name`, always through guarded<>, and remembers the name for the
// stack guards.
template <auto F>
void def(std::string& names, const char* name) {
  emscripten::function(name, guarded<F>);
  names += name;
  names += ',';
}
}  // namespace
}  // namespace sgjs

EMSCRIPTEN_BINDINGS(simdgrad_functions) {
  using namespace sgjs;
  std::string names;
  def<&empty>(names, "empty");
  def<&call_op>(names, "callOp");
  def<&compute_grads>(names, "computeGrads");
  def<&set_backend>(names, "setBackend");
  def<&get_backend>(names, "getBackend");
  def<&manual_seed>(names, "manualSeed");
  def<&set_grad_enabled>(names, "setGradEnabled");
  def<&is_grad_enabled>(names, "isGradEnabled");
  def<&memory_stats>(names, "memoryStats");
  def<&empty_cache>(names, "emptyCache");
  def<&op_names>(names, "opNames");
  def<&simd_enabled>(names, "simdEnabled");
  install_stack_guards(names);
}
