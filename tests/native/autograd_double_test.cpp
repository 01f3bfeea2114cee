// Double backward (backward with create_graph) of every differentiable op family: the recorded
// first-order gradients are differentiated again and compared with central differences
// (gradgradcheck in gradcheck.h). Inputs stay away from kinks (relu at 0, ties of max).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "autograd/engine.h"
#include "gradcheck.h"
#include "nn/conv.h"
#include "nn/embedding.h"
#include "nn/linear.h"
#include "nn/loss.h"
#include "nn/norm.h"
#include "nn/pool.h"
#include "nn/rnn.h"
#include "ops/ops.h"

using sg::Tensor;
using sgtest::from;
using sgtest::gradgradcheck;
using sgtest::leaf;
using In = std::vector<Tensor>;

namespace {

Tensor s(double v) { return sg::scalar_tensor(v); }

// U[lo, hi) with every |x| ≥ 0.1 (kinks of relu, abs and friends sit at 0).
Tensor away_from_zero(const sg::Shape& shape, unsigned seed) {
  Tensor t = leaf(shape, 0.1, 1.0, seed, false);
  for (int64_t i = 0; i < t.numel(); ++i)
    if (i % 2) t.f32()[i] = -t.f32()[i];
  t.set_requires_grad(true);
  return t;
}

}  // namespace

TEST_CASE("double backward: binary ops, with broadcasting") {
  const auto a = [] { return leaf({2, 3}, 0.5, 1.5, 1); };
  const auto b = [] { return leaf({3}, 0.5, 1.5, 2); };
  gradgradcheck("add", [](In& in) { return sg::add(in[0], in[1]); }, {a(), b()});
  gradgradcheck("sub", [](In& in) { return sg::sub(in[0], in[1]); }, {a(), b()});
  gradgradcheck("mul", [](In& in) { return sg::mul(in[0], in[1]); }, {a(), b()});
  gradgradcheck("div", [](In& in) { return sg::div(in[0], in[1]); }, {a(), b()});
  gradgradcheck("pow", [](In& in) { return sg::pow(in[0], in[1]); }, {a(), b()});
  gradgradcheck("pow by a scalar", [](In& in) { return sg::pow(in[0], s(3.0)); }, {a()});
  gradgradcheck("maximum", [](In& in) { return sg::maximum(in[0], in[1]); }, {leaf({2, 3}, -1, 1, 3), b()});
  gradgradcheck("minimum", [](In& in) { return sg::minimum(in[0], in[1]); }, {leaf({2, 3}, -1, 1, 3), b()});
  gradgradcheck("clamp", [](In& in) { return sg::clamp(sg::mul(in[0], in[0]), -0.5, 0.5); },
                {away_from_zero({2, 3}, 4)});
  gradgradcheck("x * x (one tensor, two uses)", [](In& in) { return sg::mul(in[0], in[0]); }, {a()});
}

TEST_CASE("double backward: unary math") {
  const auto pos = [] { return leaf({2, 3}, 0.5, 2.0, 5); };
  const auto any = [] { return leaf({2, 3}, -1.5, 1.5, 6); };
  using F = Tensor (*)(const Tensor&);
  const std::pair<const char*, F> on_pos[] = {{"log", sg::log},     {"log2", sg::log2},   {"log10", sg::log10},
                                              {"log1p", sg::log1p}, {"sqrt", sg::sqrt},   {"rsqrt", sg::rsqrt},
                                              {"reciprocal", sg::reciprocal}};
  for (const auto& [name, f] : on_pos) gradgradcheck(name, [f = f](In& in) { return f(in[0]); }, {pos()});
  const std::pair<const char*, F> on_any[] = {{"neg", sg::neg}, {"exp", sg::exp},   {"expm1", sg::expm1},
                                              {"sin", sg::sin}, {"cos", sg::cos},   {"erf", sg::erf},
                                              {"square", sg::square}};
  for (const auto& [name, f] : on_any) gradgradcheck(name, [f = f](In& in) { return f(in[0]); }, {any()});
  gradgradcheck("abs", [](In& in) { return sg::mul(sg::abs(in[0]), in[0]); }, {away_from_zero({2, 3}, 7)});
  gradgradcheck("sign", [](In& in) { return sg::mul(sg::sign(in[0]), sg::square(in[0])); },
                {away_from_zero({2, 3}, 8)});
}

