// LayerKernels' defaults for the class losses. Rows are walked in blocks: the backend's own
// log-softmax (max-shifted, vectorized in the SIMD backend) fills a small scratch block that is
// consumed at once, so no [R, C] log-probability buffer is kept; the backward recomputes
// softmax per block straight into dx and subtracts the target distribution there:
//   d loss_r / d x_r = s_r·(a_r·p_r − q_r ⊙ w),  a_r = Σ_c w_c·q_rc.
#include <algorithm>
#include <vector>

#include "core/error.h"
#include "kernels/backend.h"

namespace sg {

namespace {

constexpr int64_t kBlockFloats = 16384;  // scratch per block of rows (64 KiB)

// Every LayerKernels object is a Backend (the only class deriving from it): its own softmax.
const Backend& self(const LayerKernels* k) { return static_cast<const Backend&>(*k); }

// Runs fn(first_row, n_rows, block) over blocks of rows, where block holds the log-softmax
// (log_ = true) or softmax of those rows of x [R, C]: in `out` when given, else in scratch.
template <class Fn>
void for_row_blocks(const Backend& be, const float* x, int64_t rows, int64_t classes, bool log_, float* out,
                    Fn&& fn) {
  const int64_t per_block = std::max<int64_t>(1, kBlockFloats / classes);
  std::vector<float> scratch;
  if (!out) scratch.resize(size_t(std::min(per_block, rows) * classes));
  for (int64_t r0 = 0; r0 < rows; r0 += per_block) {
    const int64_t nr = std::min(per_block, rows - r0);
    float* block = out ? out + r0 * classes : scratch.data();
    be.softmax_rows_f32(x + r0 * classes, block, nr, classes, log_);
    fn(r0, nr, block);
  }
}

double weight_of(const float* w, int64_t c) { return w ? double(w[c]) : 1.0; }

double weight_total(const float* w, int64_t C) {
  double t = 0;
  for (int64_t c = 0; c < C; ++c) t += weight_of(w, c);
  return t;
}

}  // namespace

void LayerKernels::cross_entropy_f32(const float* x, const int32_t* t, const float* w, int64_t R, int64_t C,
                                     int64_t ignore, double eps, float* loss, float* wt) const {
  const double smooth = eps / double(C);
  for_row_blocks(self(this), x, R, C, true, nullptr, [&](int64_t r0, int64_t nr, const float* logp) {
    for (int64_t i = 0; i < nr; ++i) {
      const int64_t r = r0 + i;
      if (t[r] == ignore) {
        loss[r] = 0;
        wt[r] = 0;
        continue;
      }
      const float* lp = logp + i * C;
      const double wy = weight_of(w, t[r]);
      double v = -(1.0 - eps) * wy * lp[t[r]];
      if (eps > 0) {
        double s = 0;
        for (int64_t c = 0; c < C; ++c) s += weight_of(w, c) * lp[c];
        v -= smooth * s;
      }
      loss[r] = static_cast<float>(v);
      wt[r] = static_cast<float>(wy);
    }
  });
}

void LayerKernels::cross_entropy_backward_f32(const float* x, const int32_t* t, const float* w, int64_t R,
                                              int64_t C, int64_t ignore, double eps, const float* s,
                                              float* dx) const {
  const double smooth = eps / double(C), w_total = weight_total(w, C);
  for_row_blocks(self(this), x, R, C, false, dx, [&](int64_t r0, int64_t nr, float* p) {
    for (int64_t i = 0; i < nr; ++i) {
      const int64_t r = r0 + i;
      float* row = p + i * C;
      if (t[r] == ignore) {
        std::fill(row, row + C, 0.0f);
        continue;
      }
      const double wy = weight_of(w, t[r]);
      const double a = (1.0 - eps) * wy + smooth * w_total;
      for (int64_t c = 0; c < C; ++c) row[c] = float(s[r] * (a * row[c] - smooth * weight_of(w, c)));
      row[t[r]] -= float(s[r] * (1.0 - eps) * wy);
    }
  });
}

void LayerKernels::cross_entropy_probs_f32(const float* x, const float* q, const float* w, int64_t R, int64_t C,
                                           double eps, float* loss) const {
  const double smooth = eps / double(C);
  for_row_blocks(self(this), x, R, C, true, nullptr, [&](int64_t r0, int64_t nr, const float* logp) {
    for (int64_t i = 0; i < nr; ++i) {
      const float* lp = logp + i * C;
      const float* qr = q + (r0 + i) * C;
      double v = 0;
      for (int64_t c = 0; c < C; ++c) v -= weight_of(w, c) * ((1.0 - eps) * qr[c] + smooth) * lp[c];
      loss[r0 + i] = static_cast<float>(v);
    }
  });
}

void LayerKernels::cross_entropy_probs_backward_f32(const float* x, const float* q, const float* w, int64_t R,
                                                    int64_t C, double eps, const float* s, float* dx,
                                                    float* dq) const {
  const double smooth = eps / double(C);
  const Backend& be = self(this);
  for_row_blocks(be, x, R, C, false, dx, [&](int64_t r0, int64_t nr, float* p) {
    for (int64_t i = 0; i < nr; ++i) {
      const int64_t r = r0 + i;
      float* row = p + i * C;
      const float* qr = q + r * C;
      double a = 0;
      for (int64_t c = 0; c < C; ++c) a += weight_of(w, c) * ((1.0 - eps) * qr[c] + smooth);
      for (int64_t c = 0; c < C; ++c)
        row[c] = float(s[r] * (a * row[c] - weight_of(w, c) * ((1.0 - eps) * qr[c] + smooth)));
    }
  });
  if (!dq) return;
  for_row_blocks(be, x, R, C, true, dq, [&](int64_t r0, int64_t nr, float* lp) {
    for (int64_t i = 0; i < nr; ++i)
      for (int64_t c = 0; c < C; ++c) {
        float& v = lp[i * C + c];
        v = float(-s[r0 + i] * (1.0 - eps) * weight_of(w, c) * v);
      }
  });
}

void LayerKernels::nll_f32(const float* x, const int32_t* t, const float* w, int64_t R, int64_t C, int64_t ignore,
                           float* loss, float* wt) const {
  for (int64_t r = 0; r < R; ++r) {
    if (t[r] == ignore) {
      loss[r] = 0;
      wt[r] = 0;
      continue;
    }
    const double wy = weight_of(w, t[r]);
    loss[r] = static_cast<float>(-wy * x[r * C + t[r]]);
    wt[r] = static_cast<float>(wy);
  }
}

void LayerKernels::nll_backward_f32(const int32_t* t, const float* w, int64_t R, int64_t C, int64_t ignore,
                                    const float* s, float* dx) const {
  for (int64_t r = 0; r < R; ++r)
    if (t[r] != ignore) dx[r * C + t[r]] = float(-double(s[r]) * weight_of(w, t[r]));
}

void LayerKernels::check_range_f32(const float* x, int64_t n, float lo, float hi, const std::string& before) const {
  for (int64_t i = 0; i < n; ++i)
    if (!(x[i] >= lo && x[i] <= hi)) fail(before, x[i]);
}

}  // namespace sg
