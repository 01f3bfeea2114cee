// clip_grad_norm_ and clip_grad_value_ (optim.h), PyTorch 1.13's torch/nn/utils/clip_grad.py.
#include <cmath>
#include <limits>

#include "core/copy.h"
#include "core/error.h"
#include "core/half.h"
#include "optim/optim.h"
#include "optim/optim_kernels.h"

namespace sg::optim {

namespace {

std::vector<Tensor> defined_grads(const char* op, const std::vector<Tensor>& grads) {
  std::vector<Tensor> out;
  for (size_t i = 0; i < grads.size(); ++i) {
    const Tensor& g = grads[i];
    if (!g.defined()) continue;
    const DType d = g.dtype();
    check(d == DType::Float32 || d == DType::Float64 || d == DType::Float16 || d == DType::BFloat16, op, ": grad ", i,
          " must be float32, float64, float16 or bfloat16, got ", dtype_name(d));
    check(g.device() == Device::CPU, op, ": grad ", i, " must be on the cpu");
    out.push_back(g);
  }
  return out;
}

// A value held in dtype d, as a 0-d tensor of d holds it (float16/bfloat16 through float, as
// their kernels compute).
double held_as(DType d, double v) {
  switch (d) {
    case DType::Float64: return v;
    case DType::Float16: return f16_to_f32(f32_to_f16(float(v)));
    case DType::BFloat16: return bf16_to_f32(f32_to_bf16(float(v)));
    default: return float(v);
  }
}

// fn(data, n) on g's elements in place, in float32 (float16/bfloat16 widened, each result
// rounded once on the store, as their CPU kernels) or, for a float64 grad, f64(data, n) in double.
template <class Fn, class Fn64>
void update_in_place(const Tensor& g, const Fn& fn, const Fn64& f64) {
  const bool wide = g.dtype() == DType::Float64;
  Tensor work = as_contiguous(g, wide ? DType::Float64 : DType::Float32);
  if (wide) f64(work.f64(), work.numel());
  else fn(work.f32(), work.numel());
  if (!work.same(g)) copy_into(g, work);
}

// The norm of a float64 grad, in double (torch.norm of a float64 tensor).
double norm_of_f64(const double* x, int64_t n, double p) {
  if (std::isinf(p)) {
    double best = p > 0 ? 0.0 : std::numeric_limits<double>::infinity();
    for (int64_t i = 0; i < n; ++i) {
      if (std::isnan(x[i])) return x[i];
      best = p > 0 ? std::fmax(best, std::fabs(x[i])) : std::fmin(best, std::fabs(x[i]));
    }
    return best;
  }
  double sum = 0;
  for (int64_t i = 0; i < n; ++i)
    sum += p == 0 ? double(x[i] != 0) : p == 2 ? x[i] * x[i] : p == 1 ? std::fabs(x[i]) : std::pow(std::fabs(x[i]), p);
  return p == 0 ? sum : p == 2 ? std::sqrt(sum) : p == 1 ? sum : std::pow(sum, 1 / p);
}

// The norm of float32 values (a float32 grad, or a float16/bfloat16 one widened).
double norm_of_f32(const float* x, int64_t n, double p) {
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

// The norm of one grad, as torch.norm(g, p) (float accumulation aside), held in g's dtype.
double norm_of(const Tensor& g, double p) {
  const bool wide = g.dtype() == DType::Float64;
  const Tensor c = as_contiguous(g, wide ? DType::Float64 : DType::Float32);
  if (wide) return norm_of_f64(c.f64(), c.numel(), p);
  const double norm = norm_of_f32(c.f32(), c.numel(), p);
  // float32's per-grad norms stay in double (only the total is rounded, as before); the 16-bit
  // dtypes' norms are 16-bit tensors in PyTorch, and their total is computed from those.
  return g.dtype() == DType::Float32 ? norm : held_as(g.dtype(), norm);
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
  DType dtype = gs[0].dtype();  // torch.stack of the norms: their promoted dtype
  for (const Tensor& g : gs) {
    norms.push_back(norm_of(g, norm_type));
    dtype = promote_types(dtype, g.dtype());
  }
  // PyTorch's total is a tensor of that dtype: round it as PyTorch holds it.
  const double total = held_as(dtype, norm_of_norms(norms, norm_type));
  check(!error_if_nonfinite || std::isfinite(total), op, ": the total norm of order ", norm_type,
        " for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this "
        "error and scale the gradients by the non-finite norm anyway, set errorIfNonfinite=false");
  // clip_coef = max_norm / (total + 1e-6) in the total's dtype (each operation rounded to it; in
  // float32 arithmetic for float32 and the 16-bit dtypes), clamped to at most 1; multiplying by 1
  // changes nothing, so only a smaller (or NaN) coefficient touches the grads.
  const double coef = dtype == DType::Float64
                          ? max_norm / (total + 1e-6)
                          : held_as(dtype, float(max_norm) / float(held_as(dtype, float(total) + 1e-6f)));
  if (!(coef >= 1.0)) {
    for (const Tensor& g : gs)
      update_in_place(
          g, [&](float* x, int64_t n) { simd::scale_f32(x, n, float(coef)); },
          [&](double* x, int64_t n) {
            for (int64_t i = 0; i < n; ++i) x[i] *= coef;
          });
  }
  return total;
}

void clip_grad_value_(const std::vector<Tensor>& grads, double clip_value) {
  const char* op = "clipGradValue_";
  check(!std::isnan(clip_value), op, ": clipValue is NaN");
  const float v = static_cast<float>(clip_value);
  for (const Tensor& g : defined_grads(op, grads))
    update_in_place(
        g, [&](float* x, int64_t n) { simd::clamp_f32(x, n, -v, v); },
        [&](double* x, int64_t n) {
          for (int64_t i = 0; i < n; ++i)
            if (!std::isnan(x[i])) x[i] = std::fmin(std::fmax(x[i], -clip_value), clip_value);
        });
}

}  // namespace sg::optim
