// A convolution's geometry, as the Backend's convolution methods take it (backend.h).
#pragma once
#include <cstdint>

namespace sg {

// conv2d over a batch: x [N, C, H, W] → y [N, O, oH, oW] with weight [O, C/groups, kH, kW].
// Only the top/left padding is stored: the bottom/right one is implied by the output size
// (positions past the input read as zero), which is how 'same' padding's asymmetric split
// and conv_transpose2d's output_padding are expressed. A 1-d convolution has H = kH = 1.
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
  int64_t K() const { return Cg() * kH * kW; }  // rows of one group's column matrix
  int64_t L() const { return oH * oW; }         // output positions per image
};

}  // namespace sg
