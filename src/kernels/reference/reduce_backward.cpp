// DataKernels' defaults for the reductions whose gradient depends on the whole group (ties of
// max/min and the inf-norms, prod, the p-norms): dx[o, j, i] = g[o, i] · w_j, with the local
// derivatives w_j of one group computed in double from its values and its output.
#include <cmath>
#include <vector>

#include "kernels/data_kernels.h"

namespace sg {

namespace {

// Calls weights(xs, r, y, w) per group of x viewed as [outer, r, inner] (y: [outer, inner], or
// nullptr when the weights do not need it) and writes dx = g · w.
template <class W>
void group_grad(const float* x, const float* y, const float* g, int64_t outer, int64_t r,
                int64_t inner, float* dx, W weights) {
  std::vector<double> xs(static_cast<size_t>(r)), w(static_cast<size_t>(r));
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = a * r * inner + i;
      for (int64_t j = 0; j < r; ++j) xs[j] = x[base + j * inner];
      weights(xs.data(), r, y ? double(y[a * inner + i]) : 0.0, w.data());
      const double gv = g[a * inner + i];
      for (int64_t j = 0; j < r; ++j) dx[base + j * inner] = static_cast<float>(gv * w[j]);
    }
}

// Equal shares of 1 (times sign) for the elements that equal the extreme y (NaN ties NaN).
void split_ties(const double* xs, int64_t r, double y, double* w, bool use_abs) {
  int64_t count = 0;
  auto hit = [&](double v) {
    double u = use_abs ? std::fabs(v) : v;
    return u == y || (std::isnan(u) && std::isnan(y));
  };
  for (int64_t j = 0; j < r; ++j) count += hit(xs[j]);
  for (int64_t j = 0; j < r; ++j) {
    double share = hit(xs[j]) ? 1.0 / double(count) : 0.0;
    if (use_abs) share *= xs[j] > 0 ? 1.0 : (xs[j] < 0 ? -1.0 : 0.0);
    w[j] = share;
  }
}

// d prod / d x_j = the product of the others, from prefix and suffix products (no division,
// so zeros are exact: one zero gives its position the product of the rest).
void prod_weights(const double* xs, int64_t r, double, double* w) {
  double prefix = 1.0;
  for (int64_t j = 0; j < r; ++j) {
    w[j] = prefix;
    prefix *= xs[j];
  }
  double suffix = 1.0;
  for (int64_t j = r; j-- > 0;) {
    w[j] *= suffix;
    suffix *= xs[j];
  }
}

}  // namespace

void DataKernels::extreme_backward_f32(bool use_abs, const float* x, const float* y, const float* g,
                                       int64_t outer, int64_t r, int64_t inner, float* dx) const {
  group_grad(x, y, g, outer, r, inner, dx,
             [use_abs](const double* xs, int64_t n, double yv, double* w) { split_ties(xs, n, yv, w, use_abs); });
}

void DataKernels::prod_backward_f32(const float* x, const float* g, int64_t outer, int64_t r,
                                    int64_t inner, float* dx) const {
  group_grad(x, nullptr, g, outer, r, inner, dx, prod_weights);
}

void DataKernels::norm_backward_f32(double p, const float* x, const float* y, const float* g,
                                    int64_t outer, int64_t r, int64_t inner, float* dx) const {
  group_grad(x, y, g, outer, r, inner, dx, [p](const double* xs, int64_t n, double yv, double* w) {
    for (int64_t j = 0; j < n; ++j) {
      const double v = xs[j], sgn = v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0);
      if (p == 0 || yv == 0) w[j] = 0.0;  // PyTorch's subgradient 0 at a zero norm
      else if (p == 1) w[j] = sgn;
      else if (p == 2) w[j] = v / yv;
      else w[j] = v == 0 ? 0.0 : sgn * std::pow(std::fabs(v) / yv, p - 1.0);
    }
  });
}

}  // namespace sg
