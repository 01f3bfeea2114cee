// The 'wasm' backend (also called 'simd'): Highway kernels of kernels/simd, split over the
// threads of core/parallel.h by kernels/parallel_kernels.h when more than one is set.
#include "kernels/backend.h"
#include "kernels/parallel_kernels.h"
#include "kernels/simd/simd_kernels.h"

namespace sg {
namespace {

const par::GemmKernels kGemm{simd::gemm_f32_bias, simd::gemm_b_panel_width, simd::gemm_tile_rows,
                             simd::gemm_pack_b, simd::gemm_f32_bias_packed};

class SimdBackend final : public Backend {
 public:
  const char* name() const override { return "wasm"; }
  void unary_f32(Unary op, float param, const float* x, float* y, int64_t n) const override {
    par::unary(simd::unary_f32, op, param, x, y, n);
  }
  void binary_f32(Binary op, const BroadcastPlan& plan, const float* a, const float* b,
                  float* out) const override {
    par::binary(simd::binary_f32, op, plan, a, b, out);
  }
  // A fused kernel's block: one thread (the fused kernel splits its blocks itself), no plan.
  void binary_run_f32(Binary op, const float* a, bool a_scalar, const float* b, bool b_scalar, float* out,
                      int64_t n) const override {
    simd::binary_run_f32(op, a, a_scalar, b, b_scalar, out, n);
  }
  void reduce_f32(Reduce op, const float* x, int64_t outer, int64_t r, int64_t inner,
                  float* out) const override {
    par::reduce(simd::reduce_f32, op, x, outer, r, inner, out);
  }
  void softmax_rows_f32(const float* x, float* y, int64_t rows, int64_t cols,
                        bool log_) const override {
    par::softmax_rows(simd::softmax_rows_f32, x, y, rows, cols, log_);
  }
  void logsumexp_rows_f32(const float* x, float* out, int64_t rows, int64_t cols) const override {
    par::logsumexp_rows(simd::logsumexp_rows_f32, x, out, rows, cols);
  }
  // Rows split over the threads whole, each range told its first row's query position.
  void softmax_causal_rows_f32(const float* x, float* y, int64_t rows, int64_t cols, int64_t L) const override {
    par::over_items(rows, cols, [&](int64_t lo, int64_t hi) {
      simd::softmax_causal_rows_f32(x + lo * cols, y + lo * cols, hi - lo, cols, L, lo % L);
    });
  }
  // Rows split over the threads whole (a row's result does not depend on the split).
  void cross_entropy_f32(const float* x, const int32_t* t, const float* w, int64_t R, int64_t C, int64_t ignore,
                         double eps, float* loss, float* wt) const override {
    par::over_items(R, C, [&](int64_t lo, int64_t hi) {
      simd::cross_entropy_rows_f32(x + lo * C, t + lo, w, hi - lo, C, ignore, eps, loss + lo, wt + lo);
    });
  }
  void cross_entropy_backward_f32(const float* x, const int32_t* t, const float* w, int64_t R, int64_t C,
                                  int64_t ignore, double eps, const float* s, float* dx) const override {
    par::over_items(R, C, [&](int64_t lo, int64_t hi) {
      simd::cross_entropy_backward_rows_f32(x + lo * C, t + lo, w, hi - lo, C, ignore, eps, s + lo, dx + lo * C);
    });
  }
  void gemm_f32(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                int64_t ldc) const override {
    par::gemm(kGemm, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, nullptr,
              GemmAct::None, c, ldc);
  }
  void gemm_f32_bias(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                     const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                     const float* bias, GemmAct act, float* c, int64_t ldc) const override {
    par::gemm(kGemm, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, bias, act,
              c, ldc);
  }
  // float64: Highway vectors of half the lanes, one thread (the other f64 kernels are the
  // reference loops of Backend's defaults).
  void gemm_f64(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc) const override {
    simd::gemm_f64(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  void max_pool2d_f32(const PoolGeom& g, const float* x, float* y, int32_t* idx) const override {
    par::max_pool2d(simd::max_pool2d_f32, g, x, y, idx);  // idx may be null
  }
  void max_pool2d_backward_f32(const PoolGeom& g, const float* dy, const int32_t* idx,
                               float* dx) const override {
    par::max_pool2d_backward(simd::max_pool2d_backward_f32, g, dy, idx, dx);
  }
  // DataKernels' copy, over the threads in ranges of the outermost dim (parallel_kernels.h).
  void copy_strided(const StridedCopy& c, const void* src, void* dst) const override {
    par::copy_strided([](const DataKernels& k, const StridedCopy& part, const void* s, void* d) {
      k.DataKernels::copy_strided(part, s, d);
    }, *this, c, src, dst);
  }
  void im2col_f32(const Im2colGeom& g, const float* x, float* col, int64_t ld) const override {
    simd::im2col_f32(g, x, col, ld);
  }
  void col2im_f32(const Im2colGeom& g, const float* col, int64_t ld, float* dx) const override {
    simd::col2im_f32(g, col, ld, dx);
  }
  void conv2d_f32(const ConvGeom& g, const float* x, const float* w, const float* bias, GemmAct act,
                  float* y) const override {
    simd::conv2d_f32(g, x, w, bias, act, y);
  }
  void conv2d_backward_data_f32(const ConvGeom& g, const float* dy, const float* w, const float* bias,
                                float* dx) const override {
    simd::conv2d_backward_data_f32(g, dy, w, bias, dx);
  }
  void conv2d_backward_weight_f32(const ConvGeom& g, const float* x, const float* dy,
                                  float* dw) const override {
    simd::conv2d_backward_weight_f32(g, x, dy, dw);
  }
  void conv2d_maxpool2d_f32(const ConvGeom& g, const float* x, const float* w, const float* bias, GemmAct act,
                            const PoolGeom& pool, float* y, int32_t* idx) const override {
    if (!simd::conv2d_maxpool2d_f32(g, x, w, bias, act, pool, y, idx))
      Backend::conv2d_maxpool2d_f32(g, x, w, bias, act, pool, y, idx);
  }
};

}  // namespace

const Backend& simd_backend() {
  static const SimdBackend instance;
  return instance;
}

}  // namespace sg
