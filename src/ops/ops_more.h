// The C++ API of the ops that came with PyTorch breadth (issue 13): more elementwise math,
// logical ops, scans, sorting, scatter, triangular and diagonal matrices, einsum, rearranging
// (flip, roll, repeat, tile), selection and multi-dimensional indexing, and sampling. Same rules
// as ops.h: PyTorch semantics, negative dims, sg::Error naming the op (by its JS name) with what
// was expected and what was got, gradients where PyTorch has them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "ops/ops.h"

namespace sg {

// ---- elementwise math (math_more.cpp) ----
// floor/ceil/round/trunc keep int32 and bool inputs as they are (a copy) and have gradient 0;
// round is half to even. The others compute in float32 (ints are cast).
Tensor floor(const Tensor& x);
Tensor ceil(const Tensor& x);
Tensor round(const Tensor& x);
Tensor trunc(const Tensor& x);
Tensor tan(const Tensor& x);
Tensor atan(const Tensor& x);
Tensor asin(const Tensor& x);
Tensor acos(const Tensor& x);
Tensor sinh(const Tensor& x);
Tensor cosh(const Tensor& x);
Tensor atan2(const Tensor& a, const Tensor& b);  // broadcasts
// Modulo and rounded division, broadcasting (ops/modulo.cpp). rounding: "trunc" or "floor".
Tensor fmod(const Tensor& a, const Tensor& b);
Tensor remainder(const Tensor& a, const Tensor& b);
Tensor floor_divide(const Tensor& a, const Tensor& b);
Tensor div_rounded(const Tensor& a, const Tensor& b, const std::string& rounding);
// clamp to [min_val, max_val] whose gradient is 0 at and beyond the bounds (PyTorch's hardtanh;
// relu6 is hardtanh(x, 0, 6)).
Tensor hardtanh(const Tensor& x, double min_val = -1.0, double max_val = 1.0);

// ---- logical ops and tests (logical.cpp): bool results; nonzero (NaN included) is true ----
Tensor logical_and(const Tensor& a, const Tensor& b);
Tensor logical_or(const Tensor& a, const Tensor& b);
Tensor logical_xor(const Tensor& a, const Tensor& b);
Tensor logical_not(const Tensor& x);
Tensor any(const Tensor& x, const Dims& dims = {}, bool keepdim = false);  // empty → false
Tensor all(const Tensor& x, const Dims& dims = {}, bool keepdim = false);  // empty → true

// ---- scans (scan.cpp): float32 stays float32, int32/bool give int32 ----
Tensor cumsum(const Tensor& x, int64_t dim);
Tensor cumprod(const Tensor& x, int64_t dim);  // gradient exact where x has zeros

// ---- sorting (sort.cpp): stable; NaN sorts above every number ----
struct Sorted {
  Tensor values;   // differentiable (a gather of x)
  Tensor indices;  // int32
};
Sorted sort(const Tensor& x, int64_t dim = -1, bool descending = false);
Tensor argsort(const Tensor& x, int64_t dim = -1, bool descending = false);
// The k largest (smallest) along dim, in order; ties keep their original order.
Sorted topk(const Tensor& x, int64_t k, int64_t dim = -1, bool largest = true);

// ---- scatter (scatter.cpp): gather's inverses, out of place ----
// out = x with out[..., index[i], ...] (along dim) = src[i]; src has at least index's extent in
// every dim (or is 0-d: one value). Duplicate indices: the last in row-major order wins.
Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src);
// out = x with src[i] added at each index (duplicates accumulate).
Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src);
// PyTorch 1.13's scatter_reduce: out = x with src's values at each index combined by `reduce`
// ("sum", "prod", "mean", "amax", "amin"); include_self = false leaves x's value out wherever a
// value arrives. float32 or int32 (int32 mean is floor division); src of x's dtype and dims with
// at least index's extent. Gradients (x and src) are PyTorch's: amax/amin split among ties.
Tensor scatter_reduce(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce,
                      bool include_self = true);

// ---- matrices (matrix.cpp) ----
// The lower (upper) triangle of the last two dims: elements with column − row ≤ (≥) diagonal.
Tensor tril(const Tensor& x, int64_t diagonal = 0);
Tensor triu(const Tensor& x, int64_t diagonal = 0);
// 1-D → the square matrix with x on that diagonal; 2-D → that diagonal (a new tensor).
Tensor diag(const Tensor& x, int64_t diagonal = 0);
Tensor outer(const Tensor& a, const Tensor& b);  // 1-D a, b → [a.numel, b.numel]

// ---- einsum (einsum.cpp): sums of products over an equation such as "bij,bjk->bik" ----
// One or more operands, explicit or implicit output, '...' for broadcast batch dims; each pair
// is contracted by one batched matmul. A letter repeated within one operand takes its diagonal.
Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands);

// ---- rearranging (rearrange.cpp) ----
Tensor flip(const Tensor& x, const Dims& dims);
// Shifts along dims (wrapping around); with no dims, over the flattened tensor.
Tensor roll(const Tensor& x, const std::vector<int64_t>& shifts, const Dims& dims = {});
Tensor repeat(const Tensor& x, const std::vector<int64_t>& repeats);  // at least x.ndim counts
Tensor tile(const Tensor& x, const std::vector<int64_t>& reps);       // fewer counts are padded with 1s

// ---- selection and indexing (select.cpp): views ----
Tensor select(const Tensor& x, int64_t dim, int64_t index);  // that dim removed
// One entry of index(): all of a dim, one position (the dim is removed), a range with Python's
// slice rules (start/end absent = the ends, negative counts from the end, clamped; step > 0),
// or '...' (as many All entries as the dims not named).
struct IndexItem {
  enum class Kind : uint8_t { All, At, Range, Ellipsis };
  Kind kind = Kind::All;
  int64_t at = 0;
  std::optional<int64_t> start, end;
  int64_t step = 1;
};
Tensor index(const Tensor& x, const std::vector<IndexItem>& items);

// ---- sampling (sampling.cpp): from the global generator, the same on every device ----
// 1 with probability p (x's values, in [0, 1]; or the number p for every element of x's shape).
Tensor bernoulli(const Tensor& x, std::optional<double> p = std::nullopt);
// int32 category indices drawn from the weights of x (1-D [C] or 2-D [N, C]), samples per row.
Tensor multinomial(const Tensor& x, int64_t samples, bool replacement = false);

}  // namespace sg
