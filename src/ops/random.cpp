// Random creation ops over the global Philox generator of core/rng.h (sg::manual_seed there
// resets it). Each op draws its values in row-major order, so a seed fixes every tensor.
#include <cmath>
#include <limits>

#include "core/error.h"
#include "core/rng.h"
#include "kernels/backend.h"
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {

namespace {

// float64 draws, on the host from the global stream: u = (53 bits of two words)·2^-53 in [0, 1),
// as PyTorch's CPU uniform for double takes 53 random bits; normal pairs by Box–Muller in double
// (u1 in (0, 1] keeps log finite), two values from four words. Then moved to the device.
Tensor draw_f64(const Shape& shape, Device device, bool normal) {
  Tensor t = Tensor::empty(shape, DType::Float64);
  const int64_t n = t.numel();
  Philox rng;
  rng.set_state(reserve_words(normal ? 4 * ((uint64_t(n) + 1) / 2) : 2 * uint64_t(n)));
  const auto unit = [&rng] {
    const uint64_t hi = rng.next_u32(), lo = rng.next_u32();
    return double(((hi << 32) | lo) >> 11) * 0x1p-53;
  };
  double* p = t.f64();
  for (int64_t i = 0; i < n; i += normal ? 2 : 1) {
    if (!normal) {
      p[i] = unit();
      continue;
    }
    const double u1 = 1.0 - unit(), u2 = unit();
    const double r = std::sqrt(-2.0 * std::log(u1)), theta = 6.283185307179586476925286766559 * u2;
    p[i] = r * std::cos(theta);
    if (i + 1 < n) p[i + 1] = r * std::sin(theta);
  }
  return moved_to(t, device);
}

void check_draw_dtype(const char* op, DType dtype) {
  check(dtype == DType::Float32 || dtype == DType::Float64, op, ": expected dtype float32 or float64, got ",
        dtype_name(dtype));
}

}  // namespace

Tensor rand(const Shape& shape, Device device, DType dtype) {
  numel_of(shape);
  check_draw_dtype("rand", dtype);
  if (dtype == DType::Float64) return draw_f64(shape, device, false);
  Tensor t = Tensor::uninitialized(shape, DType::Float32, device);
  const RngState at = reserve_words(uniform_words(t.numel()));
  if (t.numel() > 0) backend_for(device).random_uniform_f32(at, 0.0f, 1.0f, t.dev_f32(), t.numel());
  return t;
}

Tensor randn(const Shape& shape, Device device, DType dtype) {
  numel_of(shape);
  check_draw_dtype("randn", dtype);
  if (dtype == DType::Float64) return draw_f64(shape, device, true);
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
