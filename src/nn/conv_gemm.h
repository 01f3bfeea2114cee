// The three GEMM paths every convolution is made of, on raw contiguous float32 buffers:
//   forward       y  = W · im2col(x)               (+ bias)
//   input grad    dx = col2im(Wᵀ · dy)
//   weight grad   dW = Σₙ dy · im2col(x)ᵀ
// per image and per group, through backend().gemm_f32. conv2d uses all three;
// conv_transpose2d is the same geometry read backwards (its forward is the input-grad path).
// 1-d convolutions are 2-d ones with H = kH = 1. The columns of a chunk of images (up to
// 1 MiB of them, at least one image) sit side by side so each group is one wide GEMM; the
// buffers come from the caching allocator. Isolated here so that speed work stays out of the
// op layer in conv.cpp.
#pragma once
#include <cstdint>

namespace sg {

// A convolution's 2-d geometry. Only the top/left padding is stored: the bottom/right one
// is implied by the output size (positions past the input read as zero), which is how
// 'same' padding's asymmetric split and conv_transpose2d's output_padding are expressed.
struct ConvGeom {
  int64_t N = 1;                    // images
  int64_t C = 1, H = 1, W = 1;      // input channels and size
  int64_t O = 1, groups = 1;        // output channels
  int64_t kH = 1, kW = 1;           // kernel
  int64_t sH = 1, sW = 1;           // stride
  int64_t pH = 0, pW = 0;           // top / left padding
  int64_t dH = 1, dW = 1;           // dilation
  int64_t oH = 1, oW = 1;           // output size

  int64_t Cg() const { return C / groups; }
  int64_t Og() const { return O / groups; }
  int64_t K() const { return Cg() * kH * kW; }  // rows of the column matrix
  int64_t L() const { return oH * oW; }         // columns of the column matrix
};

// y [N, O, oH, oW] = conv(x [N, C, H, W], w [O, C/groups, kH, kW]) + bias [O] (may be null).
void conv_forward_f32(const ConvGeom& g, const float* x, const float* w, const float* bias, float* y);
// dx [N, C, H, W] (overwritten) from dy [N, O, oH, oW].
void conv_input_grad_f32(const ConvGeom& g, const float* dy, const float* w, float* dx);
// dw [O, C/groups, kH, kW] (overwritten) from x and dy.
void conv_weight_grad_f32(const ConvGeom& g, const float* x, const float* dy, float* dw);

}  // namespace sg
