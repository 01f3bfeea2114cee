// The reference-case runner of nn_ref_data.h. No TEST_CASEs here.
#include "nn_ref_data.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "ops/registry.h"

namespace nntest {

namespace {

bool close(double got, double want, double rtol, double atol) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= atol + rtol * std::fabs(want);
}

void check_tensor(const sg::Tensor& got, const Json& want, double rtol, double atol, const std::string& what) {
  REQUIRE_MESSAGE(got.defined(), what << ": no tensor");
  sg::Shape shape;
  for (const Json& d : want["shape"].array) shape.push_back(int64_t(d.number));
  REQUIRE_MESSAGE(got.shape() == shape, what << ": shape " << sg::shape_str(got.shape()) << " != "
                                             << sg::shape_str(shape));
  const bool ints = want["dtype"].string == "int32";
  CHECK_MESSAGE((got.dtype() == sg::DType::Int32) == ints, what << ": dtype");
  const std::vector<Json>& data = want["data"].array;
  double scale = 0;
  for (const Json& v : data)
    if (std::isfinite(v.number)) scale = std::max(scale, std::fabs(v.number));
  const double tol = atol * std::max(1.0, scale);
  int bad = 0;
  for (size_t k = 0; k < data.size(); ++k) {
    const double g = got.at(int64_t(k)), w = data[k].number;
    const bool ok = ints ? g == w : close(g, w, rtol, tol);
    if (!ok && ++bad <= 5) CHECK_MESSAGE(ok, what << "[" << k << "]: got " << g << ", PyTorch " << w);
  }
  CHECK_MESSAGE(bad == 0, what << ": " << bad << " of " << data.size() << " elements differ");
}

}  // namespace

const Json& layer_loss_ref() {
  static const Json j = sgtest::parse_json(sgtest::read_test_data("layer_loss_ref.json"));
  return j;
}

sg::Tensor to_tensor(const Json& j) {
  if (j.is_null()) return sg::Tensor();
  sg::Shape shape;
  for (const Json& d : j["shape"].array) shape.push_back(int64_t(d.number));
  const bool ints = j["dtype"].string == "int32";
  sg::Tensor t = sg::Tensor::empty(shape, ints ? sg::DType::Int32 : sg::DType::Float32);
  const std::vector<Json>& data = j["data"].array;
  REQUIRE(int64_t(data.size()) == t.numel());
  for (size_t k = 0; k < data.size(); ++k) {
    if (ints) t.i32()[k] = int32_t(data[k].number);
    else t.f32()[k] = float(data[k].number);
  }
  return t;
}

int run_reference_cases(const std::string& family, double rtol, double atol) {
  int count = 0;
  for (const Json& c : layer_loss_ref()["cases"].array) {
    if (c["family"].string != family) continue;
    ++count;
    const std::string name = c["name"].string;
    CAPTURE(name);
    std::vector<sg::Tensor> inputs;
    for (const Json& in : c["inputs"].array) {
      sg::Tensor t = to_tensor(in);
      if (t.defined() && in["grad"].boolean) t.set_requires_grad(true);
      inputs.push_back(t);
    }
    std::vector<sg::Tensor> outs = sg::call_op(c["op"].string, inputs, sgtest::attrs_from_json(c["attrs"]));
    REQUIRE(outs.size() == 1);
    check_tensor(outs[0], c["output"], rtol, atol, name + ": output");
    if (c.has("grads")) {
      outs[0].backward(to_tensor(c["grad_output"]));
      const std::vector<Json>& grads = c["grads"].array;
      for (size_t i = 0; i < inputs.size(); ++i)
        if (!grads[i].is_null())
          check_tensor(inputs[i].grad(), grads[i], rtol, atol, name + ": grad of input " + std::to_string(i));
    }
    if (c.has("after")) {
      const std::vector<Json>& after = c["after"].array;
      for (size_t i = 0; i < inputs.size(); ++i)
        if (!after[i].is_null())
          check_tensor(inputs[i], after[i], rtol, atol, name + ": input " + std::to_string(i) + " after");
    }
  }
  return count;
}

}  // namespace nntest
