// Losses: forward values and gradients against PyTorch (tests/data/layer_loss_ref.json,
// replayed through the op registry), closed forms computed here in double, gradchecks of every
// loss and option, cross entropy with logits of ±1e4, error messages — on both CPU backends.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/copy.h"
#include "gradcheck.h"
#include "test_util.h"
#include "kernels/backend.h"
#include "nn/loss.h"
#include "nn_ref_data.h"
#include "ops/ops.h"
#include "ops/registry.h"

using sg::DType;
using sg::Shape;
using sg::Tensor;
using sgtest::from;
using sgtest::gradcheck;
using sgtest::leaf;
using sgtest::on_each_backend;
using sgtest::ints;
using sgtest::error_of;

namespace {


// A leaf input = target + d with |d| drawn from `mags` (random sign): no kink of an
// elementwise loss (0, β, δ) lies within the gradcheck's step of any difference.
Tensor offset_leaf(const Tensor& target, const std::vector<float>& mags, unsigned seed) {
  std::mt19937 gen(seed);
  Tensor x = Tensor::empty(target.shape());
  for (int64_t i = 0; i < x.numel(); ++i) {
    const float m = mags[gen() % mags.size()];
    x.f32()[i] = target.f32()[i] + ((gen() & 1) ? m : -m);
  }
  x.set_requires_grad(true);
  return x;
}

const std::vector<std::string> kReductions = {"mean", "sum", "none"};

}  // namespace

TEST_CASE("nn loss: PyTorch reference cases (forward and gradients)") {
  on_each_backend([] { CHECK(nntest::run_reference_cases("loss", 2e-4, 2e-5) >= 50); });
}

TEST_CASE("nn loss: crossEntropy matches a double-precision closed form") {
  on_each_backend([] {
    const int64_t n = 5, c = 4;
    Tensor x = leaf({n, c}, -3, 3, 11, false);
    Tensor t = ints({n}, {3, -100, 0, 2, 1});
    Tensor w = from({c}, {0.5f, 2.0f, 1.0f, 1.5f});
    for (double eps : {0.0, 0.25}) {
      CAPTURE(eps);
      double total = 0, wsum = 0;
      std::vector<double> per(n, 0.0);
      for (int64_t r = 0; r < n; ++r) {
        const int32_t y = t.i32()[r];
        if (y == -100) continue;
        double m = -1e300, s = 0;
        for (int64_t k = 0; k < c; ++k) m = std::max(m, x.at(r * c + k));
        for (int64_t k = 0; k < c; ++k) s += std::exp(x.at(r * c + k) - m);
        auto logp = [&](int64_t k) { return x.at(r * c + k) - m - std::log(s); };
        double smooth = 0;
        for (int64_t k = 0; k < c; ++k) smooth -= w.at(k) * logp(k);
        per[r] = (1 - eps) * -w.at(y) * logp(y) + eps / c * smooth;
        total += per[r];
        wsum += w.at(y);
      }
      CHECK(sg::cross_entropy(x, t, w, -100, "mean", eps).item() == doctest::Approx(total / wsum).epsilon(1e-5));
      CHECK(sg::cross_entropy(x, t, w, -100, "sum", eps).item() == doctest::Approx(total).epsilon(1e-5));
      Tensor none = sg::cross_entropy(x, t, w, -100, "none", eps);
      REQUIRE(none.shape() == Shape{n});
      for (int64_t r = 0; r < n; ++r) CHECK(none.at(r) == doctest::Approx(per[r]).epsilon(1e-5));
    }
    // 'mean' with weights divides by the weights of the targets: rows [0, ln 3] and [0, 0],
    // targets 0 and 1, weights [1, 3] → (1·ln 4 + 3·ln 2) / (1 + 3).
    Tensor x2 = from({2, 2}, {0.0f, float(std::log(3.0)), 0.0f, 0.0f});
    CHECK(sg::cross_entropy(x2, ints({2}, {0, 1}), from({2}, {1.0f, 3.0f})).item() ==
          doctest::Approx(5 * std::log(2.0) / 4).epsilon(1e-6));
    // Every target ignored: 'mean' is 0/0 = NaN (PyTorch), 'sum' 0.
    CHECK(std::isnan(sg::cross_entropy(x2, ints({2}, {-100, -100})).item()));
    CHECK(sg::cross_entropy(x2, ints({2}, {-100, -100}), Tensor(), -100, "sum").item() == 0.0);
  });
}

