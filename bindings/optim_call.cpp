// The lean optimizer step (bindings/README.md, "Optimizers, clipping and safetensors"): a param
// group is prepared once (sg_optim_prepare: algorithm, state keys, parameter and state ids and
// hyper-parameters, read from the scratch area as sg_call_op reads its arguments) and then
// stepped by its group id alone (sg_optim_group_step), so that a step on a small model costs its
// update kernels, not the marshalling: the Embind form this replaced spent ~20 µs per call
// converting JS objects, and the per-call form after it still rebuilt every parameter's state map
// (strings, allocations) and its attributes on each step, about half of an Adam step on six small
// tensors. The JS layer prepares again whenever a parameter, a state entry or a hyper-parameter
// changed (optim/optimizer.ts); hyper-parameters alone go through sg_optim_group_set_attrs.
//
// Scratch layout of sg_optim_prepare:
//   ids[0..nKeys)                     the state keys (interned names, in the optimizer's order)
//   ids[nKeys..nKeys+nParams)         the parameters
//   ids[nKeys+nParams + i·nKeys + k]  parameter i's entry for key k, 0 for none yet
//   words[0..nWords)                  the hyper-parameters, as callOp's attributes
// A group holds handle ids, not tensors: between steps it keeps nothing alive (a disposed
// parameter or state tensor is freed as before; the next step reports its id as dead).
#include <emscripten/emscripten.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/error.h"
#include "glue.h"
#include "optim/optim.h"

using namespace sgjs;

namespace {

// The tensor of a live id; the message is built only on failure.
const sg::Tensor& live(int32_t id, const char* what, size_t i) {
  const sg::Tensor* t = find(id);
  if (t == nullptr) sg::fail("optimStep: ", what, "[", i, "]: ", id, " is not a live tensor handle (a disposed tensor?)");
  return *t;
}

struct PreparedGroup {
  std::string algorithm;
  sg::Attrs attrs;
  std::vector<const std::string*> keys;  // interned names, in the optimizer's order
  std::vector<int32_t> param_ids;
  std::vector<int32_t> state_ids;        // param i's entry for key k at i·nk + k; 0: none yet
  // The step's state maps, built once. Their values are filled from state_ids for a step and
  // emptied after it; the map nodes (and the pointers below) stay.
  std::vector<sg::optim::ParamState> states;
  std::vector<sg::Tensor*> slots;        // states[i][keys[k]] at i·nk + k where its id != 0, else null
};

std::unordered_map<int, PreparedGroup>& groups() {
  static std::unordered_map<int, PreparedGroup> g;
  return g;
}
int next_group_id = 1;

PreparedGroup& group(int id) {
  auto it = groups().find(id);
  if (it == groups().end()) sg::fail("optimStep: ", id, " is not a prepared optimizer group (freed?)");
  return it->second;
}

// Empties every state value of the group on scope exit, also when the step throws.
struct EmptyAfterStep {
  PreparedGroup& g;
  ~EmptyAfterStep() {
    for (sg::optim::ParamState& st : g.states)
      for (auto& entry : st) entry.second = sg::Tensor();
  }
};

// Writes the entries the step created (defined values under keys without an id) into the
// handle table and into the group, and their (param i, key k, new id) triples into ids[0..3c);
// returns c. An entry under a key the JS layer did not name would be lost to it: an internal
// error. All or none: a failure releases the ids already made.
int report_created(PreparedGroup& g) {
  const size_t nk = g.keys.size();
  std::vector<int32_t> made;  // triples
  try {
    for (size_t i = 0; i < g.states.size(); ++i) {
      size_t known = 0;
      for (size_t k = 0; k < nk; ++k) known += g.state_ids[i * nk + k] != 0;
      if (g.states[i].size() == known) continue;  // nothing new (the usual step)
      for (size_t k = 0; k < nk; ++k) {
        if (g.state_ids[i * nk + k] != 0) continue;
        auto it = g.states[i].find(*g.keys[k]);
        if (it == g.states[i].end() || !it->second.defined()) continue;
        made.insert(made.end(), {static_cast<int32_t>(i), static_cast<int32_t>(k), put(it->second)});
      }
      for (const auto& [name, t] : g.states[i]) {
        size_t k = 0;
        while (k < nk && *g.keys[k] != name) ++k;
        if (k == nk) sg::fail("optimStep: internal error, state entry '", name, "' is not among the keys given");
      }
    }
  } catch (...) {
    for (size_t j = 0; j < made.size(); j += 3) release(made[j + 2]);
    throw;
  }
  for (size_t j = 0; j < made.size(); j += 3) {
    const size_t i = static_cast<size_t>(made[j]), k = static_cast<size_t>(made[j + 1]);
    g.state_ids[i * nk + k] = made[j + 2];
    g.slots[i * nk + k] = &g.states[i][*g.keys[k]];
  }
  std::vector<int32_t>& ids = scratch_ids();
  grow_to(ids, made.size());
  std::copy(made.begin(), made.end(), ids.begin());
  return static_cast<int>(made.size() / 3);
}

}  // namespace

