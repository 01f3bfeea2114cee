// Divide and conquer for the bidiagonal SVD (linalg_bidiag_dc.h), after LAPACK's dbdsdc. An r×c
// upper bidiagonal B (c = r or r + 1) splits at its middle row k: above it B1 (rows 0..k−1,
// columns 0..k: one column more than rows), below it B2 (rows k+1.., columns k+1..), and row k
// itself holds α = d_k at column k and β = e_k at column k + 1. With B1 = U1·[Σ1 0]·V1ᵀ and
// B2 = U2·Σ2·V2ᵀ (recursively; small ones by the leaf solver), diag(U1, 1, U2)ᵀ·B·diag(V1, V2)
// is Σ1 and Σ2 on a diagonal plus row k: z = (α·V1's last row, β·V2's first row). V1's last
// column (B1's null vector) has no diagonal entry: with row k first it is the arrowhead
// M = e_0·zᵀ + diag(0, Σ1, Σ2), whose MᵀM = D² + z·zᵀ is a rank-one update of a diagonal
// (dlasd1–dlasd3):
//   deflation: entries with |z_i| below tol, and pairs of values closer than tol once a Givens
//   rotation of both sides moves their weight onto one, keep their value and vectors; the zero
//   pole's z is raised to tol and the smallest other pole to tol/2 when smaller (dlasd2);
//   the rest solve the secular equation 1 + Σ z_i²/(d_i² − σ²) = 0 (linalg_secular.h, poles
//   d_i², their differences formed as (d_i − d_j)·(d_i + d_j));
//   the vectors from Gu and Eisenstat's ẑ: v_j = ẑ ⊘ (d² − σ_j²), u_j = (−1, d_i·ẑ_i/(d_i² − σ_j²))
//   (u_j = M·v_j/σ_j), normalized; the merged vectors are two matrix products for U and two for V,
//   one per half of the rows, over the columns with entries there.
// A wide B2 (c = r + 1) brings its own null vector; a rotation folds its z entry into the zero
// pole's, and what remains is the merged B's null vector, V's last column.
#include "kernels/reference/linalg_bidiag_dc.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "kernels/reference/linalg_secular.h"

namespace sg {

namespace {

using Vec = std::vector<double>;

constexpr double kEps = 0x1p-53;  // LAPACK's dlamch('E'): the unit roundoff

// (x, y) ← (cs·x + sn·y, cs·y − sn·x) on two columns of n entries.
void rotate_pair(double* x, double* y, int64_t n, double cs, double sn) {
  for (int64_t i = 0; i < n; ++i) {
    const double t = cs * x[i] + sn * y[i];
    y[i] = cs * y[i] - sn * x[i];
    x[i] = t;
  }
}

// Rows r0..r0+rows of Q·W: W (kk×kk, column-major) has row i for Q's column qcol[i]; only the
// rows `sel` (the columns of Q with entries in these rows) take part. Through gemm in S; the
// result goes to out (leading dimension ldo) in double.
template <class S>
void half_product(const ColGemmOf<S>& gemm, const double* q, int64_t ldq, const std::vector<int64_t>& qcol,
                  const std::vector<int64_t>& sel, const Vec& w, int64_t kk, int64_t r0, int64_t rows, double* out,
                  int64_t ldo, std::vector<S>& qa, std::vector<S>& wb, std::vector<S>& c) {
  const int64_t kc = int64_t(sel.size());
  if (rows <= 0) return;
  if (kc == 0) {  // no kept vector has entries in these rows
    for (int64_t j = 0; j < kk; ++j) std::fill(out + j * ldo + r0, out + j * ldo + r0 + rows, 0.0);
    return;
  }
  qa.resize(size_t(rows * kc));
  wb.resize(size_t(kc * kk));
  c.resize(size_t(rows * kk));
  for (int64_t i = 0; i < kc; ++i) {
    const double* src = q + qcol[size_t(sel[size_t(i)])] * ldq + r0;
    std::copy(src, src + rows, qa.data() + i * rows);
    for (int64_t j = 0; j < kk; ++j) wb[size_t(j * kc + i)] = S(w[size_t(j * kk + sel[size_t(i)])]);
  }
  gemm(false, false, rows, kk, kc, S(1), qa.data(), rows, wb.data(), kc, S(0), c.data(), rows);
  for (int64_t j = 0; j < kk; ++j) std::copy(c.data() + j * rows, c.data() + (j + 1) * rows, out + j * ldo + r0);
}

class Solver {
 public:
  Solver(double* d, const double* e, double* u, int64_t ldu, double* v, int64_t ldv, int64_t leaf_size,
         const ColGemm& gemm, const ColGemmOf<float>* gemm32, const BidiagLeaf& leaf)
      : d_(d), e_(e), u_(u), v_(v), ldu_(ldu), ldv_(ldv), leaf_size_(std::max<int64_t>(leaf_size, 2)), gemm_(gemm),
        gemm32_(gemm32), leaf_(leaf) {}
  // The work arrays at their largest (the last merge's) from the start: grown merge by merge,
  // each growth was a fresh allocation, whose pages natively cost a fault each.
  void reserve(int64_t n) {
    for (Vec* w : {&qu_, &qv_, &outu_, &outv_, &wu_, &wv_}) w->reserve(size_t(n * n));
  }

