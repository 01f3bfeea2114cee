// The op table (src/ops/registry_table.cpp): every JS op name runs through call_op with valid
// attrs and gives what the C++ function called directly gives (same shape, dtype and values),
// and the shape/dtype written here by hand. Then the error paths: wrong attr types, missing
// attrs, unknown names, wrong input counts, null inputs, and the messages of bad arguments.
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
#include "ops/bitwise.h"
#include "ops/linalg.h"
#include "ops/ops.h"
#include "ops/registry.h"
#include "ops/special.h"
#include "test_util.h"

using namespace sg;
using sgtest::attrs;
using sgtest::check_error;
using sgtest::error_of;
using sgtest::from;
using sgtest::ints;

namespace {

using V = std::vector<double>;

struct Case {
  std::string name;
  std::vector<Tensor> inputs;
  Attrs attrs;
  std::function<std::vector<Tensor>()> direct;
  std::vector<Shape> shapes;  // expected, by hand
  DType dtype;
  bool random = false;  // draws from the global generator: both calls start from one seed
  std::vector<DType> dtypes = {};  // per output where they differ (sort, topk); else dtype
};

std::vector<Tensor> one(Tensor t) { return {std::move(t)}; }

void check_same_values(const std::string& name, const Tensor& got, const Tensor& want) {
  for (int64_t i = 0; i < got.numel(); ++i) {
    double g = got.at(i), w = want.at(i);
    if (std::isnan(g) && std::isnan(w)) continue;
    CHECK_MESSAGE(g == w, name << ": element " << i << " is " << g << ", direct call gives " << w);
  }
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
  const Tensor mask = sgtest::bools({2, 3}, {1, 0, 0, 1, 1, 0});
  const Tensor idx = ints({2}, {2, 0});
  const Tensor gidx = ints({2, 2}, {0, 2, 1, 1});
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
  cases.push_back({"causalSoftmax", {y}, {}, [=] { return one(causal_softmax(y)); }, {{2, 3}}, F});

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

  // Rounding, trigonometry, modulo, logical and bitwise ops, special functions.
  for (const auto& [name, fn] : std::vector<std::pair<const char*, Tensor (*)(const Tensor&)>>{
           {"floor", &sg::floor}, {"ceil", &sg::ceil}, {"round", &sg::round}, {"trunc", &sg::trunc},
           {"tan", &sg::tan}, {"atan", &sg::atan}, {"asin", &sg::asin}, {"acos", &sg::acos},
           {"sinh", &sg::sinh}, {"cosh", &sg::cosh}, {"erfinv", &erfinv}, {"erfc", &sg::erfc},
           {"lgamma", &sg::lgamma}, {"digamma", &digamma}, {"i0", &i0}})
    unary(name, fn);
  binary("atan2", &sg::atan2, F);
  binary("fmod", &sg::fmod, F);
  binary("remainder", &sg::remainder, F);
  binary("floorDivide", &floor_divide, F);
  binary("logicalAnd", &logical_and, B);
  binary("logicalOr", &logical_or, B);
  binary("logicalXor", &logical_xor, B);
  cases.push_back({"logicalNot", {x}, {}, [=] { return one(logical_not(x)); }, {{2, 3}}, B});
  cases.push_back({"divRounded", {x, row}, attrs({{"roundingMode", std::string("floor")}}),
                   [=] { return one(div_rounded(x, row, "floor")); }, {{2, 3}}, F});
  cases.push_back({"hardtanh", {y}, attrs({{"minVal", -1.0}, {"maxVal", 2.0}}),
                   [=] { return one(hardtanh(y, -1.0, 2.0)); }, {{2, 3}}, F});
  cases.push_back({"polygamma", {x}, attrs({{"n", 1.0}}), [=] { return one(polygamma(1, x)); }, {{2, 3}}, F});
  const Tensor xi = ints({2, 3}, {5, -3, 12, 0, 7, 9}), ri = ints({3}, {3, 6, 1});
  for (const auto& [name, fn] : std::vector<std::pair<const char*, Tensor (*)(const Tensor&, const Tensor&)>>{
           {"bitwiseAnd", &bitwise_and}, {"bitwiseOr", &bitwise_or}, {"bitwiseXor", &bitwise_xor},
           {"bitwiseLeftShift", &bitwise_left_shift}, {"bitwiseRightShift", &bitwise_right_shift},
           {"gcd", &sg::gcd}, {"lcm", &sg::lcm}})
    cases.push_back({name, {xi, ri}, {}, [=, fn = fn] { return one(fn(xi, ri)); }, {{2, 3}}, I});
  cases.push_back({"bitwiseNot", {xi}, {}, [=] { return one(bitwise_not(xi)); }, {{2, 3}}, I});
  cases.push_back({"any", {mask}, attrs({{"dim", V{1}}}), [=] { return one(any(mask, {1})); }, {{2}}, B});
  cases.push_back({"all", {x}, attrs({{"keepdim", true}}), [=] { return one(all(x, {}, true)); }, {{1, 1}}, B});

  // Scans, sorting, scatter.
  cases.push_back({"cumsum", {t3}, attrs({{"dim", 1.0}}), [=] { return one(cumsum(t3, 1)); }, {{2, 3, 4}}, F});
  cases.push_back({"cumprod", {y}, attrs({{"dim", -1.0}}), [=] { return one(cumprod(y, -1)); }, {{2, 3}}, F});
  cases.push_back({"sort", {y}, attrs({{"dim", 0.0}, {"descending", true}}),
                   [=] {
                     const Sorted s = sort(y, 0, true);
                     return std::vector<Tensor>{s.values, s.indices};
                   },
                   {{2, 3}, {2, 3}}, F, false, {F, I}});
  cases.push_back({"argsort", {y}, {}, [=] { return one(argsort(y)); }, {{2, 3}}, I});
  cases.push_back({"topk", {y}, attrs({{"k", 2.0}, {"largest", false}}),
                   [=] {
                     const Sorted s = topk(y, 2, -1, false);
                     return std::vector<Tensor>{s.values, s.indices};
                   },
                   {{2, 2}, {2, 2}}, F, false, {F, I}});
  cases.push_back({"scatter", {x, gidx, y}, attrs({{"dim", 1.0}}), [=] { return one(scatter(x, 1, gidx, y)); },
                   {{2, 3}}, F});
  cases.push_back({"scatterAdd", {x, gidx, y}, attrs({{"dim", 1.0}}),
                   [=] { return one(scatter_add(x, 1, gidx, y)); }, {{2, 3}}, F});
  cases.push_back({"scatterReduce", {x, gidx, y}, attrs({{"dim", 1.0}, {"reduce", std::string("amax")}}),
                   [=] { return one(scatter_reduce(x, 1, gidx, y, "amax")); }, {{2, 3}}, F});

  // Matrices and einsum, rearranging, selection and indexing.
  cases.push_back({"tril", {m}, {}, [=] { return one(tril(m)); }, {{3, 4}}, F});
  cases.push_back({"triu", {m}, attrs({{"diagonal", 1.0}}), [=] { return one(triu(m, 1)); }, {{3, 4}}, F});
  cases.push_back({"diag", {row}, {}, [=] { return one(diag(row)); }, {{3, 3}}, F});
  cases.push_back({"diag", {m}, attrs({{"diagonal", -1.0}}), [=] { return one(diag(m, -1)); }, {{2}}, F});
  cases.push_back({"outer", {row, row}, {}, [=] { return one(outer(row, row)); }, {{3, 3}}, F});
  cases.push_back({"einsum", {x, m}, attrs({{"equation", std::string("ij,jk->ik")}}),
                   [=] { return one(einsum("ij,jk->ik", {x, m})); }, {{2, 4}}, F});
  cases.push_back({"flip", {x}, attrs({{"dims", V{0}}}), [=] { return one(flip(x, {0})); }, {{2, 3}}, F});
  cases.push_back({"roll", {x}, attrs({{"shifts", V{1}}, {"dims", V{1}}}), [=] { return one(roll(x, {1}, {1})); },
                   {{2, 3}}, F});
  cases.push_back({"repeat", {row}, attrs({{"repeats", V{2, 1}}}), [=] { return one(repeat(row, {2, 1})); },
                   {{2, 3}}, F});
  cases.push_back({"tile", {row}, attrs({{"repeats", V{2}}}), [=] { return one(tile(row, {2})); }, {{6}}, F});
  cases.push_back({"select", {t3}, attrs({{"dim", 1.0}, {"index", -1.0}}), [=] { return one(select(t3, 1, -1)); },
                   {{2, 4}}, F});
  cases.push_back({"index", {t3}, attrs({{"items", V{1, 0, 0, 1, 2, 0, 2, 1}}}),  // t3[0, 0:2]
                   [=] {
                     using K = IndexItem::Kind;
                     return one(index(t3, {{K::At, 0, std::nullopt, std::nullopt, 1}, {K::Range, 0, 0, 2, 1}}));
                   },
                   {{2, 4}}, F});

  // Sampling.
  const Tensor p = from({2, 3}, {0.1f, 0.5f, 0.9f, 0.0f, 1.0f, 0.3f});
  cases.push_back({"bernoulli", {p}, {}, [=] { return one(bernoulli(p)); }, {{2, 3}}, F, true});
  cases.push_back({"multinomial", {p}, attrs({{"numSamples", 2.0}}), [=] { return one(multinomial(p, 2)); },
                   {{2, 2}}, I, true});

  // torch.linalg on a symmetric positive definite matrix.
  const Tensor spd = from({3, 3}, {4, 1, 0, 1, 3, 1, 0, 1, 2});
  cases.push_back({"linalgInv", {spd}, {}, [=] { return one(linalg_inv(spd)); }, {{3, 3}}, F});
  cases.push_back({"linalgDet", {spd}, {}, [=] { return one(linalg_det(spd)); }, {{}}, F});
  cases.push_back({"logdet", {spd}, {}, [=] { return one(logdet(spd)); }, {{}}, F});
  cases.push_back({"linalgSlogdet", {spd}, {},
                   [=] {
                     const SignLogDet s = linalg_slogdet(spd);
                     return std::vector<Tensor>{s.sign, s.logabsdet};
                   },
                   {{}, {}}, F});
  cases.push_back({"linalgSolve", {spd, row}, {}, [=] { return one(linalg_solve(spd, row)); }, {{3}}, F});
  cases.push_back({"linalgCholesky", {spd}, attrs({{"upper", true}}), [=] { return one(linalg_cholesky(spd, true)); },
                   {{3, 3}}, F});
  // The decompositions (ops/linalg_decomp.cpp).
  const Tensor tall = from({3, 2}, {1, 2, 0.5f, -1, 3, 0.25f});
  cases.push_back({"linalgSvd", {tall}, attrs({{"fullMatrices", false}}),
                   [=] {
                     const Svd r = linalg_svd(tall, false);
                     return std::vector<Tensor>{r.U, r.S, r.Vh};
                   },
                   {{3, 2}, {2}, {2, 2}}, F});
  cases.push_back({"linalgSvdvals", {tall}, {}, [=] { return one(linalg_svdvals(tall)); }, {{2}}, F});
  cases.push_back({"linalgEigh", {spd}, attrs({{"UPLO", std::string("U")}}),
                   [=] {
                     const Eigh r = linalg_eigh(spd, "U");
                     return std::vector<Tensor>{r.eigenvalues, r.eigenvectors};
                   },
                   {{3}, {3, 3}}, F});
  cases.push_back({"linalgEigvalsh", {spd}, {}, [=] { return one(linalg_eigvalsh(spd)); }, {{3}}, F});
  cases.push_back({"linalgQr", {tall}, attrs({{"mode", std::string("complete")}}),
                   [=] {
                     const QR r = linalg_qr(tall, "complete");
                     return std::vector<Tensor>{r.Q, r.R};
                   },
                   {{3, 3}, {3, 2}}, F});
  cases.push_back({"linalgSolveTriangular", {spd, tall}, attrs({{"upper", true}}),
                   [=] { return one(linalg_solve_triangular(spd, tall, true)); }, {{3, 2}}, F});
  cases.push_back({"linalgLuFactor", {spd}, {},
                   [=] {
                     const LUFactor r = linalg_lu_factor(spd);
                     return std::vector<Tensor>{r.LU, r.pivots};
                   },
                   {{3, 3}, {3}}, F, false, {F, I}});
  cases.push_back({"linalgMatrixExp", {spd}, {}, [=] { return one(linalg_matrix_exp(spd)); }, {{3, 3}}, F});
  cases.push_back({"linalgPinv", {tall}, attrs({{"rtol", 1e-3}}), [=] { return one(linalg_pinv(tall, std::nullopt, 1e-3)); },
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
      CHECK(got[k].dtype() == (c.dtypes.empty() ? c.dtype : c.dtypes[k]));
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
  CHECK(table.size() == 160);  // the names of bindings/README.md's op table
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
  CHECK(error_of("zeros", {}, attrs({{"shape", V{2}}, {"dtype", std::string("complex64")}})) ==
        "zeros: unknown dtype 'complex64' (expected float32, float16, bfloat16, float64, int32, int64, int8, uint8 or bool)");
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

TEST_CASE("registry: bad arguments of scans, sorting, scatter, matrices, einsum, rearranging, indexing and sampling name the op, what was expected and what was got") {
  const Tensor x = from({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor idx = ints({1, 2}, {0, 3});
  check_error([&] { call_op("scatter", {x, idx, x}, attrs({{"dim", 1.0}})); },
              "scatter: index 3 is out of bounds for dim 1 with size 3");
  check_error([&] { call_op("scatterAdd", {x, ints({1, 1}, {-1}), x}, attrs({{"dim", 0.0}})); },
              "scatterAdd: index -1 is out of bounds for dim 0 with size 2");
  check_error([&] { call_op("scatterReduce", {x, idx, x}, attrs({{"dim", 1.0}, {"reduce", std::string("amax")}})); },
              "scatterReduce: index 3 is out of bounds for dim 1 with size 3");
  check_error([&] { call_op("scatterReduce", {x, ints({1, 1}, {0}), x}, attrs({{"dim", 1.0}, {"reduce", std::string("max")}})); },
              "scatterReduce: expected reduce 'sum', 'prod', 'mean', 'amax' or 'amin', got 'max'");
  check_error([&] { call_op("scatter", {x, from({1, 1}, {0}), x}, attrs({{"dim", 0.0}})); },
              "scatter: expected an int32 index tensor, got float32");
  check_error([&] { call_op("scatter", {x, ints({2}, {0, 1}), x}, attrs({{"dim", 0.0}})); },
              "scatter: index must have as many dims as the input (2), got shape [2] for input shape [2, 3]");
  check_error([&] { call_op("scatter", {x, ints({1, 1}, {0}), ints({1, 1}, {0})}, attrs({{"dim", 0.0}})); },
              "scatter: expected src of the input's dtype (float32), got int32");
  check_error([&] { call_op("topk", {x}, attrs({{"k", 4.0}})); },
              "topk: k (4) is out of range for dim 1 of size 3 (expected k in [0, 3])");
  check_error([&] { call_op("cumsum", {x}, attrs({{"dim", 2.0}})); },
              "cumsum: dim 2 is out of range for a tensor with 2 dims (expected a dim in [-2, 1])");
  CHECK(error_of("cumsum", {x}, {}) == "cumsum: missing argument 'dim'");
  check_error([&] { call_op("tril", {from({3}, {1, 2, 3})}, {}); },
              "tril: expected a tensor of at least 2 dims, got shape [3]");
  check_error([&] { call_op("diag", {zeros({2, 2, 2})}, {}); }, "diag: expected a 1-D or 2-D tensor, got shape [2, 2, 2]");
  check_error([&] { call_op("outer", {x, x}, {}); }, "outer: expected two 1-D tensors, got shapes [2, 3] and [2, 3]");
  check_error([&] { call_op("flip", {x}, attrs({{"dims", std::vector<double>{1, -1}}})); },
              "flip: dim 1 appears more than once in dims [1, -1]");
  check_error([&] { call_op("roll", {x}, attrs({{"shifts", std::vector<double>{1, 2}}})); },
              "roll: without dims, expected one shift (over the flattened tensor), got [1, 2]");
  check_error([&] { call_op("repeat", {x}, attrs({{"repeats", std::vector<double>{2}}})); },
              "repeat: expected at least as many repeat counts as the tensor has dims (2), got 1 ([2])");
  check_error([&] { call_op("tile", {x}, attrs({{"repeats", std::vector<double>{2, -1}}})); },
              "tile: expected non-negative repeat counts, got [2, -1]");
  check_error([&] { call_op("select", {x}, attrs({{"dim", 1.0}, {"index", 3.0}})); },
              "select: index 3 is out of range for dim 1 of size 3 (expected an index in [-3, 2])");
  check_error([&] { call_op("index", {x}, attrs({{"items", std::vector<double>{1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1}}})); },
              "index: too many indices for a tensor of 2 dims (shape [2, 3]): got 3");
  check_error([&] { call_op("index", {x}, attrs({{"items", std::vector<double>{0, 0, 0, 1, 1, -4, 0, 1}}})); },
              "index: index -4 is out of range for dim 1 of size 3 (expected an index in [-3, 2])");
  check_error([&] { call_op("index", {x}, attrs({{"items", std::vector<double>{2, 0, 5, 0}}})); },
              "index: expected a positive step in the range for dim 0, got 0");
  check_error([&] { call_op("index", {x}, attrs({{"items", std::vector<double>{3, 0, 0, 1, 3, 0, 0, 1}}})); },
              "index: expected at most one '...', got 2");
  check_error([&] { call_op("einsum", {x, x}, attrs({{"equation", std::string("ij,jk->ik")}})); },
              "einsum: label 'j' has sizes 3 and 2 in 'ij,jk->ik' (expected equal sizes, or 1 to broadcast)");
  check_error([&] { call_op("einsum", {x}, attrs({{"equation", std::string("ij,jk")}})); },
              "einsum: the equation 'ij,jk' has 2 operand terms but 1 tensors were given");
  check_error([&] { call_op("einsum", {x}, attrs({{"equation", std::string("i2")}})); },
              "einsum: invalid character '2' in equation 'i2' (expected letters, ',', '->' and '...')");
  check_error([&] { call_op("einsum", {x}, attrs({{"equation", std::string("ijk")}})); },
              "einsum: operand 0 has 2 dims but its term in 'ijk' names 3");
  check_error([&] { call_op("einsum", {x}, attrs({{"equation", std::string("ij->k")}})); },
              "einsum: output label 'k' does not occur in any operand of 'ij->k'");
  check_error([&] { call_op("einsum", {ints({2}, {1, 2})}, attrs({{"equation", std::string("i")}})); },
              "einsum: expected float32 operands, got int32 (operand 0)");
  check_error([&] { call_op("multinomial", {from({3}, {0, 1, 0})}, attrs({{"numSamples", 2.0}})); },
              "multinomial: cannot draw 2 samples without replacement from row 0, which has only 1 categories of "
              "nonzero probability");
  check_error([&] { call_op("multinomial", {from({2}, {0, 0})}, attrs({{"numSamples", 1.0}})); },
              "multinomial: invalid distribution in row 0: the probabilities sum to 0");
  check_error([&] { call_op("multinomial", {from({2}, {1, -1})}, attrs({{"numSamples", 1.0}})); },
              "multinomial: expected finite, non-negative probabilities, got -1 (row 0, category 1)");
  check_error([&] { call_op("multinomial", {x}, attrs({{"numSamples", 4.0}})); },
              "multinomial: cannot draw 4 samples without replacement from 3 categories");
  check_error([&] { call_op("multinomial", {x}, attrs({{"numSamples", 0.0}})); },
              "multinomial: expected a positive number of samples, got 0");
  check_error([&] { call_op("bernoulli", {x}, attrs({{"p", 2.0}})); }, "bernoulli: expected p in [0, 1], got 2");
  check_error([&] { call_op("hardtanh", {x}, attrs({{"minVal", 2.0}, {"maxVal", 1.0}})); },
              "hardtanh: expected minVal <= maxVal, got minVal 2 and maxVal 1");
  check_error([&] { call_op("logicalAnd", {x, from({2}, {1, 1})}, {}); },
              "logicalAnd: shapes [2, 3] and [2] cannot be broadcast together (3 vs 2 at dim 1)");
  check_error([&] { call_op("any", {x}, attrs({{"dim", 2.0}})); },
              "any: dim 2 is out of range for a tensor with 2 dims (expected a dim in [-2, 1])");
  // The module still computes after every failure above.
  CHECK(sum(x).item() == 21);
}
