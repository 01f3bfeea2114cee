// LayerKernels' defaults for layer norm over rows: none. The CPU backends run layer_norm as the
// composed ops of nn/norm.cpp (their float32 results stay those of that form); a device with a
// kernel (the WebGPU backend, web/webgpu/kernels/layer_norm.ts) overrides these and returns true.
#include "kernels/layer_kernels.h"

namespace sg {

bool LayerKernels::layer_norm_f32(const float*, const float*, const float*, int64_t, int64_t, double, float*, float*,
                                  float*) const {
  return false;
}

bool LayerKernels::layer_norm_backward_f32(const float*, const float*, const float*, const float*, int64_t, int64_t,
                                           float*, float*, float*) const {
  return false;
}

}  // namespace sg
