// The kernels every op needs besides float math: copies and casts between layouts, fills,
// int32/bool arithmetic and comparisons, selection, indexing (gather/scatter), padding, the
// reductions' group backward passes, and random fills. They exist so that op code never touches
// tensor memory itself: a device whose memory the host cannot address (WebGPU) implements the
// same methods, and every op then runs there unchanged.
//
// Backend (kernels/backend.h) inherits these. Each method has a default: the scalar loops of
// kernels/reference (which both CPU backends share unless they override one). Pointers are
// device pointers (Tensor::dev_*), contiguous unless a stride argument says otherwise.
// A CPU kernel may throw sg::Error for data it rejects (an index out of range); a device that
// runs asynchronously reports such errors at its next synchronization instead.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/rng.h"

namespace sg {

struct BroadcastPlan;
enum class Reduce : uint8_t;

// dst[i] = src[i] over `shape`, each read and written through its own element strides,
// converted from src_dtype to dst_dtype (float → int32 truncates toward zero; anything nonzero
// → true; bool reads as 0/1).
struct StridedCopy {
  std::vector<int64_t> shape, dst_strides, src_strides;
  DType dst_dtype = DType::Float32, src_dtype = DType::Float32;
};

// Integer elementwise math: operands are int32 (callers cast bool to int32 first), computed in
// int64 and stored as int32 (two's complement wrapping) or as bool (nonzero). The bitwise ops
// work on the int32 bits; shifts by an amount outside [0, 32) give 0 (left) or the sign fill
// (right), as PyTorch ≥ 2.1 defines them; gcd and lcm follow c10's calc_gcd in int32
// (ops/bitwise.cpp). New members go last: the WebGPU kernels index them by number.
enum class IntBinary : uint8_t { Add, Sub, Mul, Pow, Maximum, Minimum, BitAnd, BitOr, BitXor, ShiftLeft, ShiftRight, Gcd, Lcm };
enum class IntUnary : uint8_t { Neg, Abs, Sign, Square, Relu, BitNot };
// Comparisons in one dtype (callers promote both operands first); NaN compares false except ne.
enum class Compare : uint8_t { Eq, Ne, Lt, Le, Gt, Ge };
// Float math beyond Backend::unary_f32's set (rounding, the rest of trigonometry): evaluated in
// double and rounded once; Round is half to even (PyTorch's round).
enum class MathFn : uint8_t { Floor, Ceil, Round, Trunc, Tan, Atan, Asin, Acos, Sinh, Cosh };
// Modulo and rounded division (ops/modulo.cpp), as PyTorch 1.13's CPU kernels: Fmod is C's fmod
// (the dividend's sign), Remainder Python's % (the divisor's sign: fmod, plus b where the signs
// differ), FloorDivide and TruncDivide round a / b down or toward zero (floats: PyTorch's
// div_floor formula from fmod; integers: exact).
enum class Modulo : uint8_t { Fmod, Remainder, FloorDivide, TruncDivide };
// Special functions (ops/special.cpp), as PyTorch 1.13's CPU kernels (ATen's Math.h): erfinv,
// erfc, lgamma, digamma, polygamma of order n (n ≥ 0), the modified Bessel functions i0 and i1
// (i1 only for i0's gradient).
enum class Special : uint8_t { Erfinv, Erfc, Lgamma, Digamma, Polygamma, I0, I1 };
// Cumulative scans along a dim (cumsum, cumprod).
enum class Scan : uint8_t { Sum, Prod };
// scatter_reduce's reductions (ops/scatter.cpp), PyTorch's reduce strings.
enum class ScatterReduce : uint8_t { Sum, Prod, Mean, Amax, Amin };

// out = cond ? a : b over `shape` (out contiguous), each operand read through its strides
// (0 along broadcast dims).
struct SelectPlan {
  std::vector<int64_t> shape, cond_strides, a_strides, b_strides;
};

// gather: out (contiguous, index's shape) takes x at offset walk(i) + index[i] · dim_stride,
// where walk(i) is element i's offset under `walk_strides` (x's strides with the gathered dim's
// zeroed). Indices must lie in [0, dim_size).
struct GatherGeom {
  std::vector<int64_t> index_shape, walk_strides;
  int64_t dim = 0, dim_stride = 0, dim_size = 1;
};

// reflect/replicate padding: out[o] = x[map(o)] per dim, map(o) = o − left[d] folded back into
// [0, in_shape[d]) by reflection (without repeating the edge) or by clamping.
struct PadGeom {
  std::vector<int64_t> out_shape, in_shape, in_strides, left;
  bool reflect = false;
};

class DataKernels {
 public:
  virtual ~DataKernels() = default;

