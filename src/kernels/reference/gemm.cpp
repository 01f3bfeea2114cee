// Reference GEMM: triple loop, double accumulator, every transpose variant by indexing.
#include "kernels/reference/reference_kernels.h"

namespace sg::ref {

void gemm_f32_bias(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                   const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                   const float* bias, GemmAct act, float* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0.0;
      for (int64_t p = 0; p < k; ++p) {
        const float av = trans_a ? a[p * lda + i] : a[i * lda + p];
        const float bv = trans_b ? b[j * ldb + p] : b[p * ldb + j];
        acc += double(av) * double(bv);
      }
      float& cij = c[i * ldc + j];
      // beta == 0 must not read C: it may hold NaN or garbage.
      double out = double(alpha) * acc + (beta == 0.0f ? 0.0 : double(beta) * cij);
      if (bias) out += bias[j];
      cij = float(out);
    }
    // The activation as the unary op computes it (on the float result, as an unfused op would).
    if (act != GemmAct::None) unary_f32(gemm_act_unary(act), 0.0f, c + i * ldc, c + i * ldc, n);
  }
}

}  // namespace sg::ref
