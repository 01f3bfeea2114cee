// pad: PyTorch's F.pad. pads come in (left, right) pairs from the last dim backwards.
// constant: any number of dims, negative pads crop. reflect/replicate: any number of trailing
// dims (PyTorch allows 1–3); each output element reads one source element through a per-dim
// index map, and the gradient scatter-adds back along the same maps, so border elements that
// several outputs copied collect all their gradients.
#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#include "autograd/record.h"
#include "core/copy.h"
#include "core/error.h"
#include "ops/ops.h"

namespace sg {

namespace {

using Grads = std::vector<Tensor>;
using Maps = std::vector<std::vector<int64_t>>;  // per dim: output index → source index

Tensor raw_narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length) {
  Shape shape = x.shape(), strides = x.strides();
  int64_t offset = x.offset() + start * strides[dim];
  shape[dim] = length;
  return Tensor::view_of(x, std::move(shape), std::move(strides), offset);
}

// The window both tensors share in constant mode: x[src] lands in out[dst].
struct Window {
  std::vector<int64_t> dim, src_start, dst_start, length;
};

Tensor window(const Tensor& t, const Window& w, const std::vector<int64_t>& starts) {
  Tensor v = t;
  for (size_t i = 0; i < w.dim.size(); ++i) v = raw_narrow(v, w.dim[i], starts[i], w.length[i]);
  return v;
}

// fn(flat output index, source offset) for every output element, row-major.
template <class Fn>
void walk(const Shape& out_shape, const Maps& maps, const Shape& strides, Fn&& fn) {
  int64_t nd = int64_t(out_shape.size());
  int64_t n = numel_of(out_shape);
  if (n == 0) return;
  int64_t inner = out_shape[nd - 1];
  const std::vector<int64_t>& last = maps[nd - 1];
  std::vector<int64_t> idx(nd, 0);
  for (int64_t flat = 0; flat < n; flat += inner) {
    int64_t base = 0;
    for (int64_t d = 0; d < nd - 1; ++d) base += maps[d][idx[d]] * strides[d];
    for (int64_t j = 0; j < inner; ++j) fn(flat + j, base + last[j] * strides[nd - 1]);
    for (int64_t d = nd - 2; d >= 0; --d) {  // odometer over the outer dims
      if (++idx[d] < out_shape[d]) break;
      idx[d] = 0;
    }
  }
}

Tensor pad_constant(const Tensor& x, const Shape& out_shape, const std::vector<int64_t>& pads, double value) {
  Window w;
  int64_t nd = x.ndim();
  for (size_t j = 0; j < pads.size() / 2; ++j) {
    int64_t d = nd - 1 - int64_t(j), l = pads[2 * j], r = pads[2 * j + 1];
    int64_t cut_l = std::max<int64_t>(0, -l), cut_r = std::max<int64_t>(0, -r);
    w.dim.push_back(d);
    w.src_start.push_back(cut_l);
    w.dst_start.push_back(std::max<int64_t>(0, l));
    w.length.push_back(std::max<int64_t>(0, x.shape()[d] - cut_l - cut_r));
  }
  Tensor out = full(out_shape, value, x.dtype());
  copy_into(window(out, w, w.dst_start), window(x, w, w.src_start));
  Shape in_shape = x.shape();
  return record("pad", out, {x}, [in_shape, w](const Tensor& g) {
    Tensor grad = zeros(in_shape, DType::Float32);
    copy_into(window(grad, w, w.src_start), window(g, w, w.dst_start));
    return Grads{grad};
  });
}

Tensor pad_mapped(const Tensor& x, const Shape& out_shape, const std::vector<int64_t>& pads, bool reflect) {
  int64_t nd = x.ndim();
  for (size_t j = 0; j < pads.size() / 2; ++j) {
    int64_t d = nd - 1 - int64_t(j), l = pads[2 * j], r = pads[2 * j + 1], size = x.shape()[d];
    if (reflect)
      check(l < size && r < size, "pad: reflect padding (", l, ", ", r,
            ") must be less than the size of the padded dim (", size, " at dim ", d, " of input ", x.shape(),
            ")");
    else
      check(size > 0 || out_shape[d] == 0, "pad: replicate padding needs a non-empty dim, got size 0 at dim ",
            d, " of input ", x.shape());
  }
  // Allocated before the index maps: Tensor::empty rejects an impossible size, whereas a map
  // of out_shape[d] entries would be sized with a size_t that wraps in wasm32 (2^32 + 5 → 5).
  Tensor out = Tensor::empty(out_shape, x.dtype(), x.device());
  Maps maps(nd);
  for (int64_t d = 0; d < nd; ++d) {
    // An empty output does not bound its other dims (a [0, 2^32 + 5] output allocates nothing).
    check(uint64_t(out_shape[d]) <= std::numeric_limits<size_t>::max() / sizeof(int64_t), "pad: the padded size ",
          out_shape[d], " of dim ", d, " is too large (output shape ", out_shape, ")");
    maps[d].resize(static_cast<size_t>(out_shape[d]));
    for (int64_t o = 0; o < out_shape[d]; ++o) maps[d][o] = o;
  }
  for (size_t j = 0; j < pads.size() / 2; ++j) {
    int64_t d = nd - 1 - int64_t(j), l = pads[2 * j], size = x.shape()[d];
    for (int64_t o = 0; o < out_shape[d]; ++o) {
      int64_t i = o - l;  // position in the input, before folding back
      if (reflect)
        i = i < 0 ? -i : (i >= size ? 2 * (size - 1) - i : i);
      else
        i = std::clamp<int64_t>(i, 0, size - 1);
      maps[d][o] = i;
    }
  }
  // Elements move as 1- or 4-byte memcpys of a constant size (plain loads/stores, no
  // dtype switch in the loop, no aliasing questions).
  auto copy_elems = [&](auto size) {
    constexpr size_t es = decltype(size)::value;
    const char* src = static_cast<const char*>(x.raw());
    char* dst = static_cast<char*>(out.raw());
    walk(out_shape, maps, x.strides(),
         [&](int64_t o, int64_t s) { std::memcpy(dst + o * es, src + s * es, es); });
  };
  if (dtype_size(x.dtype()) == 1)
    copy_elems(std::integral_constant<size_t, 1>());
  else
    copy_elems(std::integral_constant<size_t, 4>());
  Shape in_shape = x.shape();
  return record("pad", out, {x}, [in_shape, maps](const Tensor& g) {
    Tensor gc = as_contiguous(g, DType::Float32);
    Tensor grad = zeros(in_shape, DType::Float32);
    const float* gp = gc.f32();
    float* out = grad.f32();
    walk(gc.shape(), maps, contiguous_strides(in_shape), [&](int64_t o, int64_t s) { out[s] += gp[o]; });
    return Grads{grad};
  });
}

}  // namespace

