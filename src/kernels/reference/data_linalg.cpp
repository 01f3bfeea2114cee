// DataKernels' linear algebra (data_kernels.h): LU with partial pivoting and Cholesky, in double.
// Each float32 matrix is widened once, factored and solved in double, and each result rounded once
// to float32: the float32 answers are then as good as float32 can hold for well-conditioned inputs
// (PyTorch's float32 LAPACK rounds at every step). Plain loops: the sizes these ops meet in
// training code are small, and every device runs this same code (the WebGPU backend through the
// wasm fallback), so every device gives the same bits.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "kernels/data_kernels.h"

namespace sg {

namespace {

// One n×n matrix in double, row-major.
struct Mat {
  int64_t n;
  std::vector<double> v;
  double& at(int64_t i, int64_t j) { return v[size_t(i * n + j)]; }
};

Mat widen(const float* a, int64_t n) {
  Mat m{n, std::vector<double>(size_t(n * n))};
  for (int64_t i = 0; i < n * n; ++i) m.v[size_t(i)] = a[i];
  return m;
}

// PA = LU in place, as LAPACK's getrf: at step k the row with the largest |m[i][k]| (i ≥ k, the
// first on ties) is swapped with row k (piv[k] = that row); L (unit diagonal) below, U on and above
// the diagonal. A zero pivot column is left as it is (U[k][k] = 0, nothing to eliminate) and the
// factorization goes on, so singular matrices have an LU too. Returns the 1-based index of the
// first zero pivot (LAPACK's info), 0 if none.
int64_t lu_factor(Mat& m, std::vector<int64_t>& piv) {
  const int64_t n = m.n;
  piv.assign(size_t(n), 0);
  int64_t info = 0;
  for (int64_t k = 0; k < n; ++k) {
    int64_t p = k;
    for (int64_t i = k + 1; i < n; ++i)
      if (std::abs(m.at(i, k)) > std::abs(m.at(p, k))) p = i;
    piv[size_t(k)] = p;
    if (m.at(p, k) == 0) {
      if (info == 0) info = k + 1;
      continue;
    }
    if (p != k)
      for (int64_t j = 0; j < n; ++j) std::swap(m.at(k, j), m.at(p, j));
    for (int64_t i = k + 1; i < n; ++i) {
      const double l = m.at(i, k) /= m.at(k, k);
      if (l != 0)
        for (int64_t j = k + 1; j < n; ++j) m.at(i, j) -= l * m.at(k, j);
    }
  }
  return info;
}

// x (n×k, row-major) = A⁻¹·x from the LU of Aᵀ (no zero pivot), LAPACK's getrs with trans = 'T'.
// inv and solve factor Aᵀ, not A, as PyTorch 1.13 does for a row-major A (it then hands LAPACK
// the column-major Aᵀ without a copy): the pivots, and so the index in the singular-matrix
// message, are PyTorch's. With P·Aᵀ = L·U, A = Uᵀ·Lᵀ·P: solve Uᵀ (lower), Lᵀ (unit upper), then
// undo the row swaps from the last.
void lu_solve_transposed(Mat& lu, const std::vector<int64_t>& piv, std::vector<double>& x, int64_t k) {
  const int64_t n = lu.n;
  auto X = [&](int64_t i, int64_t c) -> double& { return x[size_t(i * k + c)]; };
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < i; ++j)
      for (int64_t c = 0; c < k; ++c) X(i, c) -= lu.at(j, i) * X(j, c);
    for (int64_t c = 0; c < k; ++c) X(i, c) /= lu.at(i, i);
  }
  for (int64_t i = n - 1; i >= 0; --i)
    for (int64_t j = i + 1; j < n; ++j)
      for (int64_t c = 0; c < k; ++c) X(i, c) -= lu.at(j, i) * X(j, c);
  for (int64_t i = n - 1; i >= 0; --i)
    if (piv[size_t(i)] != i)
      for (int64_t c = 0; c < k; ++c) std::swap(X(i, c), X(piv[size_t(i)], c));
}