TEST_CASE("double backward: activations") {
  const auto x = [] { return away_from_zero({2, 4}, 9); };
  using F = Tensor (*)(const Tensor&);
  const std::pair<const char*, F> plain[] = {{"sigmoid", sg::sigmoid}, {"tanh", sg::tanh}, {"silu", sg::silu},
                                             {"selu", sg::selu}};
  for (const auto& [name, f] : plain) gradgradcheck(name, [f = f](In& in) { return f(in[0]); }, {x()});
  // relu and leaky relu are piecewise linear: their second derivative is 0; times x it is not.
  gradgradcheck("relu", [](In& in) { return sg::mul(sg::relu(in[0]), in[0]); }, {x()});
  gradgradcheck("leakyRelu", [](In& in) { return sg::mul(sg::leaky_relu(in[0], 0.2), in[0]); }, {x()});
  gradgradcheck("elu", [](In& in) { return sg::elu(in[0], 1.5); }, {x()});
  gradgradcheck("gelu", [](In& in) { return sg::gelu(in[0]); }, {x()});
  gradgradcheck("gelu tanh", [](In& in) { return sg::gelu(in[0], "tanh"); }, {x()});
  gradgradcheck("softplus", [](In& in) { return sg::softplus(in[0], 2.0, 20.0); }, {x()});
  gradgradcheck("prelu", [](In& in) { return sg::mul(sg::prelu(in[0], in[1]), in[0]); },
                {away_from_zero({2, 3, 2}, 10), leaf({3}, 0.1, 0.5, 11)});
}

TEST_CASE("double backward: reductions and softmax") {
  const auto t = [] { return leaf({2, 3, 4}, -1.5, 1.5, 12); };
  // Each reduction is squared (sum, mean and friends are linear: their own second derivative is 0).
  const auto sq = [](Tensor y) { return sg::mul(y, y); };
  gradgradcheck("sum", [&](In& in) { return sq(sg::sum(in[0], {1})); }, {t()});
  gradgradcheck("mean", [&](In& in) { return sq(sg::mean(in[0], {0, 2}, true)); }, {t()});
  gradgradcheck("prod", [&](In& in) { return sg::prod(in[0], {2}); }, {leaf({2, 3, 4}, 0.5, 1.5, 13)});
  gradgradcheck("prod with a zero", [&](In& in) { return sg::prod(in[0], {1}); },
                {from({2, 3}, {0.0f, 2.0f, 3.0f, 1.5f, -2.0f, 0.5f}, true)});
  gradgradcheck("max", [&](In& in) { return sq(sg::amax(in[0], {1})); }, {t()});
  gradgradcheck("min", [&](In& in) { return sq(sg::amin(in[0], {2}, true)); }, {t()});
  gradgradcheck("var", [](In& in) { return sg::var(in[0], {1}); }, {t()});
  gradgradcheck("std", [](In& in) { return sg::std(in[0], {2}, false, false); }, {t()});
  gradgradcheck("logsumexp", [](In& in) { return sg::logsumexp(in[0], {2}); }, {t()});
  for (double p : {1.0, 2.0, 3.0, 1.5, std::numeric_limits<double>::infinity()})
    gradgradcheck("norm p=" + std::to_string(p), [&, p](In& in) { return sq(sg::norm(in[0], p, {2})); }, {t()});
  gradgradcheck("softmax", [](In& in) { return sg::softmax(in[0], 1); }, {t()});
  gradgradcheck("logSoftmax", [](In& in) { return sg::log_softmax(in[0], -1); }, {t()});
}

TEST_CASE("double backward: matmul") {
  gradgradcheck("matmul 2-D", [](In& in) { return sg::matmul(in[0], in[1]); },
                {leaf({3, 4}, -1, 1, 14), leaf({4, 2}, -1, 1, 15)});
  gradgradcheck("matmul batched, broadcast", [](In& in) { return sg::matmul(in[0], in[1]); },
                {leaf({2, 3, 4}, -1, 1, 16), leaf({4, 2}, -1, 1, 17)});
  gradgradcheck("matmul 1-D · 2-D", [](In& in) { return sg::matmul(in[0], in[1]); },
                {leaf({4}, -1, 1, 18), leaf({4, 3}, -1, 1, 19)});
  gradgradcheck("matmul 2-D · 1-D", [](In& in) { return sg::matmul(in[0], in[1]); },
                {leaf({3, 4}, -1, 1, 20), leaf({4}, -1, 1, 21)});
}

