// PyTorch reference cases replayed through the registry (pytorch_ref_replay.h says how).
#include "pytorch_ref_replay.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ops/ops.h"

namespace sgtest {

namespace {

double number_of(const Json& v) {
  if (v.kind != Json::Kind::String) return v.number;
  if (v.string == "nan") return std::numeric_limits<double>::quiet_NaN();
  return v.string == "inf" ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
}

}  // namespace

sg::Tensor ref_tensor(const Json& j) {
  sg::Shape shape;
  for (const Json& d : j["shape"].array) shape.push_back(int64_t(d.number));
  sg::Tensor t = sg::Tensor::empty(shape, sg::dtype_from_name(j["dtype"].string));
  const std::vector<Json>& data = j["data"].array;
  REQUIRE(int64_t(data.size()) == t.numel());
  for (size_t k = 0; k < data.size(); ++k) {
    const double v = number_of(data[k]);
    switch (t.dtype()) {
      case sg::DType::Float32: t.f32()[k] = float(v); break;
      case sg::DType::Int32: t.i32()[k] = int32_t(v); break;
      case sg::DType::Bool: t.u8()[k] = v != 0; break;
      default: FAIL("reference data in dtype " << j["dtype"].string << " is not read here");
    }
  }
  return t;
}

void check_ref_tensor(const sg::Tensor& got, const Json& want, double tol, const std::string& what) {
  INFO(what);
  REQUIRE(got.defined());
  const sg::Tensor w = ref_tensor(want);
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

void replay_ref_case(const Json& c, const std::string& op, const sg::Attrs& attrs, double value_tol, double grad_tol) {
  std::vector<sg::Tensor> inputs;
  for (const Json& in : c["inputs"].array) {
    sg::Tensor t = ref_tensor(in);
    if (in.has("grad") && in["grad"].boolean) t.set_requires_grad(true);
    inputs.push_back(t);
  }
  const std::vector<sg::Tensor> outs = sg::call_op(op, inputs, attrs);
  const std::vector<Json>& want = c["outputs"].array;
  REQUIRE(outs.size() == want.size());
  for (size_t k = 0; k < outs.size(); ++k) check_ref_tensor(outs[k], want[k], value_tol, "output " + std::to_string(k));
  if (!c.has("grads")) return;
  sg::Tensor loss;
  const std::vector<Json>& upstream = (c.has("grad_outputs") ? c["grad_outputs"] : c["upstream"]).array;
  for (size_t k = 0; k < outs.size(); ++k) {
    if (upstream[k].is_null()) continue;
    const sg::Tensor term = sg::sum(sg::mul(outs[k], ref_tensor(upstream[k])));
    loss = loss.defined() ? sg::add(loss, term) : term;
  }
  loss.backward();
  // One entry per input (null where none), or one per input marked "grad", in order.
  const std::vector<Json>& grads = c["grads"].array;
  const bool per_input = grads.size() == inputs.size();
  size_t j = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!per_input && !inputs[i].requires_grad()) continue;
    REQUIRE(j < grads.size());
    const Json& want = grads[per_input ? i : j++];
    if (want.is_null()) continue;
    const sg::Tensor g = inputs[i].grad().defined() ? inputs[i].grad() : sg::zeros(inputs[i].shape());
    check_ref_tensor(g, want, grad_tol, "gradient of input " + std::to_string(i));
  }
}

}  // namespace sgtest