// Aᵀ in double, for inv and solve (above).
Mat widen_transposed(const float* a, int64_t n) {
  Mat m{n, std::vector<double>(size_t(n * n))};
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) m.at(j, i) = a[i * n + j];
  return m;
}

// PyTorch's prefix for an error in matrix b of a batched input.
std::string batch_prefix(bool batched, int64_t b) {
  return batched ? "(Batch element " + std::to_string(b) + "): " : "";
}

void narrow_into(const std::vector<double>& v, float* out) {
  for (size_t i = 0; i < v.size(); ++i) out[i] = float(v[i]);
}

// adj(U) of an upper-triangular U without dividing by its diagonal (which may hold zeros):
// with T[i][j] = (U⁻¹)[i][j]·u_ii⋯u_jj (a polynomial in U's entries), T[j][j] = 1 and
//   T[i][j] = −Σ_{k=i+1..j} u_ik · (u_{i+1,i+1}⋯u_{k−1,k−1}) · T[k][j],
// and adj(U)[i][j] = (Π_{m<i} u_mm) · T[i][j] · (Π_{m>j} u_mm). Returned row-major.
std::vector<double> triangular_adjugate(Mat& u) {
  const int64_t n = u.n;
  std::vector<double> t(size_t(n * n), 0.0), before(size_t(n) + 1, 1.0), after(size_t(n) + 1, 1.0);
  auto T = [&](int64_t i, int64_t j) -> double& { return t[size_t(i * n + j)]; };
  for (int64_t i = 0; i < n; ++i) before[size_t(i) + 1] = before[size_t(i)] * u.at(i, i);  // before[i] = Π_{m<i}
  for (int64_t j = n - 1; j >= 0; --j) after[size_t(j)] = after[size_t(j) + 1] * u.at(j, j);   // after[j] = Π_{m≥j}
  for (int64_t j = 0; j < n; ++j) {
    T(j, j) = 1;
    for (int64_t i = j - 1; i >= 0; --i) {
      double s = 0, between = 1;  // between = u_{i+1,i+1}⋯u_{k−1,k−1}
      for (int64_t k = i + 1; k <= j; ++k) {
        s += u.at(i, k) * between * T(k, j);
        between *= u.at(k, k);
      }
      T(i, j) = -s;
    }
  }
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i; j < n; ++j) T(i, j) *= before[size_t(i)] * after[size_t(j) + 1];
  return t;
}

}  // namespace

void DataKernels::lu_inverse_f32(const float* a, int64_t batch, int64_t n, float* out, const std::string& op,
                                 bool batched) const {
  std::vector<int64_t> piv;
  for (int64_t b = 0; b < batch; ++b) {
    Mat m = widen_transposed(a + b * n * n, n);
    if (const int64_t info = lu_factor(m, piv))
      fail(op, ": ", batch_prefix(batched, b), "The diagonal element ", info,
           " is zero, the inversion could not be completed because the input matrix is singular.");
    std::vector<double> x(size_t(n * n), 0.0);
    for (int64_t i = 0; i < n; ++i) x[size_t(i * n + i)] = 1;
    lu_solve_transposed(m, piv, x, n);
    narrow_into(x, out + b * n * n);
  }
}

void DataKernels::lu_solve_f32(const float* a, const float* rhs, int64_t batch, int64_t n, int64_t k, float* x,
                               const std::string& op, bool batched) const {
  std::vector<int64_t> piv;
  for (int64_t b = 0; b < batch; ++b) {
    Mat m = widen_transposed(a + b * n * n, n);
    if (lu_factor(m, piv) != 0)
      fail(op, ": ", batch_prefix(batched, b), "The solver failed because the input matrix is singular.");
    std::vector<double> v(rhs + b * n * k, rhs + (b + 1) * n * k);
    lu_solve_transposed(m, piv, v, k);
    narrow_into(v, x + b * n * k);
  }
}

