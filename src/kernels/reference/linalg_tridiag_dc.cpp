// Divide and conquer for the symmetric tridiagonal eigenproblem (linalg_tridiag_dc.h), after
// LAPACK's dstedc: T splits at its middle coupling β into two tridiagonals (each less |β| on the
// touching diagonal entry), whose eigendecompositions Q1·D1·Q1ᵀ, Q2·D2·Q2ᵀ (recursively, small
// ones by the leaf solver) give T = Q·(D + ρ·z·zᵀ)·Qᵀ with Q = diag(Q1, Q2), D = diag(D1, D2),
// z = (Q1's last row, sign(β)·Q2's first row) / √2 and ρ = 2|β|. The rank-one update's
// eigenproblem (dlaed2/dlaed3/dlaed4):
//   deflation: entries with ρ·|z_i| below tol, and pairs of values closer than tol once a Givens
//   rotation moves their weight onto one, keep their value and Q's column;
//   the rest solve the secular equation 1/ρ + Σ z_i²/(d_i − λ) = 0, one root between consecutive
//   poles (and the last past the largest), each stored as its nearer pole plus an offset τ so
//   that d_i − λ is formed without cancellation;
//   the vectors from z recomputed from the roots (Gu and Eisenstat's ẑ, which keeps them
//   orthogonal however close the roots), v_j = ẑ ⊘ (d − λ_j), and Q·V by two matrix products,
//   one per half of the rows, over the columns that have entries there.
#include "kernels/reference/linalg_tridiag_dc.h"

#include "kernels/reference/linalg_secular.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

namespace sg {

namespace {

using Vec = std::vector<double>;

constexpr double kEps = 0x1p-53;  // LAPACK's dlamch('E'): the unit roundoff

// The eigendecomposition of D + ρ·z·zᵀ after deflation: k values d ascending (distinct), z
// without a negligible entry, ρ > 0. lam gets the eigenvalues, v (k×k column-major) the vectors
// ẑ ⊘ (d − λ_j), normalized.
void rank_one_eigen(const Vec& d, const Vec& z, double rho, Vec& lam, Vec& v) {
  const int64_t k = int64_t(d.size());
  Vec zh;
  secular_solve(d, z, rho, false, lam, v, zh);
  for (int64_t j = 0; j < k; ++j) {
    double* col = v.data() + j * k;
    double ss = 0;
    for (int64_t i = 0; i < k; ++i) {
      col[i] = zh[size_t(i)] / col[i];
      ss += col[i] * col[i];
    }
    const double inv = 1 / std::sqrt(ss);
    for (int64_t i = 0; i < k; ++i) col[i] *= inv;
  }
}

class Solver {
 public:
  Solver(double* d, const double* e, double* z, int64_t ldz, int64_t leaf_size, const ColGemm& gemm,
         const ColGemmOf<float>* gemm32, const TridiagLeaf& leaf)
      : d_(d), e_(e), z_(z), ldz_(ldz), leaf_size_(std::max<int64_t>(leaf_size, 1)), gemm_(gemm), gemm32_(gemm32),
        leaf_(leaf) {}

  // The block [lo, lo + n): d[lo..] and z's diagonal block n×n at (lo, lo) (the rest of z's
  // columns lo.. in those rows is left alone: zero from the caller).
  bool solve(int64_t lo, int64_t n) {
    if (n <= leaf_size_) {
      Vec e(size_t(n), 0.0);
      for (int64_t i = 0; i + 1 < n; ++i) e[size_t(i)] = e_[lo + i];
      return leaf_(d_ + lo, e.data(), n, z_ + lo + lo * ldz_, ldz_);
    }
    const int64_t n1 = n / 2;
    const double beta = e_[lo + n1 - 1];
    d_[lo + n1 - 1] -= std::abs(beta);
    d_[lo + n1] -= std::abs(beta);
    if (!solve(lo, n1) || !solve(lo + n1, n - n1)) return false;
    merge(lo, n1, n, beta);
    return true;
  }

