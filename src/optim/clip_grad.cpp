// clip_grad_norm_ and clip_grad_value_ (optim.h), PyTorch 1.13's torch/nn/utils/clip_grad.py.
#include <cmath>
#include <limits>

#include "core/copy.h"
#include "core/error.h"
#include "optim/optim.h"
#include "optim/optim_kernels.h"

namespace sg::optim {

namespace {

std::vector<Tensor> defined_grads(const char* op, const std::vector<Tensor>& grads) {
  std::vector<Tensor> out;
  for (size_t i = 0; i < grads.size(); ++i) {
    const Tensor& g = grads[i];
    if (!g.defined()) continue;
    check(g.dtype() == DType::Float32, op, ": grad ", i, " must be float32, got ",
          dtype_name(g.dtype()));
    check(g.device() == Device::CPU, op, ": grad ", i, " must be on the cpu");
    out.push_back(g);
  }
  return out;
}

// fn(data, n) on g's elements in place (through a contiguous copy written back if needed).
template <class Fn>
void update_in_place(const Tensor& g, const Fn& fn) {
  Tensor work = as_contiguous(g);
  fn(work.f32(), work.numel());
  if (!work.same(g)) copy_into(g, work);
}

// The norm of one grad, as torch.norm(g, p) (float accumulation aside).
double norm_of(const Tensor& g, double p) {
  const Tensor c = as_contiguous(g);
  const float* x = c.f32();
  const int64_t n = c.numel();
  if (std::isinf(p)) {
    if (p > 0) return simd::max_abs_f32(x, n);
    double best = std::numeric_limits<double>::infinity();  // −inf: the smallest |x|
    for (int64_t i = 0; i < n; ++i)
      best = std::isnan(x[i]) ? x[i] : std::fmin(best, std::fabs(x[i]));
    return best;
  }
  if (p == 2) return std::sqrt(simd::sum_squares_f32(x, n));
  if (p == 1) return simd::sum_abs_f32(x, n);
  if (p == 0) {  // the count of nonzeros
    double count = 0;
    for (int64_t i = 0; i < n; ++i) count += x[i] != 0;
    return count;
  }
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += std::pow(std::fabs(static_cast<double>(x[i])), p);
  return std::pow(sum, 1 / p);
}

// torch.norm of the per-grad norms (PyTorch stacks them and takes the norm again).
double norm_of_norms(const std::vector<double>& norms, double p) {
  if (std::isinf(p)) {
    double best = norms[0];
    for (double v : norms) {
      if (std::isnan(v)) return v;
      best = p > 0 ? std::fmax(best, v) : std::fmin(best, v);
    }
    return best;
  }
  double sum = 0;
  for (double v : norms) sum += p == 0 ? (v != 0) : std::pow(std::fabs(v), p);
  return p == 0 ? sum : std::pow(sum, 1 / p);
}

}  // namespace

double clip_grad_norm_(const std::vector<Tensor>& grads, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  const char* op = "clipGradNorm_";
  check(!std::isnan(max_norm), op, ": maxNorm is NaN");
  check(!std::isnan(norm_type), op, ": normType is NaN");
  const std::vector<Tensor> gs = defined_grads(op, grads);
  if (gs.empty()) return 0;
  std::vector<double> norms;
  for (const Tensor& g : gs) norms.push_back(norm_of(g, norm_type));
  // PyTorch's total is a float32 tensor: round it as PyTorch holds it.
  const float total = static_cast<float>(norm_of_norms(norms, norm_type));
  check(!error_if_nonfinite || std::isfinite(total), op, ": the total norm of order ", norm_type,
        " for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this "
        "error and scale the gradients by the non-finite norm anyway, set errorIfNonfinite=false");
  // clip_coef = max_norm / (total + 1e-6) in float32, clamped to at most 1; multiplying by 1
  // changes nothing, so only a smaller (or NaN) coefficient touches the grads.
  const float coef = static_cast<float>(max_norm) / (total + 1e-6f);
  if (!(coef >= 1.0f)) {
    for (const Tensor& g : gs)
      update_in_place(g, [&](float* x, int64_t n) { simd::scale_f32(x, n, coef); });
  }
  return total;
}

void clip_grad_value_(const std::vector<Tensor>& grads, double clip_value) {
  const char* op = "clipGradValue_";
  check(!std::isnan(clip_value), op, ": clipValue is NaN");
  const float v = static_cast<float>(clip_value);
  for (const Tensor& g : defined_grads(op, grads))
    update_in_place(g, [&](float* x, int64_t n) { simd::clamp_f32(x, n, -v, v); });
}

}  // namespace sg::optim