extern "C" {

// Prepares a param group (layout above); returns its id (> 0), or -1 with the error pending.
// Nothing is checked against the tensors until the first step, which checks everything.
EMSCRIPTEN_KEEPALIVE int sg_optim_prepare(int algorithm, int n_keys, int n_params, int n_words) {
  return catching(-1, [&] {
    const std::vector<int32_t>& ids = scratch_ids();
    const size_t nk = n_keys < 0 ? 0 : static_cast<size_t>(n_keys);
    const size_t np = n_params < 0 ? 0 : static_cast<size_t>(n_params);
    if (n_keys < 0 || n_params < 0 || n_words < 0 || nk + np * (1 + nk) > ids.size())
      sg::fail("optimStep: malformed call (", n_keys, " keys, ", n_params, " params, ", n_words, " words)");
    PreparedGroup g;
    g.algorithm = interned(algorithm, "optimStep: algorithm");
    g.attrs = scratch_attrs(static_cast<size_t>(n_words));
    g.keys.resize(nk);
    for (size_t k = 0; k < nk; ++k) g.keys[k] = &interned(ids[k], "optimStep: state key");
    g.param_ids.assign(ids.begin() + static_cast<ptrdiff_t>(nk), ids.begin() + static_cast<ptrdiff_t>(nk + np));
    g.state_ids.assign(ids.begin() + static_cast<ptrdiff_t>(nk + np),
                       ids.begin() + static_cast<ptrdiff_t>(nk + np + np * nk));
    g.states.resize(np);
    g.slots.assign(np * nk, nullptr);
    for (size_t i = 0; i < np; ++i)
      for (size_t k = 0; k < nk; ++k)
        if (g.state_ids[i * nk + k] != 0) g.slots[i * nk + k] = &g.states[i][*g.keys[k]];
    const int id = next_group_id++;
    groups().emplace(id, std::move(g));
    return id;
  });
}

// Replaces a prepared group's hyper-parameters with the attributes in words[0..nWords).
EMSCRIPTEN_KEEPALIVE int sg_optim_group_set_attrs(int id, int n_words) {
  return catching(-1, [&] {
    if (n_words < 0) sg::fail("optimStep: malformed call (", n_words, " words)");
    group(id).attrs = scratch_attrs(static_cast<size_t>(n_words));
    return 0;
  });
}

// One step of a prepared group, in place. Returns the count c of state entries it created, as
// (param i, key k, new id) triples in ids[0..3c) (the ids belong to JS), or -1 with the error
// pending.
EMSCRIPTEN_KEEPALIVE int sg_optim_group_step(int id) {
  return catching(-1, [&] {
    PreparedGroup& g = group(id);
    const size_t nk = g.keys.size(), np = g.param_ids.size();
    std::vector<sg::Tensor> params(np);
    for (size_t i = 0; i < np; ++i) params[i] = live(g.param_ids[i], "params", i);
    EmptyAfterStep empty_after{g};
    for (size_t j = 0; j < np * nk; ++j)
      if (g.state_ids[j] != 0) *g.slots[j] = live(g.state_ids[j], "state of params", j / nk);
    sg::optim::optimizer_step(g.algorithm, g.attrs, params, sg::optim::grads_of(params), g.states);
    return report_created(g);
  });
}

EMSCRIPTEN_KEEPALIVE int sg_optim_group_free(int id) {
  return catching(-1, [&] {
    groups().erase(id);
    return 0;
  });
}

}  // extern "C"
