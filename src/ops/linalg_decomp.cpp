// torch.linalg's decompositions (ops/linalg.h): svd, svdvals, eigh, eigvalsh, qr,
// solve_triangular, lu_factor, matrix_exp, pinv. Values from the DataKernels decomposition
// kernels (kernels/reference/linalg_decomp.cpp, in double), float32 or float64 as the input.
// Gradients: PyTorch 1.13's formulas (FunctionsManual.cpp: svd_backward, linalg_eig_backward for
// Hermitian input, linalg_qr_backward, linalg_solve_triangular, linalg_lu_backward,
// differential_analytic_matrix_function for matrix_exp, pinv_backward) through differentiable ops.
//
// A multi-output decomposition records one autograd node per output (U, S, Vh each its own
// node): the formulas are linear in the output gradients, so the sum of the per-output terms is
// PyTorch's gradient, and an output that gets no gradient adds no term, as an undefined gradient
// in PyTorch (svdvals of a matrix with repeated singular values has a finite gradient; the
// singular vectors' terms divide by s_j² − s_i²). While a gradient is itself differentiated, a
// node recomputes the decomposition from its saved input through the recorded op, so the formula
// is differentiated through the decomposition too.
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "autograd/record.h"
#include "core/copy.h"
#include "core/error.h"
#include "kernels/backend.h"
#include "ops/elementwise.h"
#include "ops/fallback.h"
#include "ops/linalg.h"
#include "ops/ops.h"

