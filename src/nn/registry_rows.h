// How the nn registries (layer_registry.cpp, loss_registry.cpp) add a row: inputs are
// [required..., optional...] where an optional one may be null or left out.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "core/error.h"
#include "ops/registry.h"

namespace sg::nn_registry {

using Table = std::map<std::string, OpInfo>;
using Inputs = std::vector<Tensor>;

template <class F>
void add(Table& t, const char* name, int required, int optional, F f) {
  OpFn fn = [name, required, f](const Inputs& in, const Attrs& a) -> std::vector<Tensor> {
    for (int i = 0; i < required; ++i)
      if (!in[i].defined()) fail(name, ": tensor argument ", i, " is null");
    return {f(name, in, a)};
  };
  t.emplace(name, OpInfo{required, required + optional, std::move(fn)});
}

// Input i, or an undefined tensor when null or left out.
inline Tensor opt(const Inputs& in, size_t i) { return i < in.size() ? in[i] : Tensor(); }

}  // namespace sg::nn_registry
