// How an op without kernels for a dtype still computes it, at the one dispatch point (run_op), as
// PyTorch's CPU kernels do for their half types: float16/bfloat16 operands are widened to float32,
// the op runs, and its floating results are rounded once (round-to-nearest-even) to the result
// dtype (torch.result_type of the operands); int8/uint8 compute in int32 and wrap on the store
// (two's complement, exact for add/sub/mul/bitwise/compare); int64 computes in int32 only where
// the operands' values make that exact (per-op bounds below), and is refused by name elsewhere.
// The casts are recorded ops, so gradients arrive in each input's own dtype.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ops/registry.h"

namespace sg {

// torch.result_type of an op's tensor operands, with PyTorch's rule for 0-d tensors (the numbers
// of a JS call): a 0-d operand decides only when its category (bool < integer < floating) is
// higher than that of the operands with dimensions.
DType result_type(const std::vector<Tensor>& inputs);

// Whether `info` computes every dtype of `inputs` itself (float32/int32/bool, float64 where it
// has float64 kernels): then run_op runs it as it is. Allocates nothing.
inline bool computes_natively(const OpInfo& info, const std::vector<Tensor>& inputs) {
  for (const Tensor& t : inputs) {
    if (!t.defined() || is_classic_dtype(t.dtype()) || (info.float64 && t.dtype() == DType::Float64)) continue;
    return false;
  }
  return true;
}

// Runs op `name` on widened copies of `inputs` through `run` (run_op again), then narrows its
// results as the header comment says. A refused combination is an Error naming the op, the
// dtype and the device. Ops that write an input (OpInfo::mutates) write the widened copy, which
// is then stored back into the input, rounded once.
std::vector<Tensor> run_widened(const std::string& name, const OpInfo& info, const std::vector<Tensor>& inputs,
                                const Attrs& attrs,
                                const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& run);

// gather and indexSelect move elements of any dtype (OpInfo::any_dtype) by an int32 index: an
// int64, int8 or uint8 index (PyTorch's index dtype is int64) is converted first, its values
// checked to fit. Returns the inputs with the index converted, or empty when nothing applies.
inline bool has_wide_index(const std::vector<Tensor>& inputs) {
  if (inputs.size() < 2 || !inputs[1].defined()) return false;
  const DType d = inputs[1].dtype();
  return d == DType::Int64 || d == DType::Int8 || d == DType::UInt8;
}
std::vector<Tensor> with_int32_index(const std::string& name, const std::vector<Tensor>& inputs);

// Ops that move elements of any dtype but whose gradient formula computes (gather and
// indexSelect scatter-add, expand sums): while a float16/bfloat16 input requires grad, they run
// widened like the others, so that their formulas see float32.
inline bool widen_for_grad(const std::string& name, const std::vector<Tensor>& inputs) {
  bool half_grad = false;
  for (const Tensor& t : inputs)
    half_grad = half_grad || (t.defined() && (t.dtype() == DType::Float16 || t.dtype() == DType::BFloat16) && t.requires_grad());
  return half_grad && (name == "gather" || name == "indexSelect" || name == "expand");
}

// Marks the ops that act on autograd state without computing with values (backward, grad,
// setGrad, detach, ...) as taking every dtype; called once when the op table is built.
void apply_dtype_policy(std::map<std::string, OpInfo>& table);

}  // namespace sg
