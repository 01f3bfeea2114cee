// The recurrent-layer op (nn/rnn.h): forward values against a plain double-precision
// transcription of PyTorch's cell equations written here (every mode, both directions, LSTM
// with a projection, no bias), gradients of every input by central differences through all
// three results (output, h_n, c_n), and its argument errors — on both CPU backends.
// (Values against PyTorch itself: tests/js/nn_rnn.test.mjs with tests/data/rnn_ref.json.)
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "gradcheck.h"
#include "nn/rnn.h"
#include "ops/ops.h"
#include "test_util.h"

using sg::RnnMode;
using sg::Shape;
using sg::Tensor;
using sgtest::error_of;
using sgtest::gradcheck;
using sgtest::leaf;
using sgtest::on_each_backend;

namespace {

struct Case {
  std::string name;
  RnnMode mode;
  int64_t T, B, I, H, P;  // P = H without projection
  bool bias, reverse;
};

int64_t gates(RnnMode m) { return m == RnnMode::Lstm ? 4 : m == RnnMode::Gru ? 3 : 1; }
double sigmoid(double v) { return 1 / (1 + std::exp(-v)); }

struct Inputs {
  Tensor x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr;
  std::vector<Tensor> list() const { return {x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr}; }
};

Inputs make_inputs(const Case& c, bool requires_grad) {
  const int64_t GH = gates(c.mode) * c.H;
  Inputs in;
  in.x = leaf({c.T, c.B, c.I}, -1, 1, 1, requires_grad);
  in.h0 = leaf({c.B, c.P}, -0.5, 0.5, 2, requires_grad);
  if (c.mode == RnnMode::Lstm) in.c0 = leaf({c.B, c.H}, -0.5, 0.5, 3, requires_grad);
  in.w_ih = leaf({GH, c.I}, -0.6, 0.6, 4, requires_grad);
  in.w_hh = leaf({GH, c.P}, -0.6, 0.6, 5, requires_grad);
  if (c.bias) {
    in.b_ih = leaf({GH}, -0.3, 0.3, 6, requires_grad);
    in.b_hh = leaf({GH}, -0.3, 0.3, 7, requires_grad);
  }
  if (c.P != c.H) in.w_hr = leaf({c.P, c.H}, -0.6, 0.6, 8, requires_grad);
  return in;
}

// Row r of W (rows × cols) · v, in double.
double dot_row(const Tensor& w, int64_t r, const std::vector<double>& v) {
  double s = 0;
  for (size_t k = 0; k < v.size(); ++k) s += w.at(r * static_cast<int64_t>(v.size()) + k) * v[k];
  return s;
}

// PyTorch's equations for one layer, one direction, in double: output [T][B][P], h_n, c_n.
struct Reference {
  std::vector<std::vector<std::vector<double>>> out;
  std::vector<std::vector<double>> hn, cn;
};

Reference reference(const Case& c, const Inputs& in) {
  const int64_t H = c.H;
  Reference ref;
  ref.out.assign(c.T, std::vector<std::vector<double>>(c.B));
  for (int64_t b = 0; b < c.B; ++b) {
    std::vector<double> h(c.P), cell(H);
    for (int64_t k = 0; k < c.P; ++k) h[k] = in.h0.at(b * c.P + k);
    for (int64_t k = 0; in.c0.defined() && k < H; ++k) cell[k] = in.c0.at(b * H + k);
    for (int64_t s = 0; s < c.T; ++s) {
      const int64_t t = c.reverse ? c.T - 1 - s : s;
      std::vector<double> x(c.I);
      for (int64_t k = 0; k < c.I; ++k) x[k] = in.x.at((t * c.B + b) * c.I + k);
      // xg = W_ih x + b_ih, hg = W_hh h + b_hh, per gate row
      const int64_t GH = gates(c.mode) * H;
      std::vector<double> xg(GH), hg(GH);
      for (int64_t r = 0; r < GH; ++r) {
        xg[r] = dot_row(in.w_ih, r, x) + (c.bias ? in.b_ih.at(r) : 0);
        hg[r] = dot_row(in.w_hh, r, h) + (c.bias ? in.b_hh.at(r) : 0);
      }
      std::vector<double> hnew(H);
      if (c.mode == RnnMode::Lstm) {
        for (int64_t j = 0; j < H; ++j) {
          const double i = sigmoid(xg[j] + hg[j]), f = sigmoid(xg[H + j] + hg[H + j]);
          const double g = std::tanh(xg[2 * H + j] + hg[2 * H + j]), o = sigmoid(xg[3 * H + j] + hg[3 * H + j]);
          cell[j] = f * cell[j] + i * g;
          hnew[j] = o * std::tanh(cell[j]);
        }
      } else if (c.mode == RnnMode::Gru) {
        for (int64_t j = 0; j < H; ++j) {
          const double r = sigmoid(xg[j] + hg[j]), z = sigmoid(xg[H + j] + hg[H + j]);
          const double n = std::tanh(xg[2 * H + j] + r * hg[2 * H + j]);
          hnew[j] = (1 - z) * n + z * h[j];
        }
      } else {
        for (int64_t j = 0; j < H; ++j) {
          const double a = xg[j] + hg[j];
          hnew[j] = c.mode == RnnMode::RnnTanh ? std::tanh(a) : std::max(a, 0.0);
        }
      }
      if (c.P != H) {
        for (int64_t p = 0; p < c.P; ++p) h[p] = dot_row(in.w_hr, p, hnew);
      } else {
        h = hnew;
      }
      ref.out[t][b] = h;
    }
    ref.hn.push_back(h);
    ref.cn.push_back(cell);
  }
  return ref;
}

std::vector<Tensor> run(const Case& c, const std::vector<Tensor>& in) {
  return sg::rnn_layer(c.mode, in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], c.reverse);
}

