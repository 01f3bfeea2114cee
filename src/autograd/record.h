// How an op joins the graph:
//   Tensor out = ...forward...;
//   return record("mul", out, {a, b}, [a, b](const Tensor& g) { return {mul(g, b), mul(g, a)}; });
// When grad mode is on and an input requires grad, the result is an alias of `out` that
// carries the new node; `out` itself stays graph-free, so the backward lambda may capture it
// (saving an output never makes a reference cycle).
#pragma once
#include <initializer_list>
#include <vector>

#include "autograd/node.h"

namespace sg {

bool any_requires_grad(std::initializer_list<Tensor> inputs);
bool any_requires_grad(const std::vector<Tensor>& inputs);

Tensor record(const char* name, const Tensor& out, const std::vector<Tensor>& inputs, BackwardFn fn);

}  // namespace sg
