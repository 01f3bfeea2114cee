// DataKernels' matrix decompositions (data_kernels.h): SVD, symmetric eigendecomposition,
// Householder QR, triangular solves, LU factors and the matrix exponential, for float32 and
// float64 matrices. Every matrix is widened to double once, decomposed in double and each result
// rounded once to the input's dtype, except a float32 eigh past 32 rows and a float32 svd with
// vectors past 32 columns: their reductions (to tridiagonal, bidiagonal form) and their vectors'
// matrix products (divide and conquer's merges, the reflectors' application) run in float32, as
// in LAPACK's ssyevd and sgesdd (see symmetric_eigen, svd_dc). The algorithms are the classical
// dense ones:
//   SVD: Householder bidiagonalization and implicit-shift QR on the bidiagonal (Golub–Kahan, in
//        the form of LINPACK's dsvdc / JAMA), on A or Aᵀ, whichever is tall; with vectors past
//        32 columns, the bidiagonal's vectors by divide and conquer instead (dgesdd / dbdsdc,
//        linalg_bidiag.cpp, linalg_bidiag_dc.cpp), turned into A's by blocks of reflectors;
//   eigh: blocked Householder tridiagonalization (LAPACK's dsytrd, linalg_tridiag_reduce.cpp),
//         then implicit QL (EISPACK's tql2) for the eigenvalues alone or up to 32 rows, divide
//         and conquer past that (dstedc, linalg_tridiag_dc.cpp), Q applied by blocks (dormtr);
//   QR: Householder reflections with LAPACK geqrf's sign convention (R's diagonal is −sign(a)·‖x‖),
//       so Q and R equal LAPACK's (PyTorch's) up to rounding, not only up to signs;
//   LU: partial pivoting on the first largest |entry| (LAPACK getrf), pivots 1-based.
// Work arrays are column-major: these algorithms sweep columns (Householder vectors, Givens
// rotations of U and V), which are then contiguous. What makes them fast enough (issue 24's
// bench, tests/bench/linalg.mjs): dot products in f64x2 lanes, the sweeps' rotations batched
// and applied to strips of rows in cache (RotationLog), and for eigh and svd the matrix products
// of the blocked reduction, the divide-and-conquer merges and the reflectors' application (the
// backend's float64 GEMM, or its float32 one for float32 input, through column_major_gemm).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.h"
#include "kernels/backend.h"
#include "kernels/data_kernels.h"
#include "kernels/reference/linalg_bidiag.h"
#include "kernels/reference/linalg_bidiag_dc.h"
#include "kernels/reference/linalg_reflectors.h"
#include "kernels/reference/linalg_tridiag_dc.h"
#include "kernels/reference/linalg_tridiag_reduce.h"
#include "kernels/reference/linalg_vec.h"

namespace sg {

namespace {

using Vec = std::vector<double>;

// A column-major rows×cols matrix in double.
struct ColMat {
  int64_t rows = 0, cols = 0;
  Vec v;
  ColMat() = default;
  ColMat(int64_t r, int64_t c) : rows(r), cols(c), v(size_t(r * c), 0.0) {}
  double& operator()(int64_t i, int64_t j) { return v[size_t(j * rows + i)]; }
  double operator()(int64_t i, int64_t j) const { return v[size_t(j * rows + i)]; }
  double* col(int64_t j) { return v.data() + j * rows; }
};

template <class T>
ColMat load(const T* a, int64_t rows, int64_t cols, bool transposed) {
  // a is row-major rows×cols (transposed: read Aᵀ, a cols×rows row-major buffer).
  ColMat m(rows, cols);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) m(i, j) = double(transposed ? a[j * rows + i] : a[i * cols + j]);
  return m;
}

// Writes m (or mᵀ) row-major into out, columns [0, cols) of m only.
template <class T>
void store(const ColMat& m, int64_t cols, bool transposed, T* out) {
  if (!transposed) {
    for (int64_t i = 0; i < m.rows; ++i)
      for (int64_t j = 0; j < cols; ++j) out[i * cols + j] = T(m(i, j));
  } else {
    for (int64_t j = 0; j < cols; ++j)
      for (int64_t i = 0; i < m.rows; ++i) out[j * m.rows + i] = T(m(i, j));
  }
}

using namespace linalg_vec;

// √(a² + b²) for the rotations of the sweeps: std::hypot's care for overflow costs about ten
// times the square root, and only a sum of squares out of range needs it.
inline double pythag(double a, double b) {
  const double ss = a * a + b * b;
  if (ss > 1e-290 && ss < 1e290) return std::sqrt(ss);
  return std::hypot(a, b);
}

// One rotation of columns j and k (the deflation steps): (x_j, x_k) ← (c·x_j + s·x_k, −s·x_j + c·x_k).
void rotate(double* r, int64_t rows, int64_t j, int64_t k, double c, double s) {
  double *x = r + j * rows, *y = r + k * rows;
  for (int64_t i = 0; i < rows; ++i) {
    const double t = c * x[i] + s * y[i];
    y[i] = -s * x[i] + c * y[i];
    x[i] = t;
  }
}

// The Givens rotations of the QR/QL sweeps, recorded sweep by sweep and applied later to the
// column-major rows×cols matrix `mat` (U or V): rotation j of a sweep acts on columns (j, j+1) as
// (x_j, x_{j+1}) ← (c_j·x_j + s_j·x_{j+1}, −s_j·x_j + c_j·x_{j+1}). The rotations do not depend on
// the matrix, and each row of it is rotated on its own, so flush() applies many sweeps to a strip
// of 8 rows at a time: the strip (8 rows × cols, 32 KiB at 512 columns), copied out contiguous,
// stays in L1 across the sweeps, where rotating whole columns sweep by sweep streams the matrix
// through memory once per sweep. Inside a sweep the column shared by consecutive rotations stays
// in registers. (wasm, 512×512, 2·512 sweeps: 0.4 ns a rotation and row, against 1.0-1.2 ns
// rotating whole columns sweep by sweep. Strips of 4, 12 or 16 rows, and pairs of sweeps as a
// wavefront, one load and store per two rotations, measured no faster.)
// A log's sweeps all run one way. Descending ones (tql2's) are kept as ascending sweeps over the
// columns in reverse order: rotation j then acts on reversed columns (J−j−1, J−j) with (c, −s).
class RotationLog {
 public:
  RotationLog(double* mat, int64_t rows, int64_t cols, bool descending)
      : mat_(mat), rows_(rows), last_(cols - 1), descending_(descending) {}
  // Rotations j0 ≤ j < j1 of a sweep (j0 first when ascending, j1 − 1 first when descending).
  void add(int64_t j0, int64_t j1, const Vec& c, const Vec& s) {
    if (!mat_ || j1 <= j0) return;
    if (rows_ < 2 * kRows) {  // small: at once, column by column (nothing to gain from strips)
      if (!descending_)
        for (int64_t j = j0; j < j1; ++j) rotate(mat_, rows_, j, j + 1, c[size_t(j)], s[size_t(j)]);
      else
        for (int64_t j = j1 - 1; j >= j0; --j) rotate(mat_, rows_, j, j + 1, c[size_t(j)], s[size_t(j)]);
      return;
    }
    if (!descending_) {
      sweeps_.push_back({j0, j1, cs_.size()});
      for (int64_t j = j0; j < j1; ++j) cs_.push_back(c[size_t(j)]), cs_.push_back(s[size_t(j)]);
    } else {
      sweeps_.push_back({last_ - j1, last_ - j0, cs_.size()});
      for (int64_t j = j1 - 1; j >= j0; --j) cs_.push_back(c[size_t(j)]), cs_.push_back(-s[size_t(j)]);
    }
    if (cs_.size() > kCapacity) flush();
  }
  void flush() {
    if (sweeps_.empty()) return;
    // Columns (in the log's order) lo..hi are touched; in place a strip's pieces of them lie a
    // column apart (4 KiB at 512 rows), all in the same few cache sets, hence the copy.
    int64_t lo = sweeps_[0].j0, hi = sweeps_[0].j1;
    for (const Sweep& w : sweeps_) lo = std::min(lo, w.j0), hi = std::max(hi, w.j1);
    buf_.resize(size_t(kRows * (hi + 1)));
    auto col = [&](int64_t j) { return mat_ + (descending_ ? last_ - j : j) * rows_; };
    int64_t r0 = 0;
    for (; r0 + kRows <= rows_; r0 += kRows) {
      for (int64_t j = lo; j <= hi; ++j) std::memcpy(&buf_[size_t(kRows * j)], col(j) + r0, kRows * sizeof(double));
      strip(buf_.data());
      for (int64_t j = lo; j <= hi; ++j) std::memcpy(col(j) + r0, &buf_[size_t(kRows * j)], kRows * sizeof(double));
    }
    for (; r0 < rows_; ++r0) {  // the rows past the last full strip, one at a time
      for (int64_t j = lo; j <= hi; ++j) buf_[size_t(j)] = col(j)[r0];
      for (const Sweep& w : sweeps_) {
        const double* cs = cs_.data() + w.at;
        double* p = buf_.data();
        double x = p[w.j0];
        for (int64_t j = w.j0; j < w.j1; ++j, cs += 2) {
          const double y = p[j + 1];
          p[j] = cs[0] * x + cs[1] * y;
          x = cs[0] * y - cs[1] * x;
        }
        p[w.j1] = x;
      }
      for (int64_t j = lo; j <= hi; ++j) col(j)[r0] = buf_[size_t(j)];
    }
    sweeps_.clear();
    cs_.clear();
  }

