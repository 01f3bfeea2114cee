// Test support for the conv/pool tests: reads tests/data/conv_pool_ref.json (PyTorch's values,
// written by tests/data/gen_conv_pool.py) and runs its cases through the op registry.
// The JSON reader is a minimal one (objects, arrays, strings without \u escapes, numbers,
// true/false/null) — enough for the committed data files, nothing more.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "ops/registry.h"

namespace sgtest {

struct Json {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Json> array;
  // A key and its value. Not std::pair<std::string, Json>: libstdc++'s pair of a type still
  // incomplete here does not compile with clang++ (the ASan build); a struct defined below does.
  struct Member;
  std::vector<Member> object;

  bool is_null() const { return kind == Kind::Null; }
  bool has(const std::string& key) const;
  const Json& operator[](const std::string& key) const;  // throws when absent
};

struct Json::Member {
  std::string first;
  Json second;
};

Json parse_json(const std::string& text);  // throws std::runtime_error on malformed text

// The contents of tests/data/<name> (found from this source file's location). Works natively
// and under node (wasm), where it reads the host file through node's fs.
std::string read_test_data(const std::string& name);

// The parsed conv_pool_ref.json, read once.
const Json& conv_pool_ref();

// {"shape": [...], "data": [...]} → a float32 tensor.
sg::Tensor tensor_from_json(const Json& j, bool requires_grad);
// A JSON object of attrs → sg::Attrs (numbers, booleans, strings, number arrays).
sg::Attrs attrs_from_json(const Json& j);

// Runs every case whose op name starts with `prefix` through sg::call_op on the active
// backend and CHECKs its output and its gradients (for the stored upstream gradient) against
// PyTorch's. Returns the number of cases run.
int check_reference_cases(const std::string& prefix, double atol = 2e-5, double rtol = 1e-4);

}  // namespace sgtest