TEST_CASE("double backward: shapes, indexing, padding, selection") {
  // Each is linear: multiplied by its input so that the second derivative is not 0.
  const auto t = [] { return leaf({2, 3, 4}, -1, 1, 22); };
  gradgradcheck("reshape", [](In& in) { return sg::square(sg::reshape(in[0], {4, 6})); }, {t()});
  gradgradcheck("transpose", [](In& in) { return sg::square(sg::transpose(in[0], 0, 2)); }, {t()});
  gradgradcheck("permute", [](In& in) { return sg::square(sg::permute(in[0], {2, 0, 1})); }, {t()});
  gradgradcheck("expand", [](In& in) { return sg::square(sg::expand(in[0], {3, 2, 3})); }, {leaf({2, 1}, -1, 1, 23)});
  gradgradcheck("narrow", [](In& in) { return sg::square(sg::narrow(in[0], 2, 1, 2)); }, {t()});
  gradgradcheck("slice", [](In& in) { return sg::square(sg::slice(in[0], 2, 0, 4, 2)); }, {t()});
  gradgradcheck("cat", [](In& in) { return sg::square(sg::cat({in[0], in[1]}, 1)); },
                {leaf({2, 3}, -1, 1, 24), leaf({2, 2}, -1, 1, 25)});
  gradgradcheck("stack", [](In& in) { return sg::square(sg::stack({in[0], in[1]}, 1)); },
                {leaf({2, 3}, -1, 1, 24), leaf({2, 3}, -1, 1, 25)});
  Tensor idx = Tensor::empty({3}, sg::DType::Int32);
  idx.i32()[0] = 2, idx.i32()[1] = 0, idx.i32()[2] = 2;
  gradgradcheck("indexSelect", [idx](In& in) { return sg::square(sg::index_select(in[0], 1, idx)); }, {t()});
  Tensor gi = Tensor::empty({2, 2, 4}, sg::DType::Int32);
  for (int64_t i = 0; i < gi.numel(); ++i) gi.i32()[i] = int32_t((i * 7) % 3);
  gradgradcheck("gather", [gi](In& in) { return sg::square(sg::gather(in[0], 1, gi)); }, {t()});
  for (const char* mode : {"constant", "reflect", "replicate"})
    gradgradcheck(std::string("pad ") + mode,
                  [mode](In& in) { return sg::square(sg::pad(in[0], {1, 2, 2, 1}, mode, 0.5)); }, {t()});
  Tensor mask = Tensor::empty({2, 3}, sg::DType::Bool);
  for (int64_t i = 0; i < 6; ++i) mask.u8()[i] = uint8_t(i % 2);
  gradgradcheck("where", [mask](In& in) { return sg::square(sg::where(mask, in[0], in[1])); },
                {leaf({2, 3}, -1, 1, 26), leaf({3}, -1, 1, 27)});
  gradgradcheck("maskedFill", [mask](In& in) { return sg::square(sg::masked_fill(in[0], mask, 2.0)); },
                {leaf({2, 3}, -1, 1, 28)});
}

TEST_CASE("double backward: linear and the normalization layers") {
  // Without an activation the Hessian-vector product of square(linear(...)) is a polynomial of
  // degree 2 in every input, so its central difference has no truncation error: a step of 1e-2
  // only lowers the float32 rounding, which at 1e-3 reached the tolerance with the wasm GEMM's
  // summation order (0.0099 vs 0.0105 on one weight). With ReLU a kink lies within 1e-2 of these
  // inputs, so that case keeps the default step.
  for (const char* act : {"none", "relu"}) {
    sgtest::GradcheckOptions opt = sgtest::second_order();
    if (std::string(act) == "none") opt.eps = 1e-2;
    gradgradcheck(std::string("linear ") + act,
                  [act](In& in) { return sg::square(sg::linear(in[0], in[1], in[2], act)); },
                  {leaf({2, 3, 4}, -1, 1, 30), leaf({5, 4}, -1, 1, 31), leaf({5}, -1, 1, 32)}, opt);
  }
  const auto img = [] { return leaf({2, 3, 2, 2}, -1, 1, 33); };
  const auto per_c = [](unsigned seed) { return leaf({3}, 0.5, 1.5, seed); };
  const auto buffer = [](double v) { return sg::full({3}, v); };
  gradgradcheck("batchNorm training",
                [buffer](In& in) { return sg::batch_norm(in[0], buffer(0), buffer(1), in[1], in[2], true, 0.1, 1e-5); },
                {img(), per_c(34), per_c(35)});
  gradgradcheck("batchNorm eval",
                [buffer](In& in) {
                  return sg::square(sg::batch_norm(in[0], buffer(0.1), buffer(0.9), in[1], in[2], false, 0.1, 1e-5));
                },
                {img(), per_c(34), per_c(35)});
  gradgradcheck("layerNorm", [](In& in) { return sg::layer_norm(in[0], {2, 2}, in[1], in[2], 1e-5); },
                {img(), leaf({2, 2}, 0.5, 1.5, 36), leaf({2, 2}, -1, 1, 37)});
  gradgradcheck("groupNorm", [](In& in) { return sg::group_norm(in[0], 1, in[1], in[2], 1e-5); },
                {img(), per_c(38), per_c(39)});
  gradgradcheck("instanceNorm",
                [](In& in) { return sg::instance_norm(in[0], Tensor(), Tensor(), in[1], in[2], true, 0.1, 1e-5); },
                {img(), per_c(40), per_c(41)});
}

