// One time step of a recurrent cell (nn/rnn.cpp): the gate math between the step's two products
// (x·W_ihᵀ + b_ih for every step at once before the loop, h·W_hhᵀ + b_hh each step), forward and
// backward, over B rows of H hidden units. Backend (kernels/backend.h) declares the kernels; the
// defaults (kernels/reference/rnn_cell.cpp) are loops whose activations go through the backend's
// own unary_f32 (scalar on 'reference', SIMD on 'wasm'); the WebGPU backend runs each step as one
// WGSL kernel (web/webgpu/kernels/rnn.ts). Pointers are device pointers to contiguous rows.
#pragma once
#include <cstdint>

namespace sg {

// PyTorch's cells: LSTM gates i, f, g, o; GRU r, z, n (b_hn inside r·(…)); Elman tanh or relu.
enum class RnnCell : uint8_t { Lstm, Gru, Tanh, Relu };

inline int64_t rnn_gate_count(RnnCell c) { return c == RnnCell::Lstm ? 4 : c == RnnCell::Gru ? 3 : 1; }

// Forward. acts [B, G·H] holds x·W_ihᵀ + b_ih on entry; hg [B, G·H] is h_prev·W_hhᵀ + b_hh.
//   LSTM: acts ← (σ(i), σ(f), tanh(g), σ(o)) of acts + hg; c = f·c_prev + i·g; h = o·tanh(c).
//   GRU:  acts ← (r, z, n) with r, z = σ(acts + hg) and n = tanh(acts_n + r·hg_n); hn = hg_n;
//         h = (h_prev − n)·z + n.
//   Tanh/Relu: acts ← acts + hg; h = act(acts).
// Pointers a cell does not use (c_prev, c for GRU/Elman; h_prev, hn but for GRU) may be null.
struct RnnStep {
  RnnCell cell = RnnCell::Lstm;
  int64_t B = 0, H = 0;
  float* acts = nullptr;
  const float* hg = nullptr;
  const float* h_prev = nullptr;
  const float* c_prev = nullptr;
  float* c = nullptr;
  float* hn = nullptr;
  float* h = nullptr;
};

// Backward of one step. d = dh + g_h (g_h: the output's gradient at this step; null: none) is the
// gradient reaching h. Writes dA [B, G·H], the gradient of the hidden-side gate inputs
// (hg), and dXi [B, G·H] that of the input-side ones (the same array but for GRU, where r
// multiplies only hg_n: dXi_n = dA_n / r); updates the running state gradients in place:
//   LSTM: dc ← g_c + dc + d·o·(1 − tanh²c) then ·f (c: this step's cell state, c_prev the one
//         before, g_c the cells' gradient at this step); dh is only read (the next product
//         overwrites it).
//   GRU:  dh ← d·z (the product dA·W_hh is added to it afterwards).
//   Tanh/Relu: dh only read; h is this step's output.
struct RnnStepBackward {
  RnnCell cell = RnnCell::Lstm;
  int64_t B = 0, H = 0;
  const float* acts = nullptr;
  const float* c = nullptr;
  const float* c_prev = nullptr;
  const float* hn = nullptr;
  const float* h_prev = nullptr;
  const float* h = nullptr;
  const float* g_h = nullptr;
  const float* g_c = nullptr;
  float* dh = nullptr;
  float* dc = nullptr;
  float* dA = nullptr;
  float* dXi = nullptr;
};

}  // namespace sg
