// Reference GEMM: triple loop, double accumulator, every transpose variant by indexing; one
// template for float32 and float64.
#include "kernels/reference/reference_kernels.h"

namespace sg::ref {

namespace {

template <class T>
void gemm_loop(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda,
               const T* b, int64_t ldb, T beta, const T* bias, GemmAct act, T* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0.0;
      for (int64_t p = 0; p < k; ++p) {
        const T av = trans_a ? a[p * lda + i] : a[i * lda + p];
        const T bv = trans_b ? b[j * ldb + p] : b[p * ldb + j];
        acc += double(av) * double(bv);
      }
      T& cij = c[i * ldc + j];
      // beta == 0 must not read C: it may hold NaN or garbage.
      double out = double(alpha) * acc + (beta == T(0) ? 0.0 : double(beta) * cij);
      if (bias) out += bias[j];
      cij = T(out);
    }
    // The activation as the unary op computes it (on the rounded result, as an unfused op would).
    if (act != GemmAct::None) {
      if constexpr (sizeof(T) == 4) unary_f32(gemm_act_unary(act), 0.0f, c + i * ldc, c + i * ldc, n);
      else unary_f64(gemm_act_unary(act), 0.0, c + i * ldc, c + i * ldc, n);
    }
  }
}

}  // namespace

void gemm_f32_bias(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                   const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                   const float* bias, GemmAct act, float* c, int64_t ldc) {
  gemm_loop(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, bias, act, c, ldc);
}

void gemm_f64(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
              int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  gemm_loop(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, static_cast<const double*>(nullptr),
            GemmAct::None, c, ldc);
}

}  // namespace sg::ref