 private:
  struct Sweep {
    int64_t j0, j1;  // rotations j0 ≤ j < j1, in the log's column order
    size_t at;       // index of its first c in cs_ (c, s interleaved)
  };
  static constexpr size_t kCapacity = 1 << 15;  // 16384 rotations, 256 KiB
  static constexpr int kRows = 8;

  // The sweeps on kRows packed rows (column j's are p[kRows·j ..]), as kRows / 2 lane pairs.
  void strip(double* p) const {
    constexpr int V = kRows / 2;
    for (const Sweep& a : sweeps_) {
      const double* cs = cs_.data() + a.at;
      double* q = p + a.j0 * kRows;
      D2 x[V];
      for (int v = 0; v < V; ++v) x[v] = ld2(q + 2 * v);
      for (int64_t j = a.j0; j < a.j1; ++j, cs += 2, q += kRows) {
        const D2 c = {cs[0], cs[0]}, s = {cs[1], cs[1]};
        for (int v = 0; v < V; ++v) {
          const D2 y = ld2(q + kRows + 2 * v);
          st2(q + 2 * v, c * x[v] + s * y);
          x[v] = c * y - s * x[v];
        }
      }
      for (int v = 0; v < V; ++v) st2(q + 2 * v, x[v]);
    }
  }

  double* mat_;
  int64_t rows_, last_;
  bool descending_;
  std::vector<Sweep> sweeps_;
  Vec cs_, buf_;
};

// ---- SVD of a tall matrix (rows ≥ cols), LINPACK dsvdc's algorithm (as JAMA writes it) ----
// a (m×n, m ≥ n) is overwritten. s gets the n singular values in descending order; with vectors,
// u (m×n) and v (n×n) the singular vectors as columns. Returns false if the QR sweeps do not
// converge (NaN or inf input).
bool svd_tall(ColMat& a, Vec& s, ColMat* u, ColMat* v) {
  const int64_t m = a.rows, n = a.cols, nu = n;
  s.assign(size_t(std::min(m + 1, n)), 0.0);
  Vec e(size_t(n), 0.0), work(size_t(m), 0.0);
  const bool wantu = u != nullptr, wantv = v != nullptr;
  if (wantu) *u = ColMat(m, nu);
  if (wantv) *v = ColMat(n, n);
  const int64_t nct = std::min(m - 1, n), nrt = std::max<int64_t>(0, std::min(n - 2, m));
  for (int64_t k = 0; k < std::max(nct, nrt); ++k) {
    if (k < nct) {
      // The k-th column's Householder reflection; s[k] holds the diagonal element.
      const double nrm = norm2(a.col(k) + k, m - k);
      s[size_t(k)] = nrm;
      if (nrm != 0) {
        if (a(k, k) < 0) s[size_t(k)] = -nrm;
        const double inv = 1.0 / s[size_t(k)];
        for (int64_t i = k; i < m; ++i) a(i, k) *= inv;
        a(k, k) += 1;
      }
      s[size_t(k)] = -s[size_t(k)];
    }
    for (int64_t j = k + 1; j < n; ++j) {
      if (k < nct && s[size_t(k)] != 0) {
        const double t = -dot(a.col(k) + k, a.col(j) + k, m - k) / a(k, k);
        axpy(t, a.col(k) + k, a.col(j) + k, m - k);
      }
      e[size_t(j)] = a(k, j);  // the row to be reflected next
    }
    if (wantu && k < nct)
      for (int64_t i = k; i < m; ++i) (*u)(i, k) = a(i, k);
    if (k < nrt) {
      // The k-th row's reflection; e[k] holds the super-diagonal element.
      const double nrm = norm2(e.data() + k + 1, n - k - 1);
      e[size_t(k)] = nrm;
      if (nrm != 0) {
        if (e[size_t(k) + 1] < 0) e[size_t(k)] = -nrm;
        const double inv = 1.0 / e[size_t(k)];
        for (int64_t i = k + 1; i < n; ++i) e[size_t(i)] *= inv;
        e[size_t(k) + 1] += 1;
      }
      e[size_t(k)] = -e[size_t(k)];
      if (k + 1 < m && e[size_t(k)] != 0) {
        for (int64_t i = k + 1; i < m; ++i) work[size_t(i)] = 0;
        for (int64_t j = k + 1; j < n; ++j) axpy(e[size_t(j)], a.col(j) + k + 1, work.data() + k + 1, m - k - 1);
        for (int64_t j = k + 1; j < n; ++j)
          axpy(-e[size_t(j)] / e[size_t(k) + 1], work.data() + k + 1, a.col(j) + k + 1, m - k - 1);
      }
      if (wantv)
        for (int64_t i = k + 1; i < n; ++i) (*v)(i, k) = e[size_t(i)];
    }
  }
  // The bidiagonal matrix of order p.
  int64_t p = std::min(n, m + 1);
  if (nct < n) s[size_t(nct)] = a(nct, nct);
  if (m < p) s[size_t(p) - 1] = 0;
  if (nrt + 1 < p) e[size_t(nrt)] = a(nrt, p - 1);
  e[size_t(p) - 1] = 0;
  if (wantu) {
    ColMat& U = *u;
    for (int64_t j = nct; j < nu; ++j) {
      for (int64_t i = 0; i < m; ++i) U(i, j) = 0;
      U(j, j) = 1;
    }
    for (int64_t k = nct - 1; k >= 0; --k) {
      if (s[size_t(k)] != 0) {
        for (int64_t j = k + 1; j < nu; ++j) {
          const double t = -dot(U.col(k) + k, U.col(j) + k, m - k) / U(k, k);
          axpy(t, U.col(k) + k, U.col(j) + k, m - k);
        }
        for (int64_t i = k; i < m; ++i) U(i, k) = -U(i, k);
        U(k, k) = 1 + U(k, k);
        for (int64_t i = 0; i < k; ++i) U(i, k) = 0;
      } else {
        for (int64_t i = 0; i < m; ++i) U(i, k) = 0;
        U(k, k) = 1;
      }
    }
  }
  if (wantv) {
    ColMat& V = *v;
    for (int64_t k = n - 1; k >= 0; --k) {
      if (k < nrt && e[size_t(k)] != 0) {
        for (int64_t j = k + 1; j < n; ++j) {
          const double t = -dot(V.col(k) + k + 1, V.col(j) + k + 1, n - k - 1) / V(k + 1, k);
          axpy(t, V.col(k) + k + 1, V.col(j) + k + 1, n - k - 1);
        }
      }
      for (int64_t i = 0; i < n; ++i) V(i, k) = 0;
      V(k, k) = 1;
    }
  }
  // Implicit-shift QR sweeps on the bidiagonal (s, e) until every e is negligible.
  double* ur = wantu ? u->v.data() : nullptr;
  double* vr = wantv ? v->v.data() : nullptr;
  Vec ucs(size_t(n), 0.0), usn(size_t(n), 0.0), vcs(size_t(n), 0.0), vsn(size_t(n), 0.0);
  RotationLog ulog(ur, m, n, false), vlog(vr, n, n, false);
  // Converged values leave the active block [0, p) for good: their sign flips (of V's column)
  // and the descending sort wait for the end, so that the sweeps' rotations can be batched.
  std::vector<char> negated(size_t(n), 0);
  const double eps = std::ldexp(1.0, -52), tiny = std::ldexp(1.0, -966);
  int64_t sweeps = 0;
  const int64_t max_sweeps = 75 * std::max<int64_t>(n, 1);
  while (p > 0) {
    if (++sweeps > max_sweeps) return false;
    int64_t k, kase;
    for (k = p - 2; k >= 0; --k)
      if (std::abs(e[size_t(k)]) <= tiny + eps * (std::abs(s[size_t(k)]) + std::abs(s[size_t(k) + 1]))) {
        e[size_t(k)] = 0;
        break;
      }
    if (k == p - 2) {
      kase = 4;
    } else {
      int64_t ks;
      for (ks = p - 1; ks > k; --ks) {
        const double t = (ks != p ? std::abs(e[size_t(ks)]) : 0.0) + (ks != k + 1 ? std::abs(e[size_t(ks) - 1]) : 0.0);
        if (std::abs(s[size_t(ks)]) <= tiny + eps * t) {
          s[size_t(ks)] = 0;
          break;
        }
      }
      if (ks == k) kase = 3;
      else if (ks == p - 1) kase = 1;
      else {
        kase = 2;
        k = ks;
      }
    }
    ++k;
    switch (kase) {
      case 1: {  // deflate a negligible s[p−1]
        double f = e[size_t(p) - 2];
        e[size_t(p) - 2] = 0;
        for (int64_t j = p - 2; j >= k; --j) {
          const double t = pythag(s[size_t(j)], f), cs = s[size_t(j)] / t, sn = f / t;
          s[size_t(j)] = t;
          if (j != k) {
            f = -sn * e[size_t(j) - 1];
            e[size_t(j) - 1] = cs * e[size_t(j) - 1];
          }
          if (wantv) {
            vlog.flush();
            rotate(vr, n, j, p - 1, cs, sn);
          }
        }
        break;
      }
      case 2: {  // split at a negligible s[k−1]
        double f = e[size_t(k) - 1];
        e[size_t(k) - 1] = 0;
        for (int64_t j = k; j < p; ++j) {
          const double t = pythag(s[size_t(j)], f), cs = s[size_t(j)] / t, sn = f / t;
          s[size_t(j)] = t;
          f = -sn * e[size_t(j)];
          e[size_t(j)] = cs * e[size_t(j)];
          if (wantu) {
            ulog.flush();
            rotate(ur, m, j, k - 1, cs, sn);
          }
        }
        break;
      }
      case 3: {  // one QR step with the shift from the trailing 2×2 block
        const double scale = std::max({std::abs(s[size_t(p) - 1]), std::abs(s[size_t(p) - 2]),
                                       std::abs(e[size_t(p) - 2]), std::abs(s[size_t(k)]), std::abs(e[size_t(k)])});
        const double sp = s[size_t(p) - 1] / scale, spm1 = s[size_t(p) - 2] / scale, epm1 = e[size_t(p) - 2] / scale;
        const double sk = s[size_t(k)] / scale, ek = e[size_t(k)] / scale;
        const double b = ((spm1 + sp) * (spm1 - sp) + epm1 * epm1) / 2.0, c = (sp * epm1) * (sp * epm1);
        double shift = 0;
        if (b != 0 || c != 0) {
          shift = std::sqrt(b * b + c);
          if (b < 0) shift = -shift;
          shift = c / (b + shift);
        }
        double f = (sk + sp) * (sk - sp) + shift, g = sk * ek;
        for (int64_t j = k; j < p - 1; ++j) {
          double t = pythag(f, g), cs = f / t, sn = g / t;
          if (j != k) e[size_t(j) - 1] = t;
          f = cs * s[size_t(j)] + sn * e[size_t(j)];
          e[size_t(j)] = cs * e[size_t(j)] - sn * s[size_t(j)];
          g = sn * s[size_t(j) + 1];
          s[size_t(j) + 1] = cs * s[size_t(j) + 1];
          vcs[size_t(j)] = cs;
          vsn[size_t(j)] = sn;
          t = pythag(f, g);
          cs = f / t;
          sn = g / t;
          s[size_t(j)] = t;
          f = cs * e[size_t(j)] + sn * s[size_t(j) + 1];
          s[size_t(j) + 1] = -sn * e[size_t(j)] + cs * s[size_t(j) + 1];
          g = sn * e[size_t(j) + 1];
          e[size_t(j) + 1] = cs * e[size_t(j) + 1];
          ucs[size_t(j)] = cs;  // j < p − 1 ≤ n − 1 ≤ m − 1: always a U rotation too
          usn[size_t(j)] = sn;
        }
        e[size_t(p) - 2] = f;
        vlog.add(k, p - 1, vcs, vsn);
        ulog.add(k, p - 1, ucs, usn);
        break;
      }
      default: {  // s[k] converged: make it non-negative (V's column later)
        if (s[size_t(k)] <= 0) {
          negated[size_t(k)] = s[size_t(k)] < 0;
          s[size_t(k)] = s[size_t(k)] < 0 ? -s[size_t(k)] : 0.0;
        }
        --p;
      }
    }
  }
  ulog.flush();
  vlog.flush();
  s.resize(size_t(n));
  if (wantv)
    for (int64_t k = 0; k < n; ++k)
      if (negated[size_t(k)])
        for (int64_t i = 0; i < n; ++i) vr[k * n + i] = -vr[k * n + i];
  // Descending order; a stable sort keeps equal values where they are, as dsvdc's swaps do.
  if (!std::is_sorted(s.begin(), s.end(), std::greater<double>())) {
    std::vector<int64_t> order(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) order[size_t(i)] = i;
    std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return s[size_t(x)] > s[size_t(y)]; });
    const Vec s0 = s;
    for (int64_t i = 0; i < n; ++i) s[size_t(i)] = s0[size_t(order[size_t(i)])];
    auto permute = [&](ColMat* x) {
      if (!x) return;
      const ColMat x0 = *x;
      for (int64_t i = 0; i < n; ++i)
        std::copy(x0.v.begin() + order[size_t(i)] * x->rows, x0.v.begin() + (order[size_t(i)] + 1) * x->rows, x->col(i));
    };
    permute(u);
    permute(v);
  }
  return true;
}