  // ---- copies and creation ----
  virtual void copy_strided(const StridedCopy& c, const void* src, void* dst) const;
  virtual void fill(DType dtype, double value, void* dst, int64_t n) const;
  // n values of Philox stream `at` (core/rng.h): uniform in [lo, hi) or normal (mean, std),
  // word for word the values the host generator would give from that state.
  virtual void random_uniform_f32(RngState at, float lo, float hi, float* dst, int64_t n) const;
  virtual void random_normal_f32(RngState at, float mean, float std, float* dst, int64_t n) const;

  // ---- int32 / bool math, comparisons, selection ----
  virtual void binary_i32(IntBinary op, const BroadcastPlan& plan, const int32_t* a,
                          const int32_t* b, DType out_dtype, void* out) const;
  virtual void unary_i32(IntUnary op, const int32_t* x, int32_t* y, int64_t n) const;
  virtual void compare(Compare op, DType dtype, const BroadcastPlan& plan, const void* a,
                       const void* b, uint8_t* out) const;
  virtual void select(DType dtype, const SelectPlan& plan, const uint8_t* cond, const void* a,
                      const void* b, void* out) const;

  // ---- reductions of [outer, r, inner] beyond the float32 ones ----
  // Sum/Prod of int32 → int32 (wrapping); Max/Min of int32 or bool keep the dtype.
  virtual void reduce_int(Reduce op, DType dtype, const void* x, int64_t outer, int64_t r,
                          int64_t inner, void* out) const;
  // Index (in [0, r)) of the first max/min per group; a NaN wins at once (PyTorch's rule).
  virtual void arg_reduce(bool is_max, DType dtype, const void* x, int64_t outer, int64_t r,
                          int64_t inner, int32_t* out) const;
  // dx[o, j, i] = g[o, i] · w where w splits 1 equally between the elements equal to y[o, i]
  // (NaN ties NaN); with use_abs, |x| is compared and the share carries sign(x) (the inf-norms).
  virtual void extreme_backward_f32(bool use_abs, const float* x, const float* y, const float* g,
                                    int64_t outer, int64_t r, int64_t inner, float* dx) const;
  // dx[o, j, i] = g[o, i] · the product of the other elements of the group (zeros exact).
  virtual void prod_backward_f32(const float* x, const float* g, int64_t outer, int64_t r,
                                 int64_t inner, float* dx) const;
  // The p-norm's (0 < p < inf, p != 1 allowed) derivative times g; 0 where the norm y is 0.
  virtual void norm_backward_f32(double p, const float* x, const float* y, const float* g,
                                 int64_t outer, int64_t r, int64_t inner, float* dx) const;