TEST_CASE("nn loss: crossEntropy is finite for logits of ±1e4 (value and gradient)") {
  on_each_backend([] {
    Tensor x = from({3, 3}, {1e4f, -1e4f, 0.0f, 1e4f, 1e4f, -1e4f, -1e4f, 0.0f, 1e4f}, true);
    Tensor t = ints({3}, {0, 1, 0});
    Tensor loss = sg::cross_entropy(x, t, Tensor(), -100, "none");
    CHECK(loss.at(0) == doctest::Approx(0.0));
    CHECK(loss.at(1) == doctest::Approx(std::log(2.0)).epsilon(1e-6));
    CHECK(loss.at(2) == doctest::Approx(2e4).epsilon(1e-6));
    loss.backward(sg::ones({3}));
    const double want[9] = {0, 0, 0, 0.5, -0.5, 0, -1, 0, 1};
    for (int i = 0; i < 9; ++i) CHECK(x.grad().at(i) == doctest::Approx(want[i]));
    x.set_grad(Tensor());
    Tensor smoothed = sg::cross_entropy(x, t, from({3}, {1, 2, 3}), -100, "mean", 0.1);
    CHECK(std::isfinite(smoothed.item()));
    smoothed.backward();
    for (int i = 0; i < 9; ++i) CHECK(std::isfinite(x.grad().at(i)));
    Tensor probs = from({3, 3}, {1, 0, 0, 0.5f, 0.5f, 0, 0, 0, 1});
    CHECK(sg::cross_entropy(x, probs, Tensor(), -100, "none").at(1) == doctest::Approx(std::log(2.0)).epsilon(1e-6));
  });
}

TEST_CASE("nn loss: gradcheck crossEntropy and nllLoss over every option") {
  on_each_backend([] {
    Tensor t = ints({5}, {3, -100, 0, 2, 3});
    Tensor t_ign1 = ints({5}, {3, 1, 0, 2, 1});
    Tensor w = from({4}, {0.5f, 2.0f, 1.0f, 1.5f});
    for (const std::string& red : kReductions) {
      CAPTURE(red);
      gradcheck("crossEntropy", [&](auto& in) { return sg::cross_entropy(in[0], t, Tensor(), -100, red); },
                {leaf({5, 4}, -2, 2, 21)});
      gradcheck("crossEntropy weights", [&](auto& in) { return sg::cross_entropy(in[0], t, w, -100, red); },
                {leaf({5, 4}, -2, 2, 22)});
      gradcheck("crossEntropy weights, ignoreIndex 1, smoothing",
                [&](auto& in) { return sg::cross_entropy(in[0], t_ign1, w, 1, red, 0.3); }, {leaf({5, 4}, -2, 2, 23)});
      gradcheck("crossEntropy probabilities (input and target)",
                [&](auto& in) { return sg::cross_entropy(in[0], in[1], w, -100, red, 0.2); },
                {leaf({5, 4}, -2, 2, 24), leaf({5, 4}, 0, 1, 25)});
      gradcheck("crossEntropy [N, C, d1, d2]",
                [&](auto& in) {
                  Tensor t4 = ints({2, 2, 3}, {0, 2, 1, -100, 2, 2, 1, 1, 0, 2, -100, 0});
                  return sg::cross_entropy(in[0], t4, from({3}, {1, 2, 0.5f}), -100, red, 0.1);
                },
                {leaf({2, 3, 2, 3}, -2, 2, 26)});
      gradcheck("crossEntropy [N, C, d] probabilities",
                [&](auto& in) { return sg::cross_entropy(in[0], in[1], Tensor(), -100, red); },
                {leaf({2, 3, 4}, -2, 2, 27), leaf({2, 3, 4}, 0, 1, 28)});
      gradcheck("nllLoss", [&](auto& in) { return sg::nll_loss(in[0], t, w, -100, red); }, {leaf({5, 4}, -3, 0, 29)});
      gradcheck("nllLoss [N, C, d]", [&](auto& in) { return sg::nll_loss(in[0], ints({2, 2}, {0, 2, 1, 1}), Tensor(), 1, red); },
                {leaf({2, 3, 2}, -3, 0, 30)});
    }
    gradcheck("crossEntropy unbatched", [](auto& in) { return sg::cross_entropy(in[0], ints({}, {2})); },
              {leaf({4}, -2, 2, 31)});
    gradcheck("nllLoss unbatched", [](auto& in) { return sg::nll_loss(in[0], ints({}, {2})); }, {leaf({4}, -2, 0, 32)});
  });
}

