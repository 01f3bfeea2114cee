#include "ops/dtype_widening.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>

#include "autograd/grad_mode.h"
#include "autograd/record.h"
#include "core/copy.h"
#include "core/dtype_dispatch.h"
#include "core/error.h"
#include "kernels/backend.h"
#include "ops/ops.h"

namespace sg {

namespace {

using Names = std::set<std::string>;

// Pointwise ops whose operands PyTorch's TensorIterator casts to the common dtype before the
// kernel: an integer operand of a float16 op is rounded to float16 first (2049 + a float16 is
// 2048 + it), and only then widened. Elsewhere integer tensors are positions and stay integers.
const Names& pointwise() {
  static const Names s{"add", "sub", "mul", "div", "pow", "maximum", "minimum", "atan2", "remainder", "fmod",
                       "floorDivide", "divRounded", "eq", "ne", "lt", "le", "gt", "ge", "where", "add_", "sub_",
                       "mul_", "div_", "pow_", "addcmul_", "addcdiv_"};
  return s;
}

// Ops whose formula reads their output where PyTorch's reads the exact input (div's b gradient
// −out/b for −(a/b)/b; elu/selu's out + α for αeˣ, which cancels where out nears −α): their
// output stays float32 in the graph, since a rounded 16-bit one would change their gradients
// (the graph compiler's fused backward reproduces these formulas bit for bit).
const Names& reads_output_for_input() {
  static const Names s{"div", "elu", "selu"};
  return s;
}

// Ops whose integer results are values of the operands' dtype (so an int8 op's int32 result is
// stored back as int8, wrapping): the result positions listed; any other integer result (argmax,
// sort's indices, counts) is a position and stays int32, as every integer result here.
const std::map<std::string, std::vector<size_t>>& value_results() {
  static const std::map<std::string, std::vector<size_t>> m = [] {
    std::map<std::string, std::vector<size_t>> r;
    for (const char* n : {"add", "sub", "mul", "neg", "abs", "remainder", "fmod", "floorDivide", "divRounded", "pow",
                          "maximum", "minimum", "clamp", "where", "maskedFill", "bitwiseAnd", "bitwiseOr", "bitwiseXor",
                          "bitwiseNot", "bitwiseLeftShift", "bitwiseRightShift", "gcd", "lcm", "sign", "relu", "square",
                          "max", "min", "amax", "amin", "sort", "topk", "kthvalue", "median", "mode", "cummax", "cummin",
                          "flip", "roll", "tril", "triu", "scatter", "scatterAdd", "scatterReduce", "repeat", "tile",
                          "pad", "diag", "index", "add_", "sub_", "mul_", "div_", "clamp_", "maskedFill_", "neg_",
                          "abs_", "relu_", "fill_", "zero_", "copy_"})
      r[n] = {0};
    // Sums and products of integers are int64 in PyTorch whatever the integer dtype.
    for (const char* n : {"sum", "cumsum", "prod", "cumprod"}) r[n] = {0};
    return r;
  }();
  return m;
}

// The operands whose dtype is the result's: the rest are index tensors (scatter's index,
// index's positions), which never change the result's dtype.
std::vector<size_t> value_inputs(const std::string& name, size_t n) {
  if (name == "index") return {0};
  if (name == "scatter" || name == "scatterAdd" || name == "scatterReduce") return {0, 2};
  std::vector<size_t> all(n);
  for (size_t i = 0; i < n; ++i) all[i] = i;
  return all;
}

constexpr int64_t kInt32Max = 2147483647;

// int64 operands compute in int32 here; the bound an operand's |value| must keep for the op's
// int32 arithmetic to be exact (no result can leave int32), or nullopt where no bound on the
// operands makes it so (products, matrix products, shifts left): refused by name.
// Sums are bounded by the sum of their operand's |values| instead.
std::optional<int64_t> int32_bound(const std::string& name) {
  static const Names range_kept{
      "eq", "ne", "lt", "le", "gt", "ge", "maximum", "minimum", "clamp", "where", "maskedFill", "max", "min", "amax",
      "amin", "argmax", "argmin", "sort", "argsort", "topk", "kthvalue", "median", "mode", "cummax", "cummin", "flip",
      "roll", "tril", "triu", "repeat", "tile", "pad", "diag", "index", "scatter", "bitwiseAnd", "bitwiseOr",
      "bitwiseXor", "bitwiseNot", "bitwiseRightShift", "remainder", "fmod", "floorDivide", "divRounded", "div",
      "neg", "abs", "sign", "relu", "all", "any", "logicalAnd", "logicalOr", "logicalXor", "logicalNot", "oneHot",
      "embedding", "crossEntropy", "nllLoss", "gather", "indexSelect", "expand", "maskedFill_", "clamp_", "fill_", "zero_", "copy_", "neg_", "abs_",
      "relu_", "isnan", "isinf", "isfinite", "nonzero", "unique", "searchsorted", "bucketize", "bincount"};
  if (range_kept.count(name)) return kInt32Max;
  if (name == "add" || name == "sub" || name == "add_" || name == "sub_") return int64_t(1) << 30;
  if (name == "mul" || name == "square" || name == "mul_") return 46340;  // 46340² < 2^31
  if (name == "sum" || name == "cumsum") return kInt32Max;
  if (name == "scatterAdd") return int64_t(1) << 30;  // self's and src's sums together stay in int32
  return std::nullopt;
}

bool is_sum(const std::string& name) { return name == "sum" || name == "cumsum" || name == "scatterAdd"; }

// Fails with before + m + after when the largest |value| of integer tensor t (with `total`, the
// sum of its |values|) exceeds `bound`, on t's own device (a GPU reports it at the next sync).
void check_abs_bound(const Tensor& t, int64_t bound, bool total, const std::string& before, const std::string& after) {
  const Tensor c = as_contiguous(t);
  backend_for(c.device()).check_abs_bound(c.dtype(), c.dev_raw(), c.numel(), bound, total, before, after);
}

// Refuses an int64 (or, for sums and products, int8/uint8) operand the op's int32 arithmetic could
// not compute exactly, naming the op, the value and the way out.
void check_int32_exact(const std::string& name, const Tensor& t) {
  const DType d = t.dtype();
  const bool sum_or_product = is_sum(name) || name == "prod" || name == "cumprod";
  if (d != DType::Int64 && !((d == DType::Int8 || d == DType::UInt8) && sum_or_product)) return;
  const std::optional<int64_t> bound = int32_bound(name);
  if (!bound)
    fail(name, ": ", dtype_name(d), " tensors are computed in int32 by this op, whose int32 result could overflow "
         "(on the ", device_name(t.device()), " device): cast to float64 (exact to 2^53) or int32 first");
  // Sums: no partial sum leaves int32 while the |values| add up to less than 2^31.
  const bool summed = is_sum(name);
  check_abs_bound(t, *bound, summed,
                  name + ": " + dtype_name(d) + " values are computed in int32 by this op, exactly only while " +
                      (summed ? "the sum of |values|" : "|value|") + " <= " + std::to_string(*bound) + " here; got ",
                  std::string(" (on the ") + device_name(t.device()) + " device): cast to float64 (exact to 2^53) first");
}

// The dtype an operand computes in: float16/bfloat16 → float32 (float64 when the result is
// float64), the narrow and wide integers → int32; the rest as they are.
DType compute_dtype(DType d, DType result) {
  if (d == DType::Float16 || d == DType::BFloat16) return result == DType::Float64 ? DType::Float64 : DType::Float32;
  if (d == DType::Int8 || d == DType::UInt8 || d == DType::Int64) return DType::Int32;
  return d;
}

void refuse(const std::string& name, const Tensor& t) {
  fail(name, ": ", dtype_name(t.dtype()), " tensors are not supported by this op yet (on the ", device_name(t.device()),
       " device); cast first, e.g. x.float()");
}

}  // namespace

DType result_type(const std::vector<Tensor>& inputs) {
  std::optional<DType> dims, zero;
  for (const Tensor& t : inputs) {
    if (!t.defined()) continue;
    std::optional<DType>& slot = t.ndim() == 0 ? zero : dims;
    slot = slot ? promote_types(*slot, t.dtype()) : t.dtype();
  }
  if (!dims) return zero.value_or(DType::Float32);
  if (!zero) return *dims;
  // PyTorch's combine_categories(dimResult, zeroResult).
  if (is_floating(*dims)) return *dims;
  if (*dims == DType::Bool || is_floating(*zero)) return promote_types(*dims, *zero);
  return *dims;
}

std::vector<Tensor> run_widened(const std::string& name, const OpInfo& info, const std::vector<Tensor>& inputs,
                                const Attrs& attrs,
                                const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& run) {
  std::vector<Tensor> values;
  for (size_t i : value_inputs(name, inputs.size()))
    if (i < inputs.size()) values.push_back(inputs[i]);
  const DType result = result_type(values);
  if (result == DType::Float64 && !info.float64)
    for (const Tensor& t : inputs)
      if (t.defined() && t.dtype() == DType::Float64) refuse(name, t);

  // Inputs the op writes: the widened copy is written, then stored back. Recording such a change
  // on a widened copy would give the input no history, so that case is refused by name: an input
  // that requires grad, or the first operand of an in-place op (add_, clamp_, ...: the result it
  // hands back). The running statistics batchNorm/instanceNorm update (inputs 1 and 2) are side
  // buffers outside the graph, written unrecorded: a bfloat16 BatchNorm trains, as PyTorch's.
  const std::vector<size_t> written = info.mutates ? info.mutates(inputs, attrs) : std::vector<size_t>{};
  for (size_t i : written) {
    const Tensor& t = inputs.at(i);
    if (computes_natively(info, {t}) || (i != 0 && !t.requires_grad())) continue;
    bool recorded = false;
    for (const Tensor& u : inputs) recorded = recorded || (u.defined() && u.requires_grad());
    if (recorded && grad_enabled())
      fail(name, ": in-place changes of ", dtype_name(t.dtype()), " tensors are not recorded for autograd (on the ",
           device_name(t.device()), " device); use the out-of-place op, or change it inside sg.noGrad");
  }

  const bool cast_to_result = is_floating(result) && pointwise().count(name);
  std::vector<Tensor> widened;
  std::vector<bool> redo;  // whether widened[i] is one cast of inputs[i] (defined ones)
  widened.reserve(inputs.size());
  for (const Tensor& t : inputs) {
    if (!t.defined()) {
      widened.push_back(t);
      redo.push_back(false);
      continue;
    }
    Tensor w = t;
    // PyTorch's pointwise kernels see every operand in the common dtype first.
    if (cast_to_result && t.dtype() != DType::Bool && t.dtype() != result) w = cast(w, result);
    else check_int32_exact(name, t);
    // One cast from t itself (not through the result's dtype first) can be redone from t.
    const bool redoable = w.same(t);
    if (!computes_natively(info, {w})) w = cast(w, compute_dtype(w.dtype(), result));
    widened.push_back(w);
    redo.push_back(redoable);
  }

  // The op's graph keeps the 16-bit inputs, not their float32 copies (autograd/record.h).
  SaveOriginals originals;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    const bool half = t.defined() && (t.dtype() == DType::Float16 || t.dtype() == DType::BFloat16);
    if (half && redo[i] && !widened[i].same(t) && std::find(written.begin(), written.end(), i) == written.end())
      originals.add(widened[i], t);
  }
  std::vector<Tensor> outputs = run(widened);

