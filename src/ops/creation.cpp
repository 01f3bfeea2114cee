// Creation ops (zeros, ones, full, arange, linspace, eye) and the copies/casts between layouts
// and dtypes (cast, clone, contiguous). Random creation lives in random.cpp. zeros and full fill
// on the device; arange, linspace and eye are made on the host (their values come from index
// arithmetic in double) and moved.
#include <algorithm>
#include <cmath>
#include <limits>

#include "autograd/grad_mode.h"
#include "autograd/record.h"
#include "core/copy.h"
#include "core/dtype_dispatch.h"
#include "core/error.h"
#include "kernels/backend.h"
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {

namespace {

// The value `v` stored as `dtype`, as PyTorch's fill does: float → int truncates toward zero,
// anything nonzero → true. Values an integer dtype cannot hold are rejected rather than wrapped
// (the C++ conversion would be undefined).
void check_fits(const char* op, double v, DType dtype) {
  if (!is_integral(dtype)) return;
  check(!std::isnan(v), op, ": cannot store NaN in an ", dtype_name(dtype), " tensor");
  const double t = std::trunc(v);
  const double lo = dtype == DType::Int64 ? -9223372036854775808.0 : dtype == DType::Int32 ? -2147483648.0
                    : dtype == DType::Int8  ? -128.0 : 0.0;
  const double hi_excl = dtype == DType::Int64 ? 9223372036854775808.0 : dtype == DType::Int32 ? 2147483648.0
                         : dtype == DType::Int8  ? 128.0 : 256.0;
  check(t >= lo && t < hi_excl, op, ": value ", v, " is out of range for ", dtype_name(dtype));
}

// A tensor made on the host (arange, linspace, eye: index arithmetic in double) on device d.
Tensor on(Device d, const Tensor& host) { return d == Device::CPU ? host : moved_to(host, d); }

// Writes the double `v` at flat index i of a contiguous tensor (v already checked to fit).
void store(const Tensor& t, int64_t i, double v) {
  void* base = t.raw();
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    static_cast<T*>(base)[i] = narrow_to<T>(v);
  });
}

}  // namespace

Tensor scalar_tensor(double value, DType dtype) { return full({}, value, dtype); }

Tensor zeros(const Shape& shape, DType dtype, Device device) {
  numel_of(shape);                             // validates the sizes with a clear message
  return Tensor::empty(shape, dtype, device);  // storage is zero-filled
}

Tensor ones(const Shape& shape, DType dtype, Device device) { return full(shape, 1.0, dtype, device); }

Tensor full(const Shape& shape, double value, DType dtype, Device device) {
  check_fits("full", value, dtype);
  numel_of(shape);
  if (value == 0) return Tensor::empty(shape, dtype, device);
  Tensor t = Tensor::uninitialized(shape, dtype, device);
  if (t.numel() > 0) backend_for(device).fill(dtype, value, t.dev_raw(), t.numel());
  return t;
}

Tensor arange(double start, double end, double step, DType dtype, Device device) {
  check(std::isfinite(start) && std::isfinite(end), "arange: unsupported range: ", start, " -> ", end);
  check(std::isfinite(step) && step != 0, "arange: step must be nonzero and finite, got ", step);
  check((step > 0 && end >= start) || (step < 0 && end <= start),
        "arange: upper bound and larger bound inconsistent with step sign (start ", start, ", end ", end,
        ", step ", step, ")");
  // PyTorch's length rule, computed in double.
  double len_d = std::ceil((end - start) / step);
  check(len_d >= 0 && len_d < 9.0e15, "arange: invalid number of elements ", len_d);
  int64_t n = static_cast<int64_t>(len_d);
  if (n > 0) {
    check_fits("arange", start, dtype);
    check_fits("arange", start + step * double(n - 1), dtype);
  }
  Tensor t = Tensor::empty({n}, dtype);
  for (int64_t i = 0; i < n; ++i) store(t, i, start + step * double(i));
  return on(device, t);
}

Tensor linspace(double start, double end, int64_t steps, Device device, DType dtype) {
  check(steps >= 0, "linspace: number of steps must be non-negative, got ", steps);
  check(dtype == DType::Float32 || dtype == DType::Float64, "linspace: expected dtype float32 or float64, got ",
        dtype_name(dtype));
  Tensor t = Tensor::empty({steps}, dtype);
  if (steps == 1) store(t, 0, start);
  if (steps > 1) {
    // PyTorch's symmetric formula: the first half counts up from start, the second half down
    // from end, so both endpoints are exact and the rounding error is symmetric.
    double step = (end - start) / double(steps - 1);
    int64_t half = steps / 2;
    for (int64_t i = 0; i < steps; ++i)
      store(t, i, i < half ? start + step * double(i) : end - step * double(steps - i - 1));
  }
  return on(device, t);
}

Tensor eye(int64_t n, int64_t m, Device device) {
  if (m == -1) m = n;  // the default: square
  check(n >= 0 && m >= 0, "eye: n and m must be non-negative, got n ", n, " and m ", m);
  Tensor t = Tensor::empty({n, m}, DType::Float32);
  float* p = t.f32();
  for (int64_t i = 0; i < std::min(n, m); ++i) p[i * m + i] = 1.0f;
  return on(device, t);
}

Tensor cast(const Tensor& x, DType dtype) {
  check(x.defined(), "cast: undefined tensor");
  if (x.dtype() == dtype) return x;  // PyTorch's .to(same dtype) returns self
  Tensor out = contiguous_copy(x, dtype);
  // Between two floating dtypes the cast is differentiable, as PyTorch's .to(): the gradient is
  // cast back to the input's dtype (itself a recorded cast, so higher orders follow). A cast to
  // an integer or bool cuts the graph, as PyTorch's (such tensors cannot require grad).
  if (!is_floating(x.dtype()) || !is_floating(dtype)) return out;
  const DType from = x.dtype();
  return record("cast", out, {x}, [from](const Tensor& g) { return std::vector<Tensor>{cast(g, from)}; });
}

Tensor clone(const Tensor& x) {
  check(x.defined(), "clone: undefined tensor");
  Tensor out = contiguous_copy(x);
  return record("clone", out, {x}, [](const Tensor& g) { return std::vector<Tensor>{g}; });
}

Tensor contiguous(const Tensor& x) {
  check(x.defined(), "contiguous: undefined tensor");
  if (x.is_contiguous()) return x;
  Tensor out = contiguous_copy(x);
  return record("contiguous", out, {x}, [](const Tensor& g) { return std::vector<Tensor>{g}; });
}

}  // namespace sg
