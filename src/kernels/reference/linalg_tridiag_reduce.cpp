// Blocked Householder tridiagonalization (linalg_tridiag_reduce.h), LAPACK's dsytrd / dlatrd /
// dsytd2 for the lower triangle, and Q's application (dormtr: linalg_reflectors.cpp's blocks).
// Reducing column i needs y = A_i·v (a symmetric matrix-vector product over the trailing
// matrix) and the rank-2 update A_i −= v·wᵀ + w·vᵀ. Unblocked, each column reads the trailing
// triangle twice (the product, then the update). dlatrd reduces kPanel columns against the
// trailing matrix as it was before the panel, correcting each product by the panel's pending
// updates (V·(Wᵀ·v) + W·(Vᵀ·v)); the pending updates then go in at once, A −= V·Wᵀ + W·Vᵀ, as
// matrix products (the project's GEMM) over block columns of the lower triangle. Half the flops
// move into those products; the products A·v remain one read of the triangle each.
#include "kernels/reference/linalg_tridiag_reduce.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/reference/linalg_reflectors.h"
#include "kernels/reference/linalg_vec.h"

namespace sg {

namespace {

using namespace linalg_vec;

constexpr int64_t kPanel = 32;      // columns a panel (dsytrd's nb)
constexpr int64_t kCrossover = 64;  // trailing orders at or below go unblocked (dsytrd's nx)

// y = A·v for the symmetric m×m matrix at p (leading dimension lda) from its lower triangle: one
// pass, each column giving its dot with v to y[c] and its multiple v[c]·column to y below.
template <class S>
void symv_lower(const S* p, int64_t lda, int64_t m, const S* v, S* y) {
  std::fill(y, y + m, S(0));
  for (int64_t c = 0; c < m; ++c) {
    const S* col = p + c * lda;
    y[c] += col[c] * v[c] + dot_axpy(col + c + 1, v + c + 1, v[c], y + c + 1, m - c - 1);
  }
}

// w = tau·y − ½·tau²·(yᵀv)·v for y = A·v: the vector of the rank-2 update A − v·wᵀ − w·vᵀ.
template <class S>
void finish_w(S tau, const S* v, S* w, int64_t m) {
  for (int64_t i = 0; i < m; ++i) w[i] *= tau;
  axpy(S(-0.5) * tau * dot(w, v, m), v, w, m);
}

}  // namespace

template <class S>
void tridiagonal_reduce(S* a, int64_t n, double* d, double* e, double* tau, const ColGemmOf<S>& gemm) {
  auto at = [a, n](int64_t i, int64_t j) -> S& { return a[j * n + i]; };
  int64_t k = 0;
  if (n > kCrossover) {
    std::vector<S> w(size_t(n * kPanel)), t(kPanel);
    auto W = [&w, n](int64_t i, int64_t j) -> S& { return w[size_t(j * n + i)]; };
    for (; n - k > kCrossover; k += kPanel) {
      // dlatrd: columns k..k+kPanel−1; V's columns are a's (unit entries written in place).
      for (int64_t j = 0; j < kPanel; ++j) {
        const int64_t i = k + j, m = n - i - 1;
        for (int64_t c = 0; c < j; ++c) {  // column i gets the panel's pending updates
          axpy(-W(i, c), &at(i, k + c), &at(i, i), n - i);
          axpy(-at(i, k + c), &W(i, c), &at(i, i), n - i);
        }
        double alpha = double(at(i + 1, i));
        tau[i] = make_reflector(alpha, &at(i + 2, i), m - 1);
        e[i] = alpha;
        at(i + 1, i) = 1;
        const S* v = &at(i + 1, i);
        S* wj = &W(i + 1, j);
        symv_lower(&at(i + 1, i + 1), n, m, v, wj);
        for (int64_t c = 0; c < j; ++c) t[size_t(c)] = dot(&W(i + 1, c), v, m);
        for (int64_t c = 0; c < j; ++c) axpy(-t[size_t(c)], &at(i + 1, k + c), wj, m);
        for (int64_t c = 0; c < j; ++c) t[size_t(c)] = dot(&at(i + 1, k + c), v, m);
        for (int64_t c = 0; c < j; ++c) axpy(-t[size_t(c)], &W(i + 1, c), wj, m);
        finish_w(S(tau[i]), v, wj, m);
      }
      // The trailing lower triangle −= V·Wᵀ + W·Vᵀ, a block column at a time (the diagonal
      // blocks' upper parts get written too; nothing reads them).
      const int64_t r0 = k + kPanel;
      for (int64_t c0 = r0; c0 < n; c0 += kPanel) {
        const int64_t cols = std::min(kPanel, n - c0), rows = n - c0;
        gemm(false, true, rows, cols, kPanel, S(-1), &at(c0, k), n, &W(c0, 0), n, S(1), &at(c0, c0), n);
        gemm(false, true, rows, cols, kPanel, S(-1), &W(c0, 0), n, &at(c0, k), n, S(1), &at(c0, c0), n);
      }
      for (int64_t i = k; i < r0; ++i) {
        at(i + 1, i) = S(e[i]);
        d[i] = double(at(i, i));
      }
    }
  }
  // dsytd2 on what is left.
  std::vector<S> y(size_t(std::max<int64_t>(n, 1)));
  for (int64_t i = k; i + 1 < n; ++i) {
    const int64_t m = n - i - 1;
    double alpha = double(at(i + 1, i));
    tau[i] = make_reflector(alpha, &at(std::min(i + 2, n - 1), i), m - 1);
    e[i] = alpha;
    if (tau[i] != 0) {
      at(i + 1, i) = 1;
      const S* v = &at(i + 1, i);
      symv_lower(&at(i + 1, i + 1), n, m, v, y.data());
      finish_w(S(tau[i]), v, y.data(), m);
      for (int64_t c = 0; c < m; ++c)  // the lower triangle −= v·yᵀ + y·vᵀ
        axpy2(-v[c], y.data() + c, -y[size_t(c)], v + c, &at(i + 1 + c, i + 1 + c), m - c);
      at(i + 1, i) = S(e[i]);
    }
    d[i] = double(at(i, i));
  }
  if (n > 0) d[n - 1] = double(at(n - 1, n - 1));
}

template void tridiagonal_reduce<double>(double*, int64_t, double*, double*, double*, const ColGemmOf<double>&);
template void tridiagonal_reduce<float>(float*, int64_t, double*, double*, double*, const ColGemmOf<float>&);

template <class S>
void tridiagonal_apply_q(const S* a, int64_t n, const double* tau, S* z, int64_t cols, const ColGemmOf<S>& gemm) {
  // Reflector i acts on rows i + 1.. (its unit there): the reflectors of the matrix one row down.
  apply_reflectors<S>(a + 1, n, n - 1, n - 1, tau, z + 1, n, cols, gemm);
}

template void tridiagonal_apply_q<double>(const double*, int64_t, const double*, double*, int64_t,
                                          const ColGemmOf<double>&);
template void tridiagonal_apply_q<float>(const float*, int64_t, const double*, float*, int64_t,
                                         const ColGemmOf<float>&);

}  // namespace sg
