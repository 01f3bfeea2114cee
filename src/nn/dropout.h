// Dropout with PyTorch's semantics (F.dropout, F.dropout2d). The keep mask comes from the
// library's generator (src/core/rng.h), so sg.manualSeed(s) reproduces it on every backend.
#pragma once
#include "core/tensor.h"

namespace sg {

// training: each element is kept with probability 1 − p and scaled by 1 / (1 − p), else
// zeroed (p = 1 zeroes everything); the gradient goes through the same mask. Not training:
// x itself. p outside [0, 1] is an error.
Tensor dropout(const Tensor& x, double p = 0.5, bool training = true);

// Channel dropout for x [N, C, H, W] or unbatched [C, H, W]: whole channels are kept (and
// scaled) or zeroed together. The 3-D input is read as [C, H, W], the unbatched layout of
// Dropout2d (PyTorch 1.13 reads it as [N, C, L] with a deprecation warning announcing this).
Tensor dropout2d(const Tensor& x, double p = 0.5, bool training = true);

}  // namespace sg
