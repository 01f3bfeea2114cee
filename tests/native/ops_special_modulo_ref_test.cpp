// PyTorch 1.13's special functions (tests/data/special_ref.json, gen_special.py) and modulo ops
// (tests/data/modulo_ref.json, gen_modulo.py) replayed natively through the op registry on each CPU
// backend. tests/js/special.test.mjs and modulo.test.mjs compare the same cases through the wasm
// build; here they run against the native build too, so that the C++ kernels (src/kernels/reference/
// data_special.cpp, data_modulo.cpp) are checked by the doctests the C++ mutation sample runs
// (scripts/mutation_cpp.mjs): a seeded defect there survived them before.
#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "pytorch_ref_replay.h"
#include "test_util.h"

using sgtest::Json;

namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// A case id of special_ref.json → the registry op it calls (and polygamma's n); "" for the
// special.* cases that npm/src composes from other ops (expit, ndtr, entr, ...), which the JS
// tests cover.
std::pair<std::string, int> special_op(const std::string& id) {
  for (const char* op : {"erfinv", "erfc", "lgamma", "digamma", "i0"})
    if (id == op || starts_with(id, std::string(op) + " ")) return {op, 0};
  if (id == "special.gammaln") return {"lgamma", 0};
  if (id == "special.psi") return {"digamma", 0};
  if (id == "polygamma int32") return {"polygamma", 2};  // gen_special.py: torch.polygamma(2, x)
  if (starts_with(id, "polygamma ")) return {"polygamma", std::stoi(id.substr(10))};
  return {"", 0};
}

}  // namespace

TEST_CASE("ops: PyTorch's special functions (erfinv, erfc, lgamma, digamma, polygamma, i0) replayed natively") {
  const Json ref = sgtest::parse_json(sgtest::read_test_data("special_ref.json"));
  int run = 0;
  sgtest::on_each_backend([&] {
    run = 0;
    for (const Json& c : ref["cases"].array) {
      const std::string id = c["id"].string;
      const auto [op, n] = special_op(id);
      if (op.empty()) continue;
      CAPTURE(id);
      sg::Attrs attrs;
      if (op == "polygamma") attrs.set("n", double(n));
      // PyTorch computes these in float32 (recurrences, Chebyshev sums), ours in double rounded
      // once: a few float32 roundings apart, as special.test.mjs allows (1e-5).
      sgtest::replay_ref_case(c, op, attrs, 1e-5, 1e-5);
      ++run;
    }
  });
  CHECK(run >= 22);
}

TEST_CASE("ops: PyTorch's fmod, remainder, floorDivide and div with a rounding mode replayed natively, bit for bit") {
  const Json ref = sgtest::parse_json(sgtest::read_test_data("modulo_ref.json"));
  int run = 0;
  sgtest::on_each_backend([&] {
    run = 0;
    for (const Json& c : ref["cases"].array) {
      const std::string id = c["id"].string;
      CAPTURE(id);
      sg::Attrs attrs;
      std::string op;
      for (const char* name : {"fmod", "remainder", "floorDivide"})
        if (starts_with(id, std::string(name) + " ")) op = name;
      if (starts_with(id, "div ")) {
        op = "divRounded";
        attrs.set("roundingMode", std::string(starts_with(id, "div floor") ? "floor" : "trunc"));
      }
      REQUIRE_MESSAGE(!op.empty(), "no op for case " << id);
      // Values bit for bit (modulo.test.mjs's standard); the gradients of a broadcast are sums,
      // which PyTorch orders otherwise: within 1e-6.
      sgtest::replay_ref_case(c, op, attrs, 0, 1e-6);
      ++run;
    }
  });
  CHECK(run == 22);
}
