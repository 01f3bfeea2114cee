// The CPU recurrent-cell steps (kernels/rnn_cell.h): per row, the gate sums and products as plain
// loops, the activations through the backend's own unary_f32, so 'reference' is the scalar
// oracle and 'wasm' takes its SIMD sigmoid and tanh (the order of operations is the one
// nn/rnn.cpp used before the step became a backend kernel: the float32 results did not change).
#include <vector>

#include "kernels/backend.h"

namespace sg {

namespace {

void lstm_forward(const Backend& be, const RnnStep& s) {
  const int64_t H = s.H, GH = 4 * H;
  std::vector<float> tanh_c(static_cast<size_t>(H));
  for (int64_t b = 0; b < s.B; ++b) {
    float* a = s.acts + b * GH;
    const float* hrow = s.hg + b * GH;
    for (int64_t j = 0; j < GH; ++j) a[j] = hrow[j] + a[j];
    be.unary_f32(Unary::Sigmoid, 0, a, a, 2 * H);  // i, f
    be.unary_f32(Unary::Tanh, 0, a + 2 * H, a + 2 * H, H);
    be.unary_f32(Unary::Sigmoid, 0, a + 3 * H, a + 3 * H, H);
    float* c = s.c + b * H;
    const float* cp = s.c_prev + b * H;
    for (int64_t j = 0; j < H; ++j) c[j] = a[H + j] * cp[j] + a[j] * a[2 * H + j];
    be.unary_f32(Unary::Tanh, 0, c, tanh_c.data(), H);
    float* h = s.h + b * H;
    for (int64_t j = 0; j < H; ++j) h[j] = a[3 * H + j] * tanh_c[j];
  }
}

void gru_forward(const Backend& be, const RnnStep& s) {
  const int64_t H = s.H, GH = 3 * H;
  for (int64_t b = 0; b < s.B; ++b) {
    float* a = s.acts + b * GH;
    const float* hrow = s.hg + b * GH;
    for (int64_t j = 0; j < 2 * H; ++j) a[j] = hrow[j] + a[j];
    be.unary_f32(Unary::Sigmoid, 0, a, a, 2 * H);  // r, z
    float* hn = s.hn + b * H;
    for (int64_t j = 0; j < H; ++j) {
      hn[j] = hrow[2 * H + j];
      a[2 * H + j] = a[2 * H + j] + hn[j] * a[j];
    }
    be.unary_f32(Unary::Tanh, 0, a + 2 * H, a + 2 * H, H);  // n
    const float* hp = s.h_prev + b * H;
    float* h = s.h + b * H;
    for (int64_t j = 0; j < H; ++j) h[j] = (hp[j] - a[2 * H + j]) * a[H + j] + a[2 * H + j];
  }
}

void elman_forward(const Backend& be, const RnnStep& s) {
  const int64_t n = s.B * s.H;
  for (int64_t j = 0; j < n; ++j) s.acts[j] = s.hg[j] + s.acts[j];
  be.unary_f32(s.cell == RnnCell::Tanh ? Unary::Tanh : Unary::Relu, 0, s.acts, s.h, n);
}

// d = dh + g_h, the gradient reaching this step's h.
float reaching(const RnnStepBackward& s, int64_t k) { return s.g_h ? s.g_h[k] + s.dh[k] : s.dh[k]; }

void lstm_backward(const Backend& be, const RnnStepBackward& s) {
  const int64_t H = s.H, GH = 4 * H;
  std::vector<float> tanh_c(static_cast<size_t>(H));
  for (int64_t b = 0; b < s.B; ++b) {
    const float* a = s.acts + b * GH;
    be.unary_f32(Unary::Tanh, 0, s.c + b * H, tanh_c.data(), H);
    float* d = s.dA + b * GH;
    for (int64_t j = 0; j < H; ++j) {
      const int64_t k = b * H + j;
      const float i = a[j], f = a[H + j], gg = a[2 * H + j], o = a[3 * H + j];
      const float tc = tanh_c[size_t(j)], dhj = reaching(s, k);
      const float dcj = s.g_c[k] + s.dc[k] + dhj * o * (1 - tc * tc);
      d[j] = dcj * gg * i * (1 - i);
      d[H + j] = dcj * s.c_prev[k] * f * (1 - f);
      d[2 * H + j] = dcj * i * (1 - gg * gg);
      d[3 * H + j] = dhj * tc * o * (1 - o);
      s.dc[k] = dcj * f;
    }
  }
}

void gru_backward(const RnnStepBackward& s) {
  const int64_t H = s.H, GH = 3 * H;
  for (int64_t b = 0; b < s.B; ++b) {
    const float* a = s.acts + b * GH;
    float* dh_ = s.dA + b * GH;
    float* dx_ = s.dXi + b * GH;
    for (int64_t j = 0; j < H; ++j) {
      const int64_t k = b * H + j;
      const float r = a[j], z = a[H + j], n = a[2 * H + j], hp = s.h_prev[k];
      const float d = reaching(s, k);
      const float dan = d * (1 - z) * (1 - n * n);
      const float dar = dan * s.hn[k] * r * (1 - r);
      const float daz = d * (hp - n) * z * (1 - z);
      dx_[j] = dh_[j] = dar;
      dx_[H + j] = dh_[H + j] = daz;
      dx_[2 * H + j] = dan;
      dh_[2 * H + j] = dan * r;
      s.dh[k] = d * z;
    }
  }
}

void elman_backward(const RnnStepBackward& s) {
  for (int64_t k = 0; k < s.B * s.H; ++k) {
    const float hk = s.h[k];
    const float deriv = s.cell == RnnCell::Tanh ? 1 - hk * hk : (hk > 0 ? 1.0f : 0.0f);
    s.dA[k] = reaching(s, k) * deriv;
  }
}

}  // namespace

void Backend::rnn_step_f32(const RnnStep& s) const {
  switch (s.cell) {
    case RnnCell::Lstm: lstm_forward(*this, s); break;
    case RnnCell::Gru: gru_forward(*this, s); break;
    default: elman_forward(*this, s); break;
  }
}

void Backend::rnn_step_backward_f32(const RnnStepBackward& s) const {
  switch (s.cell) {
    case RnnCell::Lstm: lstm_backward(*this, s); break;
    case RnnCell::Gru: gru_backward(s); break;
    default: elman_backward(s); break;
  }
}

}  // namespace sg