  // ---- indexing ----
  // Throws sg::Error(before + i + after) for the first of the n indices i outside [lo, hi) that
  // is not `allowed` (an ignore_index); ops call it before any kernel reads through the
  // indices, which assume them valid.
  virtual void check_indices(const int32_t* idx, int64_t n, int64_t lo, int64_t hi, int64_t allowed,
                             const std::string& before, const std::string& after) const;
  // out[o, j, :] = x[o, idx[j], :] for idx of n entries in [0, size) (rows of inner elements of
  // elem_bytes bytes).
  virtual void index_select(size_t elem_bytes, const void* x, int64_t outer, int64_t size,
                            int64_t inner, const int32_t* idx, int64_t n, void* out) const;
  // The adjoint: out[o, idx[j], :] += g[o, j, :] (out is [outer, size, inner], not cleared).
  virtual void index_add_f32(const float* g, int64_t outer, int64_t n, int64_t inner,
                             const int32_t* idx, int64_t size, float* out) const;
  virtual void gather(size_t elem_bytes, const GatherGeom& g, const void* x, const int32_t* idx,
                      void* out) const;
  // The adjoint of gather into a contiguous float32 `out` (walk_strides are out's, the dim's
  // zeroed): out[walk(i) + idx[i] · dim_stride] += src[i]. out is not cleared.
  virtual void scatter_add_f32(const GatherGeom& g, const float* src, const int32_t* idx,
                               float* out) const;
  // The float64 twins of index_add_f32 and scatter_add_f32 (the CPU loops; issue 27).
  virtual void index_add_f64(const double* g, int64_t outer, int64_t n, int64_t inner,
                             const int32_t* idx, int64_t size, double* out) const;
  virtual void scatter_add_f64(const GatherGeom& g, const double* src, const int32_t* idx,
                               double* out) const;

  // ---- padding ----
  virtual void pad_mapped(size_t elem_bytes, const PadGeom& g, const void* x, void* out) const;
  // dx (contiguous in_shape, not cleared) += g (contiguous out_shape) along the same maps.
  virtual void pad_mapped_backward_f32(const PadGeom& g, const float* grad, float* dx) const;

  // ---- more float math (kernels/reference/data_math.cpp) ----
  virtual void math_f32(MathFn fn, const float* x, float* y, int64_t n) const;
  // out = atan2(a, b) over plan.shape (out contiguous), as Backend::binary_f32 reads operands.
  virtual void atan2_f32(const BroadcastPlan& plan, const float* a, const float* b, float* out) const;

  // out = op(a, b) over plan.shape (out contiguous), float32 or int32 operands and result; an
  // int32 divisor is never 0 (the op checks first: PyTorch's ZeroDivisionError).
  // (kernels/reference/data_modulo.cpp)
  virtual void modulo(Modulo op, DType dtype, const BroadcastPlan& plan, const void* a, const void* b,
                      void* out) const;
  // Throws sg::Error(before + x[i] + after) at the first x[i] == 0 (an integer divisor);
  // asynchronous devices report it at the next sync, as check_indices.
  virtual void check_nonzero_i32(const int32_t* x, int64_t n, const std::string& before,
                                 const std::string& after) const;
  // Throws sg::Error(before + m + after) when m, the largest |value| of the n integer elements of
  // x (int32, int64, int8 or uint8; with `total`, the sum of the |values|, saturating), exceeds
  // `bound`: an int64 operand computed in int32 (ops/dtype_widening.cpp). Asynchronous devices
  // report it at the next sync, as check_indices (m there: the first |value| beyond the bound, or
  // the sum).
  virtual void check_abs_bound(DType dtype, const void* x, int64_t n, int64_t bound, bool total,
                               const std::string& before, const std::string& after) const;