TEST_CASE("double backward: losses") {
  const auto in = [] { return leaf({3, 4}, -1, 1, 50); };
  const auto tg = [] { return leaf({3, 4}, -1, 1, 51); };
  const auto sq = [](const Tensor& t) { return sg::square(t); };  // l1 is piecewise linear
  gradgradcheck("mseLoss", [](In& v) { return sg::mse_loss(v[0], v[1]); }, {in(), tg()});
  gradgradcheck("l1Loss", [sq](In& v) { return sg::l1_loss(sq(v[0]), v[1], "sum"); }, {in(), tg()});
  gradgradcheck("smoothL1Loss", [](In& v) { return sg::smooth_l1_loss(v[0], v[1], "mean", 0.5); }, {in(), tg()});
  gradgradcheck("huberLoss", [](In& v) { return sg::huber_loss(v[0], v[1], "none", 0.7); }, {in(), tg()});
  gradgradcheck("klDiv", [](In& v) { return sg::kl_div(sg::log_softmax(v[0], 1), sg::softmax(v[1], 1), "batchmean"); },
                {in(), tg()});
  gradgradcheck("klDiv log target",
                [](In& v) { return sg::kl_div(sg::log_softmax(v[0], 1), sg::log_softmax(v[1], 1), "sum", true); },
                {in(), tg()});
  gradgradcheck("binaryCrossEntropy", [](In& v) { return sg::binary_cross_entropy(sg::sigmoid(v[0]), sg::sigmoid(v[1])); },
                {in(), tg()});
  // Weights get no gradient (as in PyTorch): constants here.
  const Tensor pos_weight = leaf({4}, 0.5, 2, 52, false);
  gradgradcheck("binaryCrossEntropyWithLogits",
                [pos_weight](In& v) { return sg::binary_cross_entropy_with_logits(v[0], sg::sigmoid(v[1]), Tensor(), pos_weight); },
                {in(), tg()});
  Tensor idx = Tensor::empty({3}, sg::DType::Int32);
  idx.i32()[0] = 2, idx.i32()[1] = 0, idx.i32()[2] = 3;
  gradgradcheck("crossEntropy", [idx](In& v) { return sg::cross_entropy(v[0], idx); }, {in()});
  Tensor ignored = sg::clone(idx);
  ignored.i32()[1] = -100;
  gradgradcheck("crossEntropy weighted, smoothed, ignoring a row",
                [ignored](In& v) { return sg::cross_entropy(v[0], ignored, sg::full({4}, 0.5), -100, "mean", 0.2); },
                {in()});
  gradgradcheck("crossEntropy probabilities", [](In& v) { return sg::cross_entropy(v[0], sg::softmax(v[1], 1)); },
                {in(), tg()});
  gradgradcheck("crossEntropy [N, C, d]", [](In& v) {
    Tensor t = Tensor::empty({2, 3}, sg::DType::Int32);
    for (int i = 0; i < 6; ++i) t.i32()[i] = i % 4;
    return sg::cross_entropy(v[0], t, Tensor(), -100, "sum", 0.1);
  }, {leaf({2, 4, 3}, -1, 1, 53)});
  gradgradcheck("nllLoss", [idx](In& v) { return sg::nll_loss(sg::log_softmax(v[0], 1), idx); }, {in()});
}

