// The lean optimizer step (bindings/README.md, "Optimizers, clipping and safetensors"):
// sg_optim_step runs one param group's step with its arguments read from the scratch area, as
// sg_call_op does for ops. The Embind form it replaced spent about 20 µs per step converting JS
// objects (state keys, hyper-parameter names) for a kernel of a few µs on a small model.
//
// ids[0..nKeys)                     the state keys (interned names, in the optimizer's order)
// ids[nKeys..nKeys+nParams)         the parameters
// ids[nKeys+nParams + i·nKeys + k]  parameter i's entry for key k, 0 for none yet
// words[0..nWords)                  the hyper-parameters, as callOp's attributes
// Returns the count c of state entries the step created, as (param i, key k, new id) triples in
// ids[0..3c) (the ids belong to JS), or -1 with the error pending.
#include <emscripten/emscripten.h>

#include <cstdint>
#include <string>
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

struct Created {
  int32_t param;
  int32_t key;
  sg::Tensor tensor;
};

// The entries the step created or replaced: where states[i] holds, under key k, another tensor
// than given[i·nKeys + k] (the one JS passed, or none). An entry under a key JS did not name
// would be lost to it, so that is an internal error.
std::vector<Created> created_entries(const std::vector<const std::string*>& keys,
                                     const std::vector<sg::Tensor>& given,
                                     const std::vector<sg::optim::ParamState>& states) {
  const size_t nk = keys.size();
  std::vector<Created> out;
  for (size_t i = 0; i < states.size(); ++i) {
    size_t found = 0;
    for (size_t k = 0; k < nk; ++k) {
      auto it = states[i].find(*keys[k]);
      if (it == states[i].end()) continue;
      ++found;
      const sg::Tensor& was = given[i * nk + k];
      if (it->second.defined() && !(was.defined() && was.same(it->second)))
        out.push_back({static_cast<int32_t>(i), static_cast<int32_t>(k), it->second});
    }
    if (found != states[i].size()) {
      for (const auto& [name, t] : states[i]) {
        size_t k = 0;
        while (k < nk && *keys[k] != name) ++k;
        if (k == nk) sg::fail("optimStep: internal error, state entry '", name, "' is not among the keys given");
      }
    }
  }
  return out;
}

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE int sg_optim_step(int algorithm, int n_keys, int n_params, int n_words) {
  return catching(-1, [&] {
    std::vector<int32_t>& ids = scratch_ids();
    const size_t nk = n_keys < 0 ? 0 : static_cast<size_t>(n_keys);
    const size_t np = n_params < 0 ? 0 : static_cast<size_t>(n_params);
    if (n_keys < 0 || n_params < 0 || n_words < 0 || nk + np * (1 + nk) > ids.size())
      sg::fail("optimStep: malformed call (", n_keys, " keys, ", n_params, " params, ", n_words, " words)");
    const std::string& name = interned(algorithm, "optimStep: algorithm");

    std::vector<const std::string*> keys(nk);
    for (size_t k = 0; k < nk; ++k) keys[k] = &interned(ids[k], "optimStep: state key");
    std::vector<sg::Tensor> params(np);
    for (size_t i = 0; i < np; ++i) params[i] = live(ids[nk + i], "params", i);
    // The step works on maps built here once; `given` keeps what JS passed, to tell the
    // entries the step created from those it updated in place.
    std::vector<sg::Tensor> given(np * nk);
    std::vector<sg::optim::ParamState> states(np);
    for (size_t i = 0; i < np; ++i) {
      for (size_t k = 0; k < nk; ++k) {
        const int32_t id = ids[nk + np + i * nk + k];
        if (id != 0) states[i][*keys[k]] = given[i * nk + k] = live(id, "state of params", i);
      }
    }

    sg::optim::optimizer_step(name, scratch_attrs(static_cast<size_t>(n_words)), params,
                              sg::optim::grads_of(params), states);

    const std::vector<Created> made = created_entries(keys, given, states);
    grow_to(ids, 3 * made.size());
    size_t done = 0;
    try {
      for (; done < made.size(); ++done) {
        ids[3 * done] = made[done].param;
        ids[3 * done + 1] = made[done].key;
        ids[3 * done + 2] = put(made[done].tensor);
      }
    } catch (...) {
      for (size_t j = 0; j < done; ++j) release(ids[3 * j + 2]);
      throw;
    }
    return static_cast<int>(made.size());
  });
}

}  // extern "C"