// ---- Householder QR, LAPACK's conventions ----
// Factors a (m×n) in place: R on and above the diagonal, the reflectors' vectors below it (their
// first entry 1 implied), tau[j] their scales: H_j = I − tau_j·v_j·v_jᵀ, A = H_0⋯H_{k−1}·R.
void householder_qr(ColMat& a, Vec& tau) {
  const int64_t m = a.rows, n = a.cols, k = std::min(m, n);
  tau.assign(size_t(k), 0.0);
  for (int64_t j = 0; j < k; ++j) {
    double* c = a.col(j);
    const double xnorm = norm2(c + j + 1, m - j - 1);
    if (xnorm == 0) continue;  // H_j = I (LAPACK's dlarfg: tau 0, the diagonal keeps its sign)
    const double alpha = c[j], beta = -std::copysign(std::hypot(alpha, xnorm), alpha);
    tau[size_t(j)] = (beta - alpha) / beta;
    const double scale = 1.0 / (alpha - beta);
    for (int64_t i = j + 1; i < m; ++i) c[i] *= scale;
    c[j] = beta;
    for (int64_t l = j + 1; l < n; ++l) {  // apply H_j to the columns on the right
      double* d = a.col(l);
      const double w = (d[j] + dot(c + j + 1, d + j + 1, m - j - 1)) * tau[size_t(j)];
      d[j] -= w;
      axpy(-w, c + j + 1, d + j + 1, m - j - 1);
    }
  }
}