TEST_CASE("double backward: convolution, pooling, embedding") {
  gradgradcheck("conv2d", [](In& v) { return sg::conv2d(v[0], v[1], v[2], {2}, {1}); },
                {leaf({2, 2, 4, 4}, -1, 1, 60), leaf({3, 2, 3, 3}, -1, 1, 61), leaf({3}, -1, 1, 62)});
  gradgradcheck("conv2d grouped, dilated", [](In& v) { return sg::conv2d(v[0], v[1], Tensor(), {1}, {1}, {2}, 2); },
                {leaf({1, 2, 5, 5}, -1, 1, 63), leaf({4, 1, 2, 2}, -1, 1, 64)});
  gradgradcheck("conv1d", [](In& v) { return sg::conv1d(v[0], v[1], v[2], {1}, {1}); },
                {leaf({2, 2, 5}, -1, 1, 65), leaf({3, 2, 3}, -1, 1, 66), leaf({3}, -1, 1, 67)});
  gradgradcheck("convTranspose2d", [](In& v) { return sg::conv_transpose2d(v[0], v[1], v[2], {2}, {1}); },
                {leaf({1, 2, 3, 3}, -1, 1, 68), leaf({2, 3, 3, 3}, -1, 1, 69), leaf({3}, -1, 1, 70)});
  // Pooling is linear (max pooling piecewise): squared so that its second derivative is not 0.
  gradgradcheck("maxPool2d", [](In& v) { return sg::square(sg::max_pool2d(v[0], {2}, {2}, {1})); },
                {leaf({1, 2, 5, 5}, -1, 1, 71)});
  gradgradcheck("maxPool1d", [](In& v) { return sg::square(sg::max_pool1d(v[0], {3}, {2})); }, {leaf({2, 2, 7}, -1, 1, 72)});
  gradgradcheck("avgPool2d", [](In& v) { return sg::square(sg::avg_pool2d(v[0], {3}, {2}, {1})); },
                {leaf({1, 2, 5, 5}, -1, 1, 73)});
  gradgradcheck("adaptiveAvgPool2d", [](In& v) { return sg::square(sg::adaptive_avg_pool2d(v[0], {2, 3})); },
                {leaf({1, 2, 5, 4}, -1, 1, 74)});
  Tensor idx = Tensor::empty({2, 3}, sg::DType::Int32);
  for (int i = 0; i < 6; ++i) idx.i32()[i] = (i * 2) % 5;
  gradgradcheck("embedding", [idx](In& v) { return sg::square(sg::embedding(v[0], idx, 2)); }, {leaf({5, 3}, -1, 1, 75)});
}

TEST_CASE("double backward: recurrent layers") {
  const auto run = [](sg::RnnMode mode, bool proj) {
    return [mode, proj](In& v) {
      return sg::rnn_layer_packed(mode, v[0], v[1], mode == sg::RnnMode::Lstm ? v[2] : Tensor(), v[3], v[4], v[5], v[6],
                                  proj ? v[7] : Tensor(), false);
    };
  };
  // T = 3, B = 2, inputs of 3, hidden 2 (LSTM with a projection to 1).
  gradgradcheck("lstm with projection", run(sg::RnnMode::Lstm, true),
                {leaf({3, 2, 3}, -1, 1, 80), leaf({2, 1}, -1, 1, 81), leaf({2, 2}, -1, 1, 82), leaf({8, 3}, -1, 1, 83),
                 leaf({8, 1}, -1, 1, 84), leaf({8}, -1, 1, 85), leaf({8}, -1, 1, 86), leaf({1, 2}, -1, 1, 87)});
  gradgradcheck("gru", run(sg::RnnMode::Gru, false),
                {leaf({3, 2, 3}, -1, 1, 88), leaf({2, 2}, -1, 1, 89), Tensor(), leaf({6, 3}, -1, 1, 90),
                 leaf({6, 2}, -1, 1, 91), leaf({6}, -1, 1, 92), leaf({6}, -1, 1, 93)});
  gradgradcheck("rnn tanh", run(sg::RnnMode::RnnTanh, false),
                {leaf({3, 2, 3}, -1, 1, 94), leaf({2, 2}, -1, 1, 95), Tensor(), leaf({2, 3}, -1, 1, 96),
                 leaf({2, 2}, -1, 1, 97), Tensor(), Tensor()});
}
