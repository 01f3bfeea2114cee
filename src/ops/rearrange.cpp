// flip, roll, repeat and tile, composed from ops that already have kernels and gradients:
// flip is an index_select with reversed positions per dim, roll a cat of two narrows per dim,
// repeat an expand of x with a unit dim before each of its dims, copied into the tiled shape.
// Each returns a new tensor (never a view of x), as PyTorch's do.
#include <string>
#include <vector>

#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {

namespace {

// The dims listed, normalized, each at most once.
Dims distinct_dims(const char* op, const Dims& dims, int64_t ndim) {
  Dims out;
  for (int64_t d : dims) {
    const int64_t n = normalize_dim(d, ndim, op);
    for (int64_t seen : out) check(seen != n, op, ": dim ", n, " appears more than once in dims ", dims);
    out.push_back(n);
  }
  return out;
}

// out when the ops above made a new tensor, else a copy of x (out is x, or a view of it).
Tensor fresh(const Tensor& out, const Tensor& x) {
  return out.impl()->storage == x.impl()->storage ? clone(out) : out;
}

Tensor repeat_counts(const char* op, const Tensor& x, const std::vector<int64_t>& repeats) {
  const int64_t nd = x.ndim(), n = int64_t(repeats.size());
  check(n >= nd, op, ": expected at least as many repeat counts as the tensor has dims (", nd, "), got ", n,
        " (", repeats, ")");
  for (int64_t r : repeats) check(r >= 0, op, ": expected non-negative repeat counts, got ", repeats);
  // x as [1, s0, 1, s1, ...] (missing leading dims of size 1), expanded to [r0, s0, r1, s1, ...].
  Shape unit, expanded, tiled;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t s = i < n - nd ? 1 : x.shape()[i - (n - nd)];
    unit.insert(unit.end(), {1, s});
    expanded.insert(expanded.end(), {repeats[i], s});
    tiled.push_back(repeats[i] * s);
  }
  return fresh(reshape(expand(reshape(x, unit), expanded), tiled), x);
}

}  // namespace

Tensor flip(const Tensor& x, const Dims& dims) {
  Tensor out = x;
  for (int64_t d : distinct_dims("flip", dims, x.ndim())) {
    if (x.ndim() == 0) continue;
    const int64_t n = x.shape()[d];
    if (n > 1) out = index_select(out, d, arange(double(n - 1), -1, -1, DType::Int32, x.device()));
  }
  return fresh(out, x);
}

Tensor roll(const Tensor& x, const std::vector<int64_t>& shifts, const Dims& dims) {
  if (dims.empty()) {
    check(shifts.size() == 1, "roll: without dims, expected one shift (over the flattened tensor), got ", shifts);
    return reshape(roll(flatten(x), shifts, {0}), x.shape());
  }
  check(shifts.size() == dims.size(), "roll: expected as many shifts as dims, got shifts ", shifts, " and dims ", dims);
  check(x.ndim() > 0, "roll: cannot roll a 0-dim tensor along a dim; omit dims");
  Tensor out = x;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = normalize_dim(dims[i], x.ndim(), "roll");
    const int64_t n = x.shape()[d];
    if (n == 0) continue;
    const int64_t s = ((shifts[i] % n) + n) % n;  // the first s elements out are the last s in
    if (s != 0) out = cat({narrow(out, d, n - s, s), narrow(out, d, 0, n - s)}, d);
  }
  return fresh(out, x);
}

Tensor repeat(const Tensor& x, const std::vector<int64_t>& repeats) { return repeat_counts("repeat", x, repeats); }

Tensor tile(const Tensor& x, const std::vector<int64_t>& reps) {
  std::vector<int64_t> counts(reps);
  if (int64_t(counts.size()) < x.ndim()) counts.insert(counts.begin(), x.ndim() - int64_t(counts.size()), 1);
  return repeat_counts("tile", x, counts);
}

}  // namespace sg
