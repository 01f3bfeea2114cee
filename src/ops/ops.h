// The differentiable ops of the C++ API (sg::add(a, b), ...). Each family's forward and
// backward formulas sit side by side in one file of this folder. Semantics follow PyTorch;
// every op validates its arguments and throws sg::Error saying what was expected and got.
// Dims may be negative. Ops return new tensors or views; none modifies its inputs.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace sg {

using Dims = std::vector<int64_t>;  // an empty list in a reduction means "all dims"

// ---- creation (creation.cpp, random.cpp): on the CPU unless a device is named ----
// A 0-d tensor always lives on the CPU: such "scalars" mix with tensors of any device (as in
// PyTorch), moved where an op needs them.
Tensor scalar_tensor(double value, DType dtype = DType::Float32);
Tensor zeros(const Shape& shape, DType dtype = DType::Float32, Device device = Device::CPU);
Tensor ones(const Shape& shape, DType dtype = DType::Float32, Device device = Device::CPU);
Tensor full(const Shape& shape, double value, DType dtype = DType::Float32, Device device = Device::CPU);
Tensor arange(double start, double end, double step, DType dtype, Device device = Device::CPU);
// linspace computes in double and stores in dtype (float32 or float64: a float64 linspace is not a
// widened float32 one).
Tensor linspace(double start, double end, int64_t steps, Device device = Device::CPU, DType dtype = DType::Float32);
Tensor eye(int64_t n, int64_t m = -1, Device device = Device::CPU);
// From the global generator: the same values on every device for the same seed. dtype float32
// (drawn by the device) or float64 (drawn in double on the host from 53 random bits a value, then
// moved: a float64 draw is not a widened float32 one).
Tensor rand(const Shape& shape, Device device = Device::CPU, DType dtype = DType::Float32);   // U[0, 1)
Tensor randn(const Shape& shape, Device device = Device::CPU, DType dtype = DType::Float32);  // N(0, 1)
Tensor randint(int64_t low, int64_t high, const Shape& shape, Device device = Device::CPU);  // int32 in [low, high)
Tensor cast(const Tensor& x, DType dtype);             // differentiable float→float only
Tensor clone(const Tensor& x);
Tensor contiguous(const Tensor& x);                     // x itself when already contiguous
// x's data on device d (x itself when already there). Differentiable: the gradient moves
// back. A device → CPU copy arrives asynchronously (the result is pending until then: see
// core/device.h).
Tensor to_device(const Tensor& x, Device d);

