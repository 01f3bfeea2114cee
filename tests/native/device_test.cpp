// The device seam (core/device.h) against a fake device whose memory the host may not touch
// (fake_device.h): every op of the registry runs on the CPU and on the device and must give the
// same values, gradients and in-place updates bit for bit (both sides run the reference
// kernels), whether it has kernels there or falls back to the CPU (ops/fallback.h). Then the
// rules around it: device mixing, scalars, host access, transfers, pending downloads, memory.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "autograd/grad_mode.h"
#include "core/device.h"
#include "core/rng.h"
#include "fake_device.h"
#include "gradcheck.h"
#include "ops/ops.h"
#include "ops/registry.h"
#include "test_util.h"

using namespace sg;
using sgtest::FakeDeviceScope;
using sgtest::host_copy;
using sgtest::attrs;
using sgtest::bools;
using sgtest::ints;
using sgtest::leaf;

namespace {

using V = std::vector<double>;

// A float32 CPU leaf holding `values` (matrices the linalg ops accept).
Tensor floats(const Shape& shape, const std::vector<float>& values) {
  Tensor t = Tensor::empty(shape);
  for (size_t i = 0; i < values.size(); ++i) t.f32()[i] = values[i];
  t.set_requires_grad(true);
  return t;
}

// A float32 CPU tensor from U[lo, hi) that requires grad (a leaf).
Tensor f(const Shape& shape, double lo = -1, double hi = 1, unsigned seed = 3) { return leaf(shape, lo, hi, seed); }

struct Case {
  std::string label;  // the op name, plus what differs when an op has several cases
  std::string op;
  std::vector<Tensor> inputs;
  Attrs attrs;
  bool random = false;    // draws from the global generator: both runs start from one seed
  bool creation = false;  // no inputs: the device run passes device: 'webgpu'
};

// Bitwise equality of two CPU tensors' values (NaN equal to NaN), by element.
void check_same(const std::string& what, const Tensor& want, const Tensor& got) {
  INFO(what);
  REQUIRE(want.shape() == got.shape());
  REQUIRE(want.dtype() == got.dtype());
  int bad = 0;
  for (int64_t i = 0; i < want.numel() && bad < 5; ++i) {
    const double a = want.at(i), b = got.at(i);
    if (!(a == b || (std::isnan(a) && std::isnan(b)))) {
      ++bad;
      CHECK_MESSAGE(a == b, "element " << i << ": cpu " << a << ", device " << b);
    }
  }
}

// The CPU inputs again, fresh leaves with the same values (a run must not see another's graph
// or in-place updates).
std::vector<Tensor> fresh(const std::vector<Tensor>& inputs, Device d) {
  std::vector<Tensor> out;
  for (const Tensor& t : inputs) {
    if (!t.defined()) {
      out.emplace_back();
      continue;
    }
    Tensor c = contiguous_copy(t.detach());
    if (d != Device::CPU) c = to_device(c, d);
    if (t.requires_grad()) c.set_requires_grad(true);
    out.push_back(c);
  }
  return out;
}

struct Run {
  std::vector<Tensor> inputs, outputs, grads;
};

Run run_case(const Case& c, Device d) {
  Run r;
  r.inputs = fresh(c.inputs, d);
  Attrs a = c.attrs;
  if (c.creation) a.set("device", std::string(device_name(d)));
  if (c.random) manual_seed(2024);
  r.outputs = call_op(c.op, r.inputs, a);
  // Project every differentiable output on fixed weights and differentiate the sum.
  Tensor loss;
  unsigned seed = 11;
  for (const Tensor& o : r.outputs) {
    if (!o.requires_grad()) continue;
    Tensor w = leaf(o.shape(), -1, 1, seed++, false);
    if (d != Device::CPU) w = to_device(w, d);
    Tensor term = sum(mul(o, w));
    loss = loss.defined() ? add(loss, term) : term;
  }
  if (loss.defined()) {
    loss.backward();
    for (const Tensor& t : r.inputs) r.grads.push_back(t.defined() && t.requires_grad() ? t.grad() : Tensor());
  }
  return r;
}

std::vector<Case> all_cases() {
  std::vector<Case> cs;
  const Tensor x = f({2, 3}, 0.5, 2.0, 1), row = f({3}, 0.5, 2.0, 2), s = f({2, 3}, -1, 1, 4);
  const Tensor xi = ints({2, 3}, {3, -2, 7, 0, -5, 2}), rowi = ints({3}, {2, 3, -1});
  const Tensor mask = bools({2, 3}, {1, 0, 0, 1, 1, 0});
  auto add = [&](std::string op, std::vector<Tensor> in, Attrs a = {}, std::string label = "") {
    cs.push_back({label.empty() ? op : op + " " + label, op, std::move(in), std::move(a)});
  };
  for (const char* op : {"add", "sub", "mul", "div", "pow", "maximum", "minimum"}) add(op, {x, row});
  for (const char* op : {"add", "sub", "mul", "maximum", "minimum"}) add(op, {xi, rowi}, {}, "int32");
  add("pow", {xi, ints({3}, {2, 0, 3})}, {}, "int32");
  add("add", {x, rowi}, {}, "float + int32");
  add("mul", {x, Tensor(scalar_tensor(2.5))}, {}, "by a scalar");
  add("maximum", {mask, bools({3}, {0, 1, 0})}, {}, "bool");
  for (const char* op : {"eq", "ne", "lt", "le", "gt", "ge"}) {
    add(op, {s, Tensor(scalar_tensor(0.0))});
    add(op, {xi, rowi}, {}, "int32");
  }
  add("eq", {mask, bools({3}, {1, 1, 0})}, {}, "bool");
  for (const char* op : {"neg", "exp", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "erf",
                         "square", "reciprocal", "selu", "sigmoid", "tanh", "silu", "contiguous", "clone"})
    add(op, {x});
  for (const char* op : {"abs", "sign", "relu", "neg", "square"}) add(op, {s}, {}, "signed");
  for (const char* op : {"abs", "sign", "relu", "neg", "square"}) add(op, {xi}, {}, "int32");
  add("where", {mask, s, x});
  add("maskedFill", {s, mask}, attrs({{"value", -7.5}}));
  add("maskedFill", {xi, mask}, attrs({{"value", 4.0}}), "int32");
  add("clamp", {s}, attrs({{"min", -0.25}, {"max", 0.5}}));
  add("clamp", {xi}, attrs({{"min", -1.0}, {"max", 3.0}}), "int32");
  add("leakyRelu", {s}, attrs({{"negativeSlope", 0.1}}));
  add("elu", {s}, attrs({{"alpha", 1.5}}));
  add("gelu", {s});
  add("gelu", {s}, attrs({{"approximate", std::string("tanh")}}), "tanh");
  add("softplus", {s}, attrs({{"beta", 2.0}}));
  add("prelu", {f({2, 3, 2}), f({3}, 0, 0.5, 5)});
  add("cast", {s}, attrs({{"dtype", std::string("int32")}}), "to int32");
  add("cast", {xi}, attrs({{"dtype", std::string("bool")}}), "to bool");
  add("cast", {mask}, attrs({{"dtype", std::string("float32")}}), "to float32");
  add("softmax", {f({2, 3, 4})}, attrs({{"dim", 1.0}}));
  add("logSoftmax", {f({2, 3, 4})}, attrs({{"dim", -1.0}}));
  add("causalSoftmax", {f({2, 3, 4})});        // L 3 < S 4
  add("causalSoftmax", {f({5, 2})}, {}, "L > S");
  const Tensor t3 = f({2, 3, 4}, -2, 2, 6);
  for (const char* op : {"sum", "mean", "prod", "max", "min", "logsumexp"}) {
    add(op, {t3}, attrs({{"dim", V{1}}}));
    add(op, {t3}, attrs({{"dim", V{0, 2}}, {"keepdim", true}}), "two dims");
    add(op, {t3}, {}, "all");
  }
  add("max", {ints({2, 2}, {1, 5, 5, 2})}, attrs({{"dim", V{1}}}), "int32");
  add("sum", {mask}, attrs({{"dim", V{0}}}), "bool");
  add("prod", {xi}, {}, "int32");
  add("max", {f({2, 2}, 0, 0, 1)}, attrs({{"dim", V{1}}}), "ties");
  add("var", {t3}, attrs({{"dim", V{1}}}));
  add("std", {t3}, attrs({{"dim", V{2}}, {"unbiased", false}}));
  for (double p : {2.0, 1.0, 3.0, std::numeric_limits<double>::infinity(), 0.0})
    add("norm", {t3}, attrs({{"p", p}, {"dim", V{2}}}), "p=" + std::to_string(p));
  add("argmax", {t3}, attrs({{"dim", 1.0}}));
  add("argmin", {xi}, {}, "int32");
  add("matmul", {f({2, 3, 4}), f({4, 5})});
  add("matmul", {f({2, 3, 4}), f({2, 4, 5}, -1, 1, 9)}, {}, "batched");
  add("matmul", {f({4}), f({4, 5})}, {}, "1-D");
  add("reshape", {t3}, attrs({{"shape", V{4, -1}}}));
  add("view", {t3}, attrs({{"shape", V{6, 4}}}));
  add("expand", {f({1, 3})}, attrs({{"shape", V{4, 3}}}));
  add("flatten", {t3}, attrs({{"startDim", 1.0}}));
  add("squeeze", {f({2, 1, 3})});
  add("unsqueeze", {x}, attrs({{"dim", 1.0}}));
  add("transpose", {t3}, attrs({{"dim0", 0.0}, {"dim1", 2.0}}));
  add("permute", {t3}, attrs({{"dims", V{2, 0, 1}}}));
  add("narrow", {t3}, attrs({{"dim", 2.0}, {"start", 1.0}, {"length", 2.0}}));
  add("slice", {t3}, attrs({{"dim", 2.0}, {"start", 0.0}, {"end", 4.0}, {"step", 2.0}}));
  add("cat", {x, s}, attrs({{"dim", 1.0}}));
  add("stack", {x, s}, attrs({{"dim", 0.0}}));
  add("split", {t3}, attrs({{"splitSize", 3.0}, {"dim", 2.0}}));
  add("chunk", {t3}, attrs({{"chunks", 2.0}, {"dim", 1.0}}));
  add("indexSelect", {t3, ints({3}, {2, 0, 2})}, attrs({{"dim", 1.0}}));
  add("gather", {t3, ints({2, 2, 4}, {0, 2, 1, 1, 2, 2, 0, 1, 1, 0, 0, 2, 2, 1, 0, 0})}, attrs({{"dim", 1.0}}));
  add("pad", {t3}, attrs({{"pads", V{1, 2, 0, 1}}, {"value", 0.5}}), "constant");
  add("pad", {t3}, attrs({{"pads", V{2, 1}}, {"mode", std::string("reflect")}}), "reflect");
  add("pad", {t3}, attrs({{"pads", V{1, 2, 2, 0}}, {"mode", std::string("replicate")}}), "replicate");
  // rounding, trigonometry, modulo (ops.h)
  for (const char* op : {"floor", "ceil", "round", "trunc", "tan", "atan", "asin", "acos", "sinh", "cosh", "logicalNot"})
    add(op, {s});
  add("round", {xi}, {}, "int32");
  add("atan2", {s, row});
  for (const char* op : {"fmod", "remainder"}) {
    add(op, {s, row});
    add(op, {xi, rowi}, {}, "int32");
  }
  add("floorDivide", {xi, rowi}, {}, "int32");  // (float32 too, but it has no gradient to compare)
  add("divRounded", {s, row}, attrs({{"roundingMode", std::string("floor")}}), "floor");
  add("divRounded", {xi, rowi}, attrs({{"roundingMode", std::string("trunc")}}), "int32 trunc");
  // special.h: x in [0.5, 2] keeps lgamma/digamma/polygamma off their poles, s in (−1, 1) erfinv finite.
  for (const char* op : {"erfinv", "erfc", "i0"}) add(op, {s});
  for (const char* op : {"lgamma", "digamma"}) add(op, {x});
  add("polygamma", {x}, attrs({{"n", 2.0}}));
  add("hardtanh", {s}, attrs({{"minVal", -0.5}, {"maxVal", 0.5}}));
  for (const char* op : {"logicalAnd", "logicalOr", "logicalXor"}) add(op, {s, mask});
  // bitwise.h: int32 bits with broadcasting, bool as the logical ops, shift amounts in [0, 32).
  for (const char* op : {"bitwiseAnd", "bitwiseOr", "bitwiseXor", "gcd", "lcm"}) add(op, {xi, rowi});
  for (const char* op : {"bitwiseAnd", "bitwiseOr", "bitwiseXor"}) add(op, {mask, mask}, {}, "bool");
  add("bitwiseNot", {xi});
  for (const char* op : {"bitwiseLeftShift", "bitwiseRightShift"}) add(op, {xi, ints({3}, {1, 0, 31})});
  add("any", {s}, attrs({{"dim", V{1}}}));
  add("all", {xi});
  add("cumsum", {t3}, attrs({{"dim", 1.0}}));
  add("cumsum", {xi}, attrs({{"dim", 0.0}}), "int32");
  add("cumprod", {t3}, attrs({{"dim", -1.0}}));
  add("sort", {t3}, attrs({{"dim", 1.0}, {"descending", true}}));
  add("argsort", {xi}, attrs({{"dim", 0.0}}));
  add("topk", {t3}, attrs({{"k", 2.0}}));
  const Tensor sidx = ints({2, 3}, {1, 0, 1, 0, 1, 1});
  add("scatter", {x, sidx, f({2, 4}, -1, 1, 7)}, attrs({{"dim", 0.0}}));
  add("scatterAdd", {x, sidx, s}, attrs({{"dim", 0.0}}));
  add("scatterAdd", {xi, sidx, xi}, attrs({{"dim", 1.0}}), "int32");
  for (const char* reduce : {"sum", "prod", "mean", "amax", "amin"})
    for (const bool self : {true, false})
      add("scatterReduce", {x, sidx, f({2, 4}, -1, 1, 9)},
          attrs({{"dim", 0.0}, {"reduce", std::string(reduce)}, {"includeSelf", self}}),
          std::string(reduce) + (self ? "" : " without self"));
  add("scatterReduce", {xi, sidx, xi}, attrs({{"dim", 1.0}, {"reduce", std::string("mean")}}), "int32 mean");
  add("tril", {t3}, attrs({{"diagonal", -1.0}}));
  add("triu", {xi}, attrs({{"diagonal", 1.0}}), "int32");
  add("diag", {row}, attrs({{"diagonal", 1.0}}), "of a vector");
  add("diag", {x}, attrs({{"diagonal", -1.0}}), "of a matrix");
  add("outer", {row, f({2})});
  add("einsum", {t3, f({4, 2}, -1, 1, 8)}, attrs({{"equation", std::string("bij,jk->bki")}}));
  add("einsum", {f({3, 3})}, attrs({{"equation", std::string("ii->i")}}), "diagonal");
  // linalg: two symmetric, diagonally dominant (so positive-definite) 3x3 matrices.
  const Tensor spd = floats({2, 3, 3}, {4, 1, 0.5, 1, 3, -0.25, 0.5, -0.25, 2, 5, -1, 0, -1, 4, 1, 0, 1, 3});
  for (const char* op : {"linalgInv", "linalgDet", "linalgSlogdet", "logdet", "linalgCholesky"}) add(op, {spd});
  add("linalgCholesky", {spd}, attrs({{"upper", true}}), "upper");
  add("linalgSolve", {spd, f({3, 2})});
  add("linalgSolve", {spd, f({3})}, {}, "vector");
  // The decompositions: on a device they run through the same DataKernels methods.
  const Tensor tall = f({2, 3, 2});
  add("linalgSvd", {spd});
  add("linalgSvd", {tall}, attrs({{"fullMatrices", false}}), "reduced");
  add("linalgSvdvals", {tall});
  add("linalgEigh", {spd});
  add("linalgEigvalsh", {spd}, attrs({{"UPLO", std::string("U")}}));
  add("linalgQr", {tall});
  add("linalgSolveTriangular", {spd, f({3, 2})}, attrs({{"upper", true}}));
  add("linalgSolveTriangular", {spd, f({2, 3})}, attrs({{"upper", false}, {"left", false}}), "right");
  add("linalgLuFactor", {spd});
  add("linalgMatrixExp", {spd});
  add("linalgPinv", {tall});
  add("flip", {t3}, attrs({{"dims", V{0, 2}}}));
  add("roll", {t3}, attrs({{"shifts", V{1, -1}}, {"dims", V{2, 0}}}));
  add("repeat", {x}, attrs({{"repeats", V{2, 1, 2}}}));
  add("tile", {xi}, attrs({{"repeats", V{2}}}));
  add("select", {t3}, attrs({{"dim", 1.0}, {"index", -1.0}}));
  add("index", {t3}, attrs({{"items", V{0, 0, 0, 1, 1, -1, 0, 1, 2, 1, 9, 2}}}));
  cs.push_back({"bernoulli", "bernoulli", {f({3, 5}, 0, 1, 5)}, {}, true});
  cs.push_back({"bernoulli p", "bernoulli", {f({4})}, attrs({{"p", 0.4}}), true});
  cs.push_back({"multinomial", "multinomial", {f({2, 5}, 0, 1, 6)}, attrs({{"numSamples", 3.0}}), true});
  cs.push_back({"multinomial replacement", "multinomial", {f({5}, 0, 1, 7)},
                attrs({{"numSamples", 8.0}, {"replacement", true}}), true});
  // In place (graph/effect_ops.cpp): a counter.
  add("addInPlace", {leaf({2, 3}, -1, 1, 7, false)}, attrs({{"value", 1.5}}));
  add("addInPlace", {ints({2}, {4, -1})}, attrs({{"value", 1.0}}), "int32");
  // Layers.
  const Tensor img = f({2, 3, 5, 5}, -1, 1, 12);
  add("linear", {f({4, 3}), f({5, 3}, -1, 1, 8), f({5}, -1, 1, 9)});
  add("bilinear", {f({4, 3}), f({4, 2}, -1, 1, 8), f({5, 3, 2}, -1, 1, 9), f({5}, -1, 1, 10)});
  // Running statistics are buffers (no grad), updated in place while training.
  const auto buffer = [](double lo, double hi, unsigned seed) { return leaf({3}, lo, hi, seed, false); };
  add("batchNorm", {img, buffer(0, 0, 1), buffer(1, 1, 1), f({3}, 0.5, 1.5, 2), f({3})},
      attrs({{"training", true}, {"momentum", 0.2}}), "training");
  add("batchNorm", {img, buffer(-0.2, 0.2, 4), buffer(0.5, 1.5, 5), Tensor(), Tensor()}, {}, "eval");
  add("instanceNorm", {img, buffer(0, 0, 1), buffer(1, 1, 1), f({3}), f({3})}, {}, "running stats");
  add("layerNorm", {img, f({5, 5}), f({5, 5}, -1, 1, 2)}, attrs({{"normalizedShape", V{5, 5}}}));
  add("groupNorm", {f({2, 4, 3}), f({4}), f({4})}, attrs({{"numGroups", 2.0}}));
  add("instanceNorm", {img, Tensor(), Tensor(), f({3}), f({3})});
  add("embedding", {f({6, 3}), ints({2, 2}, {5, 0, 2, 5})});
  add("oneHot", {ints({3}, {2, 0, 1})}, attrs({{"numClasses", 4.0}}));
  // Losses.
  const Tensor logits = f({4, 5}, -2, 2, 13), target = ints({4}, {1, 4, 0, 4});
  add("crossEntropy", {logits, target});
  add("crossEntropy", {logits, target, f({5}, 0.5, 2, 3)}, attrs({{"labelSmoothing", 0.1}, {"ignoreIndex", 0.0}}),
      "weighted");
  add("crossEntropy", {logits, f({4, 5}, 0, 1, 14)}, attrs({{"reduction", std::string("sum")}}), "probabilities");
  add("nllLoss", {logits, target}, attrs({{"reduction", std::string("none")}}));
  add("mseLoss", {x, s});
  add("l1Loss", {x, s});
  add("smoothL1Loss", {x, s}, attrs({{"beta", 0.5}}));
  add("huberLoss", {x, s}, attrs({{"delta", 0.5}}));
  add("binaryCrossEntropy", {f({2, 3}, 0.1, 0.9, 3), f({2, 3}, 0, 1, 5)});
  add("binaryCrossEntropyWithLogits", {s, f({2, 3}, 0, 1, 5), Tensor(), f({3}, 0.5, 2, 6)});
  add("klDiv", {f({2, 3}, -2, -0.1, 3), f({2, 3}, 0.1, 1, 5)}, attrs({{"reduction", std::string("batchmean")}}));
  add("cosineEmbeddingLoss", {f({3, 4}), f({3, 4}, -1, 1, 8), ints({3}, {1, -1, 1})}, attrs({{"margin", 0.1}}));
  // Convolutions and pooling.
  add("conv1d", {f({2, 3, 7}), f({4, 3, 3}, -1, 1, 8), f({4}, -1, 1, 9)}, attrs({{"padding", 1.0}}));
  add("conv2d", {img, f({4, 3, 3, 3}, -1, 1, 8), f({4}, -1, 1, 9)}, attrs({{"stride", 2.0}, {"padding", 1.0}}));
  add("conv2d", {img, f({3, 1, 3, 3}, -1, 1, 8)}, attrs({{"groups", 3.0}, {"dilation", 2.0}}), "grouped");
  add("convTranspose2d", {img, f({3, 2, 3, 3}, -1, 1, 8), f({2}, -1, 1, 9)}, attrs({{"stride", 2.0}, {"padding", 1.0}}));
  add("maxPool1d", {f({2, 3, 7})}, attrs({{"kernelSize", 2.0}}));
  add("maxPool2d", {img}, attrs({{"kernelSize", 2.0}}));
  add("maxPool2d", {img}, attrs({{"kernelSize", 3.0}, {"stride", 2.0}, {"padding", 1.0}}), "padded");
  add("avgPool1d", {f({2, 3, 7})}, attrs({{"kernelSize", 3.0}}));
  add("avgPool2d", {img}, attrs({{"kernelSize", 2.0}, {"ceilMode", true}}));
  add("adaptiveAvgPool2d", {img}, attrs({{"outputSize", V{2, 3}}}));
  add("avgPool2d", {img}, attrs({{"kernelSize", 3.0}, {"stride", 2.0}, {"padding", 1.0}, {"countIncludePad", false}}),
      "padding not counted");
  add("conv2dReluMaxPool2d", {img, f({4, 3, 3, 3}, -1, 1, 8), f({4}, -1, 1, 9)},
      attrs({{"padding", 1.0}, {"poolKernelSize", 2.0}}));
  add("rnnLayer", {f({3, 2, 4}), f({2, 2}, -1, 1, 5), f({2, 3}, -1, 1, 6), f({12, 4}, -1, 1, 7), f({12, 2}, -1, 1, 8),
                   f({12}, -1, 1, 9), f({12}, -1, 1, 10), f({2, 3}, -1, 1, 11)},
      attrs({{"mode", std::string("lstm")}}), "lstm");
  add("rnnLayer", {f({3, 2, 4}), f({2, 3}, -1, 1, 5), Tensor(), f({9, 4}, -1, 1, 7), f({9, 3}, -1, 1, 8)},
      attrs({{"mode", std::string("gru")}, {"reverse", true}}), "gru reverse");
  // In-place ops: input 0 (no grad) is changed and returned; with an operand that requires grad
  // the change is recorded.
  const auto plain = [](const Shape& shape, double lo, double hi, unsigned seed) { return leaf(shape, lo, hi, seed, false); };
  add("add_", {plain({2, 3}, -1, 1, 30), row}, {}, "recorded");
  add("sub_", {plain({2, 3}, -1, 1, 31), Tensor(scalar_tensor(0.5))}, attrs({{"alpha", 2.0}}));
  add("mul_", {plain({2, 3}, -1, 1, 32), Tensor(scalar_tensor(-1.5))});
  add("div_", {plain({2, 3}, -1, 1, 33), row}, {}, "recorded");
  add("pow_", {plain({2, 3}, 0.5, 2, 34), plain({3}, 0, 2, 35)});
  add("clamp_", {plain({2, 3}, -1, 1, 36)}, attrs({{"min", -0.25}, {"max", 0.5}}));
  add("maskedFill_", {plain({2, 3}, -1, 1, 37), mask}, attrs({{"value", 9.0}}));
  add("addcmul_", {plain({2, 3}, -1, 1, 38), s, row}, attrs({{"value", 0.5}}), "recorded");
  add("addcdiv_", {plain({2, 3}, -1, 1, 39), plain({2, 3}, -1, 1, 40), plain({3}, 1, 2, 41)}, attrs({{"value", -2.0}}));
  for (const char* op : {"neg_", "exp_", "log_", "sqrt_", "abs_", "sigmoid_", "tanh_", "relu_"})
    add(op, {plain({2, 3}, 0.25, 2, 42)});
  add("add_", {ints({2, 3}, {3, -2, 7, 0, -5, 2}), rowi}, {}, "int32");
  add("fill_", {plain({2, 3}, -1, 1, 43)}, attrs({{"value", 2.5}}));
  add("zero_", {plain({2, 3}, -1, 1, 44)});
  add("copy_", {plain({2, 3}, -1, 1, 45), row}, {}, "recorded");
  add("copy_", {ints({2, 3}, {1, 2, 3, 4, 5, 6}), plain({3}, -3, 3, 46)}, {}, "float to int32");
  cs.push_back({"normal_", "normal_", {plain({4, 6}, 0, 0, 47)}, attrs({{"mean", 1.0}, {"std", 0.5}}), true});
  cs.push_back({"uniform_", "uniform_", {plain({4, 6}, 0, 0, 48)}, attrs({{"from", -2.0}, {"to", 3.0}}), true});
  // Random and creation ops.
  cs.push_back({"dropout", "dropout", {f({4, 6})}, attrs({{"p", 0.3}}), true});
  cs.push_back({"dropout2d", "dropout2d", {img}, attrs({{"p", 0.5}}), true});
  auto create = [&](std::string op, Attrs a, bool random = false) { cs.push_back({op, op, {}, std::move(a), random, true}); };
  create("zeros", attrs({{"shape", V{2, 3}}}));
  create("ones", attrs({{"shape", V{2, 3}}, {"dtype", std::string("int32")}}));
  create("full", attrs({{"shape", V{3}}, {"value", 2.5}}));
  create("arange", attrs({{"start", 1.0}, {"end", 7.0}, {"step", 1.5}}));
  create("linspace", attrs({{"start", -1.0}, {"end", 1.0}, {"steps", 5.0}}));
  create("eye", attrs({{"n", 3.0}, {"m", 4.0}}));
  create("rand", attrs({{"shape", V{3, 5}}}), true);
  create("randn", attrs({{"shape", V{7}}}), true);
  create("randint", attrs({{"low", -3.0}, {"high", 9.0}, {"shape", V{2, 4}}}), true);
  return cs;
}

// fallback: an op run through the CPU fallback gives zeros where the CPU run gives no gradient
// at all (the device gradient is allocated before the CPU graph is known).
void check_case_on_device(const Case& c, bool fallback = false) {
  CAPTURE(c.label);
  const Run cpu = run_case(c, Device::CPU);
  const Run dev = run_case(c, Device::WebGPU);
  REQUIRE(cpu.outputs.size() == dev.outputs.size());
  for (size_t k = 0; k < cpu.outputs.size(); ++k) {
    CHECK(dev.outputs[k].device() == Device::WebGPU);
    check_same(c.label + ": output " + std::to_string(k), cpu.outputs[k], host_copy(dev.outputs[k]));
  }
  // In-place updates (batch norm's running statistics) reach the device tensors too.
  for (size_t i = 0; i < cpu.inputs.size(); ++i)
    if (cpu.inputs[i].defined())
      check_same(c.label + ": input " + std::to_string(i) + " after the op", cpu.inputs[i],
                 host_copy(dev.inputs[i]));
  REQUIRE(cpu.grads.size() == dev.grads.size());
  for (size_t i = 0; i < cpu.grads.size(); ++i) {
    CAPTURE(i);
    if (fallback && !cpu.grads[i].defined() && dev.grads[i].defined()) {
      check_same(c.label + ": zero gradient of input " + std::to_string(i), zeros(cpu.inputs[i].shape()),
                 host_copy(dev.grads[i]));
      continue;
    }
    REQUIRE(cpu.grads[i].defined() == dev.grads[i].defined());
    if (!cpu.grads[i].defined()) continue;
    CHECK(dev.grads[i].device() == Device::WebGPU);
    check_same(c.label + ": gradient of input " + std::to_string(i), cpu.grads[i], host_copy(dev.grads[i]));
  }
}

}  // namespace