  // The r×c block at (lo, lo): d[lo..lo+r), e[lo..lo+c−1), U's r×r and V's c×c diagonal blocks
  // at (lo, lo) (the rest of their rows and columns zero from the caller).
  bool solve(int64_t lo, int64_t r, int64_t c) {
    if (r <= leaf_size_) return leaf_(d_ + lo, e_ + lo, r, c, u_ + lo + lo * ldu_, ldu_, v_ + lo + lo * ldv_, ldv_);
    const int64_t k = r / 2;  // r ≥ 3: both halves have rows
    if (!solve(lo, k, k + 1) || !solve(lo + k + 1, r - k - 1, c - k - 1)) return false;
    merge(lo, r, c, k);
    return true;
  }

 private:
  template <class S>
  void products(const ColGemmOf<S>& gemm, const Vec& q, int64_t rows, int64_t split, const std::vector<int64_t>& kept,
                const std::vector<int>& part, const Vec& w, Vec& out, std::vector<S>& qa, std::vector<S>& wb,
                std::vector<S>& c) {
    const int64_t kk = int64_t(kept.size());
    for (int half = 0; half < 2; ++half) {
      std::vector<int64_t> sel;
      for (int64_t i = 0; i < kk; ++i)
        if (part[size_t(kept[size_t(i)])] != (half == 0 ? 2 : 0)) sel.push_back(i);
      const int64_t r0 = half == 0 ? 0 : split, nr = half == 0 ? split : rows - split;
      half_product<S>(gemm, q.data(), rows, kept, sel, w, kk, r0, nr, out.data(), rows, qa, wb, c);
    }
  }