// Q's first qcols columns (m×qcols) from householder_qr's reflectors: H_0⋯H_{k−1} applied to I.
ColMat householder_q(const ColMat& a, const Vec& tau, int64_t qcols) {
  const int64_t m = a.rows, k = int64_t(tau.size());
  ColMat q(m, qcols);
  for (int64_t j = 0; j < std::min(m, qcols); ++j) q(j, j) = 1;
  for (int64_t j = k - 1; j >= 0; --j) {
    if (tau[size_t(j)] == 0) continue;
    const double* c = a.v.data() + j * m;
    for (int64_t l = 0; l < qcols; ++l) {
      double* d = q.col(l);
      const double w = (d[j] + dot(c + j + 1, d + j + 1, m - j - 1)) * tau[size_t(j)];
      if (w == 0) continue;
      d[j] -= w;
      axpy(-w, c + j + 1, d + j + 1, m - j - 1);
    }
  }
  return q;
}

// u (m×k, orthonormal columns) extended to an m×m orthogonal matrix: the first k columns kept,
// the rest an orthonormal basis of their complement (Q of u's QR, past its first k columns).
ColMat complete_basis(const ColMat& u) {
  ColMat f = u;
  Vec tau;
  householder_qr(f, tau);
  ColMat q = householder_q(f, tau, u.rows);
  for (int64_t j = 0; j < u.cols; ++j) std::copy(u.v.begin() + j * u.rows, u.v.begin() + (j + 1) * u.rows, q.col(j));
  return q;
}

// ---- symmetric eigendecomposition: LAPACK's dsyevd (linalg_tridiag_reduce.h: dsytrd and
// dormtr; linalg_tridiag_dc.h: dstedc), with EISPACK's tql2 (as JAMA writes it) for the
// eigenvalues alone and for divide and conquer's small leaves ----

// tql2: implicit QL on the symmetric tridiagonal (d, e) (e[i] couples i and i+1, e[n−1] = 0):
// d gets the eigenvalues (unordered); each sweep's rotations go to vlog (null: none). Returns
// false if QL does not converge (NaN input).
bool tql2(Vec& d, Vec& e, RotationLog* vlog) {
  const int64_t n = int64_t(d.size());
  Vec qc(size_t(n), 0.0), qs(size_t(n), 0.0);
  double f = 0, tst1 = 0;
  const double eps = std::ldexp(1.0, -52);
  for (int64_t l = 0; l < n; ++l) {
    tst1 = std::max(tst1, std::abs(d[size_t(l)]) + std::abs(e[size_t(l)]));
    int64_t m = l;
    while (m < n) {
      if (std::abs(e[size_t(m)]) <= eps * tst1) break;
      ++m;
    }
    if (m == n) return false;  // only with NaN (e[n−1] is 0)
    if (m > l) {
      int64_t iter = 0;
      do {
        if (++iter > 60) return false;
        double g = d[size_t(l)];
        double p = (d[size_t(l) + 1] - g) / (2.0 * e[size_t(l)]);
        double r = pythag(p, 1.0);
        if (p < 0) r = -r;
        double h = g - e[size_t(l)] / (p + r);  // the top 2×2's eigenvalue nearest d[l]
        d[size_t(l)] = e[size_t(l)] / (p + r);
        d[size_t(l) + 1] = e[size_t(l)] * (p + r);
        const double dl1 = d[size_t(l) + 1];
        for (int64_t i = l + 2; i < n; ++i) d[size_t(i)] -= h;
        f += h;
        p = d[size_t(m)];
        double c = 1, c2 = 1, c3 = 1, s = 0, s2 = 0;
        const double el1 = e[size_t(l) + 1];
        for (int64_t i = m - 1; i >= l; --i) {
          c3 = c2;
          c2 = c;
          s2 = s;
          g = c * e[size_t(i)];
          h = c * p;
          r = pythag(p, e[size_t(i)]);
          e[size_t(i) + 1] = s * r;
          s = e[size_t(i)] / r;
          c = p / r;
          p = c * d[size_t(i)] - s * g;
          d[size_t(i) + 1] = h + s * (c * g + s * d[size_t(i)]);
          // V's columns (i, i+1) ← (c·v_i − s·v_{i+1}, s·v_i + c·v_{i+1}): RotationLog's form with −s.
          qc[size_t(i)] = c;
          qs[size_t(i)] = -s;
        }
        if (vlog) vlog->add(l, m, qc, qs);
        p = -s * s2 * c3 * el1 * e[size_t(l)] / dl1;
        e[size_t(l)] = s * p;
        d[size_t(l)] = c * p;
      } while (std::abs(e[size_t(l)]) > eps * tst1);
    }
    d[size_t(l)] += f;
    e[size_t(l)] = 0;
  }
  return true;
}

