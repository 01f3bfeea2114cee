// The SIMD backend's kernels as free functions (one .cpp per family, each compiled for every
// Highway target and dispatched at run time natively, statically in wasm).
#pragma once
#include <cstdint>

#include "kernels/backend.h"

// For copy kernels of short runs: clang turns a copy loop, vector loads and stores included, into
// a call of the library's memcpy (memset for zeroing), which costs more than the copy on runs
// this short (8 floats of a GEMM panel row, an output row of 7–28: measured 9 % of a
// [128, 784]·[784, 256] product in wasm, 12 % of the bench CNN's forward). no_builtin forbids
// that in a function and in what is inlined into it.
#if defined(__clang__)
#define SG_NO_MEMCPY __attribute__((no_builtin("memcpy", "memset", "memmove")))
#else
#define SG_NO_MEMCPY
#endif

namespace sg::simd {

void unary_f32(Unary op, float param, const float* x, float* y, int64_t n);
void binary_f32(Binary op, const BroadcastPlan& plan, const float* a, const float* b, float* out);
void binary_run_f32(Binary op, const float* a, bool a_scalar, const float* b, bool b_scalar, float* out,
                    int64_t n);
void reduce_f32(Reduce op, const float* x, int64_t outer, int64_t r, int64_t inner, float* out);
void softmax_rows_f32(const float* x, float* y, int64_t rows, int64_t cols, bool log_);
void logsumexp_rows_f32(const float* x, float* out, int64_t rows, int64_t cols);
// Backend::softmax_causal_rows_f32 on rows whose first is query position first mod L (a thread's
// share of the rows starts anywhere; softmax_causal.cpp).
void softmax_causal_rows_f32(const float* x, float* y, int64_t rows, int64_t cols, int64_t L, int64_t first);
// Backend::cross_entropy_f32 / cross_entropy_backward_f32 over rows (cross_entropy.cpp: fused per
// row, no log-softmax row stored; dx may be x).
void cross_entropy_rows_f32(const float* x, const int32_t* t, const float* w, int64_t rows, int64_t cols,
                            int64_t ignore, double eps, float* loss, float* wt);
void cross_entropy_backward_rows_f32(const float* x, const int32_t* t, const float* w, int64_t rows,
                                     int64_t cols, int64_t ignore, double eps, const float* s, float* dx);
void gemm_f32_blocked(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                      const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                      float* c, int64_t ldc);
// gemm_f32_blocked plus bias[j] added to every row of C in the write-back (nullptr: none).
void gemm_f32_bias(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                   const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                   const float* bias, GemmAct act, float* c, int64_t ldc);
// The pieces of gemm_f32_bias that the threaded split (kernels/parallel_kernels.cpp) runs:
// op(B) packed once into a buffer every thread reads, then row blocks of C against it.
//   gemm_b_panel_width    columns (NR) of one packed panel, for the target in use
//   gemm_tile_rows        rows (MR) of the microkernel's tile: row blocks cut at multiples
//   gemm_pack_b           panels [q0, q1) of op(B) (k × n) into packed, which holds
//                         round_up(n, NR) · k floats aligned for the target's vectors
//   gemm_f32_bias_packed  gemm_f32_bias with op(B) read from packed (m, n, k > 0)
// C = alpha·op(A)·op(B) + beta·C in float64 (kernels/simd/gemm_f64.cpp), one thread.
void gemm_f64(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
              int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc);
int64_t gemm_b_panel_width();
int gemm_tile_rows();
void gemm_pack_b(bool trans_b, int64_t n, int64_t k, const float* b, int64_t ldb, int64_t q0, int64_t q1,
                 float* packed);
void gemm_f32_bias_packed(bool trans_a, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                          int64_t lda, const float* packed_b, float beta, const float* bias, GemmAct act,
                          float* c, int64_t ldc);
void max_pool2d_f32(const PoolGeom& g, const float* x, float* y, int32_t* idx);
void max_pool2d_backward_f32(const PoolGeom& g, const float* dy, const int32_t* idx, float* dx);
void im2col_f32(const Im2colGeom& g, const float* x, float* col, int64_t ld);
void col2im_f32(const Im2colGeom& g, const float* col, int64_t ld, float* dx);
// The convolution methods of backend.h (conv.cpp), split over the threads themselves.
void conv2d_f32(const ConvGeom& g, const float* x, const float* w, const float* bias, GemmAct act, float* y);
void conv2d_backward_data_f32(const ConvGeom& g, const float* dy, const float* w, const float* bias, float* dx);
void conv2d_backward_weight_f32(const ConvGeom& g, const float* x, const float* dy, float* dw);
// The fused conv + max pool where the SIMD path pools its own output (stride-1 convolutions
// whose windows lie inside the output); false: not handled, compose the two methods.
bool conv2d_maxpool2d_f32(const ConvGeom& g, const float* x, const float* w, const float* bias, GemmAct act,
                          const PoolGeom& pool, float* y, int32_t* idx);
// Whether conv2d_f32 computes g by Winograd F(2×2, 3×3) (conv_winograd-inl.h) on the current
// target and thread count (tests: which geometries exercise it).
bool conv2d_uses_winograd(const ConvGeom& g);

// The Highway target the kernels dispatch to now, and its float32 lane count (tests size their
// inputs around the vector tails with it).
int64_t lanes_f32();
// The GEMM tile in use: "5x8" or "6x8" in wasm (chosen at the first GEMM by the engine's
// instruction set, see gemm-inl.h), "native" in native builds (per Highway target).
const char* gemm_tile_name();
// Tests: force the wasm tile (5 or 6 rows; anything else: choose again). No effect natively.
void set_wasm_tile_rows(int rows);
// Tests: the largest m·n·k the dense GEMM computes without packing A (gemm-inl.h, "small
// products"); 0 packs every product, a negative value restores the default.
void set_small_gemm_limit(int64_t mnk);
// Tests: the most floats of op(A) the dense GEMM packs whole instead of once per column block of
// op(B) (gemm-inl.h); 0 packs per block always, a negative value restores the default.
void set_packed_a_whole_limit(int64_t floats);
const char* target_name();

}  // namespace sg::simd