namespace sg {

namespace {

using Grads = std::vector<Tensor>;

void check_float(const char* op, const char* name, const Tensor& a) {
  check(a.dtype() == DType::Float32 || a.dtype() == DType::Float64, op, ": expected ", name,
        " to be a float32 or float64 tensor, got ", dtype_name(a.dtype()));
}

// [m, n] of A [..., m, n] after checking its dtype and dims.
std::pair<int64_t, int64_t> matrix_dims(const char* op, const Tensor& a) {
  check_float(op, "A", a);
  check(a.ndim() >= 2, op, ": expected A to have at least 2 dimensions (batches of matrices [..., m, n]), got shape ",
        a.shape());
  return {a.shape()[a.ndim() - 2], a.shape()[a.ndim() - 1]};
}

int64_t square_dims(const char* op, const Tensor& a) {
  const auto [m, n] = matrix_dims(op, a);
  check(m == n, op, ": expected A to be batches of square matrices, got ", m, " by ", n, " matrices (shape ",
        a.shape(), ")");
  return n;
}

Shape batch_of(const Tensor& t) { return Shape(t.shape().begin(), t.shape().end() - 2); }

int64_t count(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

Shape with(Shape batch, std::initializer_list<int64_t> tail) {
  batch.insert(batch.end(), tail);
  return batch;
}

bool compute(const Tensor& t) { return t.numel() > 0 && !in_stand_in_run(); }

Tensor mT(const Tensor& x) { return transpose(x, -2, -1); }
Tensor num(double v, const Tensor& like) { return scalar_tensor(v, like.dtype()); }
Tensor eye_like(int64_t n, const Tensor& like) { return cast(eye(n, n, like.device()), like.dtype()); }
Tensor row(const Tensor& v) { return unsqueeze(v, -2); }  // [..., k] → [..., 1, k]
Tensor col(const Tensor& v) { return unsqueeze(v, -1); }  // [..., k] → [..., k, 1]

Tensor zeros_like_shape(const Tensor& t) { return zeros(t.shape(), t.dtype(), t.device()); }

// E[i][j] = x[j] − x[i] off the diagonal, 1 on it: the divisor of the vector terms.
Tensor gaps(const Tensor& x) { return add(sub(row(x), col(x)), eye_like(x.shape().back(), x)); }

struct SvdRaw {
  Tensor U, S, Vh;
};

// The kernel's SVD, unrecorded; U and Vh only with `vectors`.
SvdRaw svd_raw(const char* op, const Tensor& a0, bool full, bool vectors) {
  const auto [m, n] = matrix_dims(op, a0);
  const Tensor a = as_contiguous(a0);
  const int64_t k = std::min(m, n);
  const Shape batch = batch_of(a);
  SvdRaw r;
  r.S = Tensor::uninitialized(with(batch, {k}), a.dtype(), a.device());
  if (vectors) {
    r.U = Tensor::uninitialized(with(batch, {m, full ? m : k}), a.dtype(), a.device());
    r.Vh = Tensor::uninitialized(with(batch, {full ? n : k, n}), a.dtype(), a.device());
  }
  // An empty matrix: S empty, U and Vh identities in full mode (LAPACK's), else empty.
  if (k == 0) {
    if (vectors && full) {
      r.U = contiguous(expand(eye_like(m, a), r.U.shape()));
      r.Vh = contiguous(expand(eye_like(n, a), r.Vh.shape()));
    }
    return r;
  }
  if (compute(r.S))
    backend_for(a.device()).svd(a.dtype(), a.dev_raw(), count(batch), m, n, full, vectors ? r.U.dev_raw() : nullptr,
                                r.S.dev_raw(), vectors ? r.Vh.dev_raw() : nullptr, op, a.ndim() > 2);
  return r;
}

// PyTorch's svd_backward, split by output (see the top of the file). U [.., m, ≥k], S [.., k],
// Vh [.., ≥k, n] as the forward returned them (full or not); only their first k vectors count.
Tensor svd_grad_S(const Tensor& gS, const Tensor& U, const Tensor& Vh, int64_t k) {
  return matmul(mul(narrow(U, -1, 0, k), row(gS)), narrow(Vh, -2, 0, k));
}

Tensor svd_grad_U(const Tensor& gU0, const Tensor& U0, const Tensor& S, const Tensor& Vh0, int64_t k) {
  const Tensor U = narrow(U0, -1, 0, k), Vh = narrow(Vh0, -2, 0, k), gU = narrow(gU0, -1, 0, k);
  const int64_t m = U.shape()[U.ndim() - 2];
  const Tensor uhgu = matmul(mT(U), gU);
  const Tensor core = div(mul(sub(uhgu, mT(uhgu)), row(S)), gaps(square(S)));
  Tensor ga = matmul(U, core);
  if (m > k) {  // (I − U·Uᴴ)·gU·S⁻¹: the part of gU outside U's span
    const Tensor gus = div(gU, row(S));
    ga = add(ga, sub(gus, matmul(U, matmul(mT(U), gus))));
  }
  return matmul(ga, Vh);
}

Tensor svd_grad_Vh(const Tensor& gVh0, const Tensor& U0, const Tensor& S, const Tensor& Vh0, int64_t k) {
  const Tensor U = narrow(U0, -1, 0, k), Vh = narrow(Vh0, -2, 0, k), gV = mT(narrow(gVh0, -2, 0, k));
  const int64_t n = Vh.shape().back();
  const Tensor vhgv = matmul(Vh, gV);
  const Tensor core = div(mul(col(S), sub(vhgv, mT(vhgv))), gaps(square(S)));
  Tensor ga = matmul(core, Vh);
  if (n > k) {  // S⁻¹·gVᴴ·(I − V·Vᴴ)
    const Tensor gvs = mT(div(gV, row(S)));
    ga = add(ga, sub(gvs, matmul(matmul(gvs, mT(Vh)), Vh)));
  }
  return matmul(U, ga);
}

struct EighRaw {
  Tensor L, V;
};

EighRaw eigh_raw(const char* op, const Tensor& a0, bool upper, bool vectors) {
  const int64_t n = square_dims(op, a0);
  const Tensor a = as_contiguous(a0);
  const Shape batch = batch_of(a);
  EighRaw r;
  r.L = Tensor::uninitialized(with(batch, {n}), a.dtype(), a.device());
  if (vectors) r.V = Tensor::uninitialized(a.shape(), a.dtype(), a.device());
  if (compute(r.L))
    backend_for(a.device()).eigh(a.dtype(), a.dev_raw(), count(batch), n, upper, r.L.dev_raw(),
                                 vectors ? r.V.dev_raw() : nullptr, op, a.ndim() > 2);
  return r;
}

bool upper_of(const char* op, const std::string& uplo) {
  check(uplo == "L" || uplo == "U", op, ": expected UPLO to be 'L' or 'U', got '", uplo, "'");
  return uplo == "U";
}

// linalg_eig_backward for Hermitian A, split by output: V·diag(gL)·Vᴴ, and
// V·(skew(Vᴴ·gV)/2 ÷ E)·Vᴴ with E[i][j] = λ_j − λ_i.
Tensor eigh_grad_L(const Tensor& gL, const Tensor& V) { return matmul(mul(V, row(gL)), mT(V)); }

Tensor eigh_grad_V(const Tensor& gV, const Tensor& L, const Tensor& V) {
  const Tensor vhgv = matmul(mT(V), gV);
  const Tensor skew = mul(sub(vhgv, mT(vhgv)), num(0.5, vhgv));
  return matmul(matmul(V, div(skew, gaps(L))), mT(V));
}

// X with A·X = B for triangular A [..., n, n] and B [..., n, k] of the same batch dims.
Tensor solve_triangular_left(const Tensor& a0, const Tensor& b0, bool upper, bool unit) {
  const char* op = "linalg.solveTriangular";
  const Tensor a = as_contiguous(a0), b = as_contiguous(b0);
  const int64_t n = a.shape().back(), k = b.shape().back();
  Tensor x = Tensor::uninitialized(b.shape(), b.dtype(), b.device());
  if (compute(x))
    backend_for(a.device()).solve_triangular(a.dtype(), a.dev_raw(), b.dev_raw(), count(batch_of(a)), n, k, upper,
                                             unit, x.dev_raw());
  return record(op, x, {a0, b0}, {a0, x}, [upper, unit](const Tensor& g, const SavedTensors& s) -> Grads {
    // gB = A⁻ᴴ·G (a triangular solve with the other triangle); gA = −gB·Xᴴ on A's triangle only.
    const Tensor gb = solve_triangular_left(mT(s[0]), g, !upper, unit);
    const Tensor ga = neg(matmul(gb, mT(s[1])));
    const int64_t off = unit ? 1 : 0;
    return {upper ? triu(ga, off) : tril(ga, -off), gb};
  });
}

// QR's gradient (TensorFlow's QrGrad, equal to PyTorch 1.13's linalg_qr_backward) for reduced
// factors; gQ or gR may be undefined (zero). Square or tall A: with qdq = Qᴴ·gQ, rdr = R·gRᴴ,
// T = tril(qdq − qdqᴴ + rdr − rdrᴴ): gA = Q·(gR + T·R⁻ᴴ) + (gQ − Q·qdq)·R⁻ᴴ. Wide A = Q·[X Y]:
// the square formula for X with gQ + Y·gR_Yᴴ, and gY = Q·gR_Y.
Tensor qr_grad(Tensor gQ, Tensor gR, const Tensor& Q, const Tensor& R) {
  const int64_t m = Q.shape()[Q.ndim() - 2], n = R.shape().back();
  if (!gQ.defined()) gQ = zeros(Q.shape(), Q.dtype(), Q.device());
  if (!gR.defined()) gR = zeros(R.shape(), R.dtype(), R.device());
  if (m < n) {
    const Tensor X = narrow(R, -1, 0, m);  // R's square part
    const Tensor gRy = narrow(gR, -1, m, n - m);
    const Tensor Y = matmul(Q, narrow(R, -1, m, n - m));  // A's last n − m columns
    const Tensor gX = qr_grad(add(gQ, matmul(Y, mT(gRy))), narrow(gR, -1, 0, m), Q, X);
    return cat({gX, matmul(Q, gRy)}, -1);
  }
  // X·R⁻ᴴ: solve Z·Rᴴ = X (Rᴴ lower-triangular).
  auto times_r_inv_h = [&R](const Tensor& x) { return mT(solve_triangular_left(R, mT(x), true, false)); };
  const Tensor qdq = matmul(mT(Q), gQ), rdr = matmul(R, mT(gR));
  const Tensor t = tril(add(sub(qdq, mT(qdq)), sub(rdr, mT(rdr))));
  return add(matmul(Q, add(gR, times_r_inv_h(t))), times_r_inv_h(sub(gQ, matmul(Q, qdq))));
}

// P·Y for LAPACK's pivots [..., k] (1-based; A = P·L·U, P = S_0·S_1⋯S_{k−1}, S_j swapping rows j
// and pivots[j] − 1), by ops so that the pivots never have to reach the host (a device's
// memory is not readable there): S_j·Y = Y − d·(dᵀ·Y) with d = e_j − e_{pivots[j]−1}.
Tensor apply_pivots(const Tensor& pivots, Tensor y) {
  const int64_t m = y.shape()[y.ndim() - 2], k = pivots.shape().back();
  const Tensor idx = arange(0, double(m), 1, DType::Int32, y.device());  // [m]
  for (int64_t j = k - 1; j >= 0; --j) {
    const Tensor ej = eq(idx, scalar_tensor(double(j), DType::Int32));
    const Tensor ep = eq(idx, sub(narrow(pivots, -1, j, 1), scalar_tensor(1, DType::Int32)));  // [..., m]
    const Tensor d = sub(cast(ej, y.dtype()), cast(ep, y.dtype()));
    y = sub(y, matmul(col(d), matmul(row(d), y)));
  }
  return y;
}

Tensor matrix_exp_impl(const Tensor& a0) {
  const char* op = "linalg.matrixExp";
  const int64_t n = square_dims(op, a0);
  const Tensor a = as_contiguous(a0);
  Tensor out = Tensor::uninitialized(a.shape(), a.dtype(), a.device());
  if (compute(out)) backend_for(a.device()).matrix_exp(a.dtype(), a.dev_raw(), count(batch_of(a)), n, out.dev_raw());
  return record(op, out, {a0}, {a0}, [n](const Tensor& g, const SavedTensors& s) -> Grads {
    // PyTorch's differential_analytic_matrix_function: the upper-right block of
    // exp([[Aᴴ, G], [0, Aᴴ]]) (Mathias 1996), recorded (so differentiable again).
    const Tensor ah = mT(s[0]);
    const Tensor top = cat({ah, g}, -1), bottom = cat({zeros_like_shape(ah), ah}, -1);
    const Tensor big = matrix_exp_impl(cat({top, bottom}, -2));
    return {narrow(narrow(big, -2, 0, n), -1, n, n)};
  });
}

}  // namespace

Svd linalg_svd(const Tensor& a, bool full_matrices) {
  const char* op = "linalg.svd";
  SvdRaw r = svd_raw(op, a, full_matrices, true);
  const int64_t k = r.S.shape().back();
  const Tensor U0 = r.U, S0 = r.S, Vh0 = r.Vh;
  // Each node's formula: from the saved raw factors, or, while it is differentiated itself, from
  // a recorded SVD of the saved A (so the factors carry their own derivative).
  auto factors = [full_matrices](const SavedTensors& s, std::initializer_list<Tensor> g) -> SvdRaw {
    if (!recording_backward(g) && !recording_backward({s[0]})) return {s[1], s[2], s[3]};
    const Svd again = linalg_svd(s[0], full_matrices);
    return {again.U, again.S, again.Vh};
  };
  const SavedTensors saved = {a, U0, S0, Vh0};
  Svd out;
  out.U = record("linalg.svd (U)", U0, {a}, saved, [k, factors](const Tensor& g, const SavedTensors& s) -> Grads {
    const SvdRaw f = factors(s, {g});
    return {svd_grad_U(g, f.U, f.S, f.Vh, k)};
  });
  out.S = record("linalg.svd (S)", S0, {a}, saved, [k, factors](const Tensor& g, const SavedTensors& s) -> Grads {
    const SvdRaw f = factors(s, {g});
    return {svd_grad_S(g, f.U, f.Vh, k)};
  });
  out.Vh = record("linalg.svd (Vh)", Vh0, {a}, saved, [k, factors](const Tensor& g, const SavedTensors& s) -> Grads {
    const SvdRaw f = factors(s, {g});
    return {svd_grad_Vh(g, f.U, f.S, f.Vh, k)};
  });
  return out;
}

Tensor linalg_svdvals(const Tensor& a) {
  const char* op = "linalg.svdvals";
  // The vectors are needed for the gradient only.
  if (!any_requires_grad({a})) return svd_raw(op, a, false, false).S;
  SvdRaw r = svd_raw(op, a, false, true);
  const int64_t k = r.S.shape().back();
  return record(op, r.S, {a}, {a, r.U, r.Vh}, [k](const Tensor& g, const SavedTensors& s) -> Grads {
    if (recording_backward({g, s[0]})) {
      const Svd again = linalg_svd(s[0], false);
      return {svd_grad_S(g, again.U, again.Vh, k)};
    }
    return {svd_grad_S(g, s[1], s[2], k)};
  });
}

Eigh linalg_eigh(const Tensor& a, const std::string& uplo) {
  const char* op = "linalg.eigh";
  const bool upper = upper_of(op, uplo);
  EighRaw r = eigh_raw(op, a, upper, true);
  auto factors = [uplo](const SavedTensors& s, const Tensor& g) -> EighRaw {
    if (!recording_backward({g, s[0]})) return {s[1], s[2]};
    const Eigh again = linalg_eigh(s[0], uplo);
    return {again.eigenvalues, again.eigenvectors};
  };
  const SavedTensors saved = {a, r.L, r.V};
  Eigh out;
  out.eigenvalues = record("linalg.eigh (eigenvalues)", r.L, {a}, saved,
                           [factors](const Tensor& g, const SavedTensors& s) -> Grads {
                             return {eigh_grad_L(g, factors(s, g).V)};
                           });
  out.eigenvectors = record("linalg.eigh (eigenvectors)", r.V, {a}, saved,
                            [factors](const Tensor& g, const SavedTensors& s) -> Grads {
                              const EighRaw f = factors(s, g);
                              return {eigh_grad_V(g, f.L, f.V)};
                            });
  return out;
}

Tensor linalg_eigvalsh(const Tensor& a, const std::string& uplo) {
  const char* op = "linalg.eigvalsh";
  const bool upper = upper_of(op, uplo);
  if (!any_requires_grad({a})) return eigh_raw(op, a, upper, false).L;
  EighRaw r = eigh_raw(op, a, upper, true);
  return record(op, r.L, {a}, {a, r.V}, [uplo](const Tensor& g, const SavedTensors& s) -> Grads {
    const Tensor V = recording_backward({g, s[0]}) ? linalg_eigh(s[0], uplo).eigenvectors : s[1];
    return {eigh_grad_L(g, V)};
  });
}

QR linalg_qr(const Tensor& a0, const std::string& mode) {
  const char* op = "linalg.qr";
  check(mode == "reduced" || mode == "complete" || mode == "r", op,
        ": expected mode to be 'reduced', 'complete' or 'r', got '", mode, "'");
  const auto [m, n] = matrix_dims(op, a0);
  const Tensor a = as_contiguous(a0);
  const int64_t k = std::min(m, n);
  const bool complete = mode == "complete", want_q = mode != "r";
  const Shape batch = batch_of(a);
  Tensor q = want_q ? Tensor::uninitialized(with(batch, {m, complete ? m : k}), a.dtype(), a.device())
                    : Tensor::empty({0}, a.dtype(), a.device());
  Tensor r = Tensor::uninitialized(with(batch, {complete ? m : k, n}), a.dtype(), a.device());
  // (k = 0 with a non-empty Q, complete mode's m×m, goes to the kernel too: it returns I.)
  if (compute(r) || (want_q && compute(q)))
    backend_for(a.device()).qr(a.dtype(), a.dev_raw(), count(batch), m, n, complete, want_q ? q.dev_raw() : nullptr,
                               r.dev_raw());
  // PyTorch's conditions, raised when the gradient is asked for.
  auto usable = [mode, m = m, n = n]() {
    check(mode != "r", "linalg.qr: The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
          "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
    check(mode != "complete" || m <= n,
          "linalg.qr: The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
  };
  auto factors = [mode](const SavedTensors& s, const Tensor& g) -> QR {
    if (!recording_backward({g, s[0]})) return {s[1], s[2]};
    return linalg_qr(s[0], mode);
  };
  const SavedTensors saved = {a0, q, r};
  QR out;
  out.Q = !want_q ? q : record("linalg.qr (Q)", q, {a0}, saved, [usable, factors](const Tensor& g, const SavedTensors& s) -> Grads {
    usable();
    const QR f = factors(s, g);
    return {qr_grad(g, Tensor(), f.Q, f.R)};
  });
  out.R = record("linalg.qr (R)", r, {a0}, saved, [usable, factors](const Tensor& g, const SavedTensors& s) -> Grads {
    usable();
    const QR f = factors(s, g);
    return {qr_grad(Tensor(), g, f.Q, f.R)};
  });
  return out;
}

Tensor linalg_solve_triangular(const Tensor& a, const Tensor& b, bool upper, bool left, bool unitriangular) {
  const char* op = "linalg.solveTriangular";
  const int64_t n = square_dims(op, a);
  check_float(op, "B", b);
  check(a.dtype() == b.dtype(), op, ": expected A and B to have the same dtype, got ", dtype_name(a.dtype()), " and ",
        dtype_name(b.dtype()));
  operands_device(op, {&a, &b});
  check(b.ndim() >= 2, op, ": expected B to have at least 2 dimensions, got shape ", b.shape());
  const int64_t rows = b.shape()[b.ndim() - 2], cols = b.shape().back();
  check((left ? rows : cols) == n, op, ": Incompatible shapes of A and B for the equation ", left ? "AX = B" : "XA = B",
        ": A is ", a.shape(), ", B is ", b.shape());
  Shape batch = broadcast_shapes(batch_of(a), batch_of(b), "linalg.solveTriangular (the batch dims of A and B)");
  const Tensor ae = expand(a, with(batch, {n, n})), be = expand(b, with(batch, {rows, cols}));
  // X·A = B is Aᴴ·Xᴴ = Bᴴ: the other triangle of the transpose.
  if (!left) return mT(solve_triangular_left(mT(ae), mT(be), !upper, unitriangular));
  return solve_triangular_left(ae, be, upper, unitriangular);
}

LUFactor linalg_lu_factor(const Tensor& a0) {
  const char* op = "linalg.luFactor";
  const auto [m, n] = matrix_dims(op, a0);
  const Tensor a = as_contiguous(a0);
  const int64_t k = std::min(m, n);
  const Shape batch = batch_of(a);
  Tensor lu = Tensor::uninitialized(a.shape(), a.dtype(), a.device());
  Tensor piv = Tensor::uninitialized(with(batch, {k}), DType::Int32, a.device());
  if (compute(lu))
    backend_for(a.device()).lu_packed(a.dtype(), a.dev_raw(), count(batch), m, n, lu.dev_raw(), piv.dev_i32(), op,
                                      a.ndim() > 2);
  lu = record(op, lu, {a0}, {lu, piv}, [m = m, n = n, k](const Tensor& g, const SavedTensors& s) -> Grads {
    // PyTorch's lu_factor_ex_backward → linalg_lu_backward, with L [.., m, k] unit lower and
    // U [.., k, n] upper from the packed LU, gL = tril(g[:, :k], −1), gU = triu(g[:k, :]).
    const Tensor& LU = s[0];
    // X·U⁻ᴴ for upper U: solve Z·Uᴴ = X as U·Zᴴ = Xᴴ.
    auto times_u_inv_h = [](const Tensor& x, const Tensor& u) { return mT(solve_triangular_left(u, mT(x), true, false)); };
    if (m == n) {  // gA = P·L⁻ᴴ·(tril(Lᴴ·gL, −1) + triu(gU·Uᴴ))·U⁻ᴴ
      const Tensor L = add(tril(LU, -1), eye_like(n, LU)), U = triu(LU);
      const Tensor phi = add(tril(matmul(mT(L), tril(g, -1)), -1), triu(matmul(triu(g), mT(U))));
      const Tensor x = solve_triangular_left(mT(L), phi, true, true);  // L⁻ᴴ·Φ
      return {apply_pivots(s[1], times_u_inv_h(x, U))};
    }
    const Tensor L = add(tril(narrow(LU, -1, 0, k), -1), narrow(eye_like(m, LU), -1, 0, k));
    const Tensor U = triu(narrow(LU, -2, 0, k));
    const Tensor gL = tril(narrow(g, -1, 0, k), -1), gU = triu(narrow(g, -2, 0, k));
    if (m < n) {
      // Wide (k = m): A1 = P·L⁻ᴴ·(gU1 + tril(Lᴴ·gL − gU·Uᴴ, −1)·U1⁻ᴴ), A2 = P·L⁻ᴴ·gU2.
      const Tensor x = times_u_inv_h(tril(sub(matmul(mT(L), gL), matmul(gU, mT(U))), -1), narrow(U, -1, 0, k));
      const Tensor y = cat({add(x, narrow(gU, -1, 0, k)), narrow(gU, -1, k, n - k)}, -1);
      return {apply_pivots(s[1], solve_triangular_left(mT(L), y, true, true))};
    }
    // Tall (k = n): A1 = P·(gL1 + L1⁻ᴴ·triu(gU·Uᴴ − Lᴴ·gL))·U⁻ᴴ, A2 = P·gL2·U⁻ᴴ.
    const Tensor x = solve_triangular_left(mT(narrow(L, -2, 0, k)), triu(sub(matmul(gU, mT(U)), matmul(mT(L), gL))), true, true);
    const Tensor y = cat({add(x, narrow(gL, -2, 0, k)), narrow(gL, -2, k, m - k)}, -2);
    return {apply_pivots(s[1], times_u_inv_h(y, U))};
  });
  return {lu, piv};
}

Tensor linalg_matrix_exp(const Tensor& a) { return matrix_exp_impl(a); }

Tensor linalg_pinv(const Tensor& a, std::optional<double> atol, std::optional<double> rtol) {
  const char* op = "linalg.pinv";
  const auto [m, n] = matrix_dims(op, a);
  Tensor out;
  {
    // PyTorch 1.13's tolerance: σ > max(atol, rtol·σ_max), rtol = max(m, n)·eps when neither is
    // given, 0 when only atol is.
    const double eps = a.dtype() == DType::Float64 ? std::numeric_limits<double>::epsilon()
                                                   : double(std::numeric_limits<float>::epsilon());
    const double r = rtol ? *rtol : atol ? 0.0 : double(std::max(m, n)) * eps;
    const double at = atol ? *atol : 0.0;
    const SvdRaw f = svd_raw(op, a.detach(), false, true);
    if (f.S.numel() == 0) {
      out = zeros(with(batch_of(a), {n, m}), a.dtype(), a.device());
    } else {
      const Tensor smax = amax(f.S, {-1}, true);
      const Tensor tol = maximum(mul(smax, num(r, smax)), num(at, smax));
      const Tensor sinv = where(gt(f.S, tol), reciprocal(f.S), zeros_like_shape(f.S));
      out = matmul(mul(mT(f.Vh), row(sinv)), mT(f.U));
    }
  }
  return record(op, out, {a}, {a, out}, [m = m, n = n](const Tensor& g, const SavedTensors& s) -> Grads {
    // PyTorch's pinv_backward, with the products ordered for the smaller dimension.
    const Tensor &A = s[0], &P = s[1];
    const Tensor Ph = mT(P), gh = mT(g);
    if (m <= n) {
      const Tensor K = matmul(gh, P), KPh = matmul(K, Ph);
      return {add(sub(add(neg(mT(matmul(P, K))), KPh), matmul(matmul(A, P), KPh)),
                  matmul(matmul(Ph, P), sub(gh, matmul(K, A))))};
    }
    const Tensor K = matmul(P, gh), PhK = matmul(Ph, K);
    return {sub(add(add(neg(mT(matmul(K, P))), matmul(matmul(sub(gh, matmul(A, K)), P), Ph)), PhK),
                matmul(matmul(PhK, P), A))};
  });
}

}  // namespace sg
