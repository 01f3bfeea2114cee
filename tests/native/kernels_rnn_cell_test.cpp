// The recurrent-cell step kernels (kernels/rnn_cell.h, Backend::rnn_step_f32 and
// rnn_step_backward_f32) on both CPU backends, called directly: the forward against PyTorch's
// cell equations transcribed here in double, the backward against central differences of the
// forward kernel itself (L = Σ w_h·h + Σ w_c·c over one step, the gradients of the x-side gate
// inputs, h·W_hhᵀ + b_hh, h_prev and c_prev), with the running gradients dh and dc nonzero on entry.
// (The whole layer through these kernels: nn_rnn_test.cpp; on WebGPU: tests/js/webgpu_rnn.test.mjs.)
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/backend.h"

using sg::RnnCell;

namespace {

constexpr int64_t B = 3, H = 5;

std::vector<float> values(int64_t n, uint32_t seed, float lo, float hi) {
  std::vector<float> v(static_cast<size_t>(n));
  uint32_t s = seed * 2654435761u + 12345u;
  for (float& x : v) {
    s = s * 1664525u + 1013904223u;
    x = lo + (hi - lo) * float(s >> 8) / float(1u << 24);
  }
  return v;
}

double sig(double v) { return 1 / (1 + std::exp(-v)); }

struct StepIn {
  RnnCell cell;
  std::vector<float> acts, hg, h_prev, c_prev;
};

StepIn inputs(RnnCell cell) {
  const int64_t GH = sg::rnn_gate_count(cell) * H;
  return {cell, values(B * GH, 1, -2, 2), values(B * GH, 2, -2, 2), values(B * H, 3, -1, 1), values(B * H, 4, -1, 1)};
}

struct StepOut {
  std::vector<float> acts, h, c, hn;
};

StepOut forward(const sg::Backend& be, const StepIn& in) {
  StepOut o{in.acts, std::vector<float>(size_t(B * H)), std::vector<float>(size_t(B * H)),
            std::vector<float>(size_t(B * H))};
  sg::RnnStep s;
  s.cell = in.cell;
  s.B = B;
  s.H = H;
  s.acts = o.acts.data();
  s.hg = in.hg.data();
  s.h_prev = in.h_prev.data();
  s.c_prev = in.c_prev.data();
  s.c = o.c.data();
  s.hn = o.hn.data();
  s.h = o.h.data();
  be.rnn_step_f32(s);
  return o;
}

// PyTorch's equations in double: h (and c for LSTM) of row b, unit j.
std::pair<double, double> expected(const StepIn& in, int64_t b, int64_t j) {
  const int64_t G = sg::rnn_gate_count(in.cell), row = b * G * H;
  const auto sum = [&](int64_t q) { return double(in.acts[size_t(row + q * H + j)]) + in.hg[size_t(row + q * H + j)]; };
  const double hp = in.h_prev[size_t(b * H + j)], cp = in.c_prev[size_t(b * H + j)];
  switch (in.cell) {
    case RnnCell::Lstm: {
      const double c = sig(sum(1)) * cp + sig(sum(0)) * std::tanh(sum(2));
      return {sig(sum(3)) * std::tanh(c), c};
    }
    case RnnCell::Gru: {
      const double r = sig(sum(0)), z = sig(sum(1));
      const double n = std::tanh(in.acts[size_t(row + 2 * H + j)] + r * in.hg[size_t(row + 2 * H + j)]);
      return {(1 - z) * n + z * hp, 0};
    }
    case RnnCell::Tanh: return {std::tanh(sum(0)), 0};
    default: return {std::max(0.0, sum(0)), 0};
  }
}

const char* cell_name(RnnCell c) {
  return c == RnnCell::Lstm ? "lstm" : c == RnnCell::Gru ? "gru" : c == RnnCell::Tanh ? "tanh" : "relu";
}

const RnnCell kCells[] = {RnnCell::Lstm, RnnCell::Gru, RnnCell::Tanh, RnnCell::Relu};

}  // namespace

