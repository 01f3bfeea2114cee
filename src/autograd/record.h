// How an op joins the graph:
//   Tensor out = ...forward...;
//   return record("mul", out, {a, b}, {a, b}, [](const Tensor& g, const SavedTensors& s) -> Grads {
//     return {mul(g, s[1]), mul(g, s[0])};
//   });
// When grad mode is on and an input requires grad, the result is an alias of `out` that
// carries the new node; `out` itself stays graph-free, so it may be saved (saving an output
// never makes a reference cycle).
//
// The formula gets its tensors from `saved` (the third list), never by capturing them: the
// engine then refuses a saved tensor that an in-place op changed since (PyTorch's version
// check), and, when the gradient itself is being differentiated (backward with create_graph),
// hands a saved `out` back joined to the graph. Formulas compute through differentiable ops
// whenever recording_backward() says the gradient is being recorded; a fused kernel or a raw
// backend call (which records nothing) is a fast path for the other case only.
//
// The older form record(name, out, inputs, fn), whose formula captures its tensors, still
// works (no version check; a captured `out` does not rejoin the graph).
#pragma once
#include <initializer_list>
#include <vector>

#include "autograd/node.h"

namespace sg {

bool any_requires_grad(std::initializer_list<Tensor> inputs);
bool any_requires_grad(const std::vector<Tensor>& inputs);

Tensor record(const char* name, const Tensor& out, const std::vector<Tensor>& inputs, BackwardFn fn);
Tensor record(const char* name, const Tensor& out, const std::vector<Tensor>& inputs, const SavedTensors& saved,
              SavedBackwardFn fn);

// While one is alive (run_widened's scope in ops/dtype_widening.cpp, around the op it runs on
// widened copies), record() saves each registered float16/bfloat16 original in place of its
// float32 copy, and the node widens it again when its backward runs (SavedVariable::rewiden):
// a graph then holds the 16-bit weights it already had instead of a 4-byte copy of each, as
// PyTorch's half kernels save their half inputs. Only the copy itself is replaced (not a view
// of it); formulas must read such tensors from their saved list, not capture them. Scopes nest
// (an op that calls ops); the innermost registration of a copy wins.
class SaveOriginals {
 public:
  SaveOriginals();
  ~SaveOriginals();
  SaveOriginals(const SaveOriginals&) = delete;
  SaveOriginals& operator=(const SaveOriginals&) = delete;
  void add(const Tensor& widened, const Tensor& original);
  // The original of `t` when t is a registered copy in a live scope, else nullptr.
  static const Tensor* original_of(const Tensor& t);

 private:
  std::vector<std::pair<const TensorImpl*, Tensor>> pairs_;
  SaveOriginals* outer_;
};

// Inside a backward formula: whether its result is being recorded for a further derivative
// (backward with create_graph, the engine leaves grad mode on) and one of `tensors` (the
// gradient and the saved tensors the formula uses) requires grad. Then the formula must compute
// through differentiable ops.
bool recording_backward(std::initializer_list<Tensor> tensors);

// The gradient `result` = L(g) of an op whose backward is a linear map of g alone, computed by
// a kernel that records nothing (index_add for indexSelect, a zero-padded copy for narrow; max
// pooling's scatter to the argmax, whose choice is piecewise constant in the input). While the
// gradient is recorded, `result` joins the graph with the adjoint of L as its backward: the op's
// own forward map, applied to the incoming gradient (itself recorded, so this goes on to any
// order).
template <class Adjoint>
Tensor linear_grad(const char* name, const Tensor& g, const Tensor& result, Adjoint adjoint) {
  if (!recording_backward({g})) return result;
  return record(name, result, {g}, [adjoint](const Tensor& gg) { return std::vector<Tensor>{adjoint(gg)}; });
}

}  // namespace sg
