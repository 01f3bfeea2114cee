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

 private:
  std::map<std::string, AttrValue> values_;
};

using OpFn = std::function<std::vector<Tensor>(const std::vector<Tensor>& inputs, const Attrs& attrs)>;

struct OpInfo {
  int min_inputs;
  int max_inputs;  // -1: any number (cat, stack)
  OpFn fn;
};

// Runs op `name`; checks it exists and gets the right number of tensor inputs.
std::vector<Tensor> call_op(const std::string& name, const std::vector<Tensor>& inputs, const Attrs& attrs);
std::vector<std::string> op_names();

// The table, filled once, lazily, by call_op: one function per family, each in its own file.
void register_all_ops(std::map<std::string, OpInfo>& table);       // ops/registry_table.cpp
void register_conv_pool_ops(std::map<std::string, OpInfo>& table);  // nn/conv_pool_registry.cpp
void register_layer_ops(std::map<std::string, OpInfo>& table);      // nn/layer_registry.cpp
void register_loss_ops(std::map<std::string, OpInfo>& table);       // nn/loss_registry.cpp
void register_optim_ops(std::map<std::string, OpInfo>& table);      // optim/optim_registry.cpp
void register_more_ops(std::map<std::string, OpInfo>& table);       // ops/registry_more.cpp
void register_rnn_ops(std::map<std::string, OpInfo>& table);        // nn/rnn_registry.cpp
void register_inplace_ops(std::map<std::string, OpInfo>& table);    // ops/inplace_registry.cpp

}  // namespace sg
