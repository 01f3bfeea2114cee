// The reductions and the one-node elementwise loss shared by the loss files (loss_common.h).
#include "nn/loss_common.h"

#include "autograd/composite.h"
#include "autograd/grad_mode.h"
#include "autograd/record.h"
#include "core/error.h"
#include "ops/ops.h"

namespace sg {

namespace loss_detail {

Reduction parse_reduction(const char* op, const std::string& name, bool allow_batchmean) {
  if (name == "mean") return Reduction::Mean;
  if (name == "sum") return Reduction::Sum;
  if (name == "none") return Reduction::None;
  if (allow_batchmean && name == "batchmean") return Reduction::BatchMean;
  fail(op, ": reduction must be ", allow_batchmean ? "'mean', 'batchmean', 'sum' or 'none'" : "'mean', 'sum' or 'none'",
       ", got '", name, "'");
}

Tensor reduce_loss(const Tensor& per, Reduction r, int64_t batch) {
  switch (r) {
    case Reduction::None: return per;
    case Reduction::Mean: return mean(per);
    case Reduction::Sum: return sum(per);
    case Reduction::BatchMean: return div(sum(per), scalar_tensor(double(batch)));
  }
  return per;
}

Tensor per_element_grad(const Tensor& g, Reduction r, int64_t n, int64_t batch) {
  switch (r) {
    case Reduction::None:
    case Reduction::Sum: return g;
    case Reduction::Mean: return div(g, scalar_tensor(double(n)));  // n = 0 gives NaN, as the mean
    case Reduction::BatchMean: return div(g, scalar_tensor(double(batch)));
  }
  return g;
}

void check_float(const char* op, const Tensor& t, const char* what) {
  check(t.defined(), op, ": ", what, " must be given");
  check(t.dtype() == DType::Float32 || t.dtype() == DType::Float64, op, ": expected ", what,
        " of dtype float32 or float64, got ", dtype_name(t.dtype()));
}

Tensor loss_node(const char* op, const Tensor& per, Reduction r, int64_t batch, const std::vector<Tensor>& inputs,
                 LossGrads grads, PerElement per_of, std::vector<bool> constant) {
  Tensor out;
  {
    NoGradGuard no_grad;
    out = reduce_loss(per, r, batch);
  }
  std::vector<bool> need;
  std::vector<Shape> shapes;
  for (const Tensor& t : inputs) {
    need.push_back(t.defined() && t.requires_grad());
    shapes.push_back(t.defined() ? t.shape() : Shape{});
  }
  const Shape per_shape = per.shape();
  const int64_t n = per.numel();
  return record(op, out, inputs, inputs, [=](const Tensor& g, const SavedTensors& saved) {
    if (per_of && grad_enabled() && (g.requires_grad() || any_requires_grad(saved))) {
      std::vector<Tensor> in = saved;
      for (size_t i = 0; i < constant.size() && i < in.size(); ++i)
        if (constant[i] && in[i].defined()) in[i] = in[i].detach();
      return composite_vjp(g, in, [&](const std::vector<Tensor>& xs) { return reduce_loss(per_of(xs), r, batch); });
    }
    std::vector<Tensor> gs = grads(per_element_grad(g, r, n, batch), need);
    gs.resize(need.size());
    for (size_t i = 0; i < gs.size(); ++i) {
      if (!need[i] || !gs[i].defined()) {
        gs[i] = Tensor();
        continue;
      }
      Tensor t = gs[i].shape() == per_shape ? gs[i] : expand(gs[i], per_shape);
      gs[i] = contiguous(sum_to(t, shapes[i]));
    }
    return gs;
  });
}

}  // namespace loss_detail

}  // namespace sg
