// Reference softmax / log-softmax / logsumexp rows, shifted by the row max, in double (float32
// and float64 rows alike).
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/reference/reference_kernels.h"

namespace sg::ref {

namespace {

template <class T>
double row_max(const T* x, int64_t cols) {
  double m = -std::numeric_limits<double>::infinity();
  for (int64_t j = 0; j < cols; ++j) {
    if (std::isnan(x[j])) return std::numeric_limits<double>::quiet_NaN();
    if (x[j] > m) m = x[j];
  }
  return m;
}

// One row's first n entries (the rest are the caller's). An all −inf row gives (−inf) − (−inf) =
// NaN everywhere, as in PyTorch.
template <class T>
void softmax_row(const T* xr, T* yr, int64_t n, bool log_) {
  const double m = row_max(xr, n);
  double s = 0.0;
  for (int64_t j = 0; j < n; ++j) s += std::exp(double(xr[j]) - m);
  if (log_) {
    const double ls = std::log(s);
    for (int64_t j = 0; j < n; ++j) yr[j] = T(double(xr[j]) - m - ls);
  } else {
    for (int64_t j = 0; j < n; ++j) yr[j] = T(std::exp(double(xr[j]) - m) / s);
  }
}

template <class T>
void softmax_loop(const T* x, T* y, int64_t rows, int64_t cols, bool log_) {
  for (int64_t r = 0; r < rows; ++r) softmax_row(x + r * cols, y + r * cols, cols, log_);
}

// Row r is query position i = r mod L: entries j ≤ i by softmax_row, the rest 0.
template <class T>
void softmax_causal_loop(const T* x, T* y, int64_t rows, int64_t cols, int64_t L) {
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t n = std::min(r % L + 1, cols);
    softmax_row(x + r * cols, y + r * cols, n, false);
    for (int64_t j = n; j < cols; ++j) y[r * cols + j] = T(0);
  }
}

// Like torch.logsumexp: an infinite max is replaced by 0 for the shift, so an all −inf row
// gives log(0) = −inf and a row holding +inf gives +inf. An empty row gives −inf.
template <class T>
void logsumexp_loop(const T* x, T* out, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * cols;
    double m = row_max(xr, cols);
    if (std::isinf(m)) m = 0.0;
    double s = 0.0;
    for (int64_t j = 0; j < cols; ++j) s += std::exp(double(xr[j]) - m);
    out[r] = T(m + std::log(s));
  }
}

}  // namespace

void softmax_rows_f32(const float* x, float* y, int64_t rows, int64_t cols, bool log_) {
  softmax_loop(x, y, rows, cols, log_);
}
void softmax_rows_f64(const double* x, double* y, int64_t rows, int64_t cols, bool log_) {
  softmax_loop(x, y, rows, cols, log_);
}
void softmax_causal_rows_f32(const float* x, float* y, int64_t rows, int64_t cols, int64_t L) {
  softmax_causal_loop(x, y, rows, cols, L);
}
void softmax_causal_rows_f64(const double* x, double* y, int64_t rows, int64_t cols, int64_t L) {
  softmax_causal_loop(x, y, rows, cols, L);
}
void logsumexp_rows_f32(const float* x, float* out, int64_t rows, int64_t cols) { logsumexp_loop(x, out, rows, cols); }
void logsumexp_rows_f64(const double* x, double* out, int64_t rows, int64_t cols) { logsumexp_loop(x, out, rows, cols); }

}  // namespace sg::ref