TEST_CASE("nn loss: gradcheck the elementwise and binary losses over every option") {
  on_each_backend([] {
    const std::vector<float> mags = {0.12f, 0.3f, 0.62f, 0.85f, 1.3f, 1.7f};
    for (const std::string& red : kReductions) {
      CAPTURE(red);
      Tensor t = leaf({3, 4}, -1, 1, 41);
      Tensor x = offset_leaf(t, mags, 42);
      gradcheck("mseLoss", [&](auto& in) { return sg::mse_loss(in[0], in[1], red); }, {x, t});
      gradcheck("l1Loss", [&](auto& in) { return sg::l1_loss(in[0], in[1], red); }, {x, t});
      gradcheck("smoothL1Loss", [&](auto& in) { return sg::smooth_l1_loss(in[0], in[1], red); }, {x, t});
      gradcheck("smoothL1Loss beta 0.5", [&](auto& in) { return sg::smooth_l1_loss(in[0], in[1], red, 0.5); }, {x, t});
      gradcheck("smoothL1Loss beta 0", [&](auto& in) { return sg::smooth_l1_loss(in[0], in[1], red, 0.0); }, {x, t});
      gradcheck("huberLoss", [&](auto& in) { return sg::huber_loss(in[0], in[1], red); }, {x, t});
      gradcheck("huberLoss delta 0.7", [&](auto& in) { return sg::huber_loss(in[0], in[1], red, 0.7); }, {x, t});
      // Broadcast target [4] against input [3, 4].
      Tensor tb = leaf({4}, 3, 4, 43);
      gradcheck("mseLoss broadcast", [&](auto& in) { return sg::mse_loss(in[0], in[1], red); }, {leaf({3, 4}, -1, 1, 44), tb});
      gradcheck("huberLoss broadcast", [&](auto& in) { return sg::huber_loss(in[0], in[1], red); },
                {leaf({3, 4}, -1, 1, 45), tb});

      gradcheck("binaryCrossEntropy", [&](auto& in) { return sg::binary_cross_entropy(in[0], in[1], Tensor(), red); },
                {leaf({3, 4}, 0.1, 0.9, 46), leaf({3, 4}, 0, 1, 47)});
      gradcheck("binaryCrossEntropy weight",
                [&](auto& in) { return sg::binary_cross_entropy(in[0], in[1], from({4}, {0.5f, 1, 2, 0.25f}), red); },
                {leaf({3, 4}, 0.1, 0.9, 48), leaf({3, 4}, 0, 1, 49)});
      gradcheck("binaryCrossEntropyWithLogits",
                [&](auto& in) { return sg::binary_cross_entropy_with_logits(in[0], in[1], Tensor(), Tensor(), red); },
                {leaf({3, 4}, -4, 4, 50), leaf({3, 4}, 0, 1, 51)});
      gradcheck("binaryCrossEntropyWithLogits weight, posWeight",
                [&](auto& in) {
                  return sg::binary_cross_entropy_with_logits(in[0], in[1], from({3, 1}, {0.5f, 1, 2}),
                                                              from({4}, {3, 0.5f, 1, 2}), red);
                },
                {leaf({3, 4}, -4, 4, 52), leaf({3, 4}, 0, 1, 53)});
      gradcheck("cosineEmbeddingLoss",
                [&](auto& in) { return sg::cosine_embedding_loss(in[0], in[1], ints({4}, {1, -1, -1, 1}), 0.1, red); },
                {leaf({4, 5}, -1, 1, 54), leaf({4, 5}, -1, 1, 55)});
    }
    for (const std::string& red : {"mean", "sum", "none", "batchmean"}) {
      CAPTURE(red);
      gradcheck("klDiv", [&](auto& in) { return sg::kl_div(in[0], in[1], red); },
                {leaf({3, 4}, -3, 0, 56), leaf({3, 4}, 0.1, 1, 57)});
      gradcheck("klDiv logTarget", [&](auto& in) { return sg::kl_div(in[0], in[1], red, true); },
                {leaf({3, 4}, -3, 0, 58), leaf({3, 4}, -3, 0, 59)});
    }
    gradcheck("cosineEmbeddingLoss 1-D, float target",
              [](auto& in) { return sg::cosine_embedding_loss(in[0], in[1], from({}, {-1.0f}), -0.5); },
              {leaf({5}, -1, 1, 60), leaf({5}, -1, 1, 61)});
  });
}

