// Householder bidiagonalization (linalg_bidiag.h), LAPACK's dgebrd for m ≥ n: panels of 32
// columns and rows by dlabrd, the rest by dgebd2. Unblocked, step i is four passes over the
// trailing matrix: H_i's dots and updates (one pass, each column in cache), then G_i's
// y = A·w and its rank-1 update. dlabrd reduces a panel against the trailing matrix as it was
// before the panel: each step's two products (Aᵀ·v, A·u) are corrected by the panel's pending
// updates (through the matrices X and Y, small products with the panel's reflectors), and the
// pending updates go in at once, A −= V·Yᵀ + X·Uᵀ, as two matrix products (the project's GEMM).
// Half the flops move into those products. Column-major throughout: a row (G_i's vector) is
// strided, so it is copied out.
#include "kernels/reference/linalg_bidiag.h"

#include <algorithm>
#include <vector>

#include "kernels/reference/linalg_reflectors.h"
#include "kernels/reference/linalg_vec.h"

namespace sg {

using namespace linalg_vec;

namespace {

constexpr int64_t kPanel = 32;      // dgebrd's nb
constexpr int64_t kCrossover = 64;  // trailing columns at or below go unblocked (dgebrd's nx)

// dlabrd on the panel at (k, k): b = &a(k, k), M×N the trailing matrix (M ≥ N > kPanel), lda m.
// x (M×kPanel) and y (N×kPanel) are the panel's X and Y; the trailing update is the caller's.
template <class S>
void panel(S* b, int64_t lda, int64_t M, int64_t N, int64_t k, double* d, double* e, double* tauq, double* taup,
           S* prow, int64_t n, S* x, S* y, std::vector<S>& w, std::vector<S>& t) {
  auto B = [b, lda](int64_t i, int64_t j) -> S& { return b[j * lda + i]; };
  auto X = [x, M](int64_t i, int64_t j) -> S& { return x[j * M + i]; };
  auto Y = [y, N](int64_t i, int64_t j) -> S& { return y[j * N + i]; };
  for (int64_t i = 0; i < kPanel; ++i) {
    // Column i gets the panel's pending updates: −= A(i:, 0:i)·Y(i, 0:i)ᵀ + X(i:, 0:i)·A(0:i, i).
    S* col = &B(i, i);
    const int64_t cm = M - i;
    for (int64_t c = 0; c < i; ++c) {
      axpy(-Y(i, c), &B(i, c), col, cm);
      axpy(-B(c, i), &X(i, c), col, cm);
    }
    double alpha = double(col[0]);
    tauq[k + i] = make_reflector(alpha, col + 1, cm - 1);
    d[k + i] = alpha;
    col[0] = S(1);
    // Y(i+1:, i) = tauq·(A(i:, i+1:)ᵀ·v − Y(i+1:, 0:i)·(A(i:, 0:i)ᵀ·v) − A(0:i, i+1:)ᵀ·(X(i:, 0:i)ᵀ·v)).
    const int64_t rn = N - i - 1;
    S* yi = &Y(i + 1, i);
    for (int64_t c = 0; c < rn; ++c) yi[c] = dot(&B(i, i + 1 + c), col, cm);
    for (int64_t c = 0; c < i; ++c) t[size_t(c)] = dot(&B(i, c), col, cm);
    for (int64_t c = 0; c < i; ++c) axpy(-t[size_t(c)], &Y(i + 1, c), yi, rn);
    for (int64_t c = 0; c < i; ++c) t[size_t(c)] = dot(&X(i, c), col, cm);
    for (int64_t c = 0; c < rn; ++c) yi[c] -= dot(&B(0, i + 1 + c), t.data(), i);
    const S tq = S(tauq[k + i]);
    for (int64_t c = 0; c < rn; ++c) yi[c] *= tq;
    // Row i gets its pending updates: −= A(i, 0:i+1)·Y(i+1:, 0:i+1)ᵀ + X(i, 0:i)·A(0:i, i+1:).
    for (int64_t c = 0; c < rn; ++c) w[size_t(c)] = B(i, i + 1 + c);
    for (int64_t c = 0; c <= i; ++c) axpy(-B(i, c), &Y(i + 1, c), w.data(), rn);
    for (int64_t c = 0; c < i; ++c) t[size_t(c)] = X(i, c);
    for (int64_t c = 0; c < rn; ++c) w[size_t(c)] -= dot(&B(0, i + 1 + c), t.data(), i);
    alpha = double(w[0]);
    taup[k + i] = make_reflector(alpha, w.data() + 1, rn - 1);
    e[k + i] = alpha;
    w[0] = S(1);
    S* pc = prow + (k + i) * n + k + i + 1;  // u on rows k+i+1.. of prow's column k + i
    for (int64_t c = 0; c < rn; ++c) B(i, i + 1 + c) = pc[c] = w[size_t(c)];
    // X(i+1:, i) = taup·(A(i+1:, i+1:)·u − A(i+1:, 0:i+1)·(Y(i+1:, 0:i+1)ᵀ·u) − X(i+1:, 0:i)·(A(0:i, i+1:)·u)).
    const int64_t xm = M - i - 1;
    S* xi = &X(i + 1, i);
    std::fill(xi, xi + xm, S(0));
    for (int64_t c = 0; c < rn; ++c) axpy(w[size_t(c)], &B(i + 1, i + 1 + c), xi, xm);
    for (int64_t c = 0; c <= i; ++c) t[size_t(c)] = dot(&Y(i + 1, c), w.data(), rn);
    for (int64_t c = 0; c <= i; ++c) axpy(-t[size_t(c)], &B(i + 1, c), xi, xm);
    std::fill(t.begin(), t.begin() + i, S(0));
    for (int64_t c = 0; c < rn; ++c) axpy(w[size_t(c)], &B(0, i + 1 + c), t.data(), i);
    for (int64_t c = 0; c < i; ++c) axpy(-t[size_t(c)], &X(i + 1, c), xi, xm);
    const S tp = S(taup[k + i]);
    for (int64_t c = 0; c < xm; ++c) xi[c] *= tp;
  }
}

}  // namespace

template <class S>
void bidiagonalize(S* a, int64_t m, int64_t n, double* d, double* e, double* tauq, double* taup, S* prow,
                   const ColGemmOf<S>& gemm) {
  auto col = [a, m](int64_t j) { return a + j * m; };
  std::vector<S> w(static_cast<size_t>(n)), y(static_cast<size_t>(m)), t(kPanel);
  int64_t i = 0;
  if (n > kCrossover) {
    std::vector<S> px(size_t(m * kPanel)), py(size_t(n * kPanel));
    for (; n - i > kCrossover; i += kPanel) {
      const int64_t M = m - i, N = n - i;
      S* b = a + i * m + i;
      panel<S>(b, m, M, N, i, d, e, tauq, taup, prow, n, px.data(), py.data(), w, t);
      // The trailing matrix −= V·Yᵀ + X·Uᵀ (V: the panel's columns below it, U: its rows right of it).
      S* b22 = b + kPanel * m + kPanel;
      gemm(false, true, M - kPanel, N - kPanel, kPanel, S(-1), b + kPanel, m, py.data() + kPanel, N, S(1), b22, m);
      gemm(false, false, M - kPanel, N - kPanel, kPanel, S(-1), px.data() + kPanel, M, b + kPanel * m, m, S(1), b22, m);
    }
  }
  // dgebd2 on what is left.
  for (; i < n; ++i) {
    // H_i on column i, rows i..m−1.
    double alpha = double(col(i)[i]);
    tauq[i] = make_reflector(alpha, col(i) + i + 1, m - i - 1);
    d[i] = alpha;
    if (tauq[i] != 0) {
      col(i)[i] = S(1);
      const S* v = col(i) + i;
      const S tq = S(tauq[i]);
      for (int64_t j = i + 1; j < n; ++j) axpy(-tq * dot(v, col(j) + i, m - i), v, col(j) + i, m - i);
    }
    if (i + 1 >= n) break;
    // G_i on row i, columns i+1..n−1 (copied out: w).
    const int64_t len = n - i - 1, rows = m - i - 1;
    for (int64_t j = 0; j < len; ++j) w[size_t(j)] = col(i + 1 + j)[i];
    alpha = double(w[0]);
    taup[i] = make_reflector(alpha, w.data() + 1, len - 1);
    e[i] = alpha;
    w[0] = S(1);
    S* pc = prow + i * n;  // u on rows i+1..n−1 of prow's column i
    for (int64_t j = 0; j < len; ++j) pc[i + 1 + j] = w[size_t(j)];
    if (taup[i] != 0 && rows > 0) {
      std::fill(y.begin(), y.begin() + rows, S(0));
      for (int64_t j = 0; j < len; ++j) axpy(w[size_t(j)], col(i + 1 + j) + i + 1, y.data(), rows);
      const S tp = S(taup[i]);
      for (int64_t j = 0; j < len; ++j) axpy(-tp * w[size_t(j)], y.data(), col(i + 1 + j) + i + 1, rows);
    }
  }
}

template void bidiagonalize<double>(double*, int64_t, int64_t, double*, double*, double*, double*, double*,
                                    const ColGemmOf<double>&);
template void bidiagonalize<float>(float*, int64_t, int64_t, double*, double*, double*, double*, float*,
                                   const ColGemmOf<float>&);

}  // namespace sg
