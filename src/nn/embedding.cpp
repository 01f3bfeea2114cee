// embedding copies rows; its backward scatter-adds rows of g. Both are row memcpy/adds over
// int32 indices, validated before anything is read.
#include "nn/embedding.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "autograd/record.h"
#include "core/copy.h"
#include "core/error.h"
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
  check(weight.dtype() == DType::Float32, op, ": expected weight of dtype float32, got ",
        dtype_name(weight.dtype()));
  check(weight.ndim() == 2, op, ": expected weight of shape [numEmbeddings, embeddingDim], got ", weight.shape());
  const int64_t n = weight.shape()[0], d = weight.shape()[1];
  std::optional<int64_t> pad = padding_idx;
  if (pad) {
    check(*pad >= -n && *pad < n, op, ": paddingIdx ", *pad, " must be within [", -n, ", ", n, ")");
    if (*pad < 0) *pad += n;
  }
  const Tensor idx = as_contiguous(indices);
  const int32_t* ip = idx.i32();
  const int64_t count = idx.numel();
  for (int64_t i = 0; i < count; ++i)
    if (ip[i] < 0 || ip[i] >= n) fail(op, ": index ", ip[i], " is out of range for ", n, " embeddings");

  Shape out_shape = indices.shape();
  out_shape.push_back(d);
  Tensor out = Tensor::empty(out_shape);
  const Tensor wc = as_contiguous(weight);
  const float* wp = wc.f32();
  float* dst = out.f32();
  for (int64_t i = 0; i < count; ++i) std::memcpy(dst + i * d, wp + int64_t(ip[i]) * d, size_t(d) * sizeof(float));

  const Shape w_shape = weight.shape();
  return record(op, out, {weight, indices}, [idx, pad, w_shape, d](const Tensor& g) {
    const Tensor gc = as_contiguous(g, DType::Float32);
    Tensor dw = Tensor::empty(w_shape);
    const int32_t* ip = idx.i32();
    const float* gp = gc.f32();
    float* dp = dw.f32();
    for (int64_t i = 0, count = idx.numel(); i < count; ++i) {
      if (pad && ip[i] == *pad) continue;
      float* row = dp + int64_t(ip[i]) * d;
      const float* src = gp + i * d;
      for (int64_t k = 0; k < d; ++k) row[k] += src[k];
    }
    return std::vector<Tensor>{dw, Tensor()};
  });
}

Tensor one_hot(const Tensor& indices, int64_t num_classes) {
  const char* op = "oneHot";
  check_indices(op, indices);
  check(num_classes >= -1, op, ": numClasses must be -1 (inferred) or non-negative, got ", num_classes);
  const Tensor idx = as_contiguous(indices);
  const int32_t* ip = idx.i32();
  const int64_t count = idx.numel();
  for (int64_t i = 0; i < count; ++i)
    check(ip[i] >= 0, op, ": class values must be non-negative, got ", ip[i]);
  if (num_classes == -1) {
    check(count > 0, op, ": cannot infer the number of classes from an empty tensor");
    num_classes = int64_t(*std::max_element(ip, ip + count)) + 1;
  }
  for (int64_t i = 0; i < count; ++i)
    check(ip[i] < num_classes, op, ": class value ", ip[i], " is out of range for ", num_classes, " classes");
  Shape out_shape = indices.shape();
  out_shape.push_back(num_classes);
  Tensor out = Tensor::empty(out_shape, DType::Int32);
  int32_t* o = out.i32();
  for (int64_t i = 0; i < count; ++i) o[i * num_classes + ip[i]] = 1;
  return out;
}

}  // namespace sg