  for (size_t i : written) {
    if (widened[i].impl() == inputs[i].impl()) continue;
    copy_into(inputs[i], widened[i]);  // rounded once (RNE) or wrapped, as the dtype's store
    inputs[i].impl()->storage->bump_version();
    for (Tensor& o : outputs)
      if (o.defined() && o.impl() == widened[i].impl()) o = inputs[i];
  }

  // Floating results rounded once to a 16-bit result dtype (unless the op was given its result's
  // dtype); integer results that are values stored back in the narrow or wide integer dtype.
  const bool narrow_floats = (result == DType::Float16 || result == DType::BFloat16) && !attrs.has("dtype");
  const auto value_at = value_results().find(name);
  for (size_t k = 0; k < outputs.size(); ++k) {
    Tensor& o = outputs[k];
    if (!o.defined() || (!written.empty() && o.impl() == inputs[0].impl())) continue;
    if (narrow_floats && o.dtype() == DType::Float32) {
      const Tensor wide = o;
      o = cast(o, result);
      // An op that saved its output for backward (tanh, exp, softmax, ...) keeps the 16-bit one.
      if (wide.grad_fn() && !reads_output_for_input().count(name)) wide.grad_fn()->save_narrowed_output(wide, o);
    } else if (o.dtype() == DType::Int32 && is_integral(result) && result != DType::Int32 && value_at != value_results().end() &&
               std::count(value_at->second.begin(), value_at->second.end(), k)) {
      const bool summed = name == "sum" || name == "cumsum" || name == "prod" || name == "cumprod";
      o = cast(o, summed ? DType::Int64 : result);
    }
  }
  return outputs;
}

std::vector<Tensor> with_int32_index(const std::string& name, const std::vector<Tensor>& inputs) {
  if (name != "gather" && name != "indexSelect") return {};
  const Tensor& index = inputs[1];
  check_abs_bound(index, kInt32Max, false, name + ": an index of ",
                  " is beyond what any tensor here holds (int32 positions)");
  std::vector<Tensor> out = inputs;
  out[1] = cast(index, DType::Int32);
  return out;
}

void apply_dtype_policy(std::map<std::string, OpInfo>& table) {
  // Autograd state and tensor bookkeeping: no values are computed, so every dtype passes as it is.
  for (const char* name : {"backward", "grad", "setGrad", "computeGrads", "setRequiresGrad", "retainGrad", "detach",
                           "setGradEnabled"}) {
    auto it = table.find(name);
    if (it != table.end()) it->second.any_dtype = true;
  }
}

}  // namespace sg
