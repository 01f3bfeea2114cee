// Registers the convolution and pooling ops by their JS names (bindings/README.md, section
// "conv/pool ops"). Each row reads its attributes through the Attrs getters and calls one
// function of nn/conv.h or nn/pool.h; ints come as a number or an array and are expanded to
// the op's 1 or 2 dims by the op itself.
#include <map>
#include <string>
#include <vector>

#include "core/error.h"
#include "nn/conv.h"
#include "nn/pool.h"
#include "ops/registry.h"

namespace sg {
namespace {

using Table = std::map<std::string, OpInfo>;
using Inputs = std::vector<Tensor>;
using Outputs = std::vector<Tensor>;
using Ints = std::vector<int64_t>;

// A row taking inputs [first required ones..., optional ones (null allowed)...].
template <class F>
void add(Table& t, const char* name, int required, int optional, F f) {
  OpFn fn = [name, required, f](const Inputs& in, const Attrs& a) -> Outputs {
    for (int i = 0; i < required; ++i)
      if (!in[i].defined()) fail(name, ": tensor argument ", i, " is null");
    return {f(name, in, a)};
  };
  t.emplace(name, OpInfo{required, required + optional, std::move(fn)});
}

// An ints attribute with a default when absent.
Ints ints_or(const char* op, const Attrs& a, const char* name, Ints fallback) {
  return a.has(name) ? a.ints(op, name) : fallback;
}

Ints required_ints(const char* op, const Attrs& a, const char* name) {
  if (!a.has(name)) fail(op, ": missing argument '", name, "'");
  return a.ints(op, name);
}

// 'padding': a number, an array of numbers, or the string 'same' / 'valid'.
ConvPadding conv_padding(const char* op, const Attrs& a) {
  if (!a.has("padding")) return ConvPadding{0};
  // Attrs has no type query: a.str throws for anything but a string, and then the value
  // must be a number or an array (a.ints' own error names the wrong type).
  std::string mode;
  try {
    mode = a.str(op, "padding", "");
  } catch (const Error&) {
    return ConvPadding(a.ints(op, "padding"));
  }
  check(!mode.empty(), op, ": padding must be 'same', 'valid' or a list of integers, got ''");
  return ConvPadding(mode);
}

Tensor optional_input(const Inputs& in, size_t i) { return i < in.size() ? in[i] : Tensor(); }

}  // namespace

void register_conv_pool_ops(std::map<std::string, OpInfo>& t) {
  add(t, "conv1d", 2, 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return conv1d(in[0], in[1], optional_input(in, 2), ints_or(op, a, "stride", {1}), conv_padding(op, a),
                  ints_or(op, a, "dilation", {1}), a.integer(op, "groups", 1));
  });
  add(t, "conv2d", 2, 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return conv2d(in[0], in[1], optional_input(in, 2), ints_or(op, a, "stride", {1}), conv_padding(op, a),
                  ints_or(op, a, "dilation", {1}), a.integer(op, "groups", 1), a.str(op, "activation", "none"));
  });
  // nn.Sequential's fused Conv2d + ReLU + MaxPool2d: conv2d's attributes, then the pool's as
  // poolKernelSize, poolStride, poolPadding, poolDilation, poolCeilMode.
  add(t, "conv2dReluMaxPool2d", 2, 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return conv2d_relu_max_pool2d(in[0], in[1], optional_input(in, 2), ints_or(op, a, "stride", {1}),
                                  conv_padding(op, a), ints_or(op, a, "dilation", {1}), a.integer(op, "groups", 1),
                                  required_ints(op, a, "poolKernelSize"), a.ints(op, "poolStride"),
                                  ints_or(op, a, "poolPadding", {0}), ints_or(op, a, "poolDilation", {1}),
                                  a.flag(op, "poolCeilMode", false));
  });
  add(t, "convTranspose2d", 2, 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return conv_transpose2d(in[0], in[1], optional_input(in, 2), ints_or(op, a, "stride", {1}),
                            ints_or(op, a, "padding", {0}), ints_or(op, a, "outputPadding", {0}),
                            a.integer(op, "groups", 1), ints_or(op, a, "dilation", {1}));
  });
  add(t, "maxPool1d", 1, 0, [](const char* op, const Inputs& in, const Attrs& a) {
    return max_pool1d(in[0], required_ints(op, a, "kernelSize"), a.ints(op, "stride"),
                      ints_or(op, a, "padding", {0}), ints_or(op, a, "dilation", {1}),
                      a.flag(op, "ceilMode", false));
  });
  add(t, "maxPool2d", 1, 0, [](const char* op, const Inputs& in, const Attrs& a) {
    return max_pool2d(in[0], required_ints(op, a, "kernelSize"), a.ints(op, "stride"),
                      ints_or(op, a, "padding", {0}), ints_or(op, a, "dilation", {1}),
                      a.flag(op, "ceilMode", false));
  });
  add(t, "avgPool1d", 1, 0, [](const char* op, const Inputs& in, const Attrs& a) {
    return avg_pool1d(in[0], required_ints(op, a, "kernelSize"), a.ints(op, "stride"),
                      ints_or(op, a, "padding", {0}), a.flag(op, "ceilMode", false),
                      a.flag(op, "countIncludePad", true));
  });
  add(t, "avgPool2d", 1, 0, [](const char* op, const Inputs& in, const Attrs& a) {
    return avg_pool2d(in[0], required_ints(op, a, "kernelSize"), a.ints(op, "stride"),
                      ints_or(op, a, "padding", {0}), a.flag(op, "ceilMode", false),
                      a.flag(op, "countIncludePad", true));
  });
  add(t, "adaptiveAvgPool2d", 1, 0, [](const char* op, const Inputs& in, const Attrs& a) {
    return adaptive_avg_pool2d(in[0], required_ints(op, a, "outputSize"));
  });
  // float64 inputs compute in double (OpInfo::float64: the reference loops, on the CPU); the fused
  // conv2dReluMaxPool2d stays float32's.
  for (const char* name : {"conv1d", "conv2d", "convTranspose2d", "maxPool1d", "maxPool2d", "avgPool1d", "avgPool2d",
                           "adaptiveAvgPool2d"})
    t.at(name).float64 = true;
}

}  // namespace sg
