// PyTorch reference data for the nn tests: reads tests/data/layer_loss_ref.json (written by
// tests/data/gen_layer_loss.py) and replays its cases through the op registry (call_op), so
// every case also checks the op's registry row and attribute names.
// The file is found next to this source (__FILE__/../data), natively and in the wasm build
// (read through node's fs there: the test binary has no host file system).
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "ops/registry.h"

namespace nntest {

// A parsed JSON value (only what the reference files use).
struct Json {
  enum class Kind { Null, Bool, Number, String, Array, Object } kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Json> array;
  std::vector<std::pair<std::string, Json>> object;

  bool is_null() const { return kind == Kind::Null; }
  bool has(const std::string& key) const;
  const Json& operator[](const std::string& key) const;  // throws when absent
  const Json& operator[](size_t i) const { return array.at(i); }
  size_t size() const { return kind == Kind::Array ? array.size() : object.size(); }
};

Json parse_json(const std::string& text);
// tests/data/<name> as text; throws (with the path) when it cannot be read.
std::string read_data_file(const std::string& name);
// The parsed tests/data/layer_loss_ref.json, loaded once.
const Json& layer_loss_ref();

// {shape, dtype, data} → a new contiguous tensor (null → undefined).
sg::Tensor to_tensor(const Json& j);
sg::Attrs to_attrs(const Json& j);

// Runs every case of `family` ('layer' | 'loss') on the active backend: output, gradients of
// the inputs marked 'grad' for the case's upstream gradient, and in-place updated inputs,
// each within atol + rtol·|want| (atol also scaled by the tensor's largest |value|).
// Returns the number of cases run.
int run_reference_cases(const std::string& family, double rtol, double atol);

}  // namespace nntest
