// The in-place ops' rows of the op table (ops/inplace.h): each returns the tensor it changed, so
// that a caller (the JS layer returns `this`) and the graph tracer see the call like any other.
#include <map>
#include <string>

#include "core/error.h"
#include "ops/inplace.h"
#include "ops/registry.h"

namespace sg {

namespace {

using Table = std::map<std::string, OpInfo>;
using Inputs = std::vector<Tensor>;
using Change = std::function<void(const Inputs& in, const Attrs& a)>;

// A row over `n_inputs` tensors (input 0 is the one changed), none of them null.
void add_inplace(Table& t, const char* name, int n_inputs, Change change) {
  t.emplace(name, OpInfo{n_inputs, n_inputs, [name, change](const Inputs& in, const Attrs& a) -> Inputs {
                           for (size_t i = 0; i < in.size(); ++i)
                             if (!in[i].defined()) fail(name, ": tensor argument ", i, " is null");
                           change(in, a);
                           return {in[0]};
                         }});
  // Input 0 is written: the graph compiler keeps the call in place and in order, and puts the
  // tensor back after tracing (OpInfo::mutates).
  t.at(name).mutates = [](const Inputs&, const Attrs&) { return std::vector<size_t>{0}; };
}

}  // namespace

void register_inplace_ops(Table& t) {
  add_inplace(t, "add_", 2, [](const Inputs& in, const Attrs& a) { add_(in[0], in[1], a.number("add_", "alpha", 1.0)); });
  add_inplace(t, "sub_", 2, [](const Inputs& in, const Attrs& a) { sub_(in[0], in[1], a.number("sub_", "alpha", 1.0)); });
  add_inplace(t, "mul_", 2, [](const Inputs& in, const Attrs&) { mul_(in[0], in[1]); });
  add_inplace(t, "div_", 2, [](const Inputs& in, const Attrs&) { div_(in[0], in[1]); });
  add_inplace(t, "pow_", 2, [](const Inputs& in, const Attrs&) { pow_(in[0], in[1]); });
  add_inplace(t, "clamp_", 1, [](const Inputs& in, const Attrs& a) {
    const auto lo = a.opt_number("clamp_", "min"), hi = a.opt_number("clamp_", "max");
    check(lo || hi, "clamp_: at least one of 'min' or 'max' must be given");
    clamp_(in[0], lo, hi);
  });
  add_inplace(t, "maskedFill_", 2,
              [](const Inputs& in, const Attrs& a) { masked_fill_(in[0], in[1], a.number("maskedFill_", "value")); });
  add_inplace(t, "addcmul_", 3, [](const Inputs& in, const Attrs& a) {
    addcmul_(in[0], in[1], in[2], a.number("addcmul_", "value", 1.0));
  });
  add_inplace(t, "addcdiv_", 3, [](const Inputs& in, const Attrs& a) {
    addcdiv_(in[0], in[1], in[2], a.number("addcdiv_", "value", 1.0));
  });
  for (const char* name : {"neg_", "exp_", "log_", "sqrt_", "abs_", "sigmoid_", "tanh_", "relu_"})
    add_inplace(t, name, 1, [name](const Inputs& in, const Attrs&) { unary_(name, in[0]); });
  add_inplace(t, "fill_", 1, [](const Inputs& in, const Attrs& a) { fill_(in[0], a.number("fill_", "value")); });
  add_inplace(t, "zero_", 1, [](const Inputs& in, const Attrs&) { zero_(in[0]); });
  add_inplace(t, "copy_", 2, [](const Inputs& in, const Attrs&) { copy_(in[0], in[1]); });
  add_inplace(t, "normal_", 1, [](const Inputs& in, const Attrs& a) {
    normal_(in[0], a.number("normal_", "mean", 0.0), a.number("normal_", "std", 1.0));
  });
  add_inplace(t, "uniform_", 1, [](const Inputs& in, const Attrs& a) {
    uniform_(in[0], a.number("uniform_", "from", 0.0), a.number("uniform_", "to", 1.0));
  });
}

}  // namespace sg
