// Shape ops. All but cat/stack (and reshape of an unviewable layout) are views: they share the
// input's storage through Tensor::view_of with new shape/strides/offset, as PyTorch's do.
// Each records its own node, whose backward maps the gradient back onto the input's shape.
#include <algorithm>
#include <optional>

#include "autograd/record.h"
#include "core/copy.h"
#include "core/error.h"
#include "ops/ops.h"

namespace sg {

namespace {

using Grads = std::vector<Tensor>;

// Elements [start, start + length·step) along dim, every step-th. No autograd, no checks.
Tensor raw_narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length, int64_t step = 1) {
  Shape shape = x.shape(), strides = x.strides();
  int64_t offset = x.offset() + start * strides[dim];
  shape[dim] = length;
  strides[dim] *= step;
  return Tensor::view_of(x, std::move(shape), std::move(strides), offset);
}

// Index i along dim, that dim removed. No autograd, no checks.
Tensor raw_select(const Tensor& x, int64_t dim, int64_t i) {
  Shape shape = x.shape(), strides = x.strides();
  int64_t offset = x.offset() + i * strides[dim];
  shape.erase(shape.begin() + dim);
  strides.erase(strides.begin() + dim);
  return Tensor::view_of(x, std::move(shape), std::move(strides), offset);
}

// The gradient of a narrow/slice: zeros of the input's shape with g written into the window.
Tensor embed(const Tensor& g, const Shape& in_shape, int64_t dim, int64_t start, int64_t length,
             int64_t step) {
  Tensor z = zeros(in_shape, g.dtype(), g.device());  // the gradient's dtype (float32 or float64)
  copy_into(raw_narrow(z, dim, start, length, step), g);
  return z;
}

// PyTorch's computeStride: strides that let `shape` read the same elements, in the same
// row-major order, as old_shape/old_strides, or nothing when some new dim would have to span
// two non-mergeable runs of old dims.
std::optional<Shape> view_strides(const Shape& old_shape, const Shape& old_strides, const Shape& shape) {
  if (old_shape.empty()) return Shape(shape.size(), 1);
  int64_t numel = numel_of(old_shape);
  if (numel == 0 && old_shape == shape) return old_strides;
  Shape strides(shape.size());
  if (numel == 0) {
    for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d)
      strides[d] = d == int64_t(shape.size()) - 1 ? 1 : std::max<int64_t>(shape[d + 1], 1) * strides[d + 1];
    return strides;
  }
  int64_t view_d = int64_t(shape.size()) - 1;
  int64_t chunk_base_stride = old_strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t tensor_d = int64_t(old_shape.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= old_shape[tensor_d];
    // End of a run of old dims that are contiguous with each other.
    if (tensor_d == 0 ||
        (old_shape[tensor_d - 1] != 1 && old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        strides[view_d] = view_numel * chunk_base_stride;
        view_numel *= shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (tensor_d > 0) {
        chunk_base_stride = old_strides[tensor_d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return strides;
}

Tensor record_reshape(const char* name, const Tensor& x, const Tensor& out) {
  Shape in_shape = x.shape();
  return record(name, out, {x}, [in_shape](const Tensor& g) { return Grads{reshape(g, in_shape)}; });
}

void check_not_scalar(const Tensor& x, const char* op) {
  check(x.ndim() > 0, op, ": cannot be applied to a 0-dim tensor");
}

}  // namespace

Tensor reshape(const Tensor& x, const Shape& shape) {
  Shape target = infer_shape(shape, x.numel(), "reshape");
  Tensor out;
  if (auto strides = view_strides(x.shape(), x.strides(), target)) {
    out = Tensor::view_of(x, target, *strides, x.offset());
  } else {
    Tensor c = contiguous_copy(x);
    out = Tensor::view_of(c, target, contiguous_strides(target), 0);
  }
  return record_reshape("reshape", x, out);
}

Tensor view(const Tensor& x, const Shape& shape) {
  Shape target = infer_shape(shape, x.numel(), "view");
  auto strides = view_strides(x.shape(), x.strides(), target);
  if (!strides)
    fail(
        "view: size is not compatible with input tensor's size and stride (at least one dimension "
        "spans across two contiguous subspaces): cannot view shape ",
        x.shape(), " with strides ", x.strides(), " as ", target, "; use reshape instead");
  return record_reshape("view", x, Tensor::view_of(x, target, *strides, x.offset()));
}

Tensor flatten(const Tensor& x, int64_t start, int64_t end) {
  if (x.ndim() == 0) return reshape(x, {1});
  int64_t s = normalize_dim(start, x.ndim(), "flatten");
  int64_t e = normalize_dim(end, x.ndim(), "flatten");
  check(s <= e, "flatten: start dim (", start, ") cannot come after end dim (", end, ")");
  if (s == e) return x;
  Shape shape(x.shape().begin(), x.shape().begin() + s);
  int64_t n = 1;
  for (int64_t d = s; d <= e; ++d) n *= x.shape()[d];
  shape.push_back(n);
  shape.insert(shape.end(), x.shape().begin() + e + 1, x.shape().end());
  return reshape(x, shape);
}

Tensor squeeze(const Tensor& x, std::optional<int64_t> dim) {
  std::optional<int64_t> only;
  if (dim) only = normalize_dim(*dim, x.ndim(), "squeeze");
  Shape shape, strides;
  for (int64_t d = 0; d < x.ndim(); ++d) {
    bool drop = x.shape()[d] == 1 && (!only || *only == d);
    if (drop) continue;
    shape.push_back(x.shape()[d]);
    strides.push_back(x.strides()[d]);
  }
  return record_reshape("squeeze", x, Tensor::view_of(x, shape, strides, x.offset()));
}

Tensor unsqueeze(const Tensor& x, int64_t dim) {
  int64_t n = x.ndim();
  check(dim >= -n - 1 && dim <= n, "unsqueeze: dim ", dim, " is out of range for a tensor with ", n,
        " dims (expected a dim in [", -n - 1, ", ", n, "])");
  int64_t d = dim < 0 ? dim + n + 1 : dim;
  Shape shape = x.shape(), strides = x.strides();
  int64_t stride = d < n ? shape[d] * strides[d] : 1;
  shape.insert(shape.begin() + d, 1);
  strides.insert(strides.begin() + d, stride);
  return record_reshape("unsqueeze", x, Tensor::view_of(x, shape, strides, x.offset()));
}

Tensor expand(const Tensor& x, const Shape& sizes) {
  int64_t n = int64_t(sizes.size()), nx = x.ndim();
  check(n >= nx, "expand: cannot expand shape ", x.shape(), " to ", sizes, ": the number of sizes (", n,
        ") must be at least the number of dims of the tensor (", nx, ")");
  Shape shape(n), strides(n);
  for (int64_t i = 0; i < n; ++i) {
    int64_t xi = i - (n - nx);  // the matching dim of x, or negative for a new leading dim
    int64_t want = sizes[i];
    if (xi < 0) {
      check(want >= 0, "expand: cannot expand shape ", x.shape(), " to ", sizes, ": size ", want,
            " is not allowed in a new leading dim (", i, ")");
      shape[i] = want;
      strides[i] = 0;
      continue;
    }
    int64_t have = x.shape()[xi];
    if (want == -1) want = have;
    check(want >= 0, "expand: cannot expand shape ", x.shape(), " to ", sizes, ": invalid size ", want,
          " at dim ", i);
    check(have == want || have == 1, "expand: cannot expand shape ", x.shape(), " to ", sizes, ": the size ",
          have, " at dim ", i, " must be 1 or match ", want);
    shape[i] = want;
    strides[i] = have == want ? x.strides()[xi] : 0;
  }
  Tensor out = Tensor::view_of(x, shape, strides, x.offset());
  Shape in_shape = x.shape();
  return record("expand", out, {x}, [in_shape](const Tensor& g) { return Grads{sum_to(g, in_shape)}; });
}

Tensor transpose(const Tensor& x, int64_t d0, int64_t d1) {
  int64_t a = normalize_dim(d0, x.ndim(), "transpose");
  int64_t b = normalize_dim(d1, x.ndim(), "transpose");
  Shape shape = x.shape(), strides = x.strides();
  if (x.ndim() > 0) {
    std::swap(shape[a], shape[b]);
    std::swap(strides[a], strides[b]);
  }
  Tensor out = Tensor::view_of(x, shape, strides, x.offset());
  return record("transpose", out, {x}, [d0, d1](const Tensor& g) { return Grads{transpose(g, d0, d1)}; });
}

Tensor permute(const Tensor& x, const Dims& dims) {
  int64_t n = x.ndim();
  check(int64_t(dims.size()) == n, "permute: dims ", dims, " must list each of the ", n,
        " dims of the input (shape ", x.shape(), ") once");
  Dims perm(n), inverse(n, -1);
  for (int64_t i = 0; i < n; ++i) {
    perm[i] = normalize_dim(dims[i], n, "permute");
    check(inverse[perm[i]] < 0, "permute: dims ", dims, " is not a permutation: dim ", perm[i], " repeats");
    inverse[perm[i]] = i;
  }
  Shape shape(n), strides(n);
  for (int64_t i = 0; i < n; ++i) {
    shape[i] = x.shape()[perm[i]];
    strides[i] = x.strides()[perm[i]];
  }
  Tensor out = Tensor::view_of(x, shape, strides, x.offset());
  return record("permute", out, {x}, [inverse](const Tensor& g) { return Grads{permute(g, inverse)}; });
}

Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length) {
  check_not_scalar(x, "narrow");
  int64_t d = normalize_dim(dim, x.ndim(), "narrow");
  int64_t size = x.shape()[d];
  check(start >= -size && start <= size, "narrow: start ", start, " is out of range for dim ", d, " of size ",
        size, " (expected a start in [", -size, ", ", size, "])");
  if (start < 0) start += size;
  check(length >= 0, "narrow: length must be non-negative, got ", length);
  check(start + length <= size, "narrow: start (", start, ") + length (", length,
        ") exceeds dimension size (", size, ") of dim ", d);
  Tensor out = raw_narrow(x, d, start, length);
  Shape in_shape = x.shape();
  return record("narrow", out, {x}, [in_shape, d, start, length](const Tensor& g) {
    return Grads{linear_grad("narrowBackward", g, embed(g, in_shape, d, start, length, 1),
                             [d, start, length](const Tensor& gg) { return narrow(gg, d, start, length); })};
  });
}

Tensor slice(const Tensor& x, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
             int64_t step) {
  check_not_scalar(x, "slice");
  int64_t d = normalize_dim(dim, x.ndim(), "slice");
  check(step >= 1, "slice: step must be positive, got ", step);
  int64_t size = x.shape()[d];
  // Python's rules: negative bounds count from the end, then both clamp to [0, size].
  auto clamp_bound = [size](int64_t v) {
    if (v < 0) v += size;
    return std::clamp<int64_t>(v, 0, size);
  };
  int64_t s = start ? clamp_bound(*start) : 0;
  int64_t e = end ? clamp_bound(*end) : size;
  int64_t length = e > s ? (e - s + step - 1) / step : 0;
  Tensor out = raw_narrow(x, d, s, length, step);
  Shape in_shape = x.shape();
  return record("slice", out, {x}, [in_shape, d, s, length, step](const Tensor& g) {
    return Grads{linear_grad("sliceBackward", g, embed(g, in_shape, d, s, length, step),
                             [d, s, length, step](const Tensor& gg) { return slice(gg, d, s, s + length * step, step); })};
  });
}

Tensor cat(const std::vector<Tensor>& xs, int64_t dim) {
  check(!xs.empty(), "cat: expected a non-empty list of tensors");
  // PyTorch's legacy rule: 1-D empty tensors (shape [0]) are skipped whatever the other shapes.
  auto skipped = [](const Tensor& t) { return t.ndim() == 1 && t.shape()[0] == 0; };
  DType dtype = xs[0].dtype();
  int64_t ref = -1;  // the first tensor that takes part
  for (size_t i = 0; i < xs.size(); ++i) {
    check(xs[i].defined(), "cat: tensor ", i, " is undefined");
    check(xs[i].ndim() > 0, "cat: zero-dimensional tensor (at position ", i, ") cannot be concatenated");
    dtype = promote(dtype, xs[i].dtype());
    if (ref < 0 && !skipped(xs[i])) ref = int64_t(i);
  }
  if (ref < 0) {
    // Every input is a skipped [0]: the result is [0], recorded all the same so that backward
    // reaches the inputs (PyTorch's CatBackward0, with empty gradients).
    std::vector<bool> float_in;
    for (const Tensor& t : xs) float_in.push_back(is_floating(t.dtype()));
    return record("cat", Tensor::empty({0}, dtype, xs[0].device()), xs, [float_in](const Tensor& g) {
      Grads grads(float_in.size());
      for (size_t i = 0; i < float_in.size(); ++i)
        if (float_in[i]) grads[i] = zeros({0}, g.dtype(), g.device());
      return grads;
    });
  }
  const Tensor& first = xs[ref];
  int64_t d = normalize_dim(dim, first.ndim(), "cat");
  Shape shape = first.shape();
  shape[d] = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const Tensor& t = xs[i];
    if (skipped(t)) continue;
    check(t.ndim() == first.ndim(), "cat: tensors must have the same number of dims: got ", first.ndim(),
          " (shape ", first.shape(), " at position ", ref, ") and ", t.ndim(), " (shape ", t.shape(),
          " at position ", i, ")");
    for (int64_t k = 0; k < t.ndim(); ++k)
      check(k == d || t.shape()[k] == first.shape()[k], "cat: sizes of tensors must match except in dim ", d,
            ": expected size ", first.shape()[k], " but got size ", t.shape()[k], " at dim ", k,
            " for tensor ", i, " (shapes ", first.shape(), " and ", t.shape(), ")");
    shape[d] += t.shape()[d];
  }
  Tensor out = Tensor::empty(shape, dtype, first.device());
  std::vector<Shape> shapes;
  std::vector<int64_t> starts;
  std::vector<bool> float_in;
  int64_t at = 0;
  for (const Tensor& t : xs) {
    shapes.push_back(t.shape());
    starts.push_back(at);
    float_in.push_back(is_floating(t.dtype()));
    if (skipped(t)) continue;
    copy_into(raw_narrow(out, d, at, t.shape()[d]), t);
    at += t.shape()[d];
  }
  return record("cat", out, xs, [shapes, starts, float_in, d](const Tensor& g) {
    Grads grads(shapes.size());
    for (size_t i = 0; i < shapes.size(); ++i) {
      if (!float_in[i]) continue;
      bool empty1d = shapes[i].size() == 1 && shapes[i][0] == 0;
      if (empty1d) grads[i] = zeros(shapes[i], g.dtype(), g.device());
      else grads[i] = recording_backward({g}) ? narrow(g, d, starts[i], shapes[i][d]) : raw_narrow(g, d, starts[i], shapes[i][d]);
    }
    return grads;
  });
}

Tensor stack(const std::vector<Tensor>& xs, int64_t dim) {
  check(!xs.empty(), "stack: expected a non-empty list of tensors");
  for (size_t i = 0; i < xs.size(); ++i) check(xs[i].defined(), "stack: tensor ", i, " is undefined");
  const Shape& in_shape = xs[0].shape();
  int64_t n = int64_t(in_shape.size());
  check(dim >= -n - 1 && dim <= n, "stack: dim ", dim, " is out of range for tensors with ", n,
        " dims (expected a dim in [", -n - 1, ", ", n, "])");
  int64_t d = dim < 0 ? dim + n + 1 : dim;
  DType dtype = xs[0].dtype();
  for (size_t i = 0; i < xs.size(); ++i) {
    check(xs[i].shape() == in_shape, "stack: expects each tensor to be equal size, but got ", in_shape,
          " at entry 0 and ", xs[i].shape(), " at entry ", i);
    dtype = promote(dtype, xs[i].dtype());
  }
  Shape shape = in_shape;
  shape.insert(shape.begin() + d, int64_t(xs.size()));
  Tensor out = Tensor::empty(shape, dtype, xs[0].device());
  std::vector<bool> float_in;
  for (size_t i = 0; i < xs.size(); ++i) {
    copy_into(raw_select(out, d, int64_t(i)), xs[i]);
    float_in.push_back(is_floating(xs[i].dtype()));
  }
  return record("stack", out, xs, [float_in, d](const Tensor& g) {
    Grads grads(float_in.size());
    for (size_t i = 0; i < float_in.size(); ++i)
      if (float_in[i])
        grads[i] = recording_backward({g}) ? squeeze(narrow(g, d, int64_t(i), 1), d) : raw_select(g, d, int64_t(i));
    return grads;
  });
}

std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim) {
  check_not_scalar(x, "split");
  int64_t d = normalize_dim(dim, x.ndim(), "split");
  int64_t size = x.shape()[d];
  check(split_size >= 0, "split: split size must be non-negative, got ", split_size);
  check(split_size > 0 || size == 0, "split: split size 0 cannot split dim ", d, " of non-zero size ", size);
  int64_t pieces = size == 0 ? 1 : (size + split_size - 1) / split_size;
  std::vector<Tensor> out;
  for (int64_t i = 0; i < pieces; ++i) {
    int64_t start = i * split_size;
    out.push_back(narrow(x, d, start, std::min(split_size, size - start)));
  }
  return out;
}

std::vector<Tensor> split_sections(const Tensor& x, const std::vector<int64_t>& sizes, int64_t dim) {
  check_not_scalar(x, "split");
  int64_t d = normalize_dim(dim, x.ndim(), "split");
  int64_t total = 0;
  for (int64_t s : sizes) {
    check(s >= 0, "split: split sizes ", sizes, " must be non-negative");
    total += s;
  }
  check(total == x.shape()[d], "split: split sizes ", sizes, " must sum to the size of dim ", d, " (",
        x.shape()[d], "), got ", total);
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : sizes) {
    out.push_back(narrow(x, d, start, s));
    start += s;
  }
  return out;
}

std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim) {
  check_not_scalar(x, "chunk");
  check(chunks > 0, "chunk: expected chunks to be greater than 0, got ", chunks);
  int64_t d = normalize_dim(dim, x.ndim(), "chunk");
  int64_t size = x.shape()[d];
  // As PyTorch: pieces of ceil(size / chunks), so fewer than `chunks` pieces may come back;
  // an empty dim gives `chunks` empty pieces.
  if (size == 0) return split_sections(x, std::vector<int64_t>(chunks, 0), d);
  return split(x, (size + chunks - 1) / chunks, d);
}

}  // namespace sg
