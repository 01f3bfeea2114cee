// Embind glue: optimizer state creation, gradient clipping and safetensors (bindings/README.md,
// section "Optimizers, clipping and safetensors"). Glue only: each function converts its
// arguments, calls src/optim or src/io and converts back; every one is registered through
// guarded<> (glue.h) and gets the JS-side stack guard (stack_guard.cpp).
#include <emscripten/bind.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/error.h"
#include "glue.h"
#include "io/safetensors.h"
#include "optim/optim.h"

namespace sgjs {
namespace {

bool is_plain_object(const val& v) {
  return v.typeOf().strictlyEquals(js_refs().object_type) && !v.isNull() && !is_array(v);
}

int array_length(const val& v, const std::string& what) {
  if (!is_array(v)) sg::fail(what, ": expected an array");
  return v["length"].as<int>();
}

// The hyper-parameters object → Attrs (numbers and booleans; null/undefined left out).
sg::Attrs hyper_of(const val& hyper, const std::string& what) {
  if (!(hyper.isNull() || hyper.isUndefined() || is_plain_object(hyper)))
    sg::fail(what, ": expected the hyper-parameters to be an object");
  return attrs_of(hyper, what);
}

// states[i] is a plain JS object {key: tensor id} (PyTorch's optimizer.state[p]).
std::vector<sg::optim::ParamState> states_of(const val& states, size_t count,
                                             const std::string& what) {
  const int n = array_length(states, what + ": states");
  if (static_cast<size_t>(n) != count)
    sg::fail(what, ": got ", count, " parameters but ", n, " states");
  std::vector<sg::optim::ParamState> out(count);
  for (int i = 0; i < n; ++i) {
    const val obj = states[i];
    const std::string at = what + ": states[" + std::to_string(i) + "]";
    if (!is_plain_object(obj)) sg::fail(at, ": expected an object of tensor ids");
    const val keys = js_refs().object_keys(obj);
    const int k = keys["length"].as<int>();
    for (int j = 0; j < k; ++j) {
      const std::string key = keys[j].as<std::string>();
      sg::Tensor t = tensor_or_null(obj[key], at + "." + key);
      if (t.defined()) out[i][key] = t;
    }
  }
  return out;
}

// Puts a new id into states[i][key] for every entry the C++ side created; JS owns them.
void write_back(const val& states, const std::vector<sg::optim::ParamState>& before,
                const std::vector<sg::optim::ParamState>& after) {
  for (size_t i = 0; i < after.size(); ++i) {
    for (const auto& [key, t] : after[i]) {
      auto it = before[i].find(key);
      if (it == before[i].end() || !it->second.same(t)) states[i].set(key, handle_value(t));
    }
  }
}

using sg::optim::grads_of;

void optim_init_state(std::string algorithm, val params, val states, val hyper) {
  const std::vector<sg::Tensor> ps = tensor_list(params, "optimInitState: params");
  const sg::Attrs attrs = hyper_of(hyper, "optimInitState");
  const auto before = states_of(states, ps.size(), "optimInitState");
  auto after = before;
  sg::optim::optimizer_init_state(algorithm, attrs, ps, after);
  write_back(states, before, after);
}

double clip_grad_norm(val params, double max_norm, double norm_type, bool error_if_nonfinite) {
  return sg::optim::clip_grad_norm_(grads_of(tensor_list(params, "clipGradNorm: params")), max_norm,
                                    norm_type, error_if_nonfinite);
}

void clip_grad_value(val params, double clip_value) {
  sg::optim::clip_grad_value_(grads_of(tensor_list(params, "clipGradValue: params")), clip_value);
}

val save_safetensors(val names, val tensors, val metadata) {
  std::vector<std::string> ns;
  const int n = array_length(names, "saveSafetensors: names");
  for (int i = 0; i < n; ++i) {
    const val name = names[i];
    if (!name.isString()) sg::fail("saveSafetensors: names[", i, "] must be a string");
    ns.push_back(name.as<std::string>());
  }
  const std::vector<sg::Tensor> ts = tensor_list(tensors, "saveSafetensors: tensors");
  std::map<std::string, std::string> meta;
  if (!metadata.isNull() && !metadata.isUndefined()) {
    if (!is_plain_object(metadata))
      sg::fail("saveSafetensors: expected the metadata to be an object");
    const val keys = js_refs().object_keys(metadata);
    const int k = keys["length"].as<int>();
    for (int j = 0; j < k; ++j) {
      const std::string key = keys[j].as<std::string>();
      const val v = metadata[key];
      if (!v.isString())
        sg::fail("saveSafetensors: metadata value for '", key, "' must be a string");
      meta[key] = v.as<std::string>();
    }
  }
  const std::vector<uint8_t> bytes = sg::io::save_safetensors(ns, ts, meta);
  // A view on the wasm heap, copied at once into a Uint8Array of its own (slice).
  return val(emscripten::typed_memory_view(bytes.size(), bytes.data())).call<val>("slice");
}

val load_safetensors(val bytes) {
  if (!bytes.instanceof (val::global("Uint8Array")))
    sg::fail("loadSafetensors: expected a Uint8Array");
  const double length = bytes["length"].as<double>();
  std::vector<uint8_t> data(static_cast<size_t>(length));
  // Copy in one set() call; the view is made after the allocation, so no growth can detach it.
  if (!data.empty())
    val(emscripten::typed_memory_view(data.size(), data.data())).call<void>("set", bytes);
  const sg::io::Safetensors st = sg::io::load_safetensors(data.data(), data.size());
  val names = val::array();
  for (const std::string& name : st.names) names.call<void>("push", val(name));
  val meta = val::object();
  for (const auto& [key, value] : st.metadata) meta.set(key, value);
  val out = val::object();
  out.set("names", names);
  out.set("tensors", handle_array(st.tensors));
  out.set("metadata", meta);
  return out;
}

}  // namespace
}  // namespace sgjs

EMSCRIPTEN_BINDINGS(simdgrad_io_optim) {
  using namespace sgjs;
  std::string names;
  def<&optim_init_state>(names, "optimInitState");
  def<&clip_grad_norm>(names, "clipGradNorm");
  def<&clip_grad_value>(names, "clipGradValue");
  def<&save_safetensors>(names, "saveSafetensors");
  def<&load_safetensors>(names, "loadSafetensors");
  install_stack_guards(names);
}
