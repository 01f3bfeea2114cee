// Triangles, diagonals and outer products, composed from ops: a band mask built from two aranges
// (column − row compared with the diagonal) selects elements with where, so values, dtypes,
// devices and gradients all come from ops that already have them. diag of a matrix copies the
// strided view (stride row + column) of its diagonal: a new tensor, as PyTorch's diag.
#include <algorithm>

#include "autograd/record.h"
#include "core/copy.h"
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {

namespace {

using Grads = std::vector<Tensor>;

// [n, m] bool: cmp(column − row, k) at every position, on device dev.
template <class Cmp>
Tensor band_mask(int64_t n, int64_t m, int64_t k, Device dev, Cmp cmp) {
  // Diagonals beyond the matrix all give the same mask; clamping keeps k inside int32.
  k = std::clamp<int64_t>(k, -n - 1, m + 1);
  const Tensor rows = reshape(arange(0, double(n), 1, DType::Int32, dev), {n, 1});
  const Tensor cols = arange(0, double(m), 1, DType::Int32, dev);
  return cmp(sub(cols, rows), scalar_tensor(double(k), DType::Int32));
}

Tensor triangle(const char* op, const Tensor& x, int64_t k, bool lower) {
  check(x.ndim() >= 2, op, ": expected a tensor of at least 2 dims, got shape ", x.shape());
  const int64_t n = x.shape()[x.ndim() - 2], m = x.shape()[x.ndim() - 1];
  const Tensor keep = band_mask(n, m, k, x.device(), lower ? &le : &ge);
  return where(keep, x, scalar_tensor(0, x.dtype()));
}

// The [n, m] matrix whose diagonal k holds v (len elements), zeros elsewhere.
Tensor diag_embed(const Tensor& v, int64_t n, int64_t m, int64_t k) {
  const int64_t len = v.numel(), left = std::max<int64_t>(k, 0);
  if (len == 0) return zeros({n, m}, v.dtype(), v.device());
  // Column j of the diagonal holds v[j − left]: one row of v padded to m columns, kept on the band.
  const Tensor row = pad(v, {left, m - left - len});
  return where(band_mask(n, m, k, v.device(), &eq), row, scalar_tensor(0, v.dtype()));
}

}  // namespace

Tensor tril(const Tensor& x, int64_t diagonal) { return triangle("tril", x, diagonal, true); }
Tensor triu(const Tensor& x, int64_t diagonal) { return triangle("triu", x, diagonal, false); }

Tensor diag(const Tensor& x, int64_t k) {
  check(x.ndim() == 1 || x.ndim() == 2, "diag: expected a 1-D or 2-D tensor, got shape ", x.shape());
  if (x.ndim() == 1) {
    const int64_t size = x.numel() + (k < 0 ? -k : k);
    return diag_embed(x, size, size, k);
  }
  const int64_t n = x.shape()[0], m = x.shape()[1];
  const int64_t len = std::max<int64_t>(0, k >= 0 ? std::min(n, m - k) : std::min(n + k, m));
  const int64_t first = len == 0 ? 0 : (k >= 0 ? k * x.strides()[1] : -k * x.strides()[0]);
  Tensor out = contiguous_copy(Tensor::view_of(x, {len}, {x.strides()[0] + x.strides()[1]}, x.offset() + first));
  return record("diag", out, {x}, [n, m, k](const Tensor& g) -> Grads { return {diag_embed(g, n, m, k)}; });
}

Tensor outer(const Tensor& a, const Tensor& b) {
  check(a.ndim() == 1 && b.ndim() == 1, "outer: expected two 1-D tensors, got shapes ", a.shape(), " and ", b.shape());
  return mul(reshape(a, {a.numel(), 1}), reshape(b, {1, b.numel()}));
}

}  // namespace sg
