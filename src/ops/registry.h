// Ops by name: the one door through which the bindings (and later the graph tracer) reach
// every op. Names are the JavaScript API's (camelCase). Attributes are the op's scalar
// arguments, already translated from the user's options by the JS layer.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/tensor.h"

namespace sg {

using AttrValue = std::variant<double, bool, std::string, std::vector<double>>;

class Attrs {
 public:
  void set(const std::string& name, AttrValue v) { values_[name] = std::move(v); }
  bool has(const std::string& name) const { return values_.count(name) != 0; }

  // Each getter throws sg::Error naming `op` and the attribute when the type is wrong.
  double number(const char* op, const std::string& name) const;
  double number(const char* op, const std::string& name, double fallback) const;
  std::optional<double> opt_number(const char* op, const std::string& name) const;
  int64_t integer(const char* op, const std::string& name) const;  // checks it is whole
  int64_t integer(const char* op, const std::string& name, int64_t fallback) const;
  std::optional<int64_t> opt_integer(const char* op, const std::string& name) const;
  bool flag(const char* op, const std::string& name, bool fallback) const;
  std::string str(const char* op, const std::string& name, const std::string& fallback) const;
  // A number or a list of whole numbers; absent → empty.
  std::vector<int64_t> ints(const char* op, const std::string& name) const;

  // Every attribute, by name (the graph compiler compares and prints them).
  const std::map<std::string, AttrValue>& values() const { return values_; }
  bool operator==(const Attrs& other) const { return values_ == other.values_; }

 private:
  std::map<std::string, AttrValue> values_;
};

using OpFn = std::function<std::vector<Tensor>(const std::vector<Tensor>& inputs, const Attrs& attrs)>;

// The inputs an op writes in place, for given inputs and attrs (batchNorm's running stats in
// training); empty for the ops that only make new tensors.
using MutatesFn = std::function<std::vector<size_t>(const std::vector<Tensor>& inputs, const Attrs& attrs)>;

struct OpInfo {
  OpInfo(int min_inputs, int max_inputs, OpFn fn) : min_inputs(min_inputs), max_inputs(max_inputs), fn(std::move(fn)) {}

  int min_inputs;
  int max_inputs;  // -1: any number (cat, stack)
  OpFn fn;
  // What the graph compiler (src/graph) must know about the op besides its function.
  // impure: it draws random numbers or acts on state other than its outputs (autograd state,
  // tensors outside the call), so it is never merged with another call, removed or moved.
  bool impure = false;
  MutatesFn mutates;  // unset: writes none of its inputs
  // The op keeps autograd state (backward, setGrad) or does its work through other ops, which
  // place it themselves (addInPlace): it runs on its inputs as they are, on any device, never
  // moved or sent to the CPU fallback.
  bool any_device = false;
  // The op moves or reinterprets elements without computing with them (views, copies, casts,
  // concatenation), so it takes tensors of every dtype. Unset: float32, int32 and bool only
  // (core/dtype.h is_classic_dtype), and any other dtype is refused by name before fn runs.
  bool any_dtype = false;
  // The op has float64 kernels (it computes in double on every CPU backend): float64 inputs
  // reach fn. Unset: a float64 input is refused by name (computing it in float32 would be a
  // wrong result, not a slower one).
  bool float64 = false;
  // Replaces fn while a graph is traced when the op acts on state outside its outputs
  // (backward, setGrad): it gives the outputs and leaves that state as it found it, or records
  // how to put it back (graph/tracer.h). Unset: fn.
  OpFn trace;
};

// Runs op `name`; checks it exists and gets the right number of tensor inputs. While an
// OpObserver is installed, a call made from outside any op goes to it instead.
std::vector<Tensor> call_op(const std::string& name, const std::vector<Tensor>& inputs, const Attrs& attrs);
// The same for an entry already found (find_op): what the JS entry calls, by op id.
std::vector<Tensor> call_op(const std::string& name, const OpInfo& info, const std::vector<Tensor>& inputs,
                            const Attrs& attrs);
std::vector<std::string> op_names();

// The entry of op `name`, or nullptr.
const OpInfo* find_op(const std::string& name);
// Runs an op as call_op does, minus the lookup, the input count check and the observer: device
// placement and the op's name in every error message; with `traced`, its trace function
// (OpInfo::trace) where it has one. Calls made inside it (by the op, a backward hook) are
// nested: no observer sees them.
std::vector<Tensor> run_op(const std::string& name, const OpInfo& info, const std::vector<Tensor>& inputs,
                           const Attrs& attrs, bool traced = false);
// Whether this call of an op writes any input or otherwise acts outside its outputs.
bool is_impure(const OpInfo& info, const std::vector<Tensor>& inputs, const Attrs& attrs);

// Sees every op called from outside any op (what the JS layer runs): the graph tracer.
class OpObserver {
 public:
  virtual ~OpObserver() = default;
  // Called instead of running the op; returns its outputs (normally by calling run_op).
  virtual std::vector<Tensor> on_op(const std::string& name, const OpInfo& info, const std::vector<Tensor>& inputs,
                                    const Attrs& attrs) = 0;
};
// Installs `observer` (nullptr: none) for this thread; returns the previous one.
OpObserver* set_op_observer(OpObserver* observer);

// The table, filled once, lazily, by call_op: one function per family, each in its own file.
void register_all_ops(std::map<std::string, OpInfo>& table);       // ops/registry_table.cpp
void register_conv_pool_ops(std::map<std::string, OpInfo>& table);  // nn/conv_pool_registry.cpp
void register_layer_ops(std::map<std::string, OpInfo>& table);      // nn/layer_registry.cpp
void register_loss_ops(std::map<std::string, OpInfo>& table);       // nn/loss_registry.cpp
void register_optim_ops(std::map<std::string, OpInfo>& table);      // optim/optim_registry.cpp
void register_effect_ops(std::map<std::string, OpInfo>& table);     // graph/effect_ops.cpp
void register_rnn_ops(std::map<std::string, OpInfo>& table);        // nn/rnn_registry.cpp
void register_inplace_ops(std::map<std::string, OpInfo>& table);    // ops/inplace_registry.cpp

}  // namespace sg