  // ---- linear algebra (kernels/reference/data_linalg.cpp) ----
  // `batch` n×n float32 matrices, row-major and contiguous, each factored in double (LU with
  // partial pivoting as LAPACK's getrf, or Cholesky) and every result rounded once to float32.
  // Errors name `op` with PyTorch's messages; `batched` (the input had batch dims) adds
  // PyTorch's "(Batch element i): ".
  // out = A⁻¹; a zero pivot (an exactly singular matrix) is an Error. inv and solve factor Aᵀ,
  // as PyTorch does for a row-major A, so the pivot the message names is PyTorch's.
  virtual void lu_inverse_f32(const float* a, int64_t batch, int64_t n, float* out, const std::string& op,
                              bool batched) const;
  // x = A⁻¹·b for b [batch, n, k]; a zero pivot is an Error.
  virtual void lu_solve_f32(const float* a, const float* b, int64_t batch, int64_t n, int64_t k, float* x,
                            const std::string& op, bool batched) const;
  // Per matrix: sign (1, −1, or 0 when singular), log|det| (−inf when singular) and det; a null
  // pointer skips that result.
  virtual void lu_det_f32(const float* a, int64_t batch, int64_t n, float* sign, float* logabsdet,
                          float* det) const;
  // out = the cofactor matrix adj(A)ᵀ = ∂det(A)/∂A, singular matrices included (division-free
  // from the LU factors, so no det(A)·A⁻ᵀ).
  virtual void cofactor_f32(const float* a, int64_t batch, int64_t n, float* out) const;
  // out = L with L·Lᵀ = A from A's lower triangle (upper: U = Lᵀ with Uᵀ·U = A from A's upper
  // triangle, as LAPACK's potrf); the other triangle of out is 0. A leading minor that is not
  // positive-definite is an Error.
  virtual void cholesky_f32(const float* a, int64_t batch, int64_t n, bool upper, float* out,
                            const std::string& op, bool batched) const;

  // ---- decompositions (kernels/reference/linalg_decomp.cpp) ----
  // `batch` row-major contiguous matrices of `dtype` (float32 or float64), each computed in double
  // and every result rounded once to dtype. Errors name `op`; `batched` adds "(Batch element i): ".
  // SVD of m×n A: s [k] descending (k = min(m, n)); with u non-null also U [m, full ? m : k] and
  // Vh [full ? n : k, n] (then vh is non-null too). NaN/inf input is PyTorch's Error.
  virtual void svd(DType dtype, const void* a, int64_t batch, int64_t m, int64_t n, bool full, void* u, void* s,
                   void* vh, const std::string& op, bool batched) const;
  // Symmetric n×n A read from one triangle (upper or lower): w [n] ascending, v (if non-null) the
  // eigenvectors as columns [n, n]. NaN/inf input gives NaN results (no Error, as PyTorch).
  virtual void eigh(DType dtype, const void* a, int64_t batch, int64_t n, bool upper, void* w, void* v,
                    const std::string& op, bool batched) const;
  // Householder QR of m×n A with LAPACK's signs: Q [m, complete ? m : k] (skipped if null),
  // R [complete ? m : k, n].
  virtual void qr(DType dtype, const void* a, int64_t batch, int64_t m, int64_t n, bool complete, void* q,
                  void* r) const;
  // x = A⁻¹·b for triangular A [n, n] (upper or lower; unitriangular: its diagonal read as 1) and
  // b [n, k]; a zero diagonal gives inf/NaN (no Error, as PyTorch).
  virtual void solve_triangular(DType dtype, const void* a, const void* b, int64_t batch, int64_t n, int64_t k,
                                bool upper, bool unitriangular, void* x) const;
  // P·A = L·U of m×n A (partial pivoting, LAPACK getrf): lu [m, n] packed (L's unit diagonal
  // implied), pivots [k] int32, 1-based. A zero pivot is PyTorch's Error.
  virtual void lu_packed(DType dtype, const void* a, int64_t batch, int64_t m, int64_t n, void* lu,
                         int32_t* pivots, const std::string& op, bool batched) const;
  // out = exp(A) for n×n A (scaling and squaring, Padé 13).
  virtual void matrix_exp(DType dtype, const void* a, int64_t batch, int64_t n, void* out) const;

  // y = fn(x) elementwise, evaluated in double and rounded once to float32; n is polygamma's
  // order (ignored by the others). (kernels/reference/data_special.cpp)
  virtual void special_f32(Special fn, int n, const float* x, float* y, int64_t count) const;
  // The same formulas on float64 values, kept in double (PyTorch's double kernels; CPU devices).
  virtual void special_f64(Special fn, int n, const double* x, double* y, int64_t count) const;