// ---- elementwise (unary.cpp, binary.cpp, activation.cpp) ----
// Binary ops broadcast (NumPy rules) and promote dtypes (bool < int32 < float32). Gradients
// are summed over broadcast dims. Int math stays int for add/sub/mul/neg/abs/max/min/clamp;
// div and the math functions give float32.
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, const Tensor& b);
Tensor maximum(const Tensor& a, const Tensor& b);  // ties split the gradient equally
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor clamp(const Tensor& x, std::optional<double> min, std::optional<double> max);
Tensor neg(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor log2(const Tensor& x);
Tensor log10(const Tensor& x);
Tensor log1p(const Tensor& x);
Tensor expm1(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor rsqrt(const Tensor& x);
Tensor abs(const Tensor& x);   // gradient 0 at 0
Tensor sign(const Tensor& x);  // gradient 0
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
Tensor erf(const Tensor& x);
Tensor square(const Tensor& x);
Tensor reciprocal(const Tensor& x);
Tensor relu(const Tensor& x);  // gradient 0 at 0
Tensor leaky_relu(const Tensor& x, double negative_slope = 0.01);
Tensor prelu(const Tensor& x, const Tensor& weight);  // weight: 1 or C = x.shape[1] values
Tensor elu(const Tensor& x, double alpha = 1.0);
Tensor selu(const Tensor& x);
Tensor gelu(const Tensor& x, const std::string& approximate = "none");  // "none" | "tanh"
Tensor sigmoid(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor softplus(const Tensor& x, double beta = 1.0, double threshold = 20.0);
Tensor silu(const Tensor& x);
// clamp to [min_val, max_val] whose gradient is 0 at and beyond the bounds (PyTorch's hardtanh;
// relu6 is hardtanh(x, 0, 6)).
Tensor hardtanh(const Tensor& x, double min_val = -1.0, double max_val = 1.0);

// ---- rounding and trigonometry (rounding_trig.cpp) ----
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

// ---- modulo and rounded division (modulo.cpp): broadcasting; rounding: "trunc" or "floor" ----
Tensor fmod(const Tensor& a, const Tensor& b);
Tensor remainder(const Tensor& a, const Tensor& b);
Tensor floor_divide(const Tensor& a, const Tensor& b);
Tensor div_rounded(const Tensor& a, const Tensor& b, const std::string& rounding);

// ---- comparison and selection (compare.cpp): bool results, not differentiable ----
Tensor eq(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, const Tensor& b);
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);  // differentiable in a, b
Tensor masked_fill(const Tensor& x, const Tensor& mask, double value);

// ---- logical ops and tests (logical.cpp): bool results; nonzero (NaN included) is true ----
Tensor logical_and(const Tensor& a, const Tensor& b);
Tensor logical_or(const Tensor& a, const Tensor& b);
Tensor logical_xor(const Tensor& a, const Tensor& b);
Tensor logical_not(const Tensor& x);
Tensor any(const Tensor& x, const Dims& dims = {}, bool keepdim = false);  // empty → false
Tensor all(const Tensor& x, const Dims& dims = {}, bool keepdim = false);  // empty → true

// ---- reductions (reduce.cpp) ----
Tensor sum(const Tensor& x, const Dims& dims = {}, bool keepdim = false);  // int/bool → int32
Tensor mean(const Tensor& x, const Dims& dims = {}, bool keepdim = false);
Tensor prod(const Tensor& x, const Dims& dims = {}, bool keepdim = false);
Tensor amax(const Tensor& x, const Dims& dims = {}, bool keepdim = false);  // sg.max(dim)
Tensor amin(const Tensor& x, const Dims& dims = {}, bool keepdim = false);
Tensor var(const Tensor& x, const Dims& dims = {}, bool keepdim = false, bool unbiased = true);
Tensor std(const Tensor& x, const Dims& dims = {}, bool keepdim = false, bool unbiased = true);
Tensor logsumexp(const Tensor& x, const Dims& dims = {}, bool keepdim = false);
Tensor norm(const Tensor& x, double p = 2, const Dims& dims = {}, bool keepdim = false);
// int32 indices; dim absent → index into the flattened tensor. First occurrence wins.
Tensor argmax(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);

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

// ---- softmax family (softmax.cpp) ----
Tensor softmax(const Tensor& x, int64_t dim);
Tensor log_softmax(const Tensor& x, int64_t dim);
// softmax(x + mask) over the last dim with PyTorch's is_causal mask (−inf where j > i, i the
// position along dim −2) without building it: y = 0 there.
Tensor causal_softmax(const Tensor& x);

// ---- linear algebra (matmul.cpp) ----
Tensor matmul(const Tensor& a, const Tensor& b);  // 1-D, 2-D, batched with broadcast batch dims

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

// ---- shape and views (shape.cpp): views share storage where PyTorch's do ----
Tensor reshape(const Tensor& x, const Shape& shape);  // a view when possible, else a copy
Tensor view(const Tensor& x, const Shape& shape);     // a view or an error
Tensor flatten(const Tensor& x, int64_t start = 0, int64_t end = -1);
Tensor squeeze(const Tensor& x, std::optional<int64_t> dim = std::nullopt);
Tensor unsqueeze(const Tensor& x, int64_t dim);
Tensor expand(const Tensor& x, const Shape& shape);  // -1 keeps a size
Tensor transpose(const Tensor& x, int64_t d0, int64_t d1);
Tensor permute(const Tensor& x, const Dims& dims);
Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length);
Tensor slice(const Tensor& x, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
             int64_t step = 1);  // Python slice rules: clamps, negative start/end
Tensor cat(const std::vector<Tensor>& xs, int64_t dim = 0);
Tensor stack(const std::vector<Tensor>& xs, int64_t dim = 0);
std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> split_sections(const Tensor& x, const std::vector<int64_t>& sizes, int64_t dim = 0);
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim = 0);

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

// ---- rearranging (rearrange.cpp): new tensors, never views ----
Tensor flip(const Tensor& x, const Dims& dims);
// Shifts along dims (wrapping around); with no dims, over the flattened tensor.
Tensor roll(const Tensor& x, const std::vector<int64_t>& shifts, const Dims& dims = {});
Tensor repeat(const Tensor& x, const std::vector<int64_t>& repeats);  // at least x.ndim counts
Tensor tile(const Tensor& x, const std::vector<int64_t>& reps);       // fewer counts are padded with 1s

// ---- indexing (index.cpp): int32 indices, bounds-checked ----
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index);
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index);

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

// ---- padding (pad.cpp): PyTorch F.pad order (last dim first: [left, right, top, bottom, ...])
Tensor pad(const Tensor& x, const std::vector<int64_t>& pads, const std::string& mode = "constant",
           double value = 0.0);

// ---- sampling (sampling.cpp): from the global generator, the same on every device ----
// 1 with probability p (x's values, in [0, 1]; or the number p for every element of x's shape).
Tensor bernoulli(const Tensor& x, std::optional<double> p = std::nullopt);
// int32 category indices drawn from the weights of x (1-D [C] or 2-D [N, C]), samples per row.
Tensor multinomial(const Tensor& x, int64_t samples, bool replacement = false);

// ---- helpers shared by backward formulas (broadcast.cpp) ----
// Sums g over the dims that broadcasting added or expanded, so it has `shape`.
Tensor sum_to(const Tensor& g, const Shape& shape);

}  // namespace sg
