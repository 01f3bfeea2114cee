// max/avg/adaptive-avg pooling: argument checks and output sizes with PyTorch's rules, the
// loops, and the backward passes. Every input is seen as P = N·C planes of H × W (1-d pools
// have H = 1). Average pools are "box means": each output averages a rectangle of the input
// whose row range, column range and divisor factor per dim, so avg_pool and
// adaptive_avg_pool differ only in how the per-dim windows are computed.
// Max pooling runs through the backend's kernels (Backend::max_pool2d_f32 and its backward);
// the box means are plain loops over contiguous float32 planes.
#include "nn/pool.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "autograd/record.h"
#include "core/copy.h"
#include "core/error.h"
#include "kernels/backend.h"
#include "ops/ops.h"

namespace sg {
namespace {

using Ints = std::vector<int64_t>;

Ints per_dim(const char* op, const char* what, const Ints& v, int nd) {
  if (v.size() == 1) return Ints(nd, v[0]);
  if (static_cast<int>(v.size()) == nd) return v;
  fail(op, ": expected ", what, " to have ", nd == 1 ? "1 value" : "1 or 2 values", ", got ", v.size(),
       " (", v, ")");
}

void check_each(const char* op, const char* what, const Ints& v, int64_t min) {
  for (int64_t e : v)
    check(e >= min, op, ": ", what, min > 0 ? " must be positive" : " must be non-negative", ", got ", v);
}

int64_t floor_div(int64_t a, int64_t b) {  // b > 0
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

// The input as planes: the checks every pool shares, and the output shape.
struct Planes {
  int64_t P = 1, H = 1, W = 1;
  Ints in;         // the pooled sizes (nd of them)
  Shape lead;      // the dims before them ([N, C] or [C])
  Tensor x;        // contiguous, graph-free
};

Planes planes(const char* op, int nd, const Tensor& x) {
  check(x.defined(), op, ": expected an input tensor, got an undefined one");
  check(x.dtype() == DType::Float32, op, ": expected a float32 input, got ", dtype_name(x.dtype()));
  const char* dims_text = nd == 1 ? "L" : "H, W";
  check(x.ndim() == nd + 1 || x.ndim() == nd + 2, op, ": expected a ", nd + 1, "-D (unbatched) or ", nd + 2,
        "-D (batched) input [N, C, ", dims_text, "], got shape ", x.shape());
  // PyTorch allows an empty batch, not empty channels or sizes.
  for (int64_t d = x.ndim() == nd + 2 ? 1 : 0; d < x.ndim(); ++d)
    check(x.shape()[d] > 0, op, ": expected non-empty channel and size dims, got shape ", x.shape());
  Planes p;
  p.lead.assign(x.shape().begin(), x.shape().end() - nd);
  p.in.assign(x.shape().end() - nd, x.shape().end());
  p.P = numel_of(p.lead);
  p.W = p.in.back();
  if (nd == 2) p.H = p.in[0];
  p.x = as_contiguous(x).detach();
  return p;
}

// Sliding-window parameters after their checks, and PyTorch's output size per dim.
struct Window {
  Ints k, s, p, d, out;
};

Window sliding(const char* op, int nd, const Ints& in, const Ints& kernel, const Ints& stride, const Ints& padding,
               const Ints& dilation, bool ceil_mode) {
  Window w;
  w.k = per_dim(op, "kernelSize", kernel, nd);
  w.s = stride.empty() ? w.k : per_dim(op, "stride", stride, nd);
  w.p = per_dim(op, "padding", padding, nd);
  w.d = per_dim(op, "dilation", dilation, nd);
  check_each(op, "kernelSize", w.k, 1);
  check_each(op, "stride", w.s, 1);
  check_each(op, "padding", w.p, 0);
  check_each(op, "dilation", w.d, 1);
  for (int i = 0; i < nd; ++i)
    check(w.p[i] <= w.k[i] / 2, op, ": padding should be at most half of kernelSize, got padding ", w.p,
          " and kernelSize ", w.k);
  w.out.resize(nd);
  for (int i = 0; i < nd; ++i) {
    int64_t o = floor_div(in[i] + 2 * w.p[i] - w.d[i] * (w.k[i] - 1) - 1 + (ceil_mode ? w.s[i] - 1 : 0), w.s[i]) + 1;
    // ceil_mode: the last window must start inside the input or the left padding.
    if (ceil_mode && (o - 1) * w.s[i] >= in[i] + w.p[i]) --o;
    w.out[i] = o;
  }
  for (int i = 0; i < nd; ++i)
    if (w.out[i] <= 0)
      fail(op, ": the output size ", w.out, " is too small (input ", in, ", kernelSize ", w.k, ", stride ", w.s,
           ", padding ", w.p, ", dilation ", w.d, ")");
  return w;
}

Shape out_shape(const Planes& p, const Ints& out) {
  Shape s = p.lead;
  s.insert(s.end(), out.begin(), out.end());
  return s;
}

// ---- max pooling ----

// A 2-d view of a window spec (1-d: the H dim is a single row).
struct Geom2 {
  int64_t kH = 1, kW, sH = 1, sW, pH = 0, pW, dH = 1, dW, oH = 1, oW;
};

Geom2 geom2(int nd, const Window& w) {
  Geom2 g;
  const int l = nd - 1;
  g.kW = w.k[l], g.sW = w.s[l], g.pW = w.p[l], g.dW = w.d[l], g.oW = w.out[l];
  if (nd == 2) g.kH = w.k[0], g.sH = w.s[0], g.pH = w.p[0], g.dH = w.d[0], g.oH = w.out[0];
  return g;
}

Tensor max_pool(const char* op, int nd, const Tensor& x, const Ints& kernel, const Ints& stride,
                const Ints& padding, const Ints& dilation, bool ceil_mode) {
  const Planes pl = planes(op, nd, x);
  check(pl.H * pl.W <= INT32_MAX, op, ": a plane of ", pl.H * pl.W, " elements is too large");
  const Window w = sliding(op, nd, pl.in, kernel, stride, padding, dilation, ceil_mode);
  const Geom2 g = geom2(nd, w);
  const Shape shape = out_shape(pl, w.out);
  Tensor out = Tensor::uninitialized(shape);  // every window is written
  Tensor idx = Tensor::uninitialized(shape, DType::Int32);
  const PoolGeom pg{pl.P, pl.H, pl.W, g.oH, g.oW, g.kH, g.kW, g.sH, g.sW, g.pH, g.pW, g.dH, g.dW};
  if (out.numel() > 0) backend().max_pool2d_f32(pg, pl.x.f32(), out.f32(), idx.i32());
  const Shape x_shape = x.shape();
  return record(op, out, {x}, [idx, x_shape, pg](const Tensor& gy) {
    Tensor gc = as_contiguous(gy, DType::Float32);
    Tensor dx = Tensor::uninitialized(x_shape);  // the kernel writes all of it (zeros included)
    if (dx.numel() > 0) backend().max_pool2d_backward_f32(pg, gc.f32(), idx.i32(), dx.f32());
    // Recorded: the adjoint reads each window's argmax again (nothing for a padding-only window).
    return std::vector<Tensor>{linear_grad("maxPoolBackward", gy, dx, [idx, pg](const Tensor& gg) {
      const Tensor at = reshape(idx, {pg.P, pg.oH * pg.oW});
      const Tensor inside = ge(at, scalar_tensor(0.0, DType::Int32));
      const Tensor picked = gather(reshape(gg, {pg.P, pg.H * pg.W}), 1, where(inside, at, scalar_tensor(0.0, DType::Int32)));
      return reshape(mul(picked, cast(inside, DType::Float32)), idx.shape());
    })};
  });
}

// ---- box means (avg_pool, adaptive_avg_pool) ----

// Per output index along one dim: the input range [start, end) and the divisor factor.
struct Boxes {
  Ints start, end, count;
};

Boxes avg_boxes(int64_t in, int64_t k, int64_t s, int64_t p, int64_t out, bool count_include_pad) {
  Boxes b;
  for (int64_t o = 0; o < out; ++o) {
    int64_t lo = o * s - p, hi = std::min(lo + k, in + p);
    const int64_t padded = hi - lo;  // the window clipped to the padded input
    lo = std::max<int64_t>(lo, 0);
    hi = std::min(hi, in);
    b.start.push_back(lo);
    b.end.push_back(hi);
    b.count.push_back(count_include_pad ? padded : std::max<int64_t>(hi - lo, 0));
  }
  return b;
}

Boxes adaptive_boxes(int64_t in, int64_t out) {
  Boxes b;
  for (int64_t o = 0; o < out; ++o) {
    b.start.push_back(o * in / out);
    b.end.push_back(((o + 1) * in + out - 1) / out);
    b.count.push_back(b.end.back() - b.start.back());
  }
  return b;
}

Boxes single_row() { return Boxes{{0}, {1}, {1}}; }

struct BoxGeom {
  int64_t P, H, W;
  Boxes rows, cols;
};

// y[p, i, j] = Σ x over the box / (count_i · count_j); an empty box gives 0 (as PyTorch).
void box_mean_forward(const BoxGeom& g, const float* x, float* y) {
  const size_t oH = g.rows.start.size(), oW = g.cols.start.size();
  for (int64_t p = 0; p < g.P; ++p) {
    const float* xp = x + p * g.H * g.W;
    for (size_t i = 0; i < oH; ++i)
      for (size_t j = 0; j < oW; ++j) {
        const int64_t h0 = g.rows.start[i], h1 = g.rows.end[i], w0 = g.cols.start[j], w1 = g.cols.end[j];
        if (h0 >= h1 || w0 >= w1) {
          *y++ = 0.0f;
          continue;
        }
        double acc = 0;
        for (int64_t h = h0; h < h1; ++h)
          for (int64_t w = w0; w < w1; ++w) acc += xp[h * g.W + w];
        *y++ = static_cast<float>(acc / static_cast<double>(g.rows.count[i] * g.cols.count[j]));
      }
  }
}

// dx (zeroed) += dy / divisor over each box.
void box_mean_backward(const BoxGeom& g, const float* dy, float* dx) {
  const size_t oH = g.rows.start.size(), oW = g.cols.start.size();
  for (int64_t p = 0; p < g.P; ++p) {
    float* dp = dx + p * g.H * g.W;
    for (size_t i = 0; i < oH; ++i)
      for (size_t j = 0; j < oW; ++j) {
        const float gv = *dy++;
        const int64_t h0 = g.rows.start[i], h1 = g.rows.end[i], w0 = g.cols.start[j], w1 = g.cols.end[j];
        if (h0 >= h1 || w0 >= w1) continue;
        const float share = static_cast<float>(gv / static_cast<double>(g.rows.count[i] * g.cols.count[j]));
        for (int64_t h = h0; h < h1; ++h)
          for (int64_t w = w0; w < w1; ++w) dp[h * g.W + w] += share;
      }
  }
}

// The box means of x (any layout) as a recorded op; its backward is linear, and, recorded, has
// the box means again as its own backward.
Tensor box_mean_of(const char* op, const Tensor& x, const BoxGeom& g, const Shape& shape) {
  const Tensor xc = as_contiguous(x, DType::Float32);
  Tensor out = Tensor::uninitialized(shape);  // every box is written
  box_mean_forward(g, xc.f32(), out.f32());
  const Shape x_shape = x.shape();
  return record(op, out, {x}, [op, g, x_shape, shape](const Tensor& gy) {
    Tensor gc = as_contiguous(gy, DType::Float32);
    Tensor dx = Tensor::empty(x_shape);
    box_mean_backward(g, gc.f32(), dx.f32());
    return std::vector<Tensor>{
        linear_grad("avgPoolBackward", gy, dx, [op, g, shape](const Tensor& gg) { return box_mean_of(op, gg, g, shape); })};
  });
}

Tensor box_mean(const char* op, const Tensor& x, const Planes&, const BoxGeom& g, const Shape& shape) {
  return box_mean_of(op, x, g, shape);
}

Tensor avg_pool(const char* op, int nd, const Tensor& x, const Ints& kernel, const Ints& stride,
                const Ints& padding, bool ceil_mode, bool count_include_pad) {
  const Planes pl = planes(op, nd, x);
  const Window w = sliding(op, nd, pl.in, kernel, stride, padding, {1}, ceil_mode);
  const int l = nd - 1;
  BoxGeom g{pl.P, pl.H, pl.W, single_row(),
            avg_boxes(pl.W, w.k[l], w.s[l], w.p[l], w.out[l], count_include_pad)};
  if (nd == 2) g.rows = avg_boxes(pl.H, w.k[0], w.s[0], w.p[0], w.out[0], count_include_pad);
  return box_mean(op, x, pl, g, out_shape(pl, w.out));
}

}  // namespace

Tensor max_pool1d(const Tensor& x, const Ints& kernel_size, const Ints& stride, const Ints& padding,
                  const Ints& dilation, bool ceil_mode) {
  return max_pool("max_pool1d", 1, x, kernel_size, stride, padding, dilation, ceil_mode);
}

Tensor max_pool2d(const Tensor& x, const Ints& kernel_size, const Ints& stride, const Ints& padding,
                  const Ints& dilation, bool ceil_mode) {
  return max_pool("max_pool2d", 2, x, kernel_size, stride, padding, dilation, ceil_mode);
}

Tensor avg_pool1d(const Tensor& x, const Ints& kernel_size, const Ints& stride, const Ints& padding,
                  bool ceil_mode, bool count_include_pad) {
  return avg_pool("avg_pool1d", 1, x, kernel_size, stride, padding, ceil_mode, count_include_pad);
}

Tensor avg_pool2d(const Tensor& x, const Ints& kernel_size, const Ints& stride, const Ints& padding,
                  bool ceil_mode, bool count_include_pad) {
  return avg_pool("avg_pool2d", 2, x, kernel_size, stride, padding, ceil_mode, count_include_pad);
}

Tensor adaptive_avg_pool2d(const Tensor& x, const Ints& output_size) {
  const char* op = "adaptive_avg_pool2d";
  const Planes pl = planes(op, 2, x);
  const Ints out = per_dim(op, "outputSize", output_size, 2);
  check_each(op, "outputSize", out, 0);
  BoxGeom g{pl.P, pl.H, pl.W, adaptive_boxes(pl.H, out[0]), adaptive_boxes(pl.W, out[1])};
  return box_mean(op, x, pl, g, out_shape(pl, out));
}

}  // namespace sg