TEST_CASE("device: every op gives the cpu's values, gradients and in-place updates on a device") {
  FakeDeviceScope scope;
  // The fused RNN layer's cell math still reads memory itself (src/nn/rnn.cpp): it takes the
  // CPU fallback here, which the next test covers.
  scope.device().unsupported.insert("rnnLayer");
  const std::vector<Case> cases = all_cases();
  std::set<std::string> covered;
  for (const Case& c : cases) {
    covered.insert(c.op);
    check_case_on_device(c);
  }
  // Every op of the registry is in the table above (but 'scalar', which makes CPU scalars,
  // 'to', tested below, and the autograd bookkeeping ops, which compute nothing).
  for (const std::string& name : op_names())
    if (name != "scalar" && name != "to" && !find_op(name)->any_device) CHECK_MESSAGE(covered.count(name), "no device case for op " << name);
  CHECK(scope.device().warnings.size() == scope.device().unsupported.size());
}

TEST_CASE("device: an op without kernels on the device runs on the cpu, with gradients and one warning") {
  FakeDeviceScope scope;
  const std::vector<Case> cases = all_cases();
  for (const Case& c : cases) scope.device().unsupported.insert(c.op);
  for (const Case& c : cases) check_case_on_device(c, true);
  std::set<std::string> warned(scope.device().warnings.begin(), scope.device().warnings.end());
  CHECK(warned.size() == scope.device().warnings.size());  // once per op
  CHECK(warned.count("simdgrad: matmul has no webgpu kernel yet; running it on wasm") == 1);
}

