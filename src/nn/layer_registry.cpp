// Registers the layer ops (linear, norms, dropout, embedding) by their JS names
// (bindings/README.md, section "layer ops"). Each row reads its attributes through the Attrs
// getters and calls one function of nn/; null optional tensors become undefined ones.
#include "core/error.h"
#include "nn/dropout.h"
#include "nn/embedding.h"
#include "nn/linear.h"
#include "nn/norm.h"
#include "nn/registry_rows.h"

namespace sg {

using nn_registry::add;
using nn_registry::Inputs;
using nn_registry::opt;

namespace {
// The running mean and variance (inputs 1 and 2) that a norm given `updating` writes.
std::vector<size_t> running_stats_written(const Inputs& in, bool updating) {
  std::vector<size_t> out;
  if (!updating) return out;
  for (size_t i : {size_t(1), size_t(2)})
    if (i < in.size() && in[i].defined()) out.push_back(i);
  return out;
}
}  // namespace

void register_layer_ops(std::map<std::string, OpInfo>& t) {
  add(t, "linear", 2, 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return linear(in[0], in[1], opt(in, 2), a.str(op, "activation", "none"));
  });
  add(t, "bilinear", 3, 1, [](const char*, const Inputs& in, const Attrs&) {
    return bilinear(in[0], in[1], in[2], opt(in, 3));
  });
  add(t, "batchNorm", 1, 4, [](const char* op, const Inputs& in, const Attrs& a) {
    return batch_norm(in[0], opt(in, 1), opt(in, 2), opt(in, 3), opt(in, 4), a.flag(op, "training", false),
                      a.number(op, "momentum", 0.1), a.number(op, "eps", 1e-5));
  });
  add(t, "layerNorm", 1, 2, [](const char* op, const Inputs& in, const Attrs& a) {
    if (!a.has("normalizedShape")) fail(op, ": missing argument 'normalizedShape'");
    return layer_norm(in[0], a.ints(op, "normalizedShape"), opt(in, 1), opt(in, 2), a.number(op, "eps", 1e-5));
  });
  add(t, "groupNorm", 1, 2, [](const char* op, const Inputs& in, const Attrs& a) {
    return group_norm(in[0], a.integer(op, "numGroups"), opt(in, 1), opt(in, 2), a.number(op, "eps", 1e-5));
  });
  add(t, "instanceNorm", 1, 4, [](const char* op, const Inputs& in, const Attrs& a) {
    return instance_norm(in[0], opt(in, 1), opt(in, 2), opt(in, 3), opt(in, 4), a.flag(op, "useInputStats", true),
                         a.number(op, "momentum", 0.1), a.number(op, "eps", 1e-5));
  });
  add(t, "dropout", 1, 0, [](const char* op, const Inputs& in, const Attrs& a) {
    return dropout(in[0], a.number(op, "p", 0.5), a.flag(op, "training", true));
  });
  add(t, "dropout2d", 1, 0, [](const char* op, const Inputs& in, const Attrs& a) {
    return dropout2d(in[0], a.number(op, "p", 0.5), a.flag(op, "training", true));
  });
  // For the graph compiler (OpInfo): dropout draws random numbers; the norms update the
  // running statistics they are given in place.
  t.at("dropout").impure = true;
  t.at("dropout2d").impure = true;
  // float64 inputs compute in float64 (OpInfo::float64): linear as matmul + add + activation.
  for (const char* name : {"linear", "layerNorm", "batchNorm", "groupNorm", "instanceNorm"}) t.at(name).float64 = true;
  t.at("batchNorm").mutates = [](const Inputs& in, const Attrs& a) {
    return running_stats_written(in, a.flag("batchNorm", "training", false));
  };
  t.at("instanceNorm").mutates = [](const Inputs& in, const Attrs& a) {
    return running_stats_written(in, a.flag("instanceNorm", "useInputStats", true));
  };
  add(t, "embedding", 2, 0, [](const char* op, const Inputs& in, const Attrs& a) {
    return embedding(in[0], in[1], a.opt_integer(op, "paddingIdx"));
  });
  t.at("embedding").float64 = true;  // float64 weights: a lookup and an index_add in double
  add(t, "oneHot", 1, 0, [](const char* op, const Inputs& in, const Attrs& a) {
    return one_hot(in[0], a.integer(op, "numClasses", -1));
  });
}

}  // namespace sg
