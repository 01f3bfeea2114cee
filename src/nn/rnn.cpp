// Recurrent layers (rnn.h): the forward runs the T steps with the backend's gemm and
// activation kernels (so the 'reference' backend gives the scalar oracle of the whole layer),
// saving the gate activations; the backward walks the steps in reverse, then finds the weight
// gradients with one product each over all T·B rows.
#include "nn/rnn.h"

#include <vector>

#include "autograd/composite.h"
#include "autograd/grad_mode.h"
#include "autograd/record.h"
#include "core/copy.h"
#include "core/device.h"
#include "core/error.h"
#include "kernels/backend.h"
#include "ops/ops.h"

namespace sg {

namespace {

const char* kOp = "rnnLayer";

int64_t gate_count(RnnMode mode) {
  switch (mode) {
    case RnnMode::Lstm: return 4;
    case RnnMode::Gru: return 3;
    default: return 1;
  }
}

// Sizes, direction and options of one layer call.
struct Geometry {
  RnnMode mode;
  int64_t T, B, I, H, P, G;
  bool reverse, has_bias, has_proj;

  int64_t GH() const { return G * H; }
  int64_t time_of_step(int64_t s) const { return reverse ? T - 1 - s : s; }
  // Time index of the state a step at time t starts from; -1 means the initial state.
  int64_t prev_time(int64_t t) const {
    const int64_t p = reverse ? t + 1 : t - 1;
    return p < 0 || p >= T ? -1 : p;
  }
};

// Every tensor of a layer has the input's dtype (float32, or float64: the composed path below).
void check_dtype(const Tensor& t, const char* what, DType dtype) {
  check(t.dtype() == dtype, kOp, ": expected ", what, " of dtype ", dtype_name(dtype), " (the input's), got ",
        dtype_name(t.dtype()));
}

void check_shape(const Tensor& t, const Shape& expected, const char* what, DType dtype) {
  check_dtype(t, what, dtype);
  check(t.shape() == expected, kOp, ": expected ", what, " of shape ", expected, ", got ",
        t.shape());
}

Geometry check_args(RnnMode mode, const Tensor& x, const Tensor& h0, const Tensor& c0,
                    const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih,
                    const Tensor& b_hh, const Tensor& w_hr, bool reverse) {
  check(x.defined() && h0.defined() && w_ih.defined() && w_hh.defined(), kOp,
        ": input, h0, weight_ih and weight_hh must be given");
  const DType dt = x.dtype();
  check(dt == DType::Float32 || dt == DType::Float64, kOp, ": expected input of dtype float32 or float64, got ",
        dtype_name(dt));
  check(x.ndim() == 3, kOp, ": expected input of shape [T, B, inputSize], got ", x.shape());
  Geometry g{};
  g.mode = mode;
  g.reverse = reverse;
  g.T = x.shape()[0];
  g.B = x.shape()[1];
  g.I = x.shape()[2];
  g.G = gate_count(mode);
  check(g.T > 0 && g.B > 0 && g.I > 0, kOp, ": expected a non-empty input, got shape ", x.shape());
  check_dtype(w_ih, "weight_ih", dt);
  check(w_ih.ndim() == 2 && w_ih.shape()[0] % g.G == 0 && w_ih.shape()[0] > 0, kOp,
        ": expected weight_ih of shape [", g.G, "·hiddenSize, inputSize], got ", w_ih.shape());
  g.H = w_ih.shape()[0] / g.G;
  check(w_ih.shape()[1] == g.I, kOp, ": weight_ih of shape ", w_ih.shape(),
        " does not match the input size ", g.I);
  g.has_proj = w_hr.defined();
  check(!g.has_proj || mode == RnnMode::Lstm, kOp, ": weight_hr (projection) is for LSTM only");
  if (g.has_proj) {
    check_dtype(w_hr, "weight_hr", dt);
    check(w_hr.ndim() == 2 && w_hr.shape()[1] == g.H && w_hr.shape()[0] > 0, kOp,
          ": expected weight_hr of shape [projSize, ", g.H, "], got ", w_hr.shape());
  }
  g.P = g.has_proj ? w_hr.shape()[0] : g.H;
  check_shape(w_hh, {g.GH(), g.P}, "weight_hh", dt);
  check(b_ih.defined() == b_hh.defined(), kOp, ": give both biases or neither");
  g.has_bias = b_ih.defined();
  if (g.has_bias) {
    check_shape(b_ih, {g.GH()}, "bias_ih", dt);
    check_shape(b_hh, {g.GH()}, "bias_hh", dt);
  }
  check_shape(h0, {g.B, g.P}, "h0", dt);
  if (mode == RnnMode::Lstm) {
    check(c0.defined(), kOp, ": LSTM needs c0");
    check_shape(c0, {g.B, g.H}, "c0", dt);
  } else {
    check(!c0.defined(), kOp, ": c0 is for LSTM only");
  }
  return g;
}

RnnCell cell_of(RnnMode mode) {
  switch (mode) {
    case RnnMode::Lstm: return RnnCell::Lstm;
    case RnnMode::Gru: return RnnCell::Gru;
    case RnnMode::RnnTanh: return RnnCell::Tanh;
    default: return RnnCell::Relu;
  }
}

// Everything the backward reads, contiguous, on the input's device (pointers are device
// pointers: only the backend's kernels read them).
struct Saved {
  Device dev = Device::CPU;
  Tensor x, h0, c0, w_ih, w_hh, w_hr;
  Tensor acts;    // [T, B, G·H]: x·W_ihᵀ + b_ih, overwritten step by step by the activations
                  // (LSTM i, f, g, o; GRU r, z, n); RNN keeps the pre-activations
  Tensor hn;      // GRU: h·W_hnᵀ + b_hn per step [T, B, H]
  Tensor hfull;   // LSTM with projection: o·tanh(c) per step [T, B, H]
  Tensor packed;  // output [T, B, P] then (LSTM) the cell states [T, B, H], flat