TEST_CASE("nn loss: closed forms of the elementwise losses") {
  Tensor x = from({4}, {0.0f, 1.0f, -2.0f, 0.25f}), t = from({4}, {0.5f, -1.0f, -2.0f, 1.0f});
  const double d[4] = {-0.5, 2.0, 0.0, -0.75};
  double mse = 0, l1 = 0, sl1 = 0, hub = 0;
  for (double v : d) {
    mse += v * v / 4;
    l1 += std::fabs(v) / 4;
    sl1 += (std::fabs(v) < 0.8 ? 0.5 * v * v / 0.8 : std::fabs(v) - 0.4) / 4;
    hub += (std::fabs(v) < 0.6 ? 0.5 * v * v : 0.6 * (std::fabs(v) - 0.3)) / 4;
  }
  CHECK(sg::mse_loss(x, t).item() == doctest::Approx(mse));
  CHECK(sg::l1_loss(x, t).item() == doctest::Approx(l1));
  CHECK(sg::smooth_l1_loss(x, t, "mean", 0.8).item() == doctest::Approx(sl1));
  CHECK(sg::huber_loss(x, t, "mean", 0.6).item() == doctest::Approx(hub));
  // BCE clamps each log at −100: input 0 with target 1 costs 100, not inf.
  CHECK(sg::binary_cross_entropy(from({1}, {0.0f}), from({1}, {1.0f})).item() == doctest::Approx(100.0));
  // KL: target 0 contributes 0 (0·log 0 = 0) and its target gradient is 0, not NaN.
  Tensor lp = from({3}, {-1.0f, -0.5f, -2.0f}), q = from({3}, {0.5f, 0.0f, 0.5f}, true);
  Tensor kl = sg::kl_div(lp, q, "sum");
  CHECK(kl.item() == doctest::Approx(0.5 * (std::log(0.5) + 1) + 0.5 * (std::log(0.5) + 2)));
  kl.backward();
  CHECK(q.grad().at(1) == 0.0);
  CHECK(q.grad().at(0) == doctest::Approx(std::log(0.5) + 1 + 1));
  CHECK(sg::kl_div(from({2, 2}, {-1, -1, -1, -1}), from({2, 2}, {1, 1, 1, 1}), "batchmean").item() ==
        doctest::Approx(2.0));
}