void DataKernels::lu_det_f32(const float* a, int64_t batch, int64_t n, float* sign, float* logabsdet,
                             float* det) const {
  std::vector<int64_t> piv;
  for (int64_t b = 0; b < batch; ++b) {
    Mat m = widen(a + b * n * n, n);
    lu_factor(m, piv);
    // det = (−1)^(row swaps) · Π u_kk; the product in double cannot overflow for float32 inputs
    // of any size these kernels see (|u_kk| ≤ 2^k·max|a|), the log is summed separately.
    double d = 1, log_abs = 0;
    for (int64_t k = 0; k < n; ++k) {
      if (piv[size_t(k)] != k) d = -d;
      d *= m.at(k, k);
      log_abs += std::log(std::abs(m.at(k, k)));
    }
    const double s = d > 0 ? 1.0 : d < 0 ? -1.0 : 0.0;
    if (sign) sign[b] = float(s);
    if (logabsdet) logabsdet[b] = s == 0 ? -std::numeric_limits<float>::infinity() : float(log_abs);
    if (det) det[b] = float(d);
  }
}

void DataKernels::cofactor_f32(const float* a, int64_t batch, int64_t n, float* out) const {
  std::vector<int64_t> piv;
  for (int64_t b = 0; b < batch; ++b) {
    Mat m = widen(a + b * n * n, n);
    lu_factor(m, piv);
    // A = Pᵀ·L·U, so adj(A) = adj(U)·adj(L)·adj(Pᵀ) = det(P) · adj(U)·L⁻¹·P.
    std::vector<double> y = triangular_adjugate(m);
    // y ← y·L⁻¹ row by row: solve z·L = y_row (L unit lower) from the last column back.
    for (int64_t r = 0; r < n; ++r)
      for (int64_t j = n - 1; j >= 0; --j)
        for (int64_t i = j + 1; i < n; ++i) y[size_t(r * n + j)] -= y[size_t(r * n + i)] * m.at(i, j);
    // y ← y·P: P = P_{n−1}⋯P_0 (P_k swaps k and piv[k]), so swap columns from the last step back.
    double det_p = 1;
    for (int64_t k = n - 1; k >= 0; --k) {
      const int64_t p = piv[size_t(k)];
      if (p == k) continue;
      det_p = -det_p;
      for (int64_t r = 0; r < n; ++r) std::swap(y[size_t(r * n + k)], y[size_t(r * n + p)]);
    }
    // The cofactor matrix is adj(A)ᵀ.
    float* o = out + b * n * n;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) o[i * n + j] = float(det_p * y[size_t(j * n + i)]);
  }
}

void DataKernels::cholesky_f32(const float* a, int64_t batch, int64_t n, bool upper, float* out,
                               const std::string& op, bool batched) const {
  for (int64_t b = 0; b < batch; ++b) {
    const float* m = a + b * n * n;
    // The lower triangle of A (of Aᵀ when upper: A's upper triangle), element (i, j) with i ≥ j.
    auto A = [&](int64_t i, int64_t j) { return double(upper ? m[j * n + i] : m[i * n + j]); };
    std::vector<double> l(size_t(n * n), 0.0);
    auto L = [&](int64_t i, int64_t j) -> double& { return l[size_t(i * n + j)]; };
    for (int64_t j = 0; j < n; ++j) {
      double d = A(j, j);
      for (int64_t k = 0; k < j; ++k) d -= L(j, k) * L(j, k);
      if (!(d > 0))  // also NaN
        fail(op, ": ", batch_prefix(batched, b),
             "The factorization could not be completed because the input is not positive-definite (the leading "
             "minor of order ", j + 1, " is not positive-definite).");
      L(j, j) = std::sqrt(d);
      for (int64_t i = j + 1; i < n; ++i) {
        double s = A(i, j);
        for (int64_t k = 0; k < j; ++k) s -= L(i, k) * L(j, k);
        L(i, j) = s / L(j, j);
      }
    }
    float* o = out + b * n * n;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) o[i * n + j] = float(upper ? L(j, i) : L(i, j));
  }
}

}  // namespace sg