Tensor pad(const Tensor& x, const std::vector<int64_t>& pads, const std::string& mode, double value) {
  check(x.defined(), "pad: undefined tensor");
  check(mode == "constant" || mode == "reflect" || mode == "replicate", "pad: unknown mode '", mode,
        "' (expected 'constant', 'reflect' or 'replicate')");
  check(pads.size() % 2 == 0, "pad: padding length must be even (pairs of left, right), got ", pads.size(),
        " values");
  int64_t nd = x.ndim();
  check(int64_t(pads.size() / 2) <= nd, "pad: padding length ", pads.size(),
        " is too large for a tensor with ", nd, " dims (at most ", 2 * nd, " values)");
  Shape out_shape = x.shape();
  for (size_t j = 0; j < pads.size() / 2; ++j) {
    int64_t d = nd - 1 - int64_t(j);
    out_shape[d] += pads[2 * j] + pads[2 * j + 1];
    check(out_shape[d] >= 0, "pad: the padded size of dim ", d, " would be ", out_shape[d], " (size ",
          x.shape()[d], ", pads ", pads[2 * j], " and ", pads[2 * j + 1], ")");
  }
  if (mode == "constant" || pads.empty()) return pad_constant(x, out_shape, pads, value);
  return pad_mapped(x, out_shape, pads, mode == "reflect");
}

}  // namespace sg