  float* out() const { return packed.dev_f32(); }
  float* cells(const Geometry& g) const { return packed.dev_f32() + g.T * g.B * g.P; }
  const float* h_before(const Geometry& g, int64_t t) const {
    const int64_t p = g.prev_time(t);
    return p < 0 ? h0.dev_f32() : out() + p * g.B * g.P;
  }
  const float* c_before(const Geometry& g, int64_t t) const {
    const int64_t p = g.prev_time(t);
    return p < 0 ? c0.dev_f32() : cells(g) + p * g.B * g.H;
  }
};

const float* opt_ptr(const Tensor& t) { return t.defined() ? t.dev_f32() : nullptr; }

// One forward step at time t: hg = h·W_hhᵀ + b_hh for the state before it, the cell kernel,
// then (LSTM with projection) h = (o·tanh(c))·W_hrᵀ.
void forward_step(const Geometry& g, const Saved& s, const Tensor& b_hh, int64_t t, float* hg) {
  const Backend& be = backend_for(s.dev);
  const int64_t rows = g.B, GH = g.GH();
  be.gemm_f32_bias(false, true, rows, GH, g.P, 1.0f, s.h_before(g, t), g.P, s.w_hh.dev_f32(), g.P, 0.0f,
                   opt_ptr(b_hh), GemmAct::None, hg, GH);
  RnnStep st;
  st.cell = cell_of(g.mode);
  st.B = g.B;
  st.H = g.H;
  st.acts = s.acts.dev_f32() + t * g.B * GH;
  st.hg = hg;
  st.h_prev = s.h_before(g, t);
  if (g.mode == RnnMode::Lstm) {
    st.c_prev = s.c_before(g, t);
    st.c = s.cells(g) + t * g.B * g.H;
  }
  if (g.mode == RnnMode::Gru) st.hn = s.hn.dev_f32() + t * g.B * g.H;
  st.h = g.has_proj ? s.hfull.dev_f32() + t * g.B * g.H : s.out() + t * g.B * g.P;
  be.rnn_step_f32(st);
  if (g.has_proj)
    be.gemm_f32(false, true, g.B, g.P, g.H, 1.0f, st.h, g.H, s.w_hr.dev_f32(), g.H, 0.0f,
                s.out() + t * g.B * g.P, g.P);
}

// ------------------------------------------------------------------------ backward
struct Grads {
  Tensor dx, dh0, dc0, dw_ih, dw_hh, db_ih, db_hh, dw_hr;
};

// Walks the steps in reverse. dA gets the gradient of the hidden-side gates (h·W_hhᵀ + b_hh)
// per step, dXi that of the input-side ones (x·W_ihᵀ + b_ih): the same except for GRU's n gate,
// where r multiplies only the hidden side. dH (projection only) gets the gradient of each h.
void backward_through_time(const Geometry& g, const Saved& s, const float* g_out, const float* g_cells,
                           float* dA, float* dXi, float* dH, float* dh_full, float* dh, float* dc) {
  const Backend& be = backend_for(s.dev);
  const int64_t H = g.H, P = g.P, GH = g.GH(), B = g.B;
  be.fill(DType::Float32, 0.0, dh, B * P);
  if (dc) be.fill(DType::Float32, 0.0, dc, B * H);
  const BroadcastPlan same{{B * P}, {1}, {1}};
  for (int64_t step = g.T - 1; step >= 0; --step) {
    const int64_t t = g.time_of_step(step);
    RnnStepBackward st;
    st.cell = cell_of(g.mode);
    st.B = B;
    st.H = H;
    st.acts = s.acts.defined() ? s.acts.dev_f32() + t * B * GH : nullptr;
    st.g_h = g_out + t * B * P;
    st.dh = dh;
    st.dA = dA + t * B * GH;
    if (g.mode == RnnMode::Gru) st.dXi = dXi + t * B * GH;  // LSTM, Elman: dXi is dA
    if (g.mode == RnnMode::Lstm) {
      st.c = s.cells(g) + t * B * H;
      st.c_prev = s.c_before(g, t);
      st.g_c = g_cells + t * B * H;
      st.dc = dc;
      if (g.has_proj) {  // dH[t] = g_out[t] + dh; the cell sees dH[t]·W_hr
        be.binary_f32(Binary::Add, same, st.g_h, dh, dH + t * B * P);
        be.gemm_f32(false, false, B, H, P, 1.0f, dH + t * B * P, P, s.w_hr.dev_f32(), H, 0.0f, dh_full, H);
        st.g_h = nullptr;
        st.dh = dh_full;
      }
    } else if (g.mode == RnnMode::Gru) {
      st.hn = s.hn.dev_f32() + t * B * H;
      st.h_prev = s.h_before(g, t);
    } else {
      st.h = s.out() + t * B * H;
    }
    be.rnn_step_backward_f32(st);
    // The gradient reaching the state before this step (GRU keeps its direct term d·z).
    be.gemm_f32(false, false, B, P, GH, 1.0f, st.dA, GH, s.w_hh.dev_f32(), P,
                g.mode == RnnMode::Gru ? 1.0f : 0.0f, dh, P);
  }
}

Grads layer_backward(const Geometry& g, const Saved& s, const Tensor& grad, bool need_x,
                     bool need_h0, bool need_c0, bool need_w_ih, bool need_w_hh, bool need_b,
                     bool need_w_hr) {
  const Device dev = s.dev;
  const Backend& be = backend_for(dev);
  const auto make = [dev](const Shape& shape) { return Tensor::uninitialized(shape, DType::Float32, dev); };
  const Tensor gc = as_contiguous(grad, DType::Float32);
  const int64_t rows = g.T * g.B, GH = g.GH(), BP = g.B * g.P;
  const bool lstm = g.mode == RnnMode::Lstm;
  Tensor dA = make({g.T, g.B, GH});
  Tensor dXi = g.mode == RnnMode::Gru ? make({g.T, g.B, GH}) : dA;
  Tensor dH = g.has_proj ? make({g.T, g.B, g.P}) : Tensor();
  Tensor dh_full = g.has_proj ? make({g.B, g.H}) : Tensor();
  Tensor dh = make({g.B, g.P});
  Tensor dc = lstm ? make({g.B, g.H}) : Tensor();
  backward_through_time(g, s, gc.dev_f32(), lstm ? gc.dev_f32() + rows * g.P : nullptr, dA.dev_f32(),
                        dXi.dev_f32(), dH.defined() ? dH.dev_f32() : nullptr,
                        dh_full.defined() ? dh_full.dev_f32() : nullptr, dh.dev_f32(),
                        dc.defined() ? dc.dev_f32() : nullptr);
  Grads out;
  if (need_h0) out.dh0 = dh;
  if (need_c0) out.dc0 = dc;
  if (need_x) {  // dX = dXi · W_ih
    out.dx = make({g.T, g.B, g.I});
    be.gemm_f32(false, false, rows, g.I, GH, 1.0f, dXi.dev_f32(), GH, s.w_ih.dev_f32(), g.I, 0.0f,
                out.dx.dev_f32(), g.I);
  }
  if (need_w_ih) {  // dW_ih = dXiᵀ · X
    out.dw_ih = make({GH, g.I});
    be.gemm_f32(true, false, GH, g.I, rows, 1.0f, dXi.dev_f32(), GH, s.x.dev_f32(), g.I, 0.0f,
                out.dw_ih.dev_f32(), g.I);
  }
  if (need_w_hh) {
    // dW_hh = dAᵀ · (the state before each step): the initial state's step against h0, the
    // other T − 1 against the outputs one step earlier (later, reversed), which lie contiguous.
    out.dw_hh = make({GH, g.P});
    const int64_t first = g.reverse ? g.T - 1 : 0;  // the step that starts from h0
    be.gemm_f32(true, false, GH, g.P, g.B, 1.0f, dA.dev_f32() + first * g.B * GH, GH, s.h0.dev_f32(), g.P,
                0.0f, out.dw_hh.dev_f32(), g.P);
    if (g.T > 1) {
      const int64_t a0 = g.reverse ? 0 : 1, h_0 = g.reverse ? 1 : 0;
      be.gemm_f32(true, false, GH, g.P, (g.T - 1) * g.B, 1.0f, dA.dev_f32() + a0 * g.B * GH, GH,
                  s.out() + h_0 * BP, g.P, 1.0f, out.dw_hh.dev_f32(), g.P);
    }
  }
  if (need_b) {
    out.db_ih = make({GH});
    be.reduce_f32(Reduce::Sum, dXi.dev_f32(), 1, rows, GH, out.db_ih.dev_f32());
    out.db_hh = make({GH});
    be.reduce_f32(Reduce::Sum, dA.dev_f32(), 1, rows, GH, out.db_hh.dev_f32());
  }
  if (need_w_hr) {  // dW_hr = dHᵀ · (o·tanh(c))
    out.dw_hr = make({g.P, g.H});
    be.gemm_f32(true, false, g.P, g.H, rows, 1.0f, dH.dev_f32(), g.P, s.hfull.dev_f32(), g.H, 0.0f,
                out.dw_hr.dev_f32(), g.H);
  }
  return out;
}

bool wants(const Tensor& t) { return t.defined() && t.requires_grad(); }

// The layer written with differentiable ops, PyTorch's equations (gate order i, f, g, o for
// LSTM; r, z, n for GRU): what the backward differentiates while a gradient is recorded
// (double backward). inputs as rnn_layer_packed's; returns the same packed output.
Tensor rnn_layer_ops(const Geometry& g, const std::vector<Tensor>& in) {
  const Tensor &x = in[0], &h0 = in[1], &c0 = in[2], &w_ih = in[3], &w_hh = in[4], &b_ih = in[5], &b_hh = in[6],
               &w_hr = in[7];
  const int64_t H = g.H;
  const auto part = [H](const Tensor& t, int64_t k) { return narrow(t, 1, k * H, H); };
  Tensor xi = matmul(x, transpose(w_ih, 0, 1));  // [T, B, G·H]
  if (b_ih.defined()) xi = add(xi, b_ih);
  Tensor h = h0, c = c0;
  std::vector<Tensor> hs(size_t(g.T)), cs(size_t(g.T));
  for (int64_t step = 0; step < g.T; ++step) {
    const int64_t t = g.time_of_step(step);
    const Tensor xt = squeeze(narrow(xi, 0, t, 1), 0);
    Tensor hh = matmul(h, transpose(w_hh, 0, 1));
    if (b_hh.defined()) hh = add(hh, b_hh);
    if (g.mode == RnnMode::Lstm) {
      const Tensor gates = add(xt, hh);
      const Tensor i = sigmoid(part(gates, 0)), f = sigmoid(part(gates, 1)), gg = tanh(part(gates, 2)),
                   o = sigmoid(part(gates, 3));
      c = add(mul(f, c), mul(i, gg));
      const Tensor full = mul(o, tanh(c));
      h = g.has_proj ? matmul(full, transpose(w_hr, 0, 1)) : full;
      cs[size_t(t)] = c;
    } else if (g.mode == RnnMode::Gru) {
      const Tensor r = sigmoid(add(part(xt, 0), part(hh, 0)));
      const Tensor z = sigmoid(add(part(xt, 1), part(hh, 1)));
      const Tensor n = tanh(add(part(xt, 2), mul(r, part(hh, 2))));
      h = add(mul(sub(scalar_tensor(1.0), z), n), mul(z, h));
    } else {
      const Tensor a = add(xt, hh);
      h = g.mode == RnnMode::RnnTanh ? tanh(a) : relu(a);
    }
    hs[size_t(t)] = h;
  }
  const Tensor outputs = reshape(stack(hs, 0), {g.T * g.B * g.P});
  if (g.mode != RnnMode::Lstm) return outputs;
  return cat({outputs, reshape(stack(cs, 0), {g.T * g.B * g.H})}, 0);
}


// A float64 layer, composed of recorded float64 ops step by step (the fused kernel and its
// backward through time are float32's): PyTorch's cell formulas (rnn.h), differentiable through
// the ops, higher orders included. The result is packed as rnn_layer_packed's.
Tensor rnn_layer_f64(const Geometry& g, const Tensor& x, const Tensor& h0, const Tensor& c0, const Tensor& w_ih,
                     const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh, const Tensor& w_hr) {
  const int64_t H = g.H;
  Tensor xw = matmul(x, transpose(w_ih, 0, 1));  // [T, B, G·H], x_* of every step
  if (g.has_bias) xw = add(xw, b_ih);
  const Tensor w_hh_t = transpose(w_hh, 0, 1);
  const auto gate = [H](const Tensor& t, int64_t k) { return narrow(t, 1, k * H, H); };
  Tensor h = h0, c = c0;
  std::vector<Tensor> hs(size_t(g.T)), cs(size_t(g.mode == RnnMode::Lstm ? g.T : 0));
  for (int64_t step = 0; step < g.T; ++step) {
    const int64_t t = g.reverse ? g.T - 1 - step : step;
    const Tensor xt = select(xw, 0, t);
    Tensor hw = matmul(h, w_hh_t);  // h_* = h·W_hhᵀ + b_hh
    if (g.has_bias) hw = add(hw, b_hh);
    switch (g.mode) {
      case RnnMode::Lstm: {
        const Tensor a = add(xt, hw);
        c = add(mul(sigmoid(gate(a, 1)), c), mul(sigmoid(gate(a, 0)), tanh(gate(a, 2))));
        h = mul(sigmoid(gate(a, 3)), tanh(c));
        if (g.has_proj) h = matmul(h, transpose(w_hr, 0, 1));
        cs[size_t(t)] = c;
        break;
      }
      case RnnMode::Gru: {
        const Tensor r = sigmoid(add(gate(xt, 0), gate(hw, 0)));
        const Tensor z = sigmoid(add(gate(xt, 1), gate(hw, 1)));
        const Tensor n = tanh(add(gate(xt, 2), mul(r, gate(hw, 2))));
        h = add(mul(sub(h, n), z), n);
        break;
      }
      case RnnMode::RnnTanh: h = tanh(add(xt, hw)); break;
      case RnnMode::RnnRelu: h = relu(add(xt, hw)); break;
    }
    hs[size_t(t)] = h;
  }
  std::vector<Tensor> parts{reshape(stack(hs, 0), {g.T * g.B * g.P})};
  if (g.mode == RnnMode::Lstm) parts.push_back(reshape(stack(cs, 0), {g.T * g.B * H}));
  return parts.size() == 1 ? parts[0] : cat(parts, 0);
}

}  // namespace

RnnMode rnn_mode_of(const char* op, const std::string& name) {
  if (name == "lstm") return RnnMode::Lstm;
  if (name == "gru") return RnnMode::Gru;
  if (name == "rnn_tanh") return RnnMode::RnnTanh;
  if (name == "rnn_relu") return RnnMode::RnnRelu;
  fail(op, ": expected mode to be one of 'lstm', 'gru', 'rnn_tanh', 'rnn_relu', got '", name, "'");
}

Tensor rnn_layer_packed(RnnMode mode, const Tensor& x, const Tensor& h0, const Tensor& c0,
                        const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih,
                        const Tensor& b_hh, const Tensor& w_hr, bool reverse) {
  const Geometry g = check_args(mode, x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, reverse);
  if (x.dtype() == DType::Float64) return rnn_layer_f64(g, x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr);
  const bool lstm = mode == RnnMode::Lstm;
  const Device dev = x.device();
  const auto make = [dev](const Shape& shape) { return Tensor::uninitialized(shape, DType::Float32, dev); };
  Saved s;
  s.dev = dev;
  s.x = as_contiguous(x);
  s.h0 = as_contiguous(h0);
  s.c0 = lstm ? as_contiguous(c0) : Tensor();
  s.w_ih = as_contiguous(w_ih);
  s.w_hh = as_contiguous(w_hh);
  s.w_hr = g.has_proj ? as_contiguous(w_hr) : Tensor();
  const Tensor bih = g.has_bias ? as_contiguous(b_ih) : Tensor();
  const Tensor bhh = g.has_bias ? as_contiguous(b_hh) : Tensor();
  const int64_t rows = g.T * g.B, GH = g.GH();
  s.acts = make({g.T, g.B, GH});
  backend_for(dev).gemm_f32_bias(false, true, rows, GH, g.I, 1.0f, s.x.dev_f32(), g.I, s.w_ih.dev_f32(), g.I,
                                 0.0f, opt_ptr(bih), GemmAct::None, s.acts.dev_f32(), GH);
  if (mode == RnnMode::Gru) s.hn = make({g.T, g.B, g.H});
  if (g.has_proj) s.hfull = make({g.T, g.B, g.H});
  s.packed = make({rows * g.P + (lstm ? rows * g.H : 0)});

  const Tensor hg = make({g.B, GH});
  for (int64_t step = 0; step < g.T; ++step) forward_step(g, s, bhh, g.time_of_step(step), hg.dev_f32());
  if (!lstm && mode != RnnMode::Gru) s.acts = Tensor();  // the backward reads the outputs instead

  const bool need_x = wants(x), need_h0 = wants(h0), need_c0 = wants(c0),
             need_w_ih = wants(w_ih), need_w_hh = wants(w_hh),
             need_b = wants(b_ih) || wants(b_hh), need_w_hr = wants(w_hr);
  return record(kOp, s.packed, {x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr}, {x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr},
                [=](const Tensor& grad, const SavedTensors& in) -> std::vector<Tensor> {
                  if (grad_enabled() && (grad.requires_grad() || any_requires_grad(in)))
                    return composite_vjp(grad, in, [&g](const std::vector<Tensor>& xs) { return rnn_layer_ops(g, xs); });
                  Grads d = layer_backward(g, s, grad, need_x, need_h0, need_c0, need_w_ih,
                                           need_w_hh, need_b, need_w_hr);
                  return {d.dx, d.dh0, d.dc0, d.dw_ih, d.dw_hh, d.db_ih, d.db_hh, d.dw_hr};
                });
}

std::vector<Tensor> rnn_layer(RnnMode mode, const Tensor& x, const Tensor& h0, const Tensor& c0,
                              const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih,
                              const Tensor& b_hh, const Tensor& w_hr, bool reverse) {
  const Tensor packed = rnn_layer_packed(mode, x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, reverse);
  const int64_t T = x.shape()[0], B = x.shape()[1], P = w_hh.shape()[1];
  const int64_t H = w_ih.shape()[0] / gate_count(mode), last = reverse ? 0 : T - 1;
  const Tensor output = reshape(narrow(packed, 0, 0, T * B * P), {T, B, P});
  std::vector<Tensor> result{output, squeeze(narrow(output, 0, last, 1), 0)};
  if (mode == RnnMode::Lstm) {
    const Tensor cells = reshape(narrow(packed, 0, T * B * P, T * B * H), {T, B, H});
    result.push_back(squeeze(narrow(cells, 0, last, 1), 0));
  }
  return result;
}

}  // namespace sg