const std::vector<Case> kCases = {
    {"lstm", RnnMode::Lstm, 4, 3, 5, 6, 6, true, false},
    {"lstm reverse", RnnMode::Lstm, 4, 2, 3, 5, 5, true, true},
    {"lstm projection no bias", RnnMode::Lstm, 3, 2, 4, 5, 3, false, false},
    {"lstm projection reverse", RnnMode::Lstm, 3, 2, 4, 5, 2, true, true},
    {"gru", RnnMode::Gru, 4, 3, 5, 6, 6, true, false},
    {"gru reverse no bias", RnnMode::Gru, 3, 2, 3, 4, 4, false, true},
    {"rnn tanh", RnnMode::RnnTanh, 5, 2, 3, 4, 4, true, false},
    {"rnn relu reverse", RnnMode::RnnRelu, 5, 2, 3, 7, 7, true, true},
};

}  // namespace

TEST_CASE("rnn layer: values match PyTorch's cell equations in double, every mode and direction") {
  on_each_backend([] {
    for (const Case& c : kCases) {
      CAPTURE(c.name);
      const Inputs in = make_inputs(c, false);
      const std::vector<Tensor> res = run(c, in.list());
      REQUIRE(res.size() == (c.mode == RnnMode::Lstm ? 3u : 2u));
      REQUIRE(res[0].shape() == Shape{c.T, c.B, c.P});
      REQUIRE(res[1].shape() == Shape{c.B, c.P});
      const Reference ref = reference(c, in);
      for (int64_t t = 0; t < c.T; ++t)
        for (int64_t b = 0; b < c.B; ++b)
          for (int64_t k = 0; k < c.P; ++k)
            CHECK(res[0].at((t * c.B + b) * c.P + k) == doctest::Approx(ref.out[t][b][k]).epsilon(1e-5));
      for (int64_t b = 0; b < c.B; ++b)
        for (int64_t k = 0; k < c.P; ++k) CHECK(res[1].at(b * c.P + k) == doctest::Approx(ref.hn[b][k]).epsilon(1e-5));
      if (c.mode == RnnMode::Lstm) {
        REQUIRE(res[2].shape() == Shape{c.B, c.H});
        for (int64_t b = 0; b < c.B; ++b)
          for (int64_t k = 0; k < c.H; ++k) CHECK(res[2].at(b * c.H + k) == doctest::Approx(ref.cn[b][k]).epsilon(1e-5));
      }
    }
  });
}

