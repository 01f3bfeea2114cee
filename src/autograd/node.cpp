#include "autograd/node.h"

#include <sstream>

#include "autograd/grad_mode.h"
#include "core/error.h"

namespace sg {

namespace {

// PyTorch's explanation, naming the tensor as PyTorch does ([dtype shape], and the op whose
// output it is: its current history for an input, the saving node for an output).
std::string modified_message(const SavedVariable& s, uint32_t now, const std::string& saver) {
  std::ostringstream m;
  const Tensor& t = s.tensor;
  m << "backward: one of the variables needed for gradient computation has been modified by an inplace "
       "operation: ["
    << dtype_name(t.dtype()) << " " << shape_str(t.shape()) << "]";
  if (s.is_output) m << ", which is output 0 of '" << saver << "',";
  else if (!t.is_leaf()) m << ", which is output 0 of '" << t.grad_fn()->name << "',";
  m << " is at version " << now << "; expected version " << s.version
    << " instead. Hint: '" << saver
    << "' saved it for backward and an in-place op (add_, mul_, copy_, ...) changed it afterwards; use "
       "the out-of-place op, or change a clone() of it";
  return m.str();
}

// The saved output again, joined to the graph through its node (PyTorch's SavedVariable::unpack).
Tensor joined_output(const Tensor& out, const std::shared_ptr<Node>& node) {
  auto impl = std::make_shared<TensorImpl>(*out.impl());
  impl->requires_grad = true;
  impl->grad_fn = node;
  return Tensor(std::move(impl));
}

}  // namespace

std::vector<Tensor> Node::apply(Tensor grad_output, const std::shared_ptr<Node>& self, bool last) {
  if (fn_) return fn_(grad_output);
  for (const SavedVariable& s : saved_)
    if (s.tensor.defined()) {
      const uint32_t now = s.tensor.impl()->storage->version();
      if (now != s.version) fail(modified_message(s, now, name));
    }
  const bool creating_graph = grad_enabled();
  SavedTensors unpacked;
  unpacked.reserve(saved_.size());
  for (size_t i = 0; i < saved_.size(); ++i) {
    SavedVariable& s = saved_[i];
    if (s.tensor.defined() && s.rewiden) {
      // One copy for an original saved twice (x · x, or a weight as two operands).
      size_t j = 0;
      while (j < i && !(saved_[j].rewiden && saved_[j].tensor.same(s.tensor) && saved_[j].widened_dtype == s.widened_dtype &&
                        saved_[j].is_output == s.is_output))
        ++j;
      if (j < i) unpacked.push_back(unpacked[j]);
      // A narrowed output widens to a graph-free copy: while a graph of the gradient is built it
      // rejoins the graph through this node, as the float32 output it stands for would.
      else if (s.is_output && creating_graph) unpacked.push_back(joined_output(widen_saved(s.tensor, s.widened_dtype), self));
      else unpacked.push_back(widen_saved(s.tensor, s.widened_dtype));
    } else if (s.tensor.defined() && s.is_output && creating_graph) {
      unpacked.push_back(joined_output(s.tensor, self));
    } else {
      unpacked.push_back(last ? std::move(s.tensor) : s.tensor);
    }
  }
  if (!last) return saved_fn_(grad_output, unpacked);
  // The node's last run: it is released before the formula runs, so that a formula that throws
  // leaves a node that says so on a second backward instead of one with its tensors half gone.
  const SavedBackwardFn fn = std::move(saved_fn_);
  release();
  return fn(grad_output, unpacked);
}

void Node::save_narrowed_output(const Tensor& wide, const Tensor& narrowed) {
  for (SavedVariable& s : saved_) {
    const Tensor& t = s.tensor;
    // The output as saved is the graph-free tensor record() was given: the same elements as `wide`.
    if (!s.is_output || s.rewiden || !t.defined() || t.impl()->storage != wide.impl()->storage ||
        t.offset() != wide.offset() || t.shape() != wide.shape() || t.strides() != wide.strides())
      continue;
    s.tensor = narrowed.detach();
    s.version = narrowed.impl()->storage->version();
    s.rewiden = true;
    s.widened_dtype = wide.dtype();
  }
}

void Node::release() {
  fn_ = nullptr;
  saved_fn_ = nullptr;
  saved_.clear();
}

Node::~Node() {
  // Nodes whose last owner is this teardown are emptied here, one after another, instead of
  // freeing their own inputs' nodes from inside their destructors.
  std::vector<std::shared_ptr<Node>> orphans;
  const auto empty = [&orphans](Node& n) {
    n.release();  // saved tensors may hold nodes of `next` too: those stay alive through `next`
    n.hooks.clear();
    for (Edge& e : n.next)
      if (e.node) orphans.push_back(std::move(e.node));
    n.next.clear();
  };
  empty(*this);
  while (!orphans.empty()) {
    std::shared_ptr<Node> n = std::move(orphans.back());
    orphans.pop_back();
    if (n.use_count() == 1) empty(*n);
  }
}

}  // namespace sg