// Divide and conquer takes over the eigenvectors past this order; below, QL's rotations are
// too few to lose to its merges (LAPACK's dstedc: 25).
constexpr int64_t kDcMin = 32;

// D&C's leaf: tql2 on the identity, then ascending order.
bool tridiagonal_leaf(double* d0, double* e0, int64_t n, double* z, int64_t ldz) {
  Vec d(d0, d0 + n), e(e0, e0 + n);
  ColMat q(n, n);
  for (int64_t i = 0; i < n; ++i) q(i, i) = 1;
  RotationLog log(q.v.data(), n, n, true);
  if (!tql2(d, e, &log)) return false;
  log.flush();
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) order[size_t(i)] = i;
  std::stable_sort(order.begin(), order.end(), [&d](int64_t a, int64_t b) { return d[size_t(a)] < d[size_t(b)]; });
  for (int64_t c = 0; c < n; ++c) {
    d0[c] = d[size_t(order[size_t(c)])];
    std::copy(q.col(order[size_t(c)]), q.col(order[size_t(c)]) + n, z + c * ldz);
  }
  return true;
}

// a (n×n column-major, symmetric; overwritten) in S = double, or float for a float32 matrix past
// kDcMin rows: then the reduction (ssytrd), divide and conquer's merge products and Q's
// application run in float32 as in LAPACK's ssyevd (PyTorch's float32 eigh), at about twice
// float64's speed, with float32's residuals (tests/js/linalg_f32_accuracy.test.mjs keeps them
// within PyTorch's); the tridiagonal's eigenproblem stays in double. d gets the eigenvalues in
// ascending order; with `vectors`, the eigenvectors (columns, n×n column-major). Returns false if
// QL does not converge (NaN or inf input).
template <class S>
bool symmetric_eigen(S* a, int64_t n, Vec& d, std::vector<S>* vectors, const ColGemm& gemm,
                     const ColGemmOf<S>& gemm_s) {
  d.assign(size_t(n), 0.0);
  if (n == 0) return true;
  Vec e(size_t(n), 0.0), tau(size_t(n), 0.0);
  tridiagonal_reduce<S>(a, n, d.data(), e.data(), tau.data(), gemm_s);
  e[size_t(n) - 1] = 0;
  if (!vectors) {
    if (!tql2(d, e, nullptr)) return false;
    std::sort(d.begin(), d.end());
    return true;
  }
  ColMat z(n, n);
  const ColGemmOf<float>* gemm32 = nullptr;
  if constexpr (std::is_same_v<S, float>) gemm32 = &gemm_s;
  const bool ok = n > kDcMin ? tridiagonal_eigen_dc(d.data(), e.data(), n, z.v.data(), n, kDcMin, gemm, tridiagonal_leaf,
                                                    gemm32)
                             : tridiagonal_leaf(d.data(), e.data(), n, z.v.data(), n);
  if (!ok) return false;
  for (double x : d)
    if (!std::isfinite(x)) return false;
  if constexpr (std::is_same_v<S, double>) *vectors = std::move(z.v);
  else vectors->assign(z.v.begin(), z.v.end());
  tridiagonal_apply_q<S>(a, n, tau.data(), vectors->data(), n, gemm_s);
  return true;
}

// ---- SVD with the bidiagonal's vectors by divide and conquer: LAPACK's dgesdd (linalg_bidiag.h:
// dgebd2; linalg_bidiag_dc.h: dbdsdc; linalg_reflectors.h: dormbr) ----

// D&C's leaf: the r×c bidiagonal (c = r or r + 1) dense, its transpose (c×r, tall) through
// svd_tall, then ascending order (and for c = r + 1 the null vector completing V).
bool bidiagonal_leaf(double* d, const double* e, int64_t r, int64_t c, double* u, int64_t ldu, double* v,
                     int64_t ldv) {
  ColMat bt(c, r);  // Bᵀ = tu·S·tvᵀ, so B = tv·S·tuᵀ
  for (int64_t i = 0; i < r; ++i) {
    bt(i, i) = d[i];
    if (i + 1 < c) bt(i + 1, i) = e[i];
  }
  Vec s;
  ColMat tu, tv;
  if (!svd_tall(bt, s, &tu, &tv)) return false;
  if (c > r) tu = complete_basis(tu);
  for (int64_t t = 0; t < r; ++t) {
    const int64_t from = r - 1 - t;
    d[t] = s[size_t(from)];
    std::copy(tv.col(from), tv.col(from) + r, u + t * ldu);
    std::copy(tu.col(from), tu.col(from) + c, v + t * ldv);
  }
  if (c > r) std::copy(tu.col(r), tu.col(r) + c, v + r * ldv);
  return true;
}

// w (m×n, m ≥ n, column-major; the scaled matrix) = tu·diag(s)·tvᵀ, s descending, in S = double
// or float (a float32 svd: the bidiagonalization and every matrix product in float32, as
// LAPACK's sgesdd, which PyTorch's float32 svd runs; the bidiagonal's secular equations and
// deflation stay in double). Returns false if a leaf's QR sweeps do not converge.
template <class S>
bool svd_dc(const ColMat& w, Vec& s, ColMat& tu, ColMat& tv, const ColGemm& gemm, const ColGemmOf<S>& gemm_s) {
  const int64_t m = w.rows, n = w.cols;
  std::vector<S> a(w.v.begin(), w.v.end()), prow(size_t(n * n));
  Vec d(size_t(n), 0.0), e(size_t(n), 0.0), tauq(size_t(n), 0.0), taup(size_t(n), 0.0);
  bidiagonalize<S>(a.data(), m, n, d.data(), e.data(), tauq.data(), taup.data(), prow.data(), gemm_s);
  ColMat ub(n, n), vb(n, n);
  const ColGemmOf<float>* gemm32 = nullptr;
  if constexpr (std::is_same_v<S, float>) gemm32 = &gemm_s;
  if (!bidiagonal_svd_dc(d.data(), e.data(), n, ub.v.data(), n, vb.v.data(), n, kDcMin, gemm, bidiagonal_leaf, gemm32))
    return false;
  for (double x : d)
    if (!std::isfinite(x)) return false;
  // Descending order (as svd_tall's), then U = Q·[U_B; 0] and V = P·V_B.
  std::vector<S> zu(size_t(m * n), S(0)), zv(size_t(n * n));
  s.resize(size_t(n));
  for (int64_t t = 0; t < n; ++t) {
    const int64_t from = n - 1 - t;
    s[size_t(t)] = d[size_t(from)];
    std::copy(ub.col(from), ub.col(from) + n, zu.data() + t * m);
    std::copy(vb.col(from), vb.col(from) + n, zv.data() + t * n);
  }
  apply_reflectors<S>(a.data(), m, m, n, tauq.data(), zu.data(), m, n, gemm_s);
  apply_reflectors<S>(prow.data() + 1, n, n - 1, n - 1, taup.data(), zv.data() + 1, n, n, gemm_s);
  tu = ColMat(m, n);
  tu.v.assign(zu.begin(), zu.end());
  tv = ColMat(n, n);
  tv.v.assign(zv.begin(), zv.end());
  return true;
}

