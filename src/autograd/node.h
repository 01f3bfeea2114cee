// A node of the backward graph: the backward formula of one op application.
// Every node has exactly one output tensor (multi-output ops are built from single-output ones),
// so tensor hooks and retain_grad of a non-leaf live here.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace sg {

// A formula that captured what it needs: gets the gradient of the node's output, returns one
// gradient per input, each of that input's shape (an undefined Tensor where the input gets none).
using BackwardFn = std::function<std::vector<Tensor>(const Tensor& grad_output)>;

// The tensors a formula saved, in the order it gave them to record() (PyTorch's ctx.saved_tensors).
using SavedTensors = std::vector<Tensor>;
// A formula that reads its tensors from `saved`: the engine checks that none was changed in place
// since, and while it builds a graph of the gradient (backward with create_graph) hands a saved
// output back joined to its graph, so the formula's result can be differentiated again.
// Both arguments are the formula's own: it may reset one once it is done with it, so that an
// activation nothing else holds is freed before the formula allocates its results (on the node's
// last run the engine hands over the node's only references; see Node::apply). Formulas written
// with const references work unchanged.
using SavedBackwardFn = std::function<std::vector<Tensor>(Tensor& grad_output, SavedTensors& saved)>;

// One saved tensor: the storage version it was saved at, and whether it is the node's output
// (kept graph-free in the node, so that saving an output makes no reference cycle).
struct SavedVariable {
  Tensor tensor;
  uint32_t version = 0;
  bool is_output = false;
  // `tensor` is the float16/bfloat16 original of the float32 (or float64) copy the op was given
  // (ops/dtype_widening.h): the formula gets that copy again, widened when the node runs, so that
  // a graph holds 2 bytes an element of every weight it used instead of 4 (record.h, SaveOriginals).
  bool rewiden = false;
  DType widened_dtype = DType::Float32;
};

// The copy of `original` in `to` that a widening op made (ops/dtype_widening.h): a recorded cast
// while a gradient graph is being built (so the copy has the forward's history), a plain one
// otherwise. Defined in record.cpp.
Tensor widen_saved(const Tensor& original, DType to);

// Where an input's gradient goes: into another node, or into a leaf's .grad.
struct Edge {
  std::shared_ptr<Node> node;
  std::shared_ptr<TensorImpl> leaf;
  bool connected() const { return node || leaf; }
};

class Node {
 public:
  Node(std::string name, std::vector<Edge> next, BackwardFn fn)
      : name(std::move(name)), next(std::move(next)), fn_(std::move(fn)) {}
  Node(std::string name, std::vector<Edge> next, std::vector<SavedVariable> saved, SavedBackwardFn fn)
      : name(std::move(name)), next(std::move(next)), saved_fn_(std::move(fn)), saved_(std::move(saved)) {}
  // Frees the graph below iteratively: a chain of 100,000 nodes must not nest as many
  // destructor calls (the wasm stack overflows long before).
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  std::string name;
  std::vector<Edge> next;  // one per input, in the op's input order
  std::vector<Hook> hooks;
  std::weak_ptr<TensorImpl> retained;  // the output, when retain_grad() was called on it

  // Runs the formula on the gradient of the output. `self` is this node: a saved output rejoins
  // the graph through it when grad mode is on (the engine turns it on only to create a graph).
  // Throws when a saved tensor was modified in place after it was saved. `last`: the node runs
  // for the last time (backward without retain_graph), so its saved tensors move into the
  // formula's hands instead of being copied (the node is released right after anyway).
  std::vector<Tensor> apply(Tensor grad_output, const std::shared_ptr<Node>& self, bool last);

  // `narrowed` (a float16/bfloat16 cast of `wide`, this node's output) is what the op hands out
  // (ops/dtype_widening.cpp): the saved output becomes it, widened again when the formula runs,
  // so that the graph holds the 16-bit result it already has instead of a float32 copy, as
  // PyTorch's half kernels save their half outputs (tanh, exp, softmax, ...).
  void save_narrowed_output(const Tensor& wide, const Tensor& narrowed);

  // Frees the formula and its saved tensors (after a backward without retain_graph).
  void release();
  bool released() const { return !fn_ && !saved_fn_; }

 private:
  BackwardFn fn_;
  SavedBackwardFn saved_fn_;
  std::vector<SavedVariable> saved_;
};

}  // namespace sg