TEST_CASE("rnn cell step kernels: forward against the cell equations in double on both CPU backends") {
  for (const sg::Backend* be : {&sg::reference_backend(), &sg::simd_backend()}) {
    for (RnnCell cell : kCells) {
      const StepIn in = inputs(cell);
      const StepOut o = forward(*be, in);
      const std::string where = std::string(be->name()) + " " + cell_name(cell);
      CAPTURE(where);
      for (int64_t b = 0; b < B; ++b)
        for (int64_t j = 0; j < H; ++j) {
          const auto [h, c] = expected(in, b, j);
          CHECK(std::abs(o.h[size_t(b * H + j)] - h) < 2e-6);
          if (cell == RnnCell::Lstm) CHECK(std::abs(o.c[size_t(b * H + j)] - c) < 2e-6);
          if (cell == RnnCell::Gru)
            CHECK(o.hn[size_t(b * H + j)] == in.hg[size_t(b * 3 * H + 2 * H + j)]);
        }
    }
  }
}

TEST_CASE("rnn cell step kernels: backward against central differences of the forward kernel") {
  const std::vector<float> wh = values(B * H, 7, -1, 1), wc = values(B * H, 8, -1, 1);
  for (const sg::Backend* be : {&sg::reference_backend(), &sg::simd_backend()}) {
    for (RnnCell cell : kCells) {
      const bool lstm = cell == RnnCell::Lstm, gru = cell == RnnCell::Gru;
      const int64_t GH = sg::rnn_gate_count(cell) * H;
      StepIn in = inputs(cell);
      // ReLU's kink: keep every sum away from 0 so that the differences see one side.
      if (cell == RnnCell::Relu)
        for (size_t k = 0; k < in.acts.size(); ++k)
          if (std::abs(in.acts[k] + in.hg[k]) < 0.05f) in.acts[k] += 0.2f;
      const auto loss = [&](const StepIn& v) {
        const StepOut o = forward(*be, v);
        double l = 0;
        for (size_t k = 0; k < wh.size(); ++k) l += double(wh[k]) * o.h[k] + (lstm ? double(wc[k]) * o.c[k] : 0.0);
        return l;
      };
      const StepOut o = forward(*be, in);
      // The gradient reaching h is split between g_h and the running dh (d = dh + g_h).
      std::vector<float> g_h(wh.size()), dh(wh.size()), dc(wh.size()), dA(size_t(B * GH)), dXi(size_t(B * GH));
      for (size_t k = 0; k < wh.size(); ++k) {
        g_h[k] = 0.75f * wh[k];
        dh[k] = wh[k] - g_h[k];
        dc[k] = 0.5f * wc[k];  // and the cells' between g_c and the running dc
      }
      std::vector<float> g_c(wc.size());
      for (size_t k = 0; k < wc.size(); ++k) g_c[k] = wc[k] - dc[k];
      sg::RnnStepBackward s;
      s.cell = cell;
      s.B = B;
      s.H = H;
      s.acts = o.acts.data();
      s.c = o.c.data();
      s.c_prev = in.c_prev.data();
      s.hn = o.hn.data();
      s.h_prev = in.h_prev.data();
      s.h = o.h.data();
      s.g_h = g_h.data();
      s.g_c = g_c.data();
      s.dh = dh.data();
      s.dc = dc.data();
      s.dA = dA.data();
      s.dXi = gru ? dXi.data() : nullptr;
      be->rnn_step_backward_f32(s);
      const std::vector<float>& dx_side = gru ? dXi : dA;
      const double eps = 1e-2, tol = 2e-3;
      const auto central = [&](std::vector<float> StepIn::*field, size_t k) {
        StepIn p = in, m = in;
        (p.*field)[k] += float(eps);
        (m.*field)[k] -= float(eps);
        return (loss(p) - loss(m)) / (2 * eps);
      };
      const std::string where = std::string(be->name()) + " " + cell_name(cell);
      CAPTURE(where);
      for (size_t k = 0; k < size_t(B * GH); ++k) {
        CAPTURE(k);
        CHECK(std::abs(dA[k] - central(&StepIn::hg, k)) < tol);
        CHECK(std::abs(dx_side[k] - central(&StepIn::acts, k)) < tol);
      }
      for (size_t k = 0; k < size_t(B * H); ++k) {
        CAPTURE(k);
        if (lstm) CHECK(std::abs(dc[k] - central(&StepIn::c_prev, k)) < tol);
        // GRU's direct term d·z; the other cells reach h_prev only through hg (dA·W_hh).
        if (gru) CHECK(std::abs(dh[k] - central(&StepIn::h_prev, k)) < tol);
      }
    }
  }
}
