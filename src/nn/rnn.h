// Recurrent layers (the kernels of torch.nn.RNN, LSTM and GRU): one layer in one direction
// over a whole sequence is one op and one graph node, its backward a loop of backpropagation
// through time. A sequence of length T therefore costs one node, not ~12·T small ops: the
// graph stays shallow (a 10,000-node chain of small ops already exhausts the JS stack when
// it is freed) and no step crosses the JS/wasm boundary.
//
// The gate order and formulas are PyTorch's (aten/src/ATen/native/RNN.cpp):
//   LSTM  gates i, f, g, o:  c' = f·c + i·g,  h' = o·tanh(c')  (with proj: h' = (o·tanh(c'))·W_hrᵀ)
//   GRU   gates r, z, n:     r = σ(h_r + x_r), z = σ(h_z + x_z), n = tanh(x_n + r·h_n),
//                            h' = (h − n)·z + n
//   RNN   h' = tanh or relu(h·W_hhᵀ + b_hh + x·W_ihᵀ + b_ih)
// where x_* = x·W_ihᵀ + b_ih (computed for every step by one product, as PyTorch's CPU path
// does) and h_* = h·W_hhᵀ + b_hh, split into gate blocks of H rows of the weights.
#pragma once
#include <string>
#include <vector>

#include "core/tensor.h"

namespace sg {

enum class RnnMode { Lstm, Gru, RnnTanh, RnnRelu };

// 'lstm', 'gru', 'rnn_tanh' or 'rnn_relu'; anything else is an error naming `op`.
RnnMode rnn_mode_of(const char* op, const std::string& name);

// One layer, one direction. Shapes (G = 4 LSTM, 3 GRU, 1 RNN; P = proj size, else H):
//   x [T, B, I], h0 [B, P], c0 [B, H] (LSTM only, else undefined),
//   w_ih [G·H, I], w_hh [G·H, P], b_ih and b_hh [G·H] or both undefined,
//   w_hr [P, H] (LSTM with projection) or undefined.
// reverse runs the steps from t = T − 1 down to 0 (the backward direction of a bidirectional
// layer); outputs stay indexed by t. Returns {output [T, B, P], h_n [B, P]} and, for LSTM,
// c_n [B, H]; all three are views of one recorded result, so gradients reaching any of them
// flow through the single backward-through-time node.
std::vector<Tensor> rnn_layer(RnnMode mode, const Tensor& x, const Tensor& h0, const Tensor& c0,
                              const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih,
                              const Tensor& b_hh, const Tensor& w_hr, bool reverse);

// The same as one tensor, the single result of the registry op 'rnnLayer': flat float32
// [T·B·P (+ T·B·H for LSTM)], the outputs [T, B, P] row-major, then (LSTM) every step's cell
// state [T, B, H]. One result keeps the op to one output whose gradient arrives once (the
// views of rnn_layer are taken by the caller: the JS layer, or rnn_layer above).
Tensor rnn_layer_packed(RnnMode mode, const Tensor& x, const Tensor& h0, const Tensor& c0,
                        const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih,
                        const Tensor& b_hh, const Tensor& w_hr, bool reverse);

}  // namespace sg