  void merge(int64_t lo, int64_t r, int64_t c, int64_t k) {
    double* ub = u_ + lo + lo * ldu_;
    double* vb = v_ + lo + lo * ldv_;
    double* d = d_ + lo;
    const double alpha = d[k], beta = e_[lo + k];
    const bool wide = c > r;
    // M's columns: the zero pole (V1's null column k; its U column the unit vector of row k),
    // then Σ1's and Σ2's in ascending order of their values (each half is sorted: a merge).
    std::vector<int64_t> order(static_cast<size_t>(r));
    order[0] = k;
    std::iota(order.begin() + 1, order.begin() + 1 + k, 0);
    std::iota(order.begin() + 1 + k, order.end(), k + 1);
    std::inplace_merge(order.begin() + 1, order.begin() + 1 + k, order.end(),
                       [d](int64_t a, int64_t b) { return d[a] < d[b]; });
    ub[k + k * ldu_] = 1;
    Vec& qu = qu_;
    Vec& qv = qv_;
    qu.resize(size_t(r * r));
    qv.resize(size_t(c * c));
    Vec ds(static_cast<size_t>(r)), z(static_cast<size_t>(r));
    // part: 0 rows of the top half only (rows ..k), 2 the bottom only, 1 both (after a rotation
    // mixed two halves); the same for U and V.
    std::vector<int> part(static_cast<size_t>(r)), partv(static_cast<size_t>(r));
    for (int64_t t = 0; t < r; ++t) {
      const int64_t j = order[size_t(t)];
      std::copy(ub + j * ldu_, ub + j * ldu_ + r, qu.data() + t * r);
      std::copy(vb + j * ldv_, vb + j * ldv_ + c, qv.data() + t * c);
      part[size_t(t)] = partv[size_t(t)] = j <= k ? 0 : 2;
      ds[size_t(t)] = t == 0 ? 0.0 : d[j];
      z[size_t(t)] = j <= k ? alpha * vb[k + j * ldv_] : beta * vb[k + 1 + j * ldv_];
    }
    if (wide) {  // B2's null vector: its z entry folded into the zero pole's
      double* qn = qv.data() + r * c;
      std::copy(vb + (c - 1) * ldv_, vb + (c - 1) * ldv_ + c, qn);
      const double zn = beta * vb[k + 1 + (c - 1) * ldv_];
      if (zn != 0) {
        const double h = std::hypot(z[0], zn);
        rotate_pair(qv.data(), qn, c, z[0] / h, zn / h);
        z[0] = h;
        partv[0] = 1;
      }
    }
    // Deflation (dlasd2), tol = 8·eps·max(|d|max, |α|, |β|).
    double dmax = std::max(std::abs(alpha), std::abs(beta));
    for (double x : ds) dmax = std::max(dmax, x);
    const double tol = 8 * kEps * dmax;
    std::vector<int64_t> kept{0}, deflated;
    int64_t pj = -1;
    for (int64_t t = 1; t < r; ++t) {
      if (std::abs(z[size_t(t)]) <= tol) {
        deflated.push_back(t);
        continue;
      }
      if (pj >= 0) {
        if (ds[size_t(t)] - ds[size_t(pj)] <= tol) {
          // Equal values: rotate both sides' columns (pj, t) so that z's weight moves onto t.
          const double h = std::hypot(z[size_t(pj)], z[size_t(t)]);
          const double cs = z[size_t(t)] / h, sn = -z[size_t(pj)] / h;
          z[size_t(t)] = h;
          z[size_t(pj)] = 0;
          rotate_pair(qu.data() + pj * r, qu.data() + t * r, r, cs, sn);
          rotate_pair(qv.data() + pj * c, qv.data() + t * c, c, cs, sn);
          if (part[size_t(pj)] != part[size_t(t)]) part[size_t(pj)] = part[size_t(t)] = 1;
          if (partv[size_t(pj)] != partv[size_t(t)]) partv[size_t(pj)] = partv[size_t(t)] = 1;
          deflated.push_back(pj);
        } else {
          kept.push_back(pj);
        }
      }
      pj = t;
    }
    if (pj >= 0) kept.push_back(pj);
    if (std::abs(z[0]) <= tol) z[0] = tol;
    if (z[0] == 0) {  // α = β = 0 and B all zero: nothing couples, the zero pole is a value too
      kept.clear();
      deflated.push_back(0);
    }
    if (kept.size() > 1 && ds[size_t(kept[1])] <= tol / 2) ds[size_t(kept[1])] = tol / 2;
    const int64_t kk = int64_t(kept.size());
    // outu (r×r), outv (c×c): the secular equation's vectors first, then the deflated ones.
    Vec& outu = outu_;
    Vec& outv = outv_;
    outu.resize(size_t(r * r));
    outv.resize(size_t(c * c));
    Vec vals(static_cast<size_t>(r));
    if (kk > 0) {
      Vec dk(static_cast<size_t>(kk)), zk(static_cast<size_t>(kk)), lam, delta, zh;
      for (int64_t i = 0; i < kk; ++i) dk[size_t(i)] = ds[size_t(kept[size_t(i)])], zk[size_t(i)] = z[size_t(kept[size_t(i)])];
      secular_solve(dk, zk, 1.0, true, lam, delta, zh);
      Vec& wu = wu_;
      Vec& wv = wv_;
      wu.resize(size_t(kk * kk));
      wv.resize(size_t(kk * kk));
      for (int64_t j = 0; j < kk; ++j) {
        vals[size_t(j)] = std::sqrt(std::max(lam[size_t(j)], 0.0));
        double *cu = wu.data() + j * kk, *cv = wv.data() + j * kk;
        double su = 1, sv = 0;
        cu[0] = -1;
        for (int64_t i = 0; i < kk; ++i) {
          cv[i] = zh[size_t(i)] / delta[size_t(j * kk + i)];
          sv += cv[i] * cv[i];
          if (i > 0) {
            cu[i] = dk[size_t(i)] * cv[i];
            su += cu[i] * cu[i];
          }
        }
        const double iu = 1 / std::sqrt(su), iv = 1 / std::sqrt(sv);
        for (int64_t i = 0; i < kk; ++i) cu[i] *= iu, cv[i] *= iv;
      }
      if (gemm32_) {
        products<float>(*gemm32_, qu, r, k + 1, kept, part, wu, outu, qaf_, wbf_, cf_);
        products<float>(*gemm32_, qv, c, k + 1, kept, partv, wv, outv, qaf_, wbf_, cf_);
      } else {
        products<double>(gemm_, qu, r, k + 1, kept, part, wu, outu, qa_, wb_, c_);
        products<double>(gemm_, qv, c, k + 1, kept, partv, wv, outv, qa_, wb_, c_);
      }
    }
    for (size_t i = 0; i < deflated.size(); ++i) {
      const int64_t t = deflated[i], at = kk + int64_t(i);
      vals[size_t(at)] = ds[size_t(t)];
      std::copy(qu.data() + t * r, qu.data() + (t + 1) * r, outu.data() + at * r);
      std::copy(qv.data() + t * c, qv.data() + (t + 1) * c, outv.data() + at * c);
    }
    if (wide) std::copy(qv.data() + r * c, qv.data() + (r + 1) * c, outv.data() + r * c);
    // Ascending order into d and the blocks (a wide block's null vector stays last).
    std::vector<int64_t> rank(static_cast<size_t>(r));
    std::iota(rank.begin(), rank.end(), 0);
    std::stable_sort(rank.begin(), rank.end(), [&vals](int64_t a, int64_t b) { return vals[size_t(a)] < vals[size_t(b)]; });
    for (int64_t t = 0; t < r; ++t) {
      const int64_t s = rank[size_t(t)];
      d[t] = vals[size_t(s)];
      std::copy(outu.data() + s * r, outu.data() + (s + 1) * r, ub + t * ldu_);
      std::copy(outv.data() + s * c, outv.data() + (s + 1) * c, vb + t * ldv_);
    }
    if (wide) std::copy(outv.data() + r * c, outv.data() + (r + 1) * c, vb + r * ldv_);
  }

  double* d_;
  const double* e_;
  double *u_, *v_;
  int64_t ldu_, ldv_, leaf_size_;
  const ColGemm& gemm_;
  const ColGemmOf<float>* gemm32_;
  const BidiagLeaf& leaf_;
  Vec qu_, qv_, outu_, outv_, wu_, wv_;  // merge's work arrays, reused merge to merge
  std::vector<double> qa_, wb_, c_;
  std::vector<float> qaf_, wbf_, cf_;
};

}  // namespace

bool bidiagonal_svd_dc(double* d, const double* e, int64_t n, double* u, int64_t ldu, double* v, int64_t ldv,
                       int64_t leaf_size, const ColGemm& gemm, const BidiagLeaf& leaf, const ColGemmOf<float>* gemm32) {
  if (n <= 0) return true;
  for (int64_t j = 0; j < n; ++j) {
    std::fill(u + j * ldu, u + j * ldu + n, 0.0);
    std::fill(v + j * ldv, v + j * ldv + n, 0.0);
  }
  Solver solver(d, e, u, ldu, v, ldv, leaf_size, gemm, gemm32, leaf);
  solver.reserve(n);
  return solver.solve(0, n, n);
}

}  // namespace sg
