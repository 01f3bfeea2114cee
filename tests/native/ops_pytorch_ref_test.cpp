// PyTorch's values for rounding, trigonometry, hardtanh, the logical ops, scans, sorting,
// scatter, triangles and diagonals, einsum, rearranging and indexing (tests/data/ops_families_ref.json,
// written by tests/data/gen_ops_families.py from float32 inputs, computed in float64) replayed
// through the op registry on each CPU backend: every output, and the gradients of the marked
// inputs for the stored upstream gradients. Integer and bool results must be equal; float ones
// within a few float32 roundings of the exact value.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "conv_pool_ref.h"
#include "pytorch_ref_replay.h"
#include "ops/ops.h"
#include "ops/registry.h"
#include "test_util.h"

using sgtest::Json;

namespace {

// Relative to float32's epsilon (1.19e-7): outputs within 8 roundings, gradients (a few float32
// ops each) within 32, both scaled by the largest magnitude of the expected tensor.
constexpr double kValueTol = 1e-6, kGradTol = 4e-6;

const Json& reference() {
  static const Json j = sgtest::parse_json(sgtest::read_test_data("ops_families_ref.json"));
  return j;
}

void run_case(const Json& c) {
  const std::string name = c["name"].string;
  CAPTURE(name);
  sgtest::replay_ref_case(c, c["op"].string, sgtest::attrs_from_json(c["attrs"]), kValueTol, kGradTol);
}

}  // namespace

TEST_CASE("ops: PyTorch 1.13's values and gradients, replayed through the registry on each backend") {
  const std::vector<Json>& cases = reference()["cases"].array;
  CHECK(cases.size() >= 90);
  sgtest::on_each_backend([&] {
    for (const Json& c : cases) run_case(c);
  });
}
