// PyTorch 1.13's float64 special functions (tests/data/gen_float64.py -> float64_ref.json: lgamma,
// digamma, polygamma(1), polygamma(3), erf, erfinv, erfc, i0 and their gradients) replayed
// natively on every CPU backend, to ~1e-12 relative as tests/js/float64.test.mjs holds them.
// Why natively too: the C++ mutation sample (scripts/mutation_cpp.mjs) runs the native doctests
// only, and the float32 replays (ops_special_modulo_ref_test.cpp, 1e-5) cannot see a change of the
// asymptotic series' last terms: seed 15's trigamma mutant (1/30 - ixx/42 turned into
// 1/30 + ixx/42, about 2e-8 relative near x = 0.5) survived them.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "conv_pool_ref.h"
#include "ops/ops.h"
#include "ops/special.h"
#include "test_util.h"

namespace {

sg::Tensor f64_tensor(const sgtest::Json& j) {
  sg::Shape shape;
  for (const sgtest::Json& d : j["shape"].array) shape.push_back(int64_t(d.number));
  sg::Tensor t = sg::Tensor::empty(shape, sg::DType::Float64);
  const std::vector<sgtest::Json>& v = j["values"].array;
  REQUIRE(int64_t(v.size()) == t.numel());
  for (size_t k = 0; k < v.size(); ++k) t.f64()[k] = v[k].number;
  return t;
}

// got within tol of want, relative to the larger of 1 and the largest |want|.
void check_close(const sg::Tensor& got, const std::vector<sgtest::Json>& want, double tol, const std::string& what) {
  INFO(what);
  REQUIRE(got.dtype() == sg::DType::Float64);
  REQUIRE(got.numel() == int64_t(want.size()));
  double scale = 1;
  for (const sgtest::Json& w : want) scale = std::max(scale, std::fabs(w.number));
  const sg::Tensor c = sg::contiguous(got);
  int bad = 0;
  for (size_t k = 0; k < want.size(); ++k) {
    const double g = c.f64()[k], e = want[k].number;
    if (!(std::fabs(g - e) <= tol * scale) && ++bad <= 3) CHECK_MESSAGE(false, "[" << k << "]: got " << g << ", PyTorch " << e);
  }
  CHECK_MESSAGE(bad == 0, bad << " of " << want.size() << " elements differ");
}

}  // namespace

TEST_CASE("ops: PyTorch's float64 special functions and their gradients replayed natively (float64_ref.json)") {
  const sgtest::Json ref = sgtest::parse_json(sgtest::read_test_data("float64_ref.json"));
  const std::vector<std::pair<std::string, sg::Tensor (*)(const sg::Tensor&)>> ops = {
      {"lgamma", sg::lgamma},
      {"digamma", sg::digamma},
      {"polygamma1", [](const sg::Tensor& x) { return sg::polygamma(1, x); }},
      {"polygamma3", [](const sg::Tensor& x) { return sg::polygamma(3, x); }},
      {"erf", sg::erf},
      {"erfinv", sg::erfinv},
      {"erfc", sg::erfc},
      {"i0", sg::i0},
  };
  sgtest::on_each_backend([&] {
    for (const auto& [name, fn] : ops) {
      const std::string id = name;  // a copy: clang 14 cannot capture a structured binding (INFO)
      INFO(id);
      const sgtest::Json& c = ref["cases"][id];
      sg::Tensor x = f64_tensor(c["inputs"].array.at(0));
      x.set_requires_grad(true);
      const sg::Tensor y = fn(x);
      check_close(y, c["out"]["values"].array, 1e-12, "values");
      // The gradient of sum(y * w), w as the generator drew it.
      sg::Tensor w = sg::Tensor::empty(y.shape(), sg::DType::Float64);
      const std::vector<sgtest::Json>& wv = c["w"].array;
      REQUIRE(int64_t(wv.size()) == w.numel());
      for (size_t k = 0; k < wv.size(); ++k) w.f64()[k] = wv[k].number;
      sg::sum(sg::mul(y, w)).backward();
      REQUIRE(x.grad().defined());
      check_close(x.grad(), c["grads"].array.at(0).array, 1e-11, "gradient");
    }
  });
}
