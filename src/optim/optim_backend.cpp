// LayerKernels' defaults for the optimizer updates (kernels/layer_kernels.h): the vectorized
// kernels of optim_kernels.cpp, on both CPU backends (their scalar twins are the tests' oracle).
#include "kernels/layer_kernels.h"
#include "optim/optim_kernels.h"

namespace sg {

void LayerKernels::sgd_step_f32(float* p, const float* g, float* buf, int64_t n, const optim::SgdScalars& s) const {
  optim::simd::sgd_f32(p, g, buf, n, s);
}

void LayerKernels::adam_step_f32(float* p, const float* g, float* m, float* v, float* vmax, int64_t n,
                                 const optim::AdamScalars& s) const {
  optim::simd::adam_f32(p, g, m, v, vmax, n, s);
}

void LayerKernels::rmsprop_step_f32(float* p, const float* g, float* square_avg, float* grad_avg, float* buf,
                                    int64_t n, const optim::RmspropScalars& s) const {
  optim::simd::rmsprop_f32(p, g, square_avg, grad_avg, buf, n, s);
}

void LayerKernels::adagrad_step_f32(float* p, const float* g, float* sum, int64_t n,
                                    const optim::AdagradScalars& s) const {
  optim::simd::adagrad_f32(p, g, sum, n, s);
}

void LayerKernels::adadelta_step_f32(float* p, const float* g, float* square_avg, float* acc_delta, int64_t n,
                                     const optim::AdadeltaScalars& s) const {
  optim::simd::adadelta_f32(p, g, square_avg, acc_delta, n, s);
}

void LayerKernels::adamax_step_f32(float* p, const float* g, float* exp_avg, float* exp_inf, int64_t n,
                                   const optim::AdamaxScalars& s) const {
  optim::simd::adamax_f32(p, g, exp_avg, exp_inf, n, s);
}

void LayerKernels::nadam_step_f32(float* p, const float* g, float* exp_avg, float* exp_avg_sq, int64_t n,
                                  const optim::NadamScalars& s) const {
  optim::simd::nadam_f32(p, g, exp_avg, exp_avg_sq, n, s);
}

void LayerKernels::radam_step_f32(float* p, const float* g, float* exp_avg, float* exp_avg_sq, int64_t n,
                                  const optim::RadamScalars& s) const {
  optim::simd::radam_f32(p, g, exp_avg, exp_avg_sq, n, s);
}

}  // namespace sg
