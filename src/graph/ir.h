// The graph compiler's program (sg.compile): the calls one run of a function made, in the order
// they ran, over numbered values. A value is an argument of the function (bound again on every
// call), an external (a tensor the function read without making it: parameters, optimizer state,
// constants; held by reference, so in-place updates are seen) or an output of a node.
//
// Nodes are registry ops (ops/registry.h, run again by name with the same attributes), JS
// callbacks (sg.jsCall: the run stops there and the host calls JavaScript), host steps (JS
// library code with effects, such as an optimizer's step: called synchronously, in place) and
// fused elementwise kernels (graph/fused_program.h) made by the passes.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "ops/registry.h"

namespace sg::graph {

using ValueId = int32_t;
constexpr ValueId kNoValue = -1;  // an absent optional input, or an op's undefined result

enum class ValueSource : uint8_t { Argument, External, Node };

// A tensor's shape, dtype and device: what a compiled signature fixes and a jsCall template states.
struct TensorSpec {
  Shape shape;
  DType dtype = DType::Float32;
  Device device = Device::CPU;
  bool operator==(const TensorSpec&) const = default;
};

struct ValueInfo {
  ValueSource source = ValueSource::Node;
  int32_t index = 0;  // the argument's position, the external's index, or the producing node
  bool defined = true;
  TensorSpec spec;    // as traced
};

enum class NodeKind : uint8_t { Op, Callback, Host, Fused };

struct FusedProgram;  // graph/fused_program.h

struct Node {
  NodeKind kind = NodeKind::Op;
  std::string op;  // the registry name; "jsCall" and "fused" for the other kinds
  const OpInfo* info = nullptr;  // Op
  Attrs attrs;                   // Op
  std::vector<ValueId> inputs;
  std::vector<ValueId> outputs;
  bool impure = false;  // never merged, removed or moved (OpInfo::impure; callbacks unless pure)
  int callback = -1;    // Callback, Host: the host's id for the JS function
  std::shared_ptr<const FusedProgram> fused;  // Fused
};

struct Graph {
  int num_args = 0;
  std::vector<Tensor> externals;
  std::vector<ValueInfo> values;
  std::vector<Node> nodes;
  std::vector<ValueId> outputs;

  ValueId add_value(ValueInfo info);
  // One line per node, for tests and debugging: "%3 = mul(%1, %2)".
  std::string to_string() const;
};

TensorSpec spec_of(const Tensor& t);

}  // namespace sg::graph
