// torch.linalg's basics (ops/linalg.h): inv, det, slogdet, logdet, solve, cholesky. Values from
// the DataKernels linear-algebra kernels (LU with partial pivoting or Cholesky, in double);
// gradients, PyTorch 1.13's formulas, through differentiable ops (matmul, transpose, these ops
// themselves), so second derivatives work, except det's first derivative, which comes from the
// cofactor kernel so that singular matrices get the exact (finite) gradient.
#include "ops/linalg.h"

#include <cmath>

#include "autograd/record.h"
#include "core/copy.h"
#include "core/error.h"
#include "kernels/backend.h"
#include "ops/elementwise.h"
#include "ops/fallback.h"
#include "ops/ops.h"

namespace sg {

namespace {

using Grads = std::vector<Tensor>;

// n of A [..., n, n], after checking its dtype, dims and squareness (messages name `op`).
int64_t square_size(const char* op, const Tensor& a) {
  check(a.dtype() == DType::Float32, op, ": expected A to be a float32 tensor, got ", dtype_name(a.dtype()));
  check(a.ndim() >= 2, op, ": expected A to have at least 2 dimensions (batches of square matrices [..., n, n]), got shape ",
        a.shape());
  const int64_t rows = a.shape()[a.ndim() - 2], cols = a.shape()[a.ndim() - 1];
  check(rows == cols, op, ": expected A to be batches of square matrices, got ", rows, " by ", cols,
        " matrices (shape ", a.shape(), ")");
  return cols;
}

Shape batch_of(const Tensor& t) { return Shape(t.shape().begin(), t.shape().end() - 2); }

int64_t matrices(const Tensor& t) {
  int64_t n = 1;
  for (int64_t d : batch_of(t)) n *= d;
  return n;
}

// PyTorch names the failing matrix ("Batch element i") whenever the input has batch dims.
bool batched(const Tensor& t) { return t.ndim() > 2; }

Tensor mT(const Tensor& x) { return transpose(x, -2, -1); }

// g [...] → [..., 1, 1]: one factor per matrix.
Tensor per_matrix(const Tensor& g) { return unsqueeze(unsqueeze(g, -1), -1); }

// Whether to run a kernel: not for empty results, nor while the WebGPU fallback only asks for
// the outputs' shapes (its stand-in inputs are all ones: singular matrices).
bool compute(const Tensor& out) { return out.numel() > 0 && !in_stand_in_run(); }

// A⁻¹, recorded; errors name `op` (inv itself, or the backward formula that needs it).
Tensor inverse(const char* op, const Tensor& a0) {
  const int64_t n = square_size(op, a0);
  const Tensor a = as_contiguous(a0);
  Tensor out = Tensor::uninitialized(a.shape(), DType::Float32, a.device());
  if (compute(out)) backend_for(a.device()).lu_inverse_f32(a.dev_f32(), matrices(a), n, out.dev_f32(), op, batched(a));
  return record("linalg.inv", out, {a0}, {out}, [](const Tensor& g, const SavedTensors& s) -> Grads {
    const Tensor xt = mT(s[0]);  // A⁻ᵀ
    return {neg(matmul(matmul(xt, g), xt))};
  });
}

// det(A)'s gradient without recording: G · the cofactor matrix, from the kernel.
Tensor det_grad_cofactor(const Tensor& g, const Tensor& a0) {
  const Tensor a = as_contiguous(a0);
  Tensor cof = Tensor::uninitialized(a.shape(), DType::Float32, a.device());
  if (cof.numel() > 0) backend_for(a.device()).cofactor_f32(a.dev_f32(), matrices(a), a.shape().back(), cof.dev_f32());
  return mul(per_matrix(g), cof);
}

SignLogDet slogdet_named(const char* op, const Tensor& a0) {
  const int64_t n = square_size(op, a0);
  const Tensor a = as_contiguous(a0);
  Tensor sign = Tensor::uninitialized(batch_of(a), DType::Float32, a.device());
  Tensor logabs = Tensor::uninitialized(batch_of(a), DType::Float32, a.device());
  if (compute(sign))
    backend_for(a.device()).lu_det_f32(a.dev_f32(), matrices(a), n, sign.dev_f32(), logabs.dev_f32(), nullptr);
  // d log|det A| = tr(A⁻¹ dA): G·A⁻ᵀ (a singular A has no finite gradient: the inverse's Error).
  logabs = record(op, logabs, {a0}, {a0}, [](const Tensor& g, const SavedTensors& s) -> Grads {
    return {mul(per_matrix(g), mT(inverse("linalg.slogdet (backward)", s[0])))};
  });
  return {sign, logabs};
}

// X = A⁻¹·B for A [..., n, n] and B [..., n, k] with the same batch dims.
Tensor solve_same_batch(const Tensor& a0, const Tensor& b0) {
  const char* op = "linalg.solve";
  const Tensor a = as_contiguous(a0), b = as_contiguous(b0);
  const int64_t n = a.shape().back(), k = b.shape().back();
  Tensor out = Tensor::uninitialized(b.shape(), DType::Float32, a.device());
  // A is factored even when B has no columns (out empty): a singular A is PyTorch 1.13's Error then too.
  if (compute(a))
    backend_for(a.device()).lu_solve_f32(a.dev_f32(), b.dev_f32(), matrices(a), n, k, out.dev_f32(), op, batched(a));
  return record(op, out, {a0, b0}, {a0, out}, [](const Tensor& g, const SavedTensors& s) -> Grads {
    const Tensor gb = solve_same_batch(mT(s[0]), g);  // A⁻ᵀ·G
    return {neg(matmul(gb, mT(s[1]))), gb};
  });
}

// [n, n]: 1 below the diagonal, ½ on it, 0 above: Φ's mask in cholesky's gradient.
Tensor lower_halved_diagonal(int64_t n, Device dev) {
  return sub(tril(ones({n, n}, DType::Float32, dev)), mul(eye(n, n, dev), f32_scalar(0.5)));
}

}  // namespace

Tensor linalg_inv(const Tensor& a) { return inverse("linalg.inv", a); }

Tensor linalg_det(const Tensor& a0) {
  const char* op = "linalg.det";
  const int64_t n = square_size(op, a0);
  const Tensor a = as_contiguous(a0);
  Tensor out = Tensor::uninitialized(batch_of(a), DType::Float32, a.device());
  if (compute(out)) backend_for(a.device()).lu_det_f32(a.dev_f32(), matrices(a), n, nullptr, nullptr, out.dev_f32());
  return record(op, out, {a0}, {a0, out}, [](const Tensor& g, const SavedTensors& s) -> Grads {
    // Differentiated again: G·det·A⁻ᵀ through ops (A must be invertible there; PyTorch 1.13
    // switches to an SVD formula instead). Otherwise the cofactor matrix, exact for any A.
    if (recording_backward({g, s[0], s[1]}))
      return {mul(per_matrix(mul(g, s[1])), mT(inverse("linalg.det (double backward)", s[0])))};
    return {det_grad_cofactor(g, s[0])};
  });
}

SignLogDet linalg_slogdet(const Tensor& a) { return slogdet_named("linalg.slogdet", a); }

Tensor logdet(const Tensor& a) {
  // torch.logdet: log|det| where det > 0, NaN where it is negative (where's gradient is 0 there).
  const SignLogDet s = slogdet_named("logdet", a);
  return where(eq(s.sign, f32_scalar(-1)), f32_scalar(std::nan("")), s.logabsdet);
}

Tensor linalg_solve(const Tensor& a, const Tensor& b) {
  const char* op = "linalg.solve";
  const int64_t n = square_size(op, a);
  check(b.dtype() == DType::Float32, op, ": expected B to be a float32 tensor, got ", dtype_name(b.dtype()));
  operands_device(op, {&a, &b});
  // PyTorch 1.13: B is a (batch of) vector(s) when 1-D, or when its shape is A's without the last dim.
  const Shape a_rows(a.shape().begin(), a.shape().end() - 1);
  const bool vector = b.ndim() == 1 || (b.ndim() == a.ndim() - 1 && b.shape() == a_rows);
  const Tensor bm = vector ? unsqueeze(b, -1) : b;
  check(bm.ndim() >= 2 && bm.shape()[bm.ndim() - 2] == n, op,
        ": Incompatible shapes of A and B for the equation AX = B: expected B of shape [..., ", n, ", k] or [", n,
        "] for A of shape ", a.shape(), ", got ", b.shape());
  Shape a_shape = broadcast_shapes(batch_of(a), batch_of(bm), "linalg.solve (the batch dims of A and B)");
  Shape b_shape = a_shape;
  a_shape.insert(a_shape.end(), {n, n});
  b_shape.insert(b_shape.end(), {n, bm.shape().back()});
  // expand's backward sums the gradients over the broadcast batch dims.
  const Tensor x = solve_same_batch(expand(a, a_shape), expand(bm, b_shape));
  return vector ? squeeze(x, -1) : x;
}

Tensor linalg_cholesky(const Tensor& a0, bool upper) {
  const char* op = "linalg.cholesky";
  const int64_t n = square_size(op, a0);
  const Tensor a = as_contiguous(a0);
  Tensor out = Tensor::uninitialized(a.shape(), DType::Float32, a.device());
  if (compute(out)) backend_for(a.device()).cholesky_f32(a.dev_f32(), matrices(a), n, upper, out.dev_f32(), op, batched(a));
  return record(op, out, {a0}, {out}, [upper, n](const Tensor& g, const SavedTensors& s) -> Grads {
    // PyTorch's cholesky_backward (Murray 2016, arXiv 1602.07527), with L lower (Uᵀ when upper):
    // gA = sym(L⁻ᵀ · Φ(Lᵀ·gL) · L⁻¹), Φ = the lower triangle with the diagonal halved,
    // sym(X) = (X + Xᵀ)/2 (A is taken as symmetric, so is its gradient).
    const Tensor l = upper ? mT(s[0]) : s[0];
    const Tensor gl = upper ? mT(g) : g;
    const Tensor phi = mul(matmul(mT(l), gl), lower_halved_diagonal(n, l.device()));
    const Tensor li = inverse("linalg.cholesky (backward)", l);
    const Tensor ga = matmul(matmul(mT(li), phi), li);
    return {mul(add(ga, mT(ga)), f32_scalar(0.5))};
  });
}

}  // namespace sg
