// A node of the backward graph: the backward formula of one op application.
// Every node has exactly one output tensor (multi-output ops are built from single-output ones),
// so tensor hooks and retain_grad of a non-leaf live here.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace sg {

// Gets the gradient of the node's output, returns one gradient per input, each of that
// input's shape (an undefined Tensor where the input gets none).
using BackwardFn = std::function<std::vector<Tensor>(const Tensor& grad_output)>;

// Where an input's gradient goes: into another node, or into a leaf's .grad.
struct Edge {
  std::shared_ptr<Node> node;
  std::shared_ptr<TensorImpl> leaf;
  bool connected() const { return node || leaf; }
};

class Node {
 public:
  Node(std::string name, std::vector<Edge> next, BackwardFn fn)
      : name(std::move(name)), next(std::move(next)), fn(std::move(fn)) {}

  std::string name;
  std::vector<Edge> next;  // one per input, in the op's input order
  BackwardFn fn;           // empty after release(): saved tensors are gone
  std::vector<Hook> hooks;
  std::weak_ptr<TensorImpl> retained;  // the output, when retain_grad() was called on it

  void release() { fn = nullptr; }
  bool released() const { return !fn; }
};

}  // namespace sg
