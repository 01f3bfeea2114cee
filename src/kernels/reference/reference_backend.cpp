// The 'reference' backend: forwards to the scalar loops of kernels/reference.
#include "kernels/backend.h"
#include "kernels/reference/reference_kernels.h"

namespace sg {
namespace {

class ReferenceBackend final : public Backend {
 public:
  const char* name() const override { return "reference"; }
  void unary_f32(Unary op, float param, const float* x, float* y, int64_t n) const override {
    ref::unary_f32(op, param, x, y, n);
  }
  void binary_f32(Binary op, const BroadcastPlan& plan, const float* a, const float* b,
                  float* out) const override {
    ref::binary_f32(op, plan, a, b, out);
  }
  void reduce_f32(Reduce op, const float* x, int64_t outer, int64_t r, int64_t inner,
                  float* out) const override {
    ref::reduce_f32(op, x, outer, r, inner, out);
  }
  void softmax_rows_f32(const float* x, float* y, int64_t rows, int64_t cols,
                        bool log_) const override {
    ref::softmax_rows_f32(x, y, rows, cols, log_);
  }
  void logsumexp_rows_f32(const float* x, float* out, int64_t rows, int64_t cols) const override {
    ref::logsumexp_rows_f32(x, out, rows, cols);
  }
  void softmax_causal_rows_f32(const float* x, float* y, int64_t rows, int64_t cols, int64_t L) const override {
    ref::softmax_causal_rows_f32(x, y, rows, cols, L);
  }
  void gemm_f32(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                int64_t ldc) const override {
    ref::gemm_f32_bias(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, nullptr, GemmAct::None, c, ldc);
  }
  void gemm_f32_bias(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                     const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                     const float* bias, GemmAct act, float* c, int64_t ldc) const override {
    ref::gemm_f32_bias(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, bias, act, c, ldc);
  }
};

}  // namespace

const Backend& reference_backend() {
  static const ReferenceBackend instance;
  return instance;
}

}  // namespace sg
