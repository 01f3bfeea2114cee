// Optimizer update kernels over contiguous float32 buffers of n elements, updated in place.
// Each follows PyTorch 1.13's single-tensor update (torch/optim/*.py) operation by operation,
// in float32, with the same operand order as ATen's kernels (add with alpha: a + α·b;
// addcmul: a + (v·b)·c; addcdiv: a + (v·b)/c), so that results stay within a few ulps of
// PyTorch's. Multiplies and adds are never fused, so the SIMD kernels (simd::, Highway,
// dispatched at run time natively and statically in wasm) and their scalar twins (ref::, the
// oracle of the tests) give bit-identical results.
//
// Per-call scalars are computed by the caller (optim.cpp) in double, as PyTorch computes them
// in Python, and passed rounded to float, as ATen rounds a Python scalar for a float tensor.
#pragma once
#include <cstdint>

#include "kernels/optim_scalars.h"

namespace sg::optim {

// The vectorized kernels (optim_kernels.cpp) and their scalar twins (optim_kernels_ref.cpp):
// the same declarations in two namespaces.
namespace simd {
void sgd_f32(float* p, const float* g, float* buf, int64_t n, const SgdScalars& s);
void adam_f32(float* p, const float* g, float* m, float* v, float* vmax, int64_t n,
              const AdamScalars& s);
void rmsprop_f32(float* p, const float* g, float* square_avg, float* grad_avg, float* buf,
                 int64_t n, const RmspropScalars& s);
void adagrad_f32(float* p, const float* g, float* sum, int64_t n, const AdagradScalars& s);
// For clip_grad_norm_/clip_grad_value_: sums accumulated in double; max |x| is NaN if any x is.
double sum_squares_f32(const float* x, int64_t n);
double sum_abs_f32(const float* x, int64_t n);
float max_abs_f32(const float* x, int64_t n);
void scale_f32(float* x, int64_t n, float c);             // x ·= c
void clamp_f32(float* x, int64_t n, float lo, float hi);  // min(max(x, lo), hi); NaN stays NaN
}  // namespace simd
namespace ref {
void sgd_f32(float* p, const float* g, float* buf, int64_t n, const SgdScalars& s);
void adam_f32(float* p, const float* g, float* m, float* v, float* vmax, int64_t n,
              const AdamScalars& s);
void rmsprop_f32(float* p, const float* g, float* square_avg, float* grad_avg, float* buf,
                 int64_t n, const RmspropScalars& s);
void adagrad_f32(float* p, const float* g, float* sum, int64_t n, const AdagradScalars& s);
// For clip_grad_norm_/clip_grad_value_: sums accumulated in double; max |x| is NaN if any x is.
double sum_squares_f32(const float* x, int64_t n);
double sum_abs_f32(const float* x, int64_t n);
float max_abs_f32(const float* x, int64_t n);
void scale_f32(float* x, int64_t n, float c);             // x ·= c
void clamp_f32(float* x, int64_t n, float lo, float hi);  // min(max(x, lo), hi); NaN stays NaN
}  // namespace ref

namespace simd {
void adadelta_f32(float* p, const float* g, float* square_avg, float* acc_delta, int64_t n,
                  const AdadeltaScalars& s);
void adamax_f32(float* p, const float* g, float* exp_avg, float* exp_inf, int64_t n,
                const AdamaxScalars& s);
void nadam_f32(float* p, const float* g, float* exp_avg, float* exp_avg_sq, int64_t n,
               const NadamScalars& s);
void radam_f32(float* p, const float* g, float* exp_avg, float* exp_avg_sq, int64_t n,
               const RadamScalars& s);
}  // namespace simd
namespace ref {
void adadelta_f32(float* p, const float* g, float* square_avg, float* acc_delta, int64_t n,
                  const AdadeltaScalars& s);
void adamax_f32(float* p, const float* g, float* exp_avg, float* exp_inf, int64_t n,
                const AdamaxScalars& s);
void nadam_f32(float* p, const float* g, float* exp_avg, float* exp_avg_sq, int64_t n,
               const NadamScalars& s);
void radam_f32(float* p, const float* g, float* exp_avg, float* exp_avg_sq, int64_t n,
               const RadamScalars& s);
}  // namespace ref

// The float64 parameters' kernels (optim.cpp calls them on the CPU): the ref:: loops above in
// double, with the scalars rounded to double (exact for Python's floats), as torch.optim on a
// float64 tensor.
namespace ref {
void sgd_f64(double* p, const double* g, double* buf, int64_t n, const SgdScalarsT<double>& s);
void adam_f64(double* p, const double* g, double* m, double* v, double* vmax, int64_t n,
              const AdamScalarsT<double>& s);
void rmsprop_f64(double* p, const double* g, double* square_avg, double* grad_avg, double* buf,
                 int64_t n, const RmspropScalarsT<double>& s);
void adagrad_f64(double* p, const double* g, double* sum, int64_t n, const AdagradScalarsT<double>& s);
void adadelta_f64(double* p, const double* g, double* square_avg, double* acc_delta, int64_t n,
                  const AdadeltaScalarsT<double>& s);
void adamax_f64(double* p, const double* g, double* exp_avg, double* exp_inf, int64_t n,
                const AdamaxScalarsT<double>& s);
void nadam_f64(double* p, const double* g, double* exp_avg, double* exp_avg_sq, int64_t n,
               const NadamScalarsT<double>& s);
void radam_f64(double* p, const double* g, double* exp_avg, double* exp_avg_sq, int64_t n,
               const RadamScalarsT<double>& s);
}  // namespace ref

}  // namespace sg::optim
