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

double number_of(const Json& v) {
  if (v.kind != Json::Kind::String) return v.number;
  if (v.string == "nan") return std::numeric_limits<double>::quiet_NaN();
  return v.string == "inf" ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
}

sg::DType dtype_of(const Json& j) { return sg::dtype_from_name(j["dtype"].string); }

sg::Tensor tensor_of(const Json& j) {
  sg::Shape shape;
  for (const Json& d : j["shape"].array) shape.push_back(int64_t(d.number));
  sg::Tensor t = sg::Tensor::empty(shape, dtype_of(j));
  const std::vector<Json>& data = j["data"].array;
  REQUIRE(int64_t(data.size()) == t.numel());
  for (size_t k = 0; k < data.size(); ++k) {
    const double v = number_of(data[k]);
    switch (t.dtype()) {
      case sg::DType::Float32: t.f32()[k] = float(v); break;
      case sg::DType::Int32: t.i32()[k] = int32_t(v); break;
      case sg::DType::Bool: t.u8()[k] = v != 0; break;
    }
  }
  return t;
}

void check_tensor(const sg::Tensor& got, const Json& want, double tol, const std::string& what) {
  INFO(what);
  REQUIRE(got.defined());
  const sg::Tensor w = tensor_of(want);
  REQUIRE(sg::shape_str(got.shape()) == sg::shape_str(w.shape()));
  CHECK(sg::dtype_name(got.dtype()) == sg::dtype_name(w.dtype()));
  double scale = 1;
  for (int64_t i = 0; i < w.numel(); ++i)
    if (std::isfinite(w.at(i))) scale = std::max(scale, std::fabs(w.at(i)));
  int bad = 0;
  for (int64_t i = 0; i < w.numel(); ++i) {
    const double g = got.at(i), e = w.at(i);
    const bool ok = std::isnan(e) ? std::isnan(g) : (w.dtype() != sg::DType::Float32 || std::isinf(e))
                                                        ? g == e
                                                        : std::fabs(g - e) <= tol * scale;
    if (!ok && ++bad <= 5) CHECK_MESSAGE(ok, "[" << i << "]: got " << g << ", PyTorch " << e);
  }
  CHECK_MESSAGE(bad == 0, bad << " of " << w.numel() << " elements differ");
}

void run_case(const Json& c) {
  const std::string name = c["name"].string;
  CAPTURE(name);
  std::vector<sg::Tensor> inputs;
  for (const Json& in : c["inputs"].array) {
    sg::Tensor t = tensor_of(in);
    if (in["grad"].boolean) t.set_requires_grad(true);
    inputs.push_back(t);
  }
  const std::vector<sg::Tensor> outs = sg::call_op(c["op"].string, inputs, sgtest::attrs_from_json(c["attrs"]));
  const std::vector<Json>& want = c["outputs"].array;
  REQUIRE(outs.size() == want.size());
  for (size_t k = 0; k < outs.size(); ++k) check_tensor(outs[k], want[k], kValueTol, name + ": output " + std::to_string(k));
  if (!c.has("grads")) return;
  sg::Tensor loss;
  const std::vector<Json>& upstream = c["grad_outputs"].array;
  for (size_t k = 0; k < outs.size(); ++k) {
    if (upstream[k].is_null()) continue;
    const sg::Tensor term = sg::sum(sg::mul(outs[k], tensor_of(upstream[k])));
    loss = loss.defined() ? sg::add(loss, term) : term;
  }
  loss.backward();
  const std::vector<Json>& grads = c["grads"].array;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!grads[i].is_null()) {
      const sg::Tensor g = inputs[i].grad().defined() ? inputs[i].grad() : sg::zeros(inputs[i].shape());
      check_tensor(g, grads[i], kGradTol, name + ": gradient of input " + std::to_string(i));
    }
}

}  // namespace

TEST_CASE("ops: PyTorch 1.13's values and gradients, replayed through the registry on each backend") {
  const std::vector<Json>& cases = reference()["cases"].array;
  CHECK(cases.size() >= 90);
  sgtest::on_each_backend([&] {
    for (const Json& c : cases) run_case(c);
  });
}