TEST_CASE("device: tensors on two devices in one op are an error naming both; scalars go anywhere") {
  FakeDeviceScope scope;
  const Tensor c = sgtest::from({2}, {1, 2});
  const Tensor d = to_device(c, Device::WebGPU);
  CHECK_THROWS_WITH(call_op("add", {c, d}, {}),
                    "add: expected all tensors on one device, got cpu (operand 0) and webgpu (operand 1); "
                    "move one with .to(device)");
  CHECK_THROWS_WITH(call_op("matmul", {d, sgtest::from({2, 1}, {1, 1})}, {}),
                    doctest::Contains("got webgpu (operand 0) and cpu (operand 1)"));
  const Tensor three = call_op("mul", {d, scalar_tensor(3.0)}, {})[0];
  CHECK(three.device() == Device::WebGPU);
  CHECK(host_copy(three).at(1) == 6.0);
  // A scalar that requires grad gets its gradient back on the cpu.
  Tensor k = scalar_tensor(2.0);
  k.set_requires_grad(true);
  Tensor y = call_op("mul", {d, k}, {})[0];
  sum(y).backward();
  REQUIRE(k.grad().defined());
  CHECK(k.grad().device() == Device::CPU);
  CHECK(k.grad().item() == 3.0);
}

TEST_CASE("device: host access to device memory throws instead of reading it") {
  FakeDeviceScope scope;
  const Tensor d = to_device(sgtest::from({1}, {2}), Device::WebGPU);
  CHECK_THROWS_WITH(d.f32(), doctest::Contains("a webgpu tensor cannot be read or written on the cpu here"));
  CHECK_THROWS_WITH(d.item(), doctest::Contains("await t.data()"));
  CHECK_NOTHROW(d.dev_f32());
}

