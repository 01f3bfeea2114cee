// matmul with PyTorch's rules: 1-D operands are promoted to matrices ([K] → [1, K] on the
// left, [K, 1] on the right) and the added dim removed from the result; batch dims broadcast.
// Operands go to backend().gemm_f32 (gemm_f64 for float64) without copies whenever each matrix of the batch is
// row-major or column-major (a transposed view) with a usable leading dimension.
#include <algorithm>
#include <optional>
#include <vector>

#include "autograd/record.h"
#include "core/copy.h"
#include "core/parallel.h"
#include "kernels/backend.h"
#include "kernels/parallel_kernels.h"
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {
namespace {

// The last two dims exchanged (a view).
Tensor mT(const Tensor& t) {
  Shape shape = t.shape(), strides = t.strides();
  const size_t n = shape.size();
  std::swap(shape[n - 1], shape[n - 2]);
  std::swap(strides[n - 1], strides[n - 2]);
  return Tensor::view_of(t, shape, strides, t.offset());
}

// t (contiguous) seen with another shape of the same size.
Tensor reshaped_view(const Tensor& t, const Shape& shape) {
  return Tensor::view_of(t, shape, contiguous_strides(shape), t.offset());
}

// How gemm reads a rows × cols matrix with element strides (rs, cs): row-major
// (trans = false, rows ld apart) or column-major (trans = true). Strides of size-1 dims
// are meaningless and ignored. None when neither fits (e.g. an expanded dim): copy first.
struct Layout {
  bool trans;
  int64_t ld;
};
std::optional<Layout> gemm_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  const int64_t r1 = std::max<int64_t>(rows, 1), c1 = std::max<int64_t>(cols, 1);
  if ((cols <= 1 || cs == 1) && (rows <= 1 || rs >= c1)) return Layout{false, rows <= 1 ? c1 : rs};
  if ((rows <= 1 || rs == 1) && (cols <= 1 || cs >= r1)) return Layout{true, cols <= 1 ? r1 : cs};
  return std::nullopt;
}

std::optional<Layout> matrix_layout(const Tensor& t) {
  const size_t n = t.shape().size();
  return gemm_layout(t.shape()[n - 2], t.shape()[n - 1], t.strides()[n - 2], t.strides()[n - 1]);
}

Shape batch_of(const Tensor& t) { return Shape(t.shape().begin(), t.shape().end() - 2); }
Shape batch_strides_of(const Tensor& t) { return Shape(t.strides().begin(), t.strides().end() - 2); }

// C = A · B for A [..., M, K] and B [..., K, N] (both ≥ 2-D, any strides, both float32 or float64) with
// broadcast batch dims; C is a new contiguous [batch..., M, N]. Callers check the shapes.
Tensor bmm(Tensor a, Tensor b) {
  const int64_t M = a.shape().end()[-2], K = a.shape().end()[-1], N = b.shape().end()[-1];
  // K = 1: each product is an outer product, one broadcast multiply [.., M, 1] · [.., 1, N]. The
  // GEMM's packing costs several times the product here (measured 5× on [128, 256, 784]): this
  // is matmul's weight gradient of one row per sample (sg.func's vmap(grad) per-sample gradients).
  if (K == 1) return binary_float(Binary::Mul, a, b, "matmul");
  std::optional<Layout> la = matrix_layout(a), lb = matrix_layout(b);
  if (!la) {
    a = contiguous_copy(a);
    la = matrix_layout(a);
  }
  if (!lb) {
    b = contiguous_copy(b);
    lb = matrix_layout(b);
  }
  Shape batch = broadcast_shapes(batch_of(a), batch_of(b), "matmul");
  Shape out_shape = batch;
  out_shape.push_back(M);
  out_shape.push_back(N);
  // Zero-filled only when K = 0 (that is the answer); otherwise every product is written.
  const Device dev = operands_device("matmul", {&a, &b});
  const DType dt = a.dtype();  // matmul checked that b's is the same
  Tensor out = K == 0 ? Tensor::empty(out_shape, dt, dev) : Tensor::uninitialized(out_shape, dt, dev);
  if (out.numel() == 0 || K == 0) return out;
  const Backend& be = backend_for(dev);
  // One product C[oc...] = op(A[oa...]) · op(B[ob...]) (element offsets), row stride N, in
  // the operands' dtype: the float32 or float64 GEMM, chosen per product, not per element.
  const bool f64 = dt == DType::Float64;
  const char* const pa = static_cast<const char*>(a.dev_raw());
  const char* const pb = static_cast<const char*>(b.dev_raw());
  char* const pc = static_cast<char*>(out.dev_raw());
  const size_t es = dtype_size(dt);
  auto gemm = [&](bool ta, bool tb, int64_t m, int64_t oa, int64_t lda, int64_t ob, int64_t ldb, int64_t oc) {
    if (f64)
      be.gemm_f64(ta, tb, m, N, K, 1.0, reinterpret_cast<const double*>(pa + oa * es), lda,
                  reinterpret_cast<const double*>(pb + ob * es), ldb, 0.0, reinterpret_cast<double*>(pc + oc * es), N);
    else
      be.gemm_f32(ta, tb, m, N, K, 1.0f, reinterpret_cast<const float*>(pa + oa * es), lda,
                  reinterpret_cast<const float*>(pb + ob * es), ldb, 0.0f, reinterpret_cast<float*>(pc + oc * es), N);
  };
  // A contiguous stack of matrices times one matrix is one tall gemm ([batch·M, K] · [K, N]),
  // the common case of a linear layer on batched input.
  if (b.ndim() == 2 && a.ndim() > 2 && a.is_contiguous()) {
    gemm(false, lb->trans, numel_of(batch) * M, 0, K, 0, lb->ld, 0);
    return out;
  }
  // The same matrix for every batch (an expanded B: sg.func.vmap's per-sample copies of a
  // weight) under a contiguous A of the full batch: one tall gemm as well, not nbatch thin ones.
  if (b.ndim() > 2 && a.is_contiguous() && batch_of(a) == batch) {
    const Shape bs = batch_strides_of(b);
    if (std::all_of(bs.begin(), bs.end(), [](int64_t s) { return s == 0; })) {
      gemm(false, lb->trans, numel_of(batch) * M, 0, K, 0, lb->ld, 0);
      return out;
    }
  }
  Shape sa = broadcast_strides(batch_of(a), batch_strides_of(a), batch);
  Shape sb = broadcast_strides(batch_of(b), batch_strides_of(b), batch);
  const int64_t nbatch = numel_of(batch);
  // A batch of products each too small for the backend to split (attention's q·kᵀ per head):
  // whole products on each thread. The SIMD backend only; 'reference' stays the one-thread
  // oracle. Every product is computed exactly as on one thread.
  if (&be == &simd_backend() && num_threads() > 1 && !in_parallel_region() && nbatch > 1 &&
      M * N * K < par::kMinGemmWork && nbatch * M * N * K >= par::kMinGemmWork) {
    std::vector<int64_t> offsets;
    offsets.reserve(static_cast<size_t>(2 * nbatch));
    for_each_offset2(batch, sa, sb, [&](int64_t oa, int64_t ob) {
      offsets.push_back(oa);
      offsets.push_back(ob);
    });
    parallel_for(0, nbatch, chunk_size(nbatch, 1, 1, 2), [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i)
        gemm(la->trans, lb->trans, M, offsets[size_t(2 * i)], la->ld, offsets[size_t(2 * i + 1)], lb->ld, i * M * N);
    });
    return out;
  }
  int64_t oc = 0;
  for_each_offset2(batch, sa, sb, [&](int64_t oa, int64_t ob) {
    gemm(la->trans, lb->trans, M, oa, la->ld, ob, lb->ld, oc);
    oc += M * N;
  });
  return out;
}

}  // namespace