// ---- small dense helpers in double, row-major n×n (matrix exponential) ----
using Square = std::vector<double>;

Square mat_mul(const Square& a, const Square& b, int64_t n) {
  Square c(size_t(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < n; ++k) {
      const double x = a[size_t(i * n + k)];
      if (x == 0) continue;
      for (int64_t j = 0; j < n; ++j) c[size_t(i * n + j)] += x * b[size_t(k * n + j)];
    }
  return c;
}

// x = a⁻¹·b (n×n each) by LU with partial pivoting; a and b are overwritten.
void dense_solve(Square& a, Square& b, int64_t n) {
  for (int64_t k = 0; k < n; ++k) {
    int64_t p = k;
    for (int64_t i = k + 1; i < n; ++i)
      if (std::abs(a[size_t(i * n + k)]) > std::abs(a[size_t(p * n + k)])) p = i;
    if (p != k)
      for (int64_t j = 0; j < n; ++j) {
        std::swap(a[size_t(k * n + j)], a[size_t(p * n + j)]);
        std::swap(b[size_t(k * n + j)], b[size_t(p * n + j)]);
      }
    const double piv = a[size_t(k * n + k)];
    for (int64_t i = k + 1; i < n; ++i) {
      const double l = a[size_t(i * n + k)] / piv;
      if (l == 0) continue;
      for (int64_t j = k + 1; j < n; ++j) a[size_t(i * n + j)] -= l * a[size_t(k * n + j)];
      for (int64_t j = 0; j < n; ++j) b[size_t(i * n + j)] -= l * b[size_t(k * n + j)];
    }
  }
  for (int64_t i = n - 1; i >= 0; --i)
    for (int64_t j = 0; j < n; ++j) {
      double s = b[size_t(i * n + j)];
      for (int64_t k = i + 1; k < n; ++k) s -= a[size_t(i * n + k)] * b[size_t(k * n + j)];
      b[size_t(i * n + j)] = s / a[size_t(i * n + i)];
    }
}

// exp(A) by scaling and squaring with the [13/13] Padé approximant (Higham 2005, "The scaling
// and squaring method for the matrix exponential revisited"): accurate to double rounding, so
// to the last bit of float32 and close to it for float64.
Square expm(Square a, int64_t n) {
  static const double b[] = {64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
                             129060195264000.0,   10559470521600.0,    670442572800.0,     33522128640.0,
                             1323241920.0,        40840800.0,          960960.0,           16380.0,
                             182.0,               1.0};
  double norm1 = 0;  // the 1-norm: largest column sum
  for (int64_t j = 0; j < n; ++j) {
    double c = 0;
    for (int64_t i = 0; i < n; ++i) c += std::abs(a[size_t(i * n + j)]);
    norm1 = std::max(norm1, c);
  }
  if (!std::isfinite(norm1)) return Square(size_t(n * n), std::numeric_limits<double>::quiet_NaN());
  const double theta13 = 5.371920351148152;
  const int squarings = norm1 > theta13 ? int(std::ceil(std::log2(norm1 / theta13))) : 0;
  if (squarings > 0)
    for (double& x : a) x = std::ldexp(x, -squarings);
  const Square a2 = mat_mul(a, a, n), a4 = mat_mul(a2, a2, n), a6 = mat_mul(a4, a2, n);
  Square u1(size_t(n * n)), u2(size_t(n * n)), v1(size_t(n * n)), v2(size_t(n * n));
  for (size_t i = 0; i < u1.size(); ++i) {
    u1[i] = b[13] * a6[i] + b[11] * a4[i] + b[9] * a2[i];
    u2[i] = b[7] * a6[i] + b[5] * a4[i] + b[3] * a2[i];
    v1[i] = b[12] * a6[i] + b[10] * a4[i] + b[8] * a2[i];
    v2[i] = b[6] * a6[i] + b[4] * a4[i] + b[2] * a2[i];
  }
  for (int64_t i = 0; i < n; ++i) {
    u2[size_t(i * n + i)] += b[1];
    v2[size_t(i * n + i)] += b[0];
  }
  Square t = mat_mul(a6, u1, n);
  for (size_t i = 0; i < t.size(); ++i) t[i] += u2[i];
  const Square u = mat_mul(a, t, n);
  Square v = mat_mul(a6, v1, n);
  for (size_t i = 0; i < v.size(); ++i) v[i] += v2[i];
  Square p(size_t(n * n)), q(size_t(n * n));
  for (size_t i = 0; i < p.size(); ++i) {
    p[i] = v[i] + u[i];
    q[i] = v[i] - u[i];
  }
  dense_solve(q, p, n);
  for (int k = 0; k < squarings; ++k) p = mat_mul(p, p, n);
  return p;
}

// LAPACK's drivers (dsyevd, dgesdd) scale a matrix whose largest |entry| lies outside
// [√(safe min / eps), its reciprocal] ≈ [1e-146, 1e146] before decomposing it: the sweeps multiply
// two entries (tql2's e[l+1]·e[l]), which would overflow or underflow. Here the scale is a power of
// two, so scaling the matrix and the values back is exact. Returns the exponent to add to the
// values (0: left as it is). `limit`: 486 for double; 50 for work in float32 (ssyevd's range,
// ≈ [4e-16, 2e15]).
int scale_to_range(Vec& v, int limit = 486) {
  double amax = 0;
  for (double x : v) amax = std::max(amax, std::abs(x));
  if (amax == 0 || !std::isfinite(amax) || (amax > std::ldexp(1.0, -limit) && amax < std::ldexp(1.0, limit))) return 0;
  int ex = 0;
  std::frexp(amax, &ex);
  for (double& x : v) x = std::ldexp(x, -ex);
  return ex;
}

template <class T>
struct Typed {
  static const T* in(const void* p) { return static_cast<const T*>(p); }
  static T* out(void* p) { return static_cast<T*>(p); }
};

template <class T>
void svd_typed(const void* a0, int64_t batch, int64_t m, int64_t n, bool full, void* u0, void* s0, void* vh0,
               const std::string& op, bool batched, const ColGemm& gemm, const ColGemmOf<float>& gemm32) {
  const T* a = Typed<T>::in(a0);
  T *u = static_cast<T*>(u0), *s = static_cast<T*>(s0), *vh = static_cast<T*>(vh0);
  const int64_t k = std::min(m, n);
  const bool vectors = u != nullptr;
  const int64_t ucols = full ? m : k, vrows = full ? n : k;
  // Decompose the tall one of A and Aᵀ: A = U·S·Vᵀ, or Aᵀ = U'·S·V'ᵀ (then U = V', V = U').
  const bool wide = m < n;
  const int64_t rows = wide ? n : m, cols = wide ? m : n;
  for (int64_t b = 0; b < batch; ++b) {
    ColMat w = load(a + b * m * n, rows, cols, wide);
    for (double x : w.v)
      if (!std::isfinite(x))
        fail(op, ": ", batched ? "(Batch element " + std::to_string(b) + "): " : "",
             "The algorithm failed to converge because the input matrix contained non-finite values.");
    Vec sv;
    ColMat tu, tv;
    // The vectors past kDcMin columns by divide and conquer (svd_dc), a float32 matrix's in float32.
    const bool dc = vectors && cols > kDcMin, in_float = dc && std::is_same_v<T, float>;
    const int ex = scale_to_range(w.v, in_float ? 50 : 486);
    const bool ok = !dc          ? svd_tall(w, sv, vectors ? &tu : nullptr, vectors ? &tv : nullptr)
                    : in_float ? svd_dc<float>(w, sv, tu, tv, gemm, gemm32)
                               : svd_dc<double>(w, sv, tu, tv, gemm, gemm);
    if (!ok)
      fail(op, ": ", batched ? "(Batch element " + std::to_string(b) + "): " : "",
           "The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated "
           "singular values");
    for (int64_t i = 0; i < k; ++i) s[b * k + i] = T(std::ldexp(sv[size_t(i)], ex));
    if (!vectors) continue;
    if (full && rows > cols) tu = complete_basis(tu);
    // Tall: U = tu (m×ucols), Vh = tvᵀ. Wide: U = tv (m×m), Vh = tuᵀ (vrows×n).
    const ColMat& left = wide ? tv : tu;
    const ColMat& right = wide ? tu : tv;
    store(left, ucols, false, u + b * m * ucols);
    store(right, vrows, true, vh + b * vrows * n);
  }
}

template <class T>
void eigh_typed(const void* a0, int64_t batch, int64_t n, bool upper, void* w0, void* v0, const std::string& op,
                bool batched, const ColGemm* gemm, const ColGemmOf<float>* gemm32) {
  const T* a = Typed<T>::in(a0);
  T *w = static_cast<T*>(w0), *v = static_cast<T*>(v0);
  // A float32 matrix past divide and conquer's threshold is worked in float32 (symmetric_eigen);
  // below it the time is small, and the results stay one rounding of a double computation.
  const bool in_float = std::is_same_v<T, float> && n > kDcMin;
  for (int64_t b = 0; b < batch; ++b) {
    const T* x = a + b * n * n;
    // One triangle of A, mirrored (LAPACK's syevd reads only that one).
    ColMat m(n, n);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j <= i; ++j) m(i, j) = m(j, i) = double(upper ? x[j * n + i] : x[i * n + j]);
    bool finite = true;
    for (double x : m.v) finite = finite && std::isfinite(x);
    // Non-finite input: NaN results, no Error (PyTorch's syevd returns without one too).
    if (!finite) {
      std::fill(w + b * n, w + (b + 1) * n, std::numeric_limits<T>::quiet_NaN());
      if (v) std::fill(v + b * n * n, v + (b + 1) * n * n, std::numeric_limits<T>::quiet_NaN());
      continue;
    }
    const int ex = scale_to_range(m.v, in_float ? 50 : 486);
    Vec d;
    std::vector<double> zd;
    std::vector<float> zf;
    bool ok;
    if (in_float) {
      std::vector<float> af(m.v.begin(), m.v.end());
      ok = symmetric_eigen<float>(af.data(), n, d, v ? &zf : nullptr, *gemm, *gemm32);
    } else {
      ok = symmetric_eigen<double>(m.v.data(), n, d, v ? &zd : nullptr, *gemm, *gemm);
    }
    if (!ok)
      fail(op, ": ", batched ? "(Batch element " + std::to_string(b) + "): " : "",
           "The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated "
           "eigenvalues");
    for (int64_t i = 0; i < n; ++i) w[b * n + i] = T(std::ldexp(d[size_t(i)], ex));
    if (!v) continue;
    T* vb = v + b * n * n;  // row-major, from the column-major vectors
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        vb[i * n + j] = in_float ? T(zf[size_t(j * n + i)]) : T(zd[size_t(j * n + i)]);
  }
}