  // ---- scans, sorting (kernels/reference/data_scan.cpp, data_sort.cpp) ----
  // x viewed as [outer, r, inner] (float32 or int32) → out of the same shape and dtype:
  // out[o, j, i] = x[o, 0, i] ⊕ … ⊕ x[o, j, i] (reverse: x[o, j, i] ⊕ … ⊕ x[o, r−1, i]). Float
  // scans accumulate in double and round each output (PyTorch's CPU kernels); int32 wraps.
  virtual void scan(Scan op, DType dtype, bool reverse, const void* x, int64_t outer, int64_t r,
                    int64_t inner, void* out) const;
  // The gradient of cumprod along r, exact where x has zeros: dx[j] = (x[0]⋯x[j−1]) · S[j] with
  // S[j] = g[j] + x[j+1] · S[j+1] (S[r−1] = g[r−1]), in double.
  virtual void cumprod_backward_f32(const float* x, const float* g, int64_t outer, int64_t r,
                                    int64_t inner, float* dx) const;
  // The positions (in [0, r)) of the first k of the r values of each [o, :, i] group of x
  // (float32, int32 or bool) in stable sorted order, ascending or descending, into out
  // [outer, k, inner]. NaN sorts above every number (last ascending, first descending).
  virtual void argsort(DType dtype, const void* x, int64_t outer, int64_t r, int64_t inner, bool descending,
                       int64_t k, int32_t* out) const;

  // ---- scatter (kernels/reference/data_scatter.cpp) ----
  // gather's adjoints into a contiguous `out` (walk_strides are out's, the dim's zeroed), src
  // contiguous of index_shape: out[walk(i) + idx[i] · dim_stride] = src[i] (the last write in
  // row-major order wins), or += for scatter_add_i32 (wrapping).
  virtual void scatter(size_t elem_bytes, const GatherGeom& g, const void* src, const int32_t* idx,
                       void* out) const;
  virtual void scatter_add_i32(const GatherGeom& g, const int32_t* src, const int32_t* idx, int32_t* out) const;
  // out (contiguous, out_numel elements of `dtype`, float32 or int32, holding the input) reduced
  // in place with src (contiguous of index_shape) at the same positions, as PyTorch 1.13's
  // scatter_reduce: values combine in row-major order of src; without include_self a position
  // that receives a value starts from the reduction's identity instead of the input (0, 1, −inf,
  // +inf; int32: INT32_MIN/MAX). Mean divides by the count (the input counts when include_self),
  // floor division for int32; amax/amin propagate NaN; int32 sums and products wrap.
  virtual void scatter_reduce(DType dtype, ScatterReduce reduce, const GatherGeom& g, const void* src,
                              const int32_t* idx, int64_t out_numel, bool include_self, void* out) const;

  // ---- sampling (kernels/reference/data_sample.cpp) ----
  // Throws sg::Error naming `op` unless each of the `rows` rows of `cats` weights is a
  // distribution multinomial can draw `samples` from: weights finite and ≥ 0, a positive sum,
  // and without replacement at least `samples` nonzero weights.
  virtual void check_distribution(const float* w, int64_t rows, int64_t cats, int64_t samples, bool replacement,
                                  const std::string& op) const;
  // out [rows, samples] int32: categories drawn with probability w / Σw per row, from Philox
  // stream `at` (multinomial_words(...) words). With replacement: one word per draw, inverse CDF
  // in double. Without: one word per category, E = −log u exponential keys, the `samples` largest
  // w / E in decreasing order (the exponential race, PyTorch's method).
  virtual void multinomial(RngState at, const float* w, int64_t rows, int64_t cats, int64_t samples,
                           bool replacement, int32_t* out) const;
};

// Words of the random stream multinomial uses.
inline uint64_t multinomial_words(int64_t rows, int64_t cats, int64_t samples, bool replacement) {
  return uint64_t(rows) * uint64_t(replacement ? samples : cats);
}

}  // namespace sg
