// The op table (src/ops/registry_table.cpp): every JS op name runs through call_op with valid
// attrs and gives what the C++ function called directly gives (same shape, dtype and values),
// and the shape/dtype written here by hand. Then the error paths: wrong attr types, missing
// attrs, unknown names, wrong input counts, null inputs.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/rng.h"
#include "gradcheck.h"
#include "ops/ops.h"
#include "ops/registry.h"

using namespace sg;
using sgtest::from;

namespace {

Attrs attrs(std::initializer_list<std::pair<std::string, AttrValue>> kv) {
  Attrs a;
  for (const auto& [k, v] : kv) a.set(k, v);
  return a;
}

using V = std::vector<double>;

Tensor bool_tensor(const Shape& shape, const std::vector<uint8_t>& values) {
  Tensor t = Tensor::empty(shape, DType::Bool);
  for (size_t i = 0; i < values.size(); ++i) t.u8()[i] = values[i];
  return t;
}

Tensor int_tensor(const Shape& shape, const std::vector<int32_t>& values) {
  Tensor t = Tensor::empty(shape, DType::Int32);
  for (size_t i = 0; i < values.size(); ++i) t.i32()[i] = values[i];
  return t;
}

struct Case {
  std::string name;
  std::vector<Tensor> inputs;
  Attrs attrs;
  std::function<std::vector<Tensor>()> direct;
  std::vector<Shape> shapes;  // expected, by hand
  DType dtype;
  bool random = false;  // draws from the global generator: both calls start from one seed
};

std::vector<Tensor> one(Tensor t) { return {std::move(t)}; }

void check_same_values(const std::string& name, const Tensor& got, const Tensor& want) {
  for (int64_t i = 0; i < got.numel(); ++i) {
    double g = got.at(i), w = want.at(i);
    if (std::isnan(g) && std::isnan(w)) continue;
    CHECK_MESSAGE(g == w, name << ": element " << i << " is " << g << ", direct call gives " << w);
  }
}

std::string error_of(const std::string& op, const std::vector<Tensor>& inputs, const Attrs& a) {
  try {
    call_op(op, inputs, a);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("registry: every op name runs with valid attrs and matches the direct C++ call") {
  const Tensor x = from({2, 3}, {0.5f, 1.0f, 1.5f, 2.0f, 2.5f, 3.0f});
  const Tensor y = from({2, 3}, {3.0f, -1.0f, 0.25f, 2.0f, -2.5f, 1.0f});
  const Tensor row = from({3}, {1.0f, 2.0f, -0.5f});
  const Tensor m = from({3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  const Tensor t3 = sgtest::leaf({2, 3, 4}, -1, 1, 3, false);
  const Tensor x_1 = reshape(x, {2, 1, 3});
  const Tensor w = from({1}, {0.25f});
  const Tensor mask = bool_tensor({2, 3}, {1, 0, 0, 1, 1, 0});
  const Tensor idx = int_tensor({2}, {2, 0});
  const Tensor gidx = int_tensor({2, 2}, {0, 2, 1, 1});
  const double inf = std::numeric_limits<double>::infinity();
  const DType F = DType::Float32, I = DType::Int32, B = DType::Bool;

  std::vector<Case> cases;
  auto binary = [&](const char* name, Tensor (*fn)(const Tensor&, const Tensor&), DType dt) {
    cases.push_back({name, {x, row}, {}, [=] { return one(fn(x, row)); }, {{2, 3}}, dt});
  };
  binary("add", &sg::add, F);
  binary("sub", &sub, F);
  binary("mul", &mul, F);
  binary("div", &div, F);
  binary("pow", &sg::pow, F);
  binary("maximum", &maximum, F);
  binary("minimum", &minimum, F);
  binary("eq", &eq, B);
  binary("ne", &ne, B);
  binary("lt", &lt, B);
  binary("le", &le, B);
  binary("gt", &gt, B);
  binary("ge", &ge, B);

  auto unary = [&](const char* name, Tensor (*fn)(const Tensor&)) {
    cases.push_back({name, {x}, {}, [=] { return one(fn(x)); }, {{2, 3}}, F});
  };
  unary("neg", &neg);
  unary("exp", &sg::exp);
  unary("log", &sg::log);
  unary("log2", &sg::log2);
  unary("log10", &sg::log10);
  unary("log1p", &sg::log1p);
  unary("expm1", &sg::expm1);
  unary("sqrt", &sg::sqrt);
  unary("rsqrt", &rsqrt);
  unary("abs", &sg::abs);
  unary("sign", &sign);
  unary("sin", &sg::sin);
  unary("cos", &sg::cos);
  unary("erf", &sg::erf);
  unary("square", &square);
  unary("reciprocal", &reciprocal);
  unary("relu", &relu);
  unary("selu", &selu);
  unary("sigmoid", &sigmoid);
  unary("tanh", &sg::tanh);
  unary("silu", &silu);
  unary("contiguous", &contiguous);
  unary("clone", &clone);

  cases.push_back({"where", {mask, x, y}, {}, [=] { return one(where(mask, x, y)); }, {{2, 3}}, F});
  cases.push_back({"maskedFill", {x, mask}, attrs({{"value", -7.0}}),
                   [=] { return one(masked_fill(x, mask, -7.0)); }, {{2, 3}}, F});
  cases.push_back({"clamp", {y}, attrs({{"min", -1.0}, {"max", 2.0}}),
                   [=] { return one(clamp(y, -1.0, 2.0)); }, {{2, 3}}, F});
  cases.push_back({"clamp", {y}, attrs({{"max", 0.5}}),
                   [=] { return one(clamp(y, std::nullopt, 0.5)); }, {{2, 3}}, F});
  cases.push_back({"leakyRelu", {y}, {}, [=] { return one(leaky_relu(y, 0.01)); }, {{2, 3}}, F});
  cases.push_back({"leakyRelu", {y}, attrs({{"negativeSlope", 0.2}}),
                   [=] { return one(leaky_relu(y, 0.2)); }, {{2, 3}}, F});
  cases.push_back({"elu", {y}, attrs({{"alpha", 0.5}}), [=] { return one(elu(y, 0.5)); }, {{2, 3}}, F});
  cases.push_back({"elu", {y}, {}, [=] { return one(elu(y, 1.0)); }, {{2, 3}}, F});
  cases.push_back({"gelu", {y}, {}, [=] { return one(gelu(y, "none")); }, {{2, 3}}, F});
  cases.push_back({"gelu", {y}, attrs({{"approximate", std::string("tanh")}}),
                   [=] { return one(gelu(y, "tanh")); }, {{2, 3}}, F});
  cases.push_back({"softplus", {y}, {}, [=] { return one(softplus(y, 1.0, 20.0)); }, {{2, 3}}, F});
  cases.push_back({"softplus", {y}, attrs({{"beta", 2.0}, {"threshold", 1.0}}),
                   [=] { return one(softplus(y, 2.0, 1.0)); }, {{2, 3}}, F});
  cases.push_back({"prelu", {y, w}, {}, [=] { return one(prelu(y, w)); }, {{2, 3}}, F});

  cases.push_back({"softmax", {y}, attrs({{"dim", -1.0}}), [=] { return one(softmax(y, -1)); }, {{2, 3}}, F});
  cases.push_back({"logSoftmax", {y}, attrs({{"dim", 0.0}}), [=] { return one(log_softmax(y, 0)); }, {{2, 3}}, F});

  cases.push_back({"sum", {y}, attrs({{"dim", V{1}}, {"keepdim", true}}),
                   [=] { return one(sum(y, {1}, true)); }, {{2, 1}}, F});
  cases.push_back({"sum", {mask}, {}, [=] { return one(sum(mask)); }, {{}}, I});
  cases.push_back({"mean", {y}, {}, [=] { return one(mean(y)); }, {{}}, F});
  cases.push_back({"prod", {y}, attrs({{"dim", 0.0}}), [=] { return one(prod(y, {0})); }, {{3}}, F});
  cases.push_back({"max", {y}, attrs({{"dim", V{-1}}}), [=] { return one(amax(y, {-1})); }, {{2}}, F});
  cases.push_back({"min", {y}, attrs({{"dim", V{0, 1}}, {"keepdim", true}}),
                   [=] { return one(amin(y, {0, 1}, true)); }, {{1, 1}}, F});
  cases.push_back({"logsumexp", {y}, attrs({{"dim", 1.0}}), [=] { return one(logsumexp(y, {1})); }, {{2}}, F});
  cases.push_back({"var", {y}, attrs({{"dim", V{1}}, {"unbiased", false}}),
                   [=] { return one(var(y, {1}, false, false)); }, {{2}}, F});
  cases.push_back({"var", {y}, {}, [=] { return one(var(y)); }, {{}}, F});
  cases.push_back({"std", {y}, attrs({{"keepdim", true}}), [=] { return one(sg::std(y, {}, true)); }, {{1, 1}}, F});
  cases.push_back({"norm", {y}, {}, [=] { return one(norm(y)); }, {{}}, F});
  cases.push_back({"norm", {y}, attrs({{"p", inf}, {"dim", V{1}}}), [=] { return one(norm(y, inf, {1})); }, {{2}}, F});
  cases.push_back({"argmax", {y}, {}, [=] { return one(argmax(y)); }, {{}}, I});
  cases.push_back({"argmin", {y}, attrs({{"dim", 1.0}, {"keepdim", true}}),
                   [=] { return one(argmin(y, 1, true)); }, {{2, 1}}, I});

  cases.push_back({"matmul", {x, m}, {}, [=] { return one(matmul(x, m)); }, {{2, 4}}, F});

  cases.push_back({"reshape", {x}, attrs({{"shape", V{3, -1}}}), [=] { return one(reshape(x, {3, -1})); }, {{3, 2}}, F});
  cases.push_back({"view", {x}, attrs({{"shape", V{6}}}), [=] { return one(view(x, {6})); }, {{6}}, F});
  cases.push_back({"expand", {row}, attrs({{"shape", V{4, -1}}}), [=] { return one(expand(row, {4, -1})); }, {{4, 3}}, F});
  cases.push_back({"flatten", {t3}, {}, [=] { return one(flatten(t3)); }, {{24}}, F});
  cases.push_back({"flatten", {t3}, attrs({{"startDim", 1.0}}), [=] { return one(flatten(t3, 1)); }, {{2, 12}}, F});
  cases.push_back({"flatten", {t3}, attrs({{"endDim", -2.0}}), [=] { return one(flatten(t3, 0, -2)); }, {{6, 4}}, F});
  cases.push_back({"squeeze", {x_1}, {}, [=] { return one(squeeze(x_1)); }, {{2, 3}}, F});
  cases.push_back({"squeeze", {x_1}, attrs({{"dim", 1.0}}), [=] { return one(squeeze(x_1, 1)); }, {{2, 3}}, F});
  cases.push_back({"unsqueeze", {x}, attrs({{"dim", -1.0}}), [=] { return one(unsqueeze(x, -1)); }, {{2, 3, 1}}, F});
  cases.push_back({"transpose", {t3}, attrs({{"dim0", 0.0}, {"dim1", 2.0}}),
                   [=] { return one(transpose(t3, 0, 2)); }, {{4, 3, 2}}, F});
  cases.push_back({"permute", {t3}, attrs({{"dims", V{1, 2, 0}}}),
                   [=] { return one(permute(t3, {1, 2, 0})); }, {{3, 4, 2}}, F});
  cases.push_back({"narrow", {x}, attrs({{"dim", 1.0}, {"start", 1.0}, {"length", 2.0}}),
                   [=] { return one(narrow(x, 1, 1, 2)); }, {{2, 2}}, F});
  cases.push_back({"slice", {x}, attrs({{"dim", 1.0}, {"start", 0.0}, {"end", 3.0}, {"step", 2.0}}),
                   [=] { return one(slice(x, 1, 0, 3, 2)); }, {{2, 2}}, F});
  cases.push_back({"slice", {x}, attrs({{"dim", 1.0}, {"start", -2.0}}),
                   [=] { return one(slice(x, 1, -2, std::nullopt)); }, {{2, 2}}, F});
  cases.push_back({"cat", {x, y, x}, {}, [=] { return one(cat({x, y, x})); }, {{6, 3}}, F});
  cases.push_back({"cat", {x, y}, attrs({{"dim", 1.0}}), [=] { return one(cat({x, y}, 1)); }, {{2, 6}}, F});
  cases.push_back({"stack", {x, y}, attrs({{"dim", -1.0}}), [=] { return one(stack({x, y}, -1)); }, {{2, 3, 2}}, F});
  cases.push_back({"split", {x}, attrs({{"splitSize", 2.0}, {"dim", 1.0}}),
                   [=] { return split(x, 2, 1); }, {{2, 2}, {2, 1}}, F});
  cases.push_back({"split", {x}, attrs({{"sections", V{1, 2}}, {"dim", 1.0}}),
                   [=] { return split_sections(x, {1, 2}, 1); }, {{2, 1}, {2, 2}}, F});
  cases.push_back({"chunk", {x}, attrs({{"chunks", 2.0}}), [=] { return chunk(x, 2); }, {{1, 3}, {1, 3}}, F});
  cases.push_back({"indexSelect", {x, idx}, attrs({{"dim", 1.0}}),
                   [=] { return one(index_select(x, 1, idx)); }, {{2, 2}}, F});
  cases.push_back({"gather", {x, gidx}, attrs({{"dim", 1.0}}), [=] { return one(gather(x, 1, gidx)); }, {{2, 2}}, F});
  cases.push_back({"pad", {x}, attrs({{"pads", V{1, 2}}}), [=] { return one(pad(x, {1, 2})); }, {{2, 6}}, F});
  cases.push_back({"pad", {x}, attrs({{"pads", V{0, 0, 1, 1}}, {"mode", std::string("constant")}, {"value", 3.0}}),
                   [=] { return one(pad(x, {0, 0, 1, 1}, "constant", 3.0)); }, {{4, 3}}, F});
  cases.push_back({"cast", {y}, attrs({{"dtype", std::string("int32")}}),
                   [=] { return one(cast(y, DType::Int32)); }, {{2, 3}}, I});
  cases.push_back({"cast", {y}, attrs({{"dtype", std::string("bool")}}),
                   [=] { return one(cast(y, DType::Bool)); }, {{2, 3}}, B});

  cases.push_back({"scalar", {}, attrs({{"value", 2.5}}), [] { return one(scalar_tensor(2.5)); }, {{}}, F});
  cases.push_back({"scalar", {}, attrs({{"value", 4.0}, {"dtype", std::string("int32")}}),
                   [] { return one(scalar_tensor(4, DType::Int32)); }, {{}}, I});
  cases.push_back({"zeros", {}, attrs({{"shape", V{2, 2}}}), [] { return one(zeros({2, 2})); }, {{2, 2}}, F});
  cases.push_back({"zeros", {}, attrs({{"shape", V{}}, {"dtype", std::string("bool")}}),
                   [] { return one(zeros({}, DType::Bool)); }, {{}}, B});
  cases.push_back({"ones", {}, attrs({{"shape", 3.0}, {"dtype", std::string("int32")}}),
                   [] { return one(ones({3}, DType::Int32)); }, {{3}}, I});
  cases.push_back({"full", {}, attrs({{"shape", V{2, 1}}, {"value", 7.0}}),
                   [] { return one(full({2, 1}, 7.0)); }, {{2, 1}}, F});
  cases.push_back({"arange", {}, attrs({{"start", 0.0}, {"end", 5.0}, {"step", 1.0}}),
                   [] { return one(arange(0, 5, 1, DType::Float32)); }, {{5}}, F});
  cases.push_back({"arange", {}, attrs({{"start", 1.0}, {"end", 10.0}, {"step", 3.0}, {"dtype", std::string("int32")}}),
                   [] { return one(arange(1, 10, 3, DType::Int32)); }, {{3}}, I});
  cases.push_back({"linspace", {}, attrs({{"start", 0.0}, {"end", 1.0}, {"steps", 5.0}}),
                   [] { return one(linspace(0, 1, 5)); }, {{5}}, F});
  cases.push_back({"eye", {}, attrs({{"n", 3.0}}), [] { return one(eye(3)); }, {{3, 3}}, F});
  cases.push_back({"eye", {}, attrs({{"n", 2.0}, {"m", 3.0}}), [] { return one(eye(2, 3)); }, {{2, 3}}, F});
  cases.push_back({"rand", {}, attrs({{"shape", V{2, 3}}}), [] { return one(rand({2, 3})); }, {{2, 3}}, F, true});
  cases.push_back({"randn", {}, attrs({{"shape", V{4}}}), [] { return one(randn({4})); }, {{4}}, F, true});
  cases.push_back({"randint", {}, attrs({{"low", 0.0}, {"high", 10.0}, {"shape", V{3}}}),
                   [] { return one(randint(0, 10, {3})); }, {{3}}, I, true});
  // Moving to the device a tensor is on already returns it (the device tests move for real).
  cases.push_back({"to", {x}, attrs({{"device", std::string("cpu")}}), [=] { return one(to_device(x, Device::CPU)); },
                   {{2, 3}}, F});

  std::set<std::string> tested;
  for (const Case& c : cases) {
    CAPTURE(c.name);
    tested.insert(c.name);
    if (c.random) manual_seed(1234);
    std::vector<Tensor> got = call_op(c.name, c.inputs, c.attrs);
    if (c.random) manual_seed(1234);
    std::vector<Tensor> want = c.direct();
    REQUIRE(got.size() == c.shapes.size());
    REQUIRE(want.size() == got.size());
    for (size_t k = 0; k < got.size(); ++k) {
      CHECK(got[k].shape() == c.shapes[k]);
      CHECK(got[k].dtype() == c.dtype);
      REQUIRE(want[k].shape() == got[k].shape());
      CHECK(want[k].dtype() == got[k].dtype());
      check_same_values(c.name, got[k], want[k]);
    }
  }

  // This file's table (register_all_ops; other families register their own) has no op this
  // test forgot, and this test no name the table lacks; call_op serves all of them.
  std::map<std::string, OpInfo> rows;
  register_all_ops(rows);
  std::set<std::string> table;
  for (const auto& [name, _] : rows) table.insert(name);
  CHECK(tested == table);
  CHECK(table.size() == 87);  // the names of bindings/README.md's op table
  std::vector<std::string> names = op_names();
  for (const std::string& name : table)
    CHECK_MESSAGE(std::find(names.begin(), names.end(), name) != names.end(), name);
}

TEST_CASE("registry: attributes of the wrong type name the op, the attribute and the type") {
  const Tensor x = from({2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(error_of("sum", {x}, attrs({{"keepdim", 1.0}})) == "sum: expected 'keepdim' to be a boolean, got a number");
  CHECK(error_of("max", {x}, attrs({{"dim", std::string("1")}})) ==
        "max: expected 'dim' to be a number or an array of integers, got a string");
  CHECK(error_of("mean", {x}, attrs({{"dim", V{0.5}}})) == "mean: expected 'dim' to hold integers, got 0.5");
  CHECK(error_of("softmax", {x}, attrs({{"dim", true}})) == "softmax: expected 'dim' to be a number, got a boolean");
  CHECK(error_of("softmax", {x}, attrs({{"dim", 1.5}})) == "softmax: expected 'dim' to be an integer, got 1.5");
  CHECK(error_of("softmax", {x}, {}) == "softmax: missing argument 'dim'");
  CHECK(error_of("reshape", {x}, attrs({{"shape", true}})) ==
        "reshape: expected 'shape' to be a number or an array of integers, got a boolean");
  CHECK(error_of("reshape", {x}, {}) == "reshape: missing argument 'shape'");
  CHECK(error_of("gelu", {x}, attrs({{"approximate", 1.0}})) == "gelu: expected 'approximate' to be a string, got a number");
  CHECK(error_of("clamp", {x}, attrs({{"min", V{1}}})) == "clamp: expected 'min' to be a number, got an array");
  CHECK(error_of("leakyRelu", {x}, attrs({{"negativeSlope", std::nan("")}})) == "leakyRelu: 'negativeSlope' is NaN");
  CHECK(error_of("zeros", {}, attrs({{"shape", V{2}}, {"dtype", std::string("float64")}})) ==
        "zeros: unknown dtype 'float64' (expected float32, int32 or bool)");
  CHECK(error_of("cast", {x}, attrs({{"dtype", 32.0}})) == "cast: expected 'dtype' to be a string, got a number");
  CHECK(error_of("cast", {x}, {}) == "cast: missing argument 'dtype'");
  CHECK(error_of("split", {x}, {}) ==
        "split: expected exactly one of 'splitSize' (a number) or 'sections' (an array), got neither");
  CHECK(error_of("split", {x}, attrs({{"splitSize", 1.0}, {"sections", V{1, 1}}})) ==
        "split: expected exactly one of 'splitSize' (a number) or 'sections' (an array), got both");
  CHECK(error_of("split", {x}, attrs({{"splitSize", V{1, 1}}})) ==
        "split: expected 'splitSize' to be a number, got an array");
  CHECK(error_of("randint", {}, attrs({{"low", 0.0}, {"high", 2.0}})) == "randint: missing argument 'shape'");
}

TEST_CASE("registry: unknown names, wrong input counts and null inputs are errors") {
  const Tensor x = from({2}, {1, 2});
  CHECK(error_of("frobnicate", {x}, {}) == "unknown op 'frobnicate'");
  CHECK(error_of("Add", {x, x}, {}) == "unknown op 'Add'");
  CHECK(error_of("add", {x}, {}) == "add: expected 2 tensor arguments, got 1");
  CHECK(error_of("exp", {x, x}, {}) == "exp: expected 1 tensor arguments, got 2");
  CHECK(error_of("where", {x, x}, {}) == "where: expected 3 tensor arguments, got 2");
  CHECK(error_of("cat", {}, {}) == "cat: expected 1 or more tensor arguments, got 0");
  CHECK(error_of("zeros", {x}, attrs({{"shape", V{1}}})) == "zeros: expected 0 tensor arguments, got 1");
  CHECK(error_of("mul", {x, Tensor()}, {}) == "mul: tensor argument 1 is null");
  // Errors from the op itself come through unchanged.
  CHECK(error_of("matmul", {from({2, 3}, {1, 2, 3, 4, 5, 6}), from({4, 5}, std::vector<float>(20, 1.0f))}, {})
            .find("[2, 3]") != std::string::npos);
}
