// Random creation ops over the global Philox generator of core/rng.h (sg::manual_seed there
// resets it). Each op draws its values in row-major order, so a seed fixes every tensor.
#include <limits>

#include "core/error.h"
#include "core/rng.h"
#include "kernels/backend.h"
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {

Tensor rand(const Shape& shape, Device device) {
  numel_of(shape);
  Tensor t = Tensor::uninitialized(shape, DType::Float32, device);
  const RngState at = reserve_words(uniform_words(t.numel()));
  if (t.numel() > 0) backend_for(device).random_uniform_f32(at, 0.0f, 1.0f, t.dev_f32(), t.numel());
  return t;
}

Tensor randn(const Shape& shape, Device device) {
  numel_of(shape);
  Tensor t = Tensor::uninitialized(shape, DType::Float32, device);
  const RngState at = reserve_words(normal_words(t.numel()));
  if (t.numel() > 0) backend_for(device).random_normal_f32(at, 0.0f, 1.0f, t.dev_f32(), t.numel());
  return t;
}

// Rejection sampling uses a data-dependent number of words: drawn on the host, then moved.
Tensor randint(int64_t low, int64_t high, const Shape& shape, Device device) {
  constexpr int64_t kMin = std::numeric_limits<int32_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  check(low < high, "randint: expected low < high, got low ", low, " and high ", high);
  check(low >= kMin && high <= kMax + 1, "randint: the range [", low, ", ", high,
        ") does not fit in int32 (expected low >= ", kMin, " and high <= ", kMax + 1, ")");
  numel_of(shape);
  Tensor t = Tensor::empty(shape, DType::Int32);
  int32_t* p = t.i32();
  // high - low ≤ 2^32; the full 2^32 range wraps to bound 0, which next_below reads as 2^32.
  uint32_t bound = uint32_t(uint64_t(high - low));
  int64_t n = t.numel();
  uint32_t* u = reinterpret_cast<uint32_t*>(p);  // same storage, read as offsets from low
  fill_below(u, n, bound);
  for (int64_t i = 0; i < n; ++i) p[i] = int32_t(low + int64_t(u[i]));
  return moved_to(t, device);
}

}  // namespace sg