TEST_CASE("nn loss: error messages") {
  CHECK(error_of([] { sg::cross_entropy(sg::zeros({8, 10}), sg::zeros({8, 1}, DType::Int32)); }) ==
        "crossEntropy: expected target of shape [8] for input [8, 10], got [8, 1]");
  CHECK(error_of([] { sg::cross_entropy(sg::zeros({2, 10}), ints({2}, {3, 11})); }) ==
        "crossEntropy: target 11 is out of range for 10 classes");
  CHECK(error_of([] { sg::cross_entropy(sg::zeros({2, 10}), ints({2}, {-1, 1})); }) ==
        "crossEntropy: target -1 is out of range for 10 classes");
  CHECK(error_of([] { sg::cross_entropy(sg::zeros({2, 10}), sg::zeros({2}, DType::Bool)); }) ==
        "crossEntropy: expected target of dtype int32 (class indices) or float32 (probabilities), got bool");
  CHECK(error_of([] { sg::cross_entropy(sg::zeros({8, 10}), sg::zeros({8})); }) ==
        "crossEntropy: expected a float32 target of probabilities of the input's shape [8, 10], got [8] (class "
        "indices must be int32)");
  CHECK(error_of([] { sg::cross_entropy(sg::zeros({2, 10}), ints({2}, {1, 1}), sg::ones({3})); }) ==
        "crossEntropy: expected weight of shape [10], got [3]");
  CHECK(error_of([] { sg::cross_entropy(sg::zeros({2, 10}), ints({2}, {1, 1}), Tensor(), -100, "avg"); }) ==
        "crossEntropy: reduction must be 'mean', 'sum' or 'none', got 'avg'");
  CHECK(error_of([] { sg::cross_entropy(sg::zeros({2, 10}), ints({2}, {1, 1}), Tensor(), -100, "mean", 1.5); }) ==
        "crossEntropy: labelSmoothing must be between 0 and 1, got 1.5");
  CHECK(error_of([] { sg::cross_entropy(sg::zeros({2, 3}), sg::zeros({2, 3}), Tensor(), 1); }) ==
        "crossEntropy: ignoreIndex is not supported for probability (float32) targets, got 1");
  CHECK(error_of([] { sg::nll_loss(sg::zeros({2, 3}), sg::zeros({2})); }) ==
        "nllLoss: expected target of dtype int32 (class indices), got float32");
  CHECK(error_of([] { sg::nll_loss(sg::zeros({2, 3}), ints({2}, {0, 3})); }) ==
        "nllLoss: target 3 is out of range for 3 classes");
  CHECK(error_of([] { sg::mse_loss(sg::zeros({3, 4}), sg::zeros({3})); }) ==
        "mseLoss: shapes [3, 4] and [3] cannot be broadcast together (4 vs 3 at dim 1)");
  CHECK(error_of([] { sg::mse_loss(sg::zeros({3}), sg::zeros({3}, DType::Int32)); }) ==
        "mseLoss: expected target of dtype float32 or float64, got int32");
  CHECK(error_of([] { sg::l1_loss(sg::zeros({3}), sg::zeros({3}), "batchmean"); }) ==
        "l1Loss: reduction must be 'mean', 'sum' or 'none', got 'batchmean'");
  CHECK(error_of([] { sg::kl_div(sg::zeros({3}), sg::zeros({3}), "avg"); }) ==
        "klDiv: reduction must be 'mean', 'batchmean', 'sum' or 'none', got 'avg'");
  CHECK(error_of([] { sg::smooth_l1_loss(sg::zeros({3}), sg::zeros({3}), "mean", -1); }) ==
        "smoothL1Loss: beta must be non-negative, got -1");
  CHECK(error_of([] { sg::huber_loss(sg::zeros({3}), sg::zeros({3}), "mean", 0); }) ==
        "huberLoss: delta must be positive, got 0");
  CHECK(error_of([] { sg::binary_cross_entropy(from({2}, {0.5f, 1.5f}), sg::zeros({2})); }) ==
        "binaryCrossEntropy: all elements of input should be between 0 and 1, got 1.5");
  CHECK(error_of([] { sg::binary_cross_entropy(sg::zeros({3, 4}), sg::zeros({4})); }) ==
        "binaryCrossEntropy: expected target of the input's shape [3, 4], got [4]");
  CHECK(error_of([] { sg::binary_cross_entropy_with_logits(sg::zeros({3, 4}), sg::zeros({3, 4}), sg::ones({2, 3, 4})); }) ==
        "binaryCrossEntropyWithLogits: weight of shape [2, 3, 4] does not broadcast to the input's shape [3, 4]");
  CHECK(error_of([] { sg::cosine_embedding_loss(sg::zeros({2, 3}), sg::zeros({2, 3}), sg::zeros({2, 1})); }) ==
        "cosineEmbeddingLoss: expected a 0-d or 1-d target, got [2, 1]");
}

TEST_CASE("nn loss: registry rows read reduction and options") {
  sg::Attrs a;
  a.set("reduction", std::string("sum"));
  a.set("ignoreIndex", 1.0);
  a.set("labelSmoothing", 0.1);
  Tensor x = leaf({3, 4}, -1, 1, 71, false);
  Tensor t = ints({3}, {0, 1, 2});
  auto out = sg::call_op("crossEntropy", {x, t, Tensor()}, a);
  CHECK(out[0].item() == doctest::Approx(sg::cross_entropy(x, t, Tensor(), 1, "sum", 0.1).item()));
  a.set("reduction", std::string("avg"));
  CHECK(error_of([&] { sg::call_op("mseLoss", {x, x}, a); }) ==
        "mseLoss: reduction must be 'mean', 'sum' or 'none', got 'avg'");
  sg::Attrs b;
  b.set("reduction", std::string("batchmean"));
  b.set("logTarget", true);
  CHECK(sg::call_op("klDiv", {x, x}, b)[0].ndim() == 0);
  CHECK(sg::call_op("binaryCrossEntropyWithLogits", {x, x}, {})[0].ndim() == 0);
  CHECK(error_of([] { sg::call_op("crossEntropy", {sg::ones({2, 2})}, {}); }) ==
        "crossEntropy: expected 2 to 3 tensor arguments, got 1");
}