TEST_CASE("rnn layer: gradcheck of every input through output, h_n and c_n") {
  on_each_backend([] {
    for (const Case& c : kCases) {
      const Inputs in = make_inputs(c, true);
      gradcheck(c.name, [&c](std::vector<Tensor>& v) {
        const std::vector<Tensor> res = run(c, v);
        std::vector<Tensor> parts;
        for (const Tensor& r : res) parts.push_back(sg::flatten(r));
        return sg::cat(parts, 0);
      }, in.list());
    }
  });
}

TEST_CASE("rnn layer: relu's gradient is zero where the state was clipped") {
  // A strongly negative bias clips some units to 0: their gradient must vanish exactly.
  const Case c{"rnn relu", RnnMode::RnnRelu, 3, 1, 2, 3, 3, true, false};
  Inputs in = make_inputs(c, false);
  in.b_ih = sgtest::from({3}, {-5, 0, 0});
  in.b_hh = sgtest::from({3}, {-5, 0, 0});
  in.x.set_requires_grad(true);
  const std::vector<Tensor> res = run(c, in.list());
  CHECK(res[0].at(0) == 0);
  sg::sum(res[0]).backward();
  REQUIRE(in.x.grad().defined());
}

TEST_CASE("rnn layer: argument errors name the op and what was expected") {
  const Case c{"lstm", RnnMode::Lstm, 2, 2, 3, 4, 4, true, false};
  const Inputs in = make_inputs(c, false);
  auto call = [](const std::vector<Tensor>& v, RnnMode m = RnnMode::Lstm) {
    return [v, m] { sg::rnn_layer(m, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], false); };
  };
  std::vector<Tensor> v = in.list();
  v[0] = leaf({2, 3}, -1, 1, 1, false);
  CHECK(error_of(call(v)) == "rnnLayer: expected input of shape [T, B, inputSize], got [2, 3]");
  v = in.list();
  v[1] = leaf({2, 5}, -1, 1, 1, false);
  CHECK(error_of(call(v)) == "rnnLayer: expected h0 of shape [2, 4], got [2, 5]");
  v = in.list();
  v[2] = Tensor();
  CHECK(error_of(call(v)) == "rnnLayer: LSTM needs c0");
  v = in.list();
  v[3] = leaf({15, 3}, -1, 1, 1, false);
  CHECK(error_of(call(v)) == "rnnLayer: expected weight_ih of shape [4·hiddenSize, inputSize], got [15, 3]");
  v = in.list();
  v[4] = leaf({16, 5}, -1, 1, 1, false);
  CHECK(error_of(call(v)) == "rnnLayer: expected weight_hh of shape [16, 4], got [16, 5]");
  v = in.list();
  v[6] = Tensor();
  CHECK(error_of(call(v)) == "rnnLayer: give both biases or neither");
  v = in.list();
  CHECK(error_of(call(v, RnnMode::Gru)) == "rnnLayer: expected weight_ih of shape [3·hiddenSize, inputSize], got [16, 3]");
  v[0] = leaf({0, 2, 3}, -1, 1, 1, false);
  CHECK(error_of(call(v)) == "rnnLayer: expected a non-empty input, got shape [0, 2, 3]");
  CHECK(error_of([] { sg::rnn_mode_of("rnnLayer", "lstmm"); }) ==
        "rnnLayer: expected mode to be one of 'lstm', 'gru', 'rnn_tanh', 'rnn_relu', got 'lstmm'");
}