TEST_CASE("device: a download lands later; until then the cpu tensor refuses to be read") {
  FakeDeviceScope scope;
  scope.device().defer_downloads = true;
  const Tensor d = to_device(sgtest::from({3}, {1, 2, 3}), Device::WebGPU);
  const Tensor back = to_device(d, Device::CPU);
  CHECK(back.device() == Device::CPU);
  CHECK_THROWS_WITH(back.at(0), doctest::Contains("still on its way from the gpu"));
  CHECK_THROWS_WITH(add(back, back), doctest::Contains("await sg.sync()"));
  scope.device().flush();
  CHECK(back.at(2) == 3.0);
  CHECK(add(back, back).at(1) == 4.0);
}

TEST_CASE("device: to() is differentiable both ways and counts device memory apart") {
  const MemoryStats before = memory_stats();
  {
    FakeDeviceScope scope;
    Tensor c = sgtest::from({2, 2}, {1, -2, 3, -4}, true);
    Tensor d = to_device(c, Device::WebGPU);
    CHECK(d.requires_grad());
    Tensor back = to_device(square(d), Device::CPU);
    sum(back).backward();
    REQUIRE(c.grad().defined());
    CHECK(c.grad().device() == Device::CPU);
    check_same("d/dc of sum(c²)", sgtest::from({2, 2}, {2, -4, 6, -8}), c.grad());
    const MemoryStats during = memory_stats();
    CHECK(during.device_storages > before.device_storages);
    CHECK(during.device_bytes >= before.device_bytes + 16);
    CHECK(scope.device().live_buffers > 0);
  }
  const MemoryStats after = memory_stats();
  CHECK(after.device_storages == before.device_storages);
  CHECK(after.device_bytes == before.device_bytes);
}

TEST_CASE("device: without a registered device, asking for one is a clear error") {
  CHECK_FALSE(device_available(Device::WebGPU));
  CHECK_THROWS_WITH(zeros({2}, DType::Float32, Device::WebGPU),
                    doctest::Contains("device 'webgpu' is not available: call init({ backend: 'webgpu' }) first"));
  CHECK_THROWS_WITH(call_op("zeros", {}, attrs({{"shape", V{2}}, {"device", std::string("gpu")}})),
                    "zeros: expected 'device' to be 'cpu' or 'webgpu', got 'gpu'");
}

TEST_CASE("device: random ops give the same values on every device for one seed") {
  FakeDeviceScope scope;
  manual_seed(99);
  const Tensor a = rand({257});
  const Tensor b = randn({33});
  const double next_on_cpu = rand({1}).item();
  manual_seed(99);
  const Tensor da = rand({257}, Device::WebGPU);
  const Tensor db = randn({33}, Device::WebGPU);
  check_same("rand", a, host_copy(da));
  check_same("randn", b, host_copy(db));
  // The device draws used as many words of the stream as the cpu draws did.
  CHECK(rand({1}).item() == next_on_cpu);
}
