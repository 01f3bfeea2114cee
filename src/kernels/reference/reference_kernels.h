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
// C = alpha · op(A) · op(B) + beta · C + bias[j] (bias: n floats, or nullptr for none).
void gemm_f32_bias(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                   const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                   const float* bias, float* c, int64_t ldc);

}  // namespace sg::ref