 private:
  void merge(int64_t lo, int64_t n1, int64_t n, double beta) {
    double* zb = z_ + lo + lo * ldz_;
    double* d = d_ + lo;
    const double sign = beta < 0 ? -1.0 : 1.0, rho = 2 * std::abs(beta), r2 = std::sqrt(0.5);
    // The columns in ascending order of their values (each half is sorted: a merge).
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::inplace_merge(order.begin(), order.begin() + n1, order.end(),
                       [d](int64_t a, int64_t b) { return d[a] < d[b]; });
    // q: Q's columns in that order (n×n, packed); part: 0 rows of the top half only, 2 the
    // bottom only, 1 both (after a deflating rotation mixed two halves).
    // (The n×n buffers are the solver's, reused merge to merge: allocated afresh, each cost a
    // page fault per page natively.)
    Vec& q = q_;
    q.resize(size_t(n * n));
    Vec ds(static_cast<size_t>(n)), zs(static_cast<size_t>(n));
    std::vector<int> part(static_cast<size_t>(n));
    for (int64_t c = 0; c < n; ++c) {
      const int64_t j = order[size_t(c)];
      const bool top = j < n1;
      part[size_t(c)] = top ? 0 : 2;
      ds[size_t(c)] = d[j];
      const double* src = zb + j * ldz_;
      double* dst = q.data() + c * n;
      std::fill(dst, dst + n, 0.0);
      if (top) std::copy(src, src + n1, dst);
      else std::copy(src + n1, src + n, dst + n1);
      zs[size_t(c)] = top ? src[n1 - 1] * r2 : sign * src[n1] * r2;
    }
    // Deflation (dlaed2), tol = 8·eps·max(|d|max, |z|max).
    double dmax = 0, zmax = 0;
    for (int64_t c = 0; c < n; ++c) dmax = std::max(dmax, std::abs(ds[size_t(c)])), zmax = std::max(zmax, std::abs(zs[size_t(c)]));
    const double tol = 8 * kEps * std::max(dmax, zmax);
    std::vector<int64_t> kept, deflated;
    int64_t pj = -1;
    for (int64_t c = 0; c < n; ++c) {
      if (rho * std::abs(zs[size_t(c)]) <= tol) {
        deflated.push_back(c);
        continue;
      }
      if (pj >= 0) {
        // Rotate (pj, c) so that z's weight moves onto c; deflate pj if the rotation's
        // off-diagonal term (d_c − d_pj)·cs·sn is negligible.
        const double tau = std::hypot(zs[size_t(pj)], zs[size_t(c)]);
        const double cs = zs[size_t(c)] / tau, sn = -zs[size_t(pj)] / tau;
        if (std::abs((ds[size_t(c)] - ds[size_t(pj)]) * cs * sn) <= tol) {
          zs[size_t(c)] = tau;
          zs[size_t(pj)] = 0;
          double *x = q.data() + pj * n, *y = q.data() + c * n;
          for (int64_t i = 0; i < n; ++i) {
            const double t = cs * x[i] + sn * y[i];
            y[i] = cs * y[i] - sn * x[i];
            x[i] = t;
          }
          if (part[size_t(pj)] != part[size_t(c)]) part[size_t(pj)] = part[size_t(c)] = 1;
          const double dp = ds[size_t(pj)], dc = ds[size_t(c)];
          ds[size_t(pj)] = dp * cs * cs + dc * sn * sn;
          ds[size_t(c)] = dp * sn * sn + dc * cs * cs;
          deflated.push_back(pj);
        } else {
          kept.push_back(pj);
        }
      }
      pj = c;
    }
    if (pj >= 0) kept.push_back(pj);
    const int64_t k = int64_t(kept.size());
    // out: the merged vectors, the secular equation's k first, then the deflated ones.
    Vec& out = out_;
    out.resize(size_t(n * n));
    Vec vals(static_cast<size_t>(n));
    if (k > 0) {
      Vec dk(static_cast<size_t>(k)), zk(static_cast<size_t>(k)), lam;
      Vec& v = v_;
      for (int64_t i = 0; i < k; ++i) dk[size_t(i)] = ds[size_t(kept[size_t(i)])], zk[size_t(i)] = zs[size_t(kept[size_t(i)])];
      rank_one_eigen(dk, zk, rho, lam, v);
      std::copy(lam.begin(), lam.end(), vals.begin());
      // Q·V by halves of the rows: each over the kept columns with entries in it.
      for (int half = 0; half < 2; ++half) {
        const int64_t r0 = half == 0 ? 0 : n1, rows = half == 0 ? n1 : n - n1;
        std::vector<int64_t> cols;
        for (int64_t i = 0; i < k; ++i)
          if (part[size_t(kept[size_t(i)])] != (half == 0 ? 2 : 0)) cols.push_back(i);
        const int64_t kc = int64_t(cols.size());
        if (kc == 0) {  // no kept vector has entries in these rows
          for (int64_t j = 0; j < k; ++j) std::fill(out.data() + j * n + r0, out.data() + j * n + r0 + rows, 0.0);
          continue;
        }
        if (gemm32_) {
          product<float>(*gemm32_, q, v, kept, cols, n, k, r0, rows, qaf_, vbf_, outf_);
          for (int64_t j = 0; j < k; ++j)
            std::copy(outf_.data() + j * rows, outf_.data() + (j + 1) * rows, out.data() + j * n + r0);
        } else {
          product<double>(gemm_, q, v, kept, cols, n, k, r0, rows, qa_, vb_, out.data() + r0, n);
        }
      }
    }
    for (size_t i = 0; i < deflated.size(); ++i) {
      const int64_t c = deflated[i];
      vals[size_t(k) + i] = ds[size_t(c)];
      std::copy(q.data() + c * n, q.data() + (c + 1) * n, out.data() + (k + int64_t(i)) * n);
    }
    // Ascending order into d and z's block.
    std::vector<int64_t> rank(static_cast<size_t>(n));
    std::iota(rank.begin(), rank.end(), 0);
    std::stable_sort(rank.begin(), rank.end(), [&vals](int64_t a, int64_t b) { return vals[size_t(a)] < vals[size_t(b)]; });
    for (int64_t c = 0; c < n; ++c) {
      d[c] = vals[size_t(rank[size_t(c)])];
      std::copy(out.data() + rank[size_t(c)] * n, out.data() + (rank[size_t(c)] + 1) * n, zb + c * ldz_);
    }
  }