namespace {

// matmul's gradients through differentiable ops (while a gradient is recorded): dA = G·Bᵀ and
// dB = Aᵀ·G on the operands promoted as the forward promoted them, summed back over broadcast
// batch dims.
// a is given only when dB is needed and b only when dA is (what the forward saved).
std::vector<Tensor> matmul_grads_ops(const Tensor& g, const Tensor& a, const Tensor& b, bool need_a, bool need_b,
                                     const Shape& full_shape, const Shape& a_shape, const Shape& b_shape) {
  const Tensor g4 = reshape(g, full_shape);
  const Shape a2_shape = a_shape.size() == 1 ? Shape{1, a_shape[0]} : a_shape;
  const Shape b2_shape = b_shape.size() == 1 ? Shape{b_shape[0], 1} : b_shape;
  Tensor da, db;
  if (need_a) {
    const Tensor b2 = b.ndim() == 1 ? unsqueeze(b, 1) : b;
    da = reshape(sum_to(matmul(g4, transpose(b2, -1, -2)), a2_shape), a_shape);
  }
  if (need_b) {
    const Tensor a2 = a.ndim() == 1 ? unsqueeze(a, 0) : a;
    db = reshape(sum_to(matmul(transpose(a2, -1, -2), g4), b2_shape), b_shape);
  }
  return {da, db};
}

// matmul's 1-D operands as matrices ([K] → [1, K] on the left, [K, 1] on the right), graph-free.
Tensor promoted_left(const Tensor& a) {
  return a.ndim() == 1 ? Tensor::view_of(a, {1, a.shape()[0]}, {0, a.strides()[0]}, a.offset()) : a.detach();
}
Tensor promoted_right(const Tensor& b) {
  return b.ndim() == 1 ? Tensor::view_of(b, {b.shape()[0], 1}, {b.strides()[0], 0}, b.offset()) : b.detach();
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  check(a.defined() && b.defined(), "matmul: expected two tensors, got an undefined one");
  check(a.ndim() >= 1 && b.ndim() >= 1, "matmul: both arguments must be at least 1-D, got shapes ",
        a.shape(), " and ", b.shape());
  // float32 or float64, both the same: PyTorch refuses mixed dtypes here too.
  check((a.dtype() == DType::Float32 || a.dtype() == DType::Float64) && a.dtype() == b.dtype(),
        "matmul: expected two float32 or two float64 tensors, got ", dtype_name(a.dtype()), " and ",
        dtype_name(b.dtype()), " (cast one first, e.g. x.double())");
  // The promoted operands, as graph-free views.
  const Tensor a2 = promoted_left(a), b2 = promoted_right(b);
  const int64_t ka = a2.shape().end()[-1], kb = b2.shape().end()[-2];
  if (ka != kb) fail("matmul: shapes ", a.shape(), " and ", b.shape(), " are not aligned (", ka, " != ", kb, ")");
  const Shape ba = batch_of(a2), bb = batch_of(b2);
  for (size_t i = 1; i <= std::min(ba.size(), bb.size()); ++i) {
    const int64_t da = ba.end()[-i], db = bb.end()[-i];
    if (da != db && da != 1 && db != 1)
      fail("matmul: the batch dims of shapes ", a.shape(), " and ", b.shape(),
           " cannot be broadcast together (", da, " vs ", db, ")");
  }
  Tensor full = bmm(a2, b2);  // [batch..., M, N]
  Shape out_shape(full.shape().begin(), full.shape().end() - 2);
  if (a.ndim() > 1) out_shape.push_back(a2.shape().end()[-2]);
  if (b.ndim() > 1) out_shape.push_back(b2.shape().end()[-1]);
  Tensor out = reshaped_view(full, out_shape);

  const bool need_a = a.requires_grad(), need_b = b.requires_grad();
  const Shape full_shape = full.shape();
  const Shape a_shape = a.shape(), b_shape = b.shape();
  // dA = G · Bᵀ and dB = Aᵀ · G (transposed views, read by gemm as they are), summed over
  // the batch dims each operand was broadcast along, then the 1-D promotions undone.
  // The formula reads the operands from its saved list only (a float16/bfloat16 operand's
  // float32 copy is saved as the 16-bit original and widened again: autograd/record.h). Each operand is
  // saved only when the other's gradient reads it, as PyTorch's mm saves self only for mat2's gradient:
  // a frozen weight's input (a LoRA base layer's, an MLP's hidden activation) is not held until backward.
  const Tensor keep_a = need_b ? a : Tensor(), keep_b = need_a ? b : Tensor();
  const DType dt = a.dtype();
  return record("matmul", out, {a, b}, {keep_a, keep_b}, [need_a, need_b, full_shape, a_shape, b_shape, dt](const Tensor& g, const SavedTensors& s) {
    if (recording_backward({g, s[0], s[1]}))
      return matmul_grads_ops(g, s[0], s[1], need_a, need_b, full_shape, a_shape, b_shape);
    Tensor g4 = reshaped_view(as_contiguous(g, dt), full_shape);
    Tensor da, db;
    if (need_a) {
      const Tensor b2 = promoted_right(s[1]);
      const Shape a2_shape = a_shape.size() == 1 ? Shape{1, a_shape[0]} : a_shape;
      da = bmm(g4, mT(b2));
      if (da.shape() != a2_shape) da = sum_to(da, a2_shape);
      da = reshape(da, a_shape);
    }
    if (need_b) {
      const Tensor a2 = promoted_left(s[0]);
      const Shape b2_shape = b_shape.size() == 1 ? Shape{b_shape[0], 1} : b_shape;
      if (b2_shape.size() == 2 && a2.ndim() > 2) {
        // Σ over the batch of Aᵢᵀ Gᵢ is one gemm: [batch·M, K]ᵀ · [batch·M, N].
        const int64_t K = a2.shape().end()[-1], N = full_shape.end()[-1];
        const int64_t rows = numel_of(batch_of(a2)) * a2.shape().end()[-2];
        Tensor a_flat = reshaped_view(as_contiguous(a2), {rows, K});
        db = bmm(mT(a_flat), reshaped_view(g4, {rows, N}));
      } else {
        db = bmm(mT(a2), g4);
        if (db.shape() != b2_shape) db = sum_to(db, b2_shape);
      }
      db = reshape(db, b_shape);
    }
    return std::vector<Tensor>{da, db};
  });
}

}  // namespace sg
