// The reference backend's kernels as free functions: plain scalar loops, the oracle the
// SIMD backend is tested against (and which it may call for cases it does not vectorize).
#pragma once
#include <cstdint>

#include "kernels/backend.h"

namespace sg::ref {

void unary_f32(Unary op, float param, const float* x, float* y, int64_t n);
void binary_f32(Binary op, const BroadcastPlan& plan, const float* a, const float* b, float* out);
void reduce_f32(Reduce op, const float* x, int64_t outer, int64_t r, int64_t inner, float* out);
void softmax_rows_f32(const float* x, float* y, int64_t rows, int64_t cols, bool log_);
void logsumexp_rows_f32(const float* x, float* out, int64_t rows, int64_t cols);
void softmax_causal_rows_f32(const float* x, float* y, int64_t rows, int64_t cols, int64_t L);
// C = act(alpha · op(A) · op(B) + beta · C + bias[j]) (bias: n floats, or nullptr for none).
void gemm_f32_bias(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                   const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                   const float* bias, GemmAct act, float* c, int64_t ldc);
// The float64 twins (the defaults of Backend's *_f64 methods, which both CPU backends use but
// for gemm_f64): the same loops instantiated for double.
void unary_f64(Unary op, double param, const double* x, double* y, int64_t n);
void binary_f64(Binary op, const BroadcastPlan& plan, const double* a, const double* b, double* out);
void reduce_f64(Reduce op, const double* x, int64_t outer, int64_t r, int64_t inner, double* out);
void softmax_rows_f64(const double* x, double* y, int64_t rows, int64_t cols, bool log_);
void logsumexp_rows_f64(const double* x, double* out, int64_t rows, int64_t cols);
void softmax_causal_rows_f64(const double* x, double* y, int64_t rows, int64_t cols, int64_t L);
void gemm_f64(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
              int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc);
void max_pool2d_f32(const PoolGeom& g, const float* x, float* y, int32_t* idx);
void max_pool2d_backward_f32(const PoolGeom& g, const float* dy, const int32_t* idx, float* dx);
// float64 pools (nn/pool.cpp calls them on the CPU): max pooling, and the box means of
// avg/adaptive pooling (kernels/reference/layer_pool.cpp), as the float32 ones in double.
void max_pool2d_f64(const PoolGeom& g, const double* x, double* y, int32_t* idx);
void max_pool2d_backward_f64(const PoolGeom& g, const double* dy, const int32_t* idx, double* dx);
void box_mean_f64(const BoxGeom& g, const double* x, double* y);
void box_mean_backward_f64(const BoxGeom& g, const double* dy, double* dx);
void im2col_f32(const Im2colGeom& g, const float* x, float* col, int64_t ld);
void col2im_f32(const Im2colGeom& g, const float* col, int64_t ld, float* dx);
// The convolution methods of backend.h, from the definition (gather form, double sums).
void conv2d_f32(const ConvGeom& g, const float* x, const float* w, const float* bias, GemmAct act, float* y);
void conv2d_backward_data_f32(const ConvGeom& g, const float* dy, const float* w, const float* bias, float* dx);
void conv2d_backward_weight_f32(const ConvGeom& g, const float* x, const float* dy, float* dw);
// The same in double, for float64 tensors (nn/conv.cpp calls them on the CPU).
void conv2d_f64(const ConvGeom& g, const double* x, const double* w, const double* bias, GemmAct act, double* y);
void conv2d_backward_data_f64(const ConvGeom& g, const double* dy, const double* w, const double* bias, double* dx);
void conv2d_backward_weight_f64(const ConvGeom& g, const double* x, const double* dy, double* dw);
// The outputs o in [lo, hi) of a row whose input position o·s + off lies in [0, size).
struct ValidRange {
  int64_t lo, hi;
};
ValidRange valid_outputs(int64_t off, int64_t s, int64_t size, int64_t out);
// Outputs ow0 … ow1−1 of output row oh of one plane xp (y, idx point at that row's start):
// the SIMD kernel's borders and unvectorized geometries.
void max_pool2d_row(const PoolGeom& g, const float* xp, int64_t oh, int64_t ow0, int64_t ow1, float* y,
                    int32_t* idx);

}  // namespace sg::ref
