// embedding copies rows; its backward scatter-adds rows of g (the backend's index_select and
// index_add kernels), over int32 indices validated before anything is read.
#include "nn/embedding.h"

#include <climits>
#include <string>
#include <vector>

#include "autograd/record.h"
#include "core/copy.h"
#include "core/error.h"
#include "kernels/backend.h"
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {

namespace {

void check_indices(const char* op, const Tensor& indices) {
  check(indices.defined(), op, ": the indices must be given");
  check(indices.dtype() == DType::Int32, op, ": expected indices of dtype int32, got ",
        dtype_name(indices.dtype()));
}

}  // namespace

Tensor embedding(const Tensor& weight, const Tensor& indices, std::optional<int64_t> padding_idx) {
  const char* op = "embedding";
  check(weight.defined(), op, ": the weight must be given");
  check_indices(op, indices);
  const DType dt = weight.dtype();  // float64 weights (the cpu's) look up and accumulate in double
  check(dt == DType::Float32 || dt == DType::Float64, op, ": expected weight of dtype float32 or float64, got ",
        dtype_name(dt));
  check(weight.ndim() == 2, op, ": expected weight of shape [numEmbeddings, embeddingDim], got ", weight.shape());
  const int64_t n = weight.shape()[0], d = weight.shape()[1];
  std::optional<int64_t> pad = padding_idx;
  if (pad) {
    check(*pad >= -n && *pad < n, op, ": paddingIdx ", *pad, " must be within [", -n, ", ", n, ")");
    if (*pad < 0) *pad += n;
  }
  const Device dev = operands_device(op, {&weight, &indices});
  const Backend& be = backend_for(dev);
  const Tensor idx = as_contiguous(moved_to(indices, dev));
  const int64_t count = idx.numel();
  if (count > 0)
    be.check_indices(idx.dev_i32(), count, 0, n, INT64_MIN, std::string(op) + ": index ",
                     " is out of range for " + std::to_string(n) + " embeddings");

  Shape out_shape = indices.shape();
  out_shape.push_back(d);
  Tensor out = Tensor::uninitialized(out_shape, dt, dev);
  const Tensor wc = as_contiguous(weight);
  if (out.numel() > 0) be.index_select(dtype_size(dt), wc.dev_raw(), 1, n, d, idx.dev_i32(), count, out.dev_raw());

  const Shape w_shape = weight.shape();
  return record(op, out, {weight, indices}, [idx, pad, w_shape, n, d, dt](const Tensor& g) {
    const Backend& kb = backend_for(g.device());
    const Tensor gc = as_contiguous(g, dt);
    Tensor dw = Tensor::empty(w_shape, dt, g.device());
    if (idx.numel() > 0 && d > 0) {
      if (dt == DType::Float64) kb.index_add_f64(gc.f64(), 1, idx.numel(), d, idx.dev_i32(), n, dw.f64());
      else kb.index_add_f32(gc.dev_f32(), 1, idx.numel(), d, idx.dev_i32(), n, dw.dev_f32());
      // The padding row gets no gradient: only its own lookups added to it.
      if (pad) kb.fill(dt, 0.0, static_cast<char*>(dw.dev_raw()) + *pad * d * dtype_size(dt), d);
    }
    // Recorded: the adjoint looks the rows up again (none for the padding index).
    const Shape g_shape = g.shape();
    return std::vector<Tensor>{linear_grad("embeddingBackward", g, dw, [idx, pad, d, g_shape](const Tensor& gg) {
                                 const Tensor flat = reshape(idx, {idx.numel()});
                                 Tensor rows = index_select(gg, 0, flat);
                                 if (pad)
                                   rows = mul(rows, unsqueeze(cast(ne(flat, scalar_tensor(double(*pad), DType::Int32)),
                                                                   gg.dtype()), 1));
                                 return reshape(rows, g_shape);
                               }),
                               Tensor()};
  });
}

Tensor one_hot(const Tensor& indices, int64_t num_classes) {
  const char* op = "oneHot";
  check_indices(op, indices);
  check(num_classes >= -1, op, ": numClasses must be -1 (inferred) or non-negative, got ", num_classes);
  const Device dev = indices.device();
  const Backend& be = backend_for(dev);
  const Tensor idx = as_contiguous(indices);
  const int64_t count = idx.numel();
  if (count > 0)
    be.check_indices(idx.dev_i32(), count, 0, INT32_MAX + int64_t(1), INT64_MIN,
                     std::string(op) + ": class values must be non-negative, got ", "");
  if (num_classes == -1) {
    check(count > 0, op, ": cannot infer the number of classes from an empty tensor");
    // The output's shape depends on the values: they are read here (so not on a device that
    // answers asynchronously: pass numClasses there).
    check(dev == Device::CPU, op, ": numClasses must be given for ", device_name(dev),
          " tensors (inferring it would read the values)");
    num_classes = int64_t(amax(idx).item()) + 1;
  }
  if (count > 0)
    be.check_indices(idx.dev_i32(), count, 0, num_classes, INT64_MIN, std::string(op) + ": class value ",
                     " is out of range for " + std::to_string(num_classes) + " classes");
  // out[..., c] = (index == c)
  return cast(eq(unsqueeze(idx, -1), arange(0, double(num_classes), 1, DType::Int32, dev)), DType::Int32);
}

}  // namespace sg
