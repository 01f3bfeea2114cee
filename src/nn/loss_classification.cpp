// cross_entropy (fused log-softmax + NLL) and nll_loss. Both see the input as rows of classes
// [R, C]: input [C] is one row, [N, C] N rows, and [N, C, d1, ...] is permuted to
// [N, d1, ..., C] (one copy) so that row r matches target element r.
//
// cross_entropy's forward walks the rows in blocks: the backend's log-softmax (max-shifted,
// vectorized) fills a small scratch block, which is consumed at once into per-row losses, so
// no [R, C] log-probability tensor is kept. Its backward recomputes softmax per block into
// the gradient buffer and subtracts the target distribution there:
//   d loss_r / d x_r = s_r·(a_r·p_r − q_r),  q_r the (weighted, smoothed) target distribution,
//   a_r = Σ_c q_rc, s_r the reduction's scale (g, g/denominator, or g_r for 'none').
#include <algorithm>
#include <cmath>
#include <vector>

#include "autograd/record.h"
#include "core/copy.h"
#include "core/error.h"
#include "kernels/backend.h"
#include "nn/loss.h"
#include "nn/loss_common.h"
#include "ops/ops.h"

namespace sg {

using namespace loss_detail;

namespace {

constexpr int64_t kBlockFloats = 16384;  // scratch per block of rows (64 KiB)

// How a class-dim input is laid out as rows.
struct Rows {
  int64_t rows = 0, classes = 0;
  Shape input_shape;
  Shape target_shape;  // input's shape without the class dim ([] for a 1-D input)
  bool permuted = false;  // [N, C, d...]: rows are a permuted copy
};

Rows rows_layout(const char* op, const Tensor& input) {
  check_float(op, input, "input");
  check(input.ndim() >= 1, op, ": expected an input of shape [C], [N, C] or [N, C, d1, ...], got a 0-d tensor");
  Rows l;
  l.input_shape = input.shape();
  const int64_t class_dim = input.ndim() == 1 ? 0 : 1;
  l.classes = input.shape()[class_dim];
  check(l.classes > 0, op, ": expected at least one class, got input of shape ", input.shape());
  for (int64_t d = 0; d < input.ndim(); ++d)
    if (d != class_dim) l.target_shape.push_back(input.shape()[d]);
  l.rows = numel_of(l.target_shape);
  l.permuted = input.ndim() > 2;
  return l;
}

// The input as a contiguous [R, C] tensor.
Tensor to_rows(const Tensor& x, const Rows& l) {
  if (!l.permuted) return reshape(as_contiguous(x), {l.rows, l.classes});
  Dims perm{0};
  for (int64_t d = 2; d < x.ndim(); ++d) perm.push_back(d);
  perm.push_back(1);
  return reshape(contiguous_copy(permute(x, perm)), {l.rows, l.classes});
}

// The inverse of to_rows for a gradient [R, C].
Tensor from_rows(const Tensor& g, const Rows& l) {
  if (!l.permuted) return reshape(g, l.input_shape);
  Shape moved{l.input_shape[0]};
  for (size_t d = 2; d < l.input_shape.size(); ++d) moved.push_back(l.input_shape[d]);
  moved.push_back(l.classes);
  const int64_t nd = int64_t(l.input_shape.size());
  Dims perm{0, nd - 1};
  for (int64_t d = 1; d < nd - 1; ++d) perm.push_back(d);
  return contiguous_copy(permute(reshape(g, moved), perm));
}

// Index targets: int32 of the target shape, each in [0, C) or equal to ignore_index.
Tensor checked_indices(const char* op, const Tensor& target, const Rows& l, int64_t ignore_index) {
  check(target.shape() == l.target_shape, op, ": expected target of shape ", l.target_shape, " for input ",
        l.input_shape, ", got ", target.shape());
  Tensor t = as_contiguous(target);
  const int32_t* tp = t.i32();
  for (int64_t r = 0; r < l.rows; ++r)
    if (tp[r] != ignore_index && (tp[r] < 0 || tp[r] >= l.classes))
      fail(op, ": target ", tp[r], " is out of range for ", l.classes, " classes");
  return t;
}

void check_class_weight(const char* op, const Tensor& weight, int64_t classes) {
  if (!weight.defined()) return;
  check_float(op, weight, "weight");
  check(weight.shape() == Shape{classes}, op, ": expected weight of shape ", Shape{classes}, ", got ",
        weight.shape());
}

// The class weights as doubles (all 1 when undefined).
std::vector<double> class_weights(const Tensor& weight, int64_t classes) {
  std::vector<double> w(size_t(classes), 1.0);
  if (weight.defined())
    for (int64_t c = 0; c < classes; ++c) w[c] = weight.at(c);
  return w;
}

// Per-row losses [R] → the reduced output. `denom` is the 'mean' divisor.
Tensor reduce_rows(const std::vector<double>& loss, Reduction r, double denom, const Shape& target_shape) {
  if (r == Reduction::None) {
    Tensor out = Tensor::empty(target_shape);
    for (size_t i = 0; i < loss.size(); ++i) out.f32()[i] = float(loss[i]);
    return out;
  }
  double total = 0;
  for (double v : loss) total += v;
  return scalar_tensor(r == Reduction::Mean ? total / denom : total);
}

// s_r for every row from the output gradient g.
std::vector<double> row_scales(const Tensor& g, Reduction r, double denom, int64_t rows) {
  std::vector<double> s(static_cast<size_t>(rows));
  if (r == Reduction::None) {
    const Tensor gc = as_contiguous(g, DType::Float32);
    for (int64_t i = 0; i < rows; ++i) s[i] = gc.f32()[i];
  } else {
    const double v = g.item() / (r == Reduction::Mean ? denom : 1.0);
    std::fill(s.begin(), s.end(), v);
  }
  return s;
}

// Runs fn(first_row, n_rows, block) over blocks of rows, where block holds the log-softmax
// (log_ = true) or softmax of those rows of x [R, C].
template <class Fn>
void for_row_blocks(const Tensor& x, int64_t rows, int64_t classes, bool log_, float* out, Fn&& fn) {
  const int64_t per_block = std::max<int64_t>(1, kBlockFloats / classes);
  std::vector<float> scratch;
  if (!out) scratch.resize(size_t(std::min(per_block, rows) * classes));
  for (int64_t r0 = 0; r0 < rows; r0 += per_block) {
    const int64_t nr = std::min(per_block, rows - r0);
    float* block = out ? out + r0 * classes : scratch.data();
    backend().softmax_rows_f32(x.f32() + r0 * classes, block, nr, classes, log_);
    fn(r0, nr, block);
  }
}

Tensor cross_entropy_indices(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                             Reduction red, double eps, const Rows& l) {
  const char* op = "crossEntropy";
  const Tensor t = checked_indices(op, target, l, ignore_index);
  const Tensor x = to_rows(input, l);
  const int64_t C = l.classes;
  const std::vector<double> w = class_weights(weight, C);
  double w_total = 0;
  for (double v : w) w_total += v;
  const double smooth = eps / double(C);
  std::vector<double> loss(size_t(l.rows), 0.0);
  double denom = 0;
  const int32_t* tp = t.i32();
  for_row_blocks(x, l.rows, C, true, nullptr, [&](int64_t r0, int64_t nr, const float* logp) {
    for (int64_t i = 0; i < nr; ++i) {
      const int64_t r = r0 + i;
      if (tp[r] == ignore_index) continue;
      const float* lp = logp + i * C;
      const double wy = w[tp[r]];
      double v = -(1.0 - eps) * wy * lp[tp[r]];
      if (eps > 0) {
        double s = 0;
        for (int64_t c = 0; c < C; ++c) s += w[c] * lp[c];
        v -= smooth * s;
      }
      loss[r] = v;
      denom += wy;
    }
  });
  const Tensor out = reduce_rows(loss, red, denom, l.target_shape);
  return record(op, out, {input, target, weight}, [=](const Tensor& g) {
    const std::vector<double> s = row_scales(g, red, denom, l.rows);
    const int32_t* ti = t.i32();
    Tensor dx = Tensor::empty({l.rows, C});
    for_row_blocks(x, l.rows, C, false, dx.f32(), [&](int64_t r0, int64_t nr, float* p) {
      for (int64_t i = 0; i < nr; ++i) {
        const int64_t r = r0 + i;
        float* row = p + i * C;
        if (ti[r] == ignore_index) {
          std::fill(row, row + C, 0.0f);
          continue;
        }
        const double wy = w[ti[r]];
        const double a = (1.0 - eps) * wy + smooth * w_total;
        for (int64_t c = 0; c < C; ++c) row[c] = float(s[r] * (a * row[c] - smooth * w[c]));
        row[ti[r]] -= float(s[r] * (1.0 - eps) * wy);
      }
    });
    return std::vector<Tensor>{from_rows(dx, l), Tensor(), Tensor()};
  });
}

Tensor cross_entropy_probs(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                           Reduction red, double eps, const Rows& l) {
  const char* op = "crossEntropy";
  check(ignore_index < 0, op, ": ignoreIndex is not supported for probability (float32) targets, got ",
        ignore_index);
  const Tensor x = to_rows(input, l);
  const Tensor q = to_rows(target, l);  // the target distribution, before smoothing
  const int64_t C = l.classes;
  const std::vector<double> w = class_weights(weight, C);
  const double smooth = eps / double(C);
  std::vector<double> loss(size_t(l.rows), 0.0);
  const float* qp = q.f32();
  for_row_blocks(x, l.rows, C, true, nullptr, [&](int64_t r0, int64_t nr, const float* logp) {
    for (int64_t i = 0; i < nr; ++i) {
      const float* lp = logp + i * C;
      const float* qr = qp + (r0 + i) * C;
      double v = 0;
      for (int64_t c = 0; c < C; ++c) v -= w[c] * ((1.0 - eps) * qr[c] + smooth) * lp[c];
      loss[r0 + i] = v;
    }
  });
  const double denom = double(l.rows);
  const Tensor out = reduce_rows(loss, red, denom, l.target_shape);
  const bool need_t = target.requires_grad();
  return record(op, out, {input, target, weight}, [=](const Tensor& g) {
    const std::vector<double> s = row_scales(g, red, denom, l.rows);
    const float* qi = q.f32();
    Tensor dx = Tensor::empty({l.rows, C});
    for_row_blocks(x, l.rows, C, false, dx.f32(), [&](int64_t r0, int64_t nr, float* p) {
      for (int64_t i = 0; i < nr; ++i) {
        const int64_t r = r0 + i;
        float* row = p + i * C;
        const float* qr = qi + r * C;
        double a = 0;
        for (int64_t c = 0; c < C; ++c) a += w[c] * ((1.0 - eps) * qr[c] + smooth);
        for (int64_t c = 0; c < C; ++c) row[c] = float(s[r] * (a * row[c] - w[c] * ((1.0 - eps) * qr[c] + smooth)));
      }
    });
    Tensor dt;
    if (need_t) {  // d/dq_c = −(1 − ε)·w_c·log p_c
      dt = Tensor::empty({l.rows, C});
      for_row_blocks(x, l.rows, C, true, dt.f32(), [&](int64_t r0, int64_t nr, float* lp) {
        for (int64_t i = 0; i < nr; ++i)
          for (int64_t c = 0; c < C; ++c) {
            float& v = lp[i * C + c];
            v = float(-s[r0 + i] * (1.0 - eps) * w[c] * v);
          }
      });
      dt = from_rows(dt, l);
    }
    return std::vector<Tensor>{from_rows(dx, l), dt, Tensor()};
  });
}

}  // namespace

Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                     const std::string& reduction, double label_smoothing) {
  const char* op = "crossEntropy";
  const Reduction red = parse_reduction(op, reduction);
  const Rows l = rows_layout(op, input);
  check(target.defined(), op, ": target must be given");
  check_class_weight(op, weight, l.classes);
  check(label_smoothing >= 0.0 && label_smoothing <= 1.0, op, ": labelSmoothing must be between 0 and 1, got ",
        label_smoothing);
  if (target.dtype() == DType::Int32)
    return cross_entropy_indices(input, target, weight, ignore_index, red, label_smoothing, l);
  check(target.dtype() == DType::Float32, op,
        ": expected target of dtype int32 (class indices) or float32 (probabilities), got ",
        dtype_name(target.dtype()));
  check(target.shape() == l.input_shape, op, ": expected a float32 target of probabilities of the input's shape ",
        l.input_shape, ", got ", target.shape(), " (class indices must be int32)");
  return cross_entropy_probs(input, target, weight, ignore_index, red, label_smoothing, l);
}

Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                const std::string& reduction) {
  const char* op = "nllLoss";
  const Reduction red = parse_reduction(op, reduction);
  const Rows l = rows_layout(op, input);
  check(target.defined(), op, ": target must be given");
  check(target.dtype() == DType::Int32, op, ": expected target of dtype int32 (class indices), got ",
        dtype_name(target.dtype()));
  check_class_weight(op, weight, l.classes);
  const Tensor t = checked_indices(op, target, l, ignore_index);
  const Tensor x = to_rows(input, l);
  const int64_t C = l.classes;
  const std::vector<double> w = class_weights(weight, C);
  std::vector<double> loss(size_t(l.rows), 0.0);
  double denom = 0;
  const int32_t* tp = t.i32();
  for (int64_t r = 0; r < l.rows; ++r) {
    if (tp[r] == ignore_index) continue;
    loss[r] = -w[tp[r]] * x.f32()[r * C + tp[r]];
    denom += w[tp[r]];
  }
  const Tensor out = reduce_rows(loss, red, denom, l.target_shape);
  return record(op, out, {input, target, weight}, [=](const Tensor& g) {
    const std::vector<double> s = row_scales(g, red, denom, l.rows);
    const int32_t* ti = t.i32();
    Tensor dx = Tensor::empty({l.rows, C});  // zero-filled
    for (int64_t r = 0; r < l.rows; ++r)
      if (ti[r] != ignore_index) dx.f32()[r * C + ti[r]] = float(-s[r] * w[ti[r]]);
    return std::vector<Tensor>{from_rows(dx, l), Tensor(), Tensor()};
  });
}

}  // namespace sg
