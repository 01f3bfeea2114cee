// Convolution from its definition, in the gather form and with double sums: the oracle the
// SIMD backend's GEMM convolutions are tested against, and the reference backend's own.
//   y[n, o, i, j]  = bias[o] + Σ_{c,a,b} w[o, c, a, b] · x[n, g·Cg + c, i·sH − pH + a·dH, j·sW − pW + b·dW]
//   dx[n, c, h, v] = bias[c] + Σ_{o,a,b} w[o, c', a, b] · dy[n, o, i, j] over the (i, j) that read (h, v)
//   dw[o, c, a, b] = Σ_{n,i,j} dy[n, o, i, j] · x[n, g·Cg + c, i·sH − pH + a·dH, j·sW − pW + b·dW]
// (g the group of o; positions outside the input read as zero).
#include "kernels/reference/reference_kernels.h"

namespace sg::ref {
namespace {

// The input row (or column) that output index i reads with kernel tap a, or −1 outside.
int64_t input_index(int64_t i, int64_t a, int64_t s, int64_t p, int64_t d, int64_t size) {
  const int64_t at = i * s - p + a * d;
  return at >= 0 && at < size ? at : -1;
}

// The output index that reads input index h with tap a, or −1 when none does.
int64_t output_index(int64_t h, int64_t a, int64_t s, int64_t p, int64_t d, int64_t out) {
  const int64_t t = h + p - a * d;
  if (t < 0 || t % s != 0) return -1;
  return t / s < out ? t / s : -1;
}

// The activation as the unary op computes it, on the stored result.
void activate(GemmAct act, float* y, int64_t n) { unary_f32(gemm_act_unary(act), 0.0f, y, y, n); }
void activate(GemmAct act, double* y, int64_t n) { unary_f64(gemm_act_unary(act), 0.0, y, y, n); }

template <class T>
void conv2d_t(const ConvGeom& g, const T* x, const T* w, const T* bias, GemmAct act, T* y) {
  const int64_t Cg = g.Cg(), Og = g.Og(), L = g.L();
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t o = 0; o < g.O; ++o) {
      const int64_t c0 = o / Og * Cg;
      T* yo = y + (n * g.O + o) * L;
      for (int64_t i = 0; i < g.oH; ++i)
        for (int64_t j = 0; j < g.oW; ++j) {
          double acc = bias ? bias[o] : 0.0;
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t a = 0; a < g.kH; ++a) {
              const int64_t h = input_index(i, a, g.sH, g.pH, g.dH, g.H);
              if (h < 0) continue;
              const T* xr = x + ((n * g.C + c0 + c) * g.H + h) * g.W;
              const T* wr = w + ((o * Cg + c) * g.kH + a) * g.kW;
              for (int64_t b = 0; b < g.kW; ++b) {
                const int64_t v = input_index(j, b, g.sW, g.pW, g.dW, g.W);
                if (v >= 0) acc += double(wr[b]) * double(xr[v]);
              }
            }
          yo[i * g.oW + j] = T(acc);
        }
      if (act != GemmAct::None) activate(act, yo, L);
    }
}

template <class T>
void conv2d_backward_data_t(const ConvGeom& g, const T* dy, const T* w, const T* bias, T* dx) {
  const int64_t Cg = g.Cg(), Og = g.Og(), L = g.L();
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t c = 0; c < g.C; ++c) {
      const int64_t gi = c / Cg, cg = c % Cg;
      for (int64_t h = 0; h < g.H; ++h)
        for (int64_t v = 0; v < g.W; ++v) {
          double acc = bias ? bias[c] : 0.0;
          for (int64_t o = gi * Og; o < (gi + 1) * Og; ++o)
            for (int64_t a = 0; a < g.kH; ++a) {
              const int64_t i = output_index(h, a, g.sH, g.pH, g.dH, g.oH);
              if (i < 0) continue;
              for (int64_t b = 0; b < g.kW; ++b) {
                const int64_t j = output_index(v, b, g.sW, g.pW, g.dW, g.oW);
                if (j < 0) continue;
                acc += double(w[((o * Cg + cg) * g.kH + a) * g.kW + b]) * double(dy[(n * g.O + o) * L + i * g.oW + j]);
              }
            }
          dx[((n * g.C + c) * g.H + h) * g.W + v] = T(acc);
        }
    }
}

template <class T>
void conv2d_backward_weight_t(const ConvGeom& g, const T* x, const T* dy, T* dw) {
  const int64_t Cg = g.Cg(), Og = g.Og(), L = g.L();
  for (int64_t o = 0; o < g.O; ++o) {
    const int64_t c0 = o / Og * Cg;
    for (int64_t c = 0; c < Cg; ++c)
      for (int64_t a = 0; a < g.kH; ++a)
        for (int64_t b = 0; b < g.kW; ++b) {
          double acc = 0.0;
          for (int64_t n = 0; n < g.N; ++n) {
            const T* dyo = dy + (n * g.O + o) * L;
            const T* xc = x + (n * g.C + c0 + c) * g.H * g.W;
            for (int64_t i = 0; i < g.oH; ++i) {
              const int64_t h = input_index(i, a, g.sH, g.pH, g.dH, g.H);
              if (h < 0) continue;
              for (int64_t j = 0; j < g.oW; ++j) {
                const int64_t v = input_index(j, b, g.sW, g.pW, g.dW, g.W);
                if (v >= 0) acc += double(dyo[i * g.oW + j]) * double(xc[h * g.W + v]);
              }
            }
          }
          dw[((o * Cg + c) * g.kH + a) * g.kW + b] = T(acc);
        }
  }
}

}  // namespace

// float32 (sums in double, rounded once) and float64 (double throughout: float64 tensors'
// convolutions, on the CPU).
void conv2d_f32(const ConvGeom& g, const float* x, const float* w, const float* bias, GemmAct act, float* y) {
  conv2d_t(g, x, w, bias, act, y);
}
void conv2d_f64(const ConvGeom& g, const double* x, const double* w, const double* bias, GemmAct act, double* y) {
  conv2d_t(g, x, w, bias, act, y);
}
void conv2d_backward_data_f32(const ConvGeom& g, const float* dy, const float* w, const float* bias, float* dx) {
  conv2d_backward_data_t(g, dy, w, bias, dx);
}
void conv2d_backward_data_f64(const ConvGeom& g, const double* dy, const double* w, const double* bias, double* dx) {
  conv2d_backward_data_t(g, dy, w, bias, dx);
}
void conv2d_backward_weight_f32(const ConvGeom& g, const float* x, const float* dy, float* dw) {
  conv2d_backward_weight_t(g, x, dy, dw);
}
void conv2d_backward_weight_f64(const ConvGeom& g, const double* x, const double* dy, double* dw) {
  conv2d_backward_weight_t(g, x, dy, dw);
}

}  // namespace sg::ref