  // Rows r0..r0+rows of Q·V: Q's kept columns `cols` (those with entries in these rows) times V's
  // matching rows, through gemm in S, into c (leading dimension ldc; rows when c is the buffer).
  template <class S>
  static void product(const ColGemmOf<S>& gemm, const Vec& q, const Vec& v, const std::vector<int64_t>& kept,
                      const std::vector<int64_t>& cols, int64_t n, int64_t k, int64_t r0, int64_t rows,
                      std::vector<S>& qa, std::vector<S>& vb, std::vector<S>& c) {
    c.resize(size_t(rows * k));
    product<S>(gemm, q, v, kept, cols, n, k, r0, rows, qa, vb, c.data(), rows);
  }
  template <class S>
  static void product(const ColGemmOf<S>& gemm, const Vec& q, const Vec& v, const std::vector<int64_t>& kept,
                      const std::vector<int64_t>& cols, int64_t n, int64_t k, int64_t r0, int64_t rows,
                      std::vector<S>& qa, std::vector<S>& vb, S* c, int64_t ldc) {
    const int64_t kc = int64_t(cols.size());
    qa.resize(size_t(rows * kc));
    vb.resize(size_t(kc * k));
    for (int64_t i = 0; i < kc; ++i) {
      const double* src = q.data() + kept[size_t(cols[size_t(i)])] * n + r0;
      std::copy(src, src + rows, qa.data() + i * rows);
      for (int64_t j = 0; j < k; ++j) vb[size_t(j * kc + i)] = S(v[size_t(j * k + cols[size_t(i)])]);
    }
    gemm(false, false, rows, k, kc, S(1), qa.data(), rows, vb.data(), kc, S(0), c, ldc);
  }

  double* d_;
  const double* e_;
  double* z_;
  int64_t ldz_, leaf_size_;
  const ColGemm& gemm_;
  const ColGemmOf<float>* gemm32_;
  const TridiagLeaf& leaf_;
  Vec q_, out_, v_, qa_, vb_;             // merge's work arrays
  std::vector<float> qaf_, vbf_, outf_;  // and their float32 twins (gemm32_)
};

}  // namespace

bool tridiagonal_eigen_dc(double* d, const double* e, int64_t n, double* z, int64_t ldz, int64_t leaf_size,
                          const ColGemm& gemm, const TridiagLeaf& leaf, const ColGemmOf<float>* gemm32) {
  if (n <= 0) return true;
  for (int64_t j = 0; j < n; ++j) std::fill(z + j * ldz, z + j * ldz + n, 0.0);
  return Solver(d, e, z, ldz, leaf_size, gemm, gemm32, leaf).solve(0, n);
}

}  // namespace sg
