// Registers the loss ops by their JS names (bindings/README.md, section "loss ops"). Each row
// reads its attributes through the Attrs getters and calls one function of nn/loss.h, which
// checks the values (e.g. the reduction string).
#include "nn/loss.h"
#include "nn/registry_rows.h"

namespace sg {

using nn_registry::add;
using nn_registry::Inputs;
using nn_registry::opt;

namespace {
std::string reduction(const char* op, const Attrs& a) { return a.str(op, "reduction", "mean"); }
}  // namespace

void register_loss_ops(std::map<std::string, OpInfo>& t) {
  add(t, "crossEntropy", 2, 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return cross_entropy(in[0], in[1], opt(in, 2), a.integer(op, "ignoreIndex", -100), reduction(op, a),
                         a.number(op, "labelSmoothing", 0.0));
  });
  add(t, "nllLoss", 2, 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return nll_loss(in[0], in[1], opt(in, 2), a.integer(op, "ignoreIndex", -100), reduction(op, a));
  });
  add(t, "mseLoss", 2, 0, [](const char* op, const Inputs& in, const Attrs& a) {
    return mse_loss(in[0], in[1], reduction(op, a));
  });
  add(t, "l1Loss", 2, 0, [](const char* op, const Inputs& in, const Attrs& a) {
    return l1_loss(in[0], in[1], reduction(op, a));
  });
  add(t, "smoothL1Loss", 2, 0, [](const char* op, const Inputs& in, const Attrs& a) {
    return smooth_l1_loss(in[0], in[1], reduction(op, a), a.number(op, "beta", 1.0));
  });
  add(t, "huberLoss", 2, 0, [](const char* op, const Inputs& in, const Attrs& a) {
    return huber_loss(in[0], in[1], reduction(op, a), a.number(op, "delta", 1.0));
  });
  add(t, "binaryCrossEntropy", 2, 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return binary_cross_entropy(in[0], in[1], opt(in, 2), reduction(op, a));
  });
  add(t, "binaryCrossEntropyWithLogits", 2, 2, [](const char* op, const Inputs& in, const Attrs& a) {
    return binary_cross_entropy_with_logits(in[0], in[1], opt(in, 2), opt(in, 3), reduction(op, a));
  });
  add(t, "klDiv", 2, 0, [](const char* op, const Inputs& in, const Attrs& a) {
    return kl_div(in[0], in[1], reduction(op, a), a.flag(op, "logTarget", false));
  });
  add(t, "cosineEmbeddingLoss", 3, 0, [](const char* op, const Inputs& in, const Attrs& a) {
    return cosine_embedding_loss(in[0], in[1], in[2], a.number(op, "margin", 0.0), reduction(op, a));
  });
  // Composed of ops with float64 paths (OpInfo::float64); crossEntropy and nllLoss with index targets.
  for (const char* name : {"mseLoss", "l1Loss", "smoothL1Loss", "huberLoss", "crossEntropy", "nllLoss",
                           "binaryCrossEntropy", "binaryCrossEntropyWithLogits", "klDiv"})
    t.at(name).float64 = true;
}

}  // namespace sg