template <class T>
void qr_typed(const void* a0, int64_t batch, int64_t m, int64_t n, bool complete, void* q0, void* r0) {
  const T* a = Typed<T>::in(a0);
  T *q = static_cast<T*>(q0), *r = static_cast<T*>(r0);
  const int64_t k = std::min(m, n), qcols = complete ? m : k, rrows = complete ? m : k;
  for (int64_t b = 0; b < batch; ++b) {
    ColMat f = load(a + b * m * n, m, n, false);
    Vec tau;
    householder_qr(f, tau);
    T* rb = r + b * rrows * n;
    for (int64_t i = 0; i < rrows; ++i)
      for (int64_t j = 0; j < n; ++j) rb[i * n + j] = j >= i && i < m ? T(f(i, j)) : T(0);
    if (q) store(householder_q(f, tau, qcols), qcols, false, q + b * m * qcols);
  }
}

template <class T>
void solve_triangular_typed(const void* a0, const void* b0, int64_t batch, int64_t n, int64_t k, bool upper, bool unit,
                            void* x0) {
  const T *a = Typed<T>::in(a0), *rhs = Typed<T>::in(b0);
  T* x = static_cast<T*>(x0);
  Vec row = Vec(size_t(k));
  for (int64_t b = 0; b < batch; ++b) {
    const T* A = a + b * n * n;
    const T* B = rhs + b * n * k;
    std::vector<double> X(size_t(n * k));
    // Substitution row by row, from the top (lower) or the bottom (upper); no zero check: a
    // zero diagonal gives inf/NaN, as LAPACK's trtrs-free trsm does in PyTorch.
    for (int64_t step = 0; step < n; ++step) {
      const int64_t i = upper ? n - 1 - step : step;
      for (int64_t c = 0; c < k; ++c) row[size_t(c)] = double(B[i * k + c]);
      const int64_t j0 = upper ? i + 1 : 0, j1 = upper ? n : i;
      for (int64_t j = j0; j < j1; ++j) {
        const double aij = double(A[i * n + j]);
        if (aij == 0) continue;
        for (int64_t c = 0; c < k; ++c) row[size_t(c)] -= aij * X[size_t(j * k + c)];
      }
      const double d = unit ? 1.0 : double(A[i * n + i]);
      for (int64_t c = 0; c < k; ++c) X[size_t(i * k + c)] = row[size_t(c)] / d;
    }
    for (int64_t i = 0; i < n * k; ++i) x[b * n * k + i] = T(X[size_t(i)]);
  }
}

