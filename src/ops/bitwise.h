// Bitwise ops on int32 and bool tensors, and gcd/lcm on int32 (PyTorch 1.13's torch.bitwise_*,
// torch.gcd, torch.lcm). No gradients: the results are integers.
#pragma once
#include "core/tensor.h"

namespace sg {

Tensor bitwise_and(const Tensor& a, const Tensor& b);
Tensor bitwise_or(const Tensor& a, const Tensor& b);
Tensor bitwise_xor(const Tensor& a, const Tensor& b);
Tensor bitwise_not(const Tensor& x);
Tensor bitwise_left_shift(const Tensor& a, const Tensor& b);
Tensor bitwise_right_shift(const Tensor& a, const Tensor& b);
Tensor gcd(const Tensor& a, const Tensor& b);
Tensor lcm(const Tensor& a, const Tensor& b);

}  // namespace sg
