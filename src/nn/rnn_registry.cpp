// Registers the recurrent-layer op (rnn.h) by its JS name:
//   rnnLayer(input, h0, c0 | null, weightIh, weightHh, biasIh | null, biasHh | null,
//            weightHr | null; { mode: 'lstm' | 'gru' | 'rnn_tanh' | 'rnn_relu', reverse })
//   → one flat tensor: the outputs [T, B, P], then (lstm) the cell states [T, B, H] (rnn.h)
#include "core/error.h"
#include "nn/rnn.h"
#include "ops/registry.h"

namespace sg {

void register_rnn_ops(std::map<std::string, OpInfo>& t) {
  t.emplace("rnnLayer", OpInfo{5, 8, [](const std::vector<Tensor>& in, const Attrs& a) {
              const char* op = "rnnLayer";
              auto at = [&](size_t i) { return i < in.size() ? in[i] : Tensor(); };
              const RnnMode mode = rnn_mode_of(op, a.str(op, "mode", "lstm"));
              return std::vector<Tensor>{rnn_layer_packed(mode, at(0), at(1), at(2), at(3), at(4),
                                                          at(5), at(6), at(7),
                                                          a.flag(op, "reverse", false))};
            }});
  // float64 layers compute in double, composed of float64 ops (nn/rnn.cpp rnn_layer_f64).
  t.at("rnnLayer").float64 = true;
}

}  // namespace sg