template <class T>
void lu_factor_typed(const void* a0, int64_t batch, int64_t m, int64_t n, void* lu0, int32_t* piv,
                     const std::string& op, bool batched) {
  const T* a = Typed<T>::in(a0);
  T* lu = static_cast<T*>(lu0);
  const int64_t k = std::min(m, n);
  int64_t bad_batch = -1, bad_pivot = 0;  // the first matrix with a zero pivot, and that pivot (1-based)
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<double> w(a + b * m * n, a + (b + 1) * m * n);
    auto W = [&](int64_t i, int64_t j) -> double& { return w[size_t(i * n + j)]; };
    for (int64_t j = 0; j < k; ++j) {
      int64_t p = j;
      for (int64_t i = j + 1; i < m; ++i)
        if (std::abs(W(i, j)) > std::abs(W(p, j))) p = i;
      piv[b * k + j] = int32_t(p + 1);
      if (W(p, j) == 0) {
        if (bad_batch < 0) {
          bad_batch = b;
          bad_pivot = j + 1;
        }
        continue;  // nothing to eliminate (the column below is zero)
      }
      if (p != j)
        for (int64_t c = 0; c < n; ++c) std::swap(W(j, c), W(p, c));
      for (int64_t i = j + 1; i < m; ++i) {
        const double l = W(i, j) /= W(j, j);
        if (l != 0)
          for (int64_t c = j + 1; c < n; ++c) W(i, c) -= l * W(j, c);
      }
    }
    for (int64_t i = 0; i < m * n; ++i) lu[b * m * n + i] = T(w[size_t(i)]);
  }
  // PyTorch's linalg.lu_factor refuses a singular factorization (lu_factor_ex would return it).
  if (bad_batch >= 0)
    fail(op, ": ", batched ? "(Batch element " + std::to_string(bad_batch) + "): " : "", "U[", bad_pivot, ",",
         bad_pivot, "] is zero and using it on lu_solve would result in a division by zero. If you still want to "
         "perform the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)");
}

template <class T>
void matrix_exp_typed(const void* a0, int64_t batch, int64_t n, void* out0) {
  const T* a = Typed<T>::in(a0);
  T* out = static_cast<T*>(out0);
  for (int64_t b = 0; b < batch; ++b) {
    const Square e = expm(Square(a + b * n * n, a + (b + 1) * n * n), n);
    for (int64_t i = 0; i < n * n; ++i) out[b * n * n + i] = T(e[size_t(i)]);
  }
}

// The backend's float64 or float32 GEMM (row-major) as a column-major product: a column-major X
// is the row-major Xᵀ, so C = op(A)·op(B) is Cᵀ = op(B)ᵀ·op(A)ᵀ on the same buffers. A
// DataKernels that is not a Backend gets a plain loop (in double).
template <class S>
ColGemmOf<S> column_major_gemm(const DataKernels* kernels) {
  if (const auto* be = dynamic_cast<const Backend*>(kernels))
    return [be](bool ta, bool tb, int64_t m, int64_t n, int64_t k, S alpha, const S* a, int64_t lda, const S* b,
                int64_t ldb, S beta, S* c, int64_t ldc) {
      if constexpr (std::is_same_v<S, float>) be->gemm_f32(tb, ta, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc);
      else be->gemm_f64(tb, ta, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc);
    };
  return [](bool ta, bool tb, int64_t m, int64_t n, int64_t k, S alpha, const S* a, int64_t lda, const S* b,
            int64_t ldb, S beta, S* c, int64_t ldc) {
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < m; ++i) {
        double t = 0;
        for (int64_t l = 0; l < k; ++l)
          t += double(ta ? a[i * lda + l] : a[l * lda + i]) * double(tb ? b[l * ldb + j] : b[j * ldb + l]);
        c[j * ldc + i] = S(double(alpha) * t + (beta == 0 ? 0.0 : double(beta) * double(c[j * ldc + i])));
      }
  };
}

void check_float(const char* kernel, DType dtype) {
  check(dtype == DType::Float32 || dtype == DType::Float64, kernel, ": expected float32 or float64 matrices, got ",
        dtype_name(dtype));
}

}  // namespace

void DataKernels::svd(DType dtype, const void* a, int64_t batch, int64_t m, int64_t n, bool full, void* u, void* s,
                      void* vh, const std::string& op, bool batched) const {
  check_float("svd", dtype);
  const ColGemm gemm = column_major_gemm<double>(this);
  const ColGemmOf<float> gemm32 = column_major_gemm<float>(this);
  if (dtype == DType::Float64) svd_typed<double>(a, batch, m, n, full, u, s, vh, op, batched, gemm, gemm32);
  else svd_typed<float>(a, batch, m, n, full, u, s, vh, op, batched, gemm, gemm32);
}

void DataKernels::eigh(DType dtype, const void* a, int64_t batch, int64_t n, bool upper, void* w, void* v,
                       const std::string& op, bool batched) const {
  check_float("eigh", dtype);
  const ColGemm gemm = column_major_gemm<double>(this);
  const ColGemmOf<float> gemm32 = column_major_gemm<float>(this);
  if (dtype == DType::Float64) eigh_typed<double>(a, batch, n, upper, w, v, op, batched, &gemm, &gemm32);
  else eigh_typed<float>(a, batch, n, upper, w, v, op, batched, &gemm, &gemm32);
}

void DataKernels::qr(DType dtype, const void* a, int64_t batch, int64_t m, int64_t n, bool complete, void* q,
                     void* r) const {
  check_float("qr", dtype);
  if (dtype == DType::Float64) qr_typed<double>(a, batch, m, n, complete, q, r);
  else qr_typed<float>(a, batch, m, n, complete, q, r);
}

void DataKernels::solve_triangular(DType dtype, const void* a, const void* b, int64_t batch, int64_t n, int64_t k,
                                   bool upper, bool unitriangular, void* x) const {
  check_float("solve_triangular", dtype);
  if (dtype == DType::Float64) solve_triangular_typed<double>(a, b, batch, n, k, upper, unitriangular, x);
  else solve_triangular_typed<float>(a, b, batch, n, k, upper, unitriangular, x);
}

void DataKernels::lu_packed(DType dtype, const void* a, int64_t batch, int64_t m, int64_t n, void* lu,
                            int32_t* pivots, const std::string& op, bool batched) const {
  check_float("lu_factor", dtype);
  if (dtype == DType::Float64) lu_factor_typed<double>(a, batch, m, n, lu, pivots, op, batched);
  else lu_factor_typed<float>(a, batch, m, n, lu, pivots, op, batched);
}

void DataKernels::matrix_exp(DType dtype, const void* a, int64_t batch, int64_t n, void* out) const {
  check_float("matrix_exp", dtype);
  if (dtype == DType::Float64) matrix_exp_typed<double>(a, batch, n, out);
  else matrix_exp_typed<float>(a, batch, n, out);
}

}  // namespace sg
