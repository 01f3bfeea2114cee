// The op table: every JS op name (bindings/README.md "Op table") mapped onto the C++ API of
// ops.h, bitwise.h, linalg.h and special.h. Each row only reads its attributes through the Attrs
// getters (so a wrong type gives "op: expected 'x' to be ..., got ...") and calls one C++
// function; no op logic lives here.
#include <map>
#include <string>
#include <vector>

#include "core/device.h"
#include "core/error.h"
#include "ops/bitwise.h"
#include "ops/linalg.h"
#include "ops/ops.h"
#include "ops/registry.h"
#include "ops/special.h"

namespace sg {

namespace {

using Table = std::map<std::string, OpInfo>;
using Inputs = std::vector<Tensor>;
using Outputs = std::vector<Tensor>;
using UnaryFn = Tensor (*)(const Tensor&);
using BinaryFn = Tensor (*)(const Tensor&, const Tensor&);
using ReduceFn = Tensor (*)(const Tensor&, const Dims&, bool);

// Every op of this table needs all its tensor inputs; a null one (from JS) is caught here
// rather than dereferenced inside the op.
void add_row(Table& t, const char* name, int min_inputs, int max_inputs, OpFn fn) {
  OpFn checked = [name, fn = std::move(fn)](const Inputs& in, const Attrs& a) {
    for (size_t i = 0; i < in.size(); ++i)
      if (!in[i].defined()) fail(name, ": tensor argument ", i, " is null");
    return fn(in, a);
  };
  t.emplace(name, OpInfo{min_inputs, max_inputs, std::move(checked)});
}

// Rows with a fixed number of inputs and one result.
template <class F>
void add_fixed(Table& t, const char* name, int n_inputs, F f) {
  add_row(t, name, n_inputs, n_inputs,
      [name, f](const Inputs& in, const Attrs& a) -> Outputs { return {f(name, in, a)}; });
}

// Required attributes that Attrs has no "required" getter for (shapes and lists, strings).
std::vector<int64_t> required_ints(const char* op, const Attrs& a, const char* name) {
  if (!a.has(name)) fail(op, ": missing argument '", name, "'");
  return a.ints(op, name);
}

DType dtype_attr(const char* op, const Attrs& a, const char* fallback) {
  return dtype_from_name(a.str(op, "dtype", fallback));
}

// Where a creation op puts its tensor: the 'device' attribute, else the default device
// (init({ backend: 'webgpu' }) makes that WebGPU).
Device device_attr(const char* op, const Attrs& a) {
  if (!a.has("device")) return default_device();
  const std::string name = a.str(op, "device", "cpu");
  if (name != "cpu" && name != "webgpu") fail(op, ": expected 'device' to be 'cpu' or 'webgpu', got '", name, "'");
  return device_from_name(name);
}

// index's items travel as [kind, a, b, step] per entry: kind 0 all, 1 position a, 2 the range
// a:b:step, 3 '...'. Open range ends come as 0 and a number at least the dim's size (Python's
// slice rules clamp them), so every entry has the same four numbers.
std::vector<IndexItem> index_items(const char* op, const Attrs& a) {
  const std::vector<int64_t> flat = required_ints(op, a, "items");
  check(flat.size() % 4 == 0, op, ": expected 'items' to hold groups of 4 numbers, got ", flat.size(), " numbers");
  std::vector<IndexItem> items;
  for (size_t i = 0; i < flat.size(); i += 4) {
    IndexItem it;
    switch (flat[i]) {
      case 0:
        it.kind = IndexItem::Kind::All;
        break;
      case 1:
        it.kind = IndexItem::Kind::At;
        it.at = flat[i + 1];
        break;
      case 2:
        it.kind = IndexItem::Kind::Range;
        it.start = flat[i + 1];
        it.end = flat[i + 2];
        it.step = flat[i + 3];
        break;
      case 3:
        it.kind = IndexItem::Kind::Ellipsis;
        break;
      default:
        fail(op, ": unknown item kind ", flat[i], " in 'items' (expected 0 to 3)");
    }
    items.push_back(it);
  }
  return items;
}

void register_elementwise(Table& t) {
  const std::pair<const char*, BinaryFn> binary[] = {
      {"add", &sg::add}, {"sub", &sub}, {"mul", &mul}, {"div", &div}, {"pow", &pow},
      {"maximum", &maximum}, {"minimum", &minimum},
      {"eq", &eq}, {"ne", &ne}, {"lt", &lt}, {"le", &le}, {"gt", &gt}, {"ge", &ge},
      {"matmul", &matmul}, {"prelu", &prelu},
      {"atan2", &atan2}, {"fmod", &fmod}, {"remainder", &remainder}, {"floorDivide", &floor_divide},
      {"logicalAnd", &logical_and}, {"logicalOr", &logical_or},
      {"logicalXor", &logical_xor}, {"outer", &outer},
      {"bitwiseAnd", &bitwise_and}, {"bitwiseOr", &bitwise_or}, {"bitwiseXor", &bitwise_xor},
      {"bitwiseLeftShift", &bitwise_left_shift}, {"bitwiseRightShift", &bitwise_right_shift},
      {"gcd", &gcd}, {"lcm", &lcm},
  };
  for (const auto& [name, f] : binary)
    add_fixed(t, name, 2, [fn = f](const char*, const Inputs& in, const Attrs&) { return fn(in[0], in[1]); });

  const std::pair<const char*, UnaryFn> unary[] = {
      {"neg", &neg}, {"exp", &exp}, {"log", &log}, {"log2", &log2}, {"log10", &log10},
      {"log1p", &log1p}, {"expm1", &expm1}, {"sqrt", &sqrt}, {"rsqrt", &rsqrt}, {"abs", &abs},
      {"sign", &sign}, {"sin", &sin}, {"cos", &cos}, {"erf", &erf}, {"square", &square},
      {"reciprocal", &reciprocal}, {"relu", &relu}, {"selu", &selu}, {"sigmoid", &sigmoid},
      {"tanh", &tanh}, {"silu", &silu}, {"contiguous", &contiguous}, {"clone", &clone},
      {"floor", &floor}, {"ceil", &ceil}, {"round", &round}, {"trunc", &trunc}, {"tan", &tan},
      {"atan", &atan},   {"asin", &asin}, {"acos", &acos},   {"sinh", &sinh},   {"cosh", &cosh},
      {"logicalNot", &logical_not}, {"bitwiseNot", &bitwise_not},
  };
  for (const auto& [name, f] : unary)
    add_fixed(t, name, 1, [fn = f](const char*, const Inputs& in, const Attrs&) { return fn(in[0]); });

  add_fixed(t, "where", 3, [](const char*, const Inputs& in, const Attrs&) {
    return where(in[0], in[1], in[2]);
  });
  add_fixed(t, "maskedFill", 2, [](const char* op, const Inputs& in, const Attrs& a) {
    return masked_fill(in[0], in[1], a.number(op, "value"));
  });
  add_fixed(t, "clamp", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return clamp(in[0], a.opt_number(op, "min"), a.opt_number(op, "max"));
  });
  add_fixed(t, "leakyRelu", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return leaky_relu(in[0], a.number(op, "negativeSlope", 0.01));
  });
  add_fixed(t, "elu", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return elu(in[0], a.number(op, "alpha", 1.0));
  });
  add_fixed(t, "gelu", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return gelu(in[0], a.str(op, "approximate", "none"));
  });
  add_fixed(t, "softplus", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return softplus(in[0], a.number(op, "beta", 1.0), a.number(op, "threshold", 20.0));
  });
  add_fixed(t, "cast", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    if (!a.has("dtype")) fail(op, ": missing argument 'dtype'");
    return cast(in[0], dtype_attr(op, a, "float32"));
  });
  add_fixed(t, "divRounded", 2, [](const char* op, const Inputs& in, const Attrs& a) {
    return div_rounded(in[0], in[1], a.str(op, "roundingMode", "trunc"));
  });
  add_fixed(t, "hardtanh", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return hardtanh(in[0], a.number(op, "minVal", -1.0), a.number(op, "maxVal", 1.0));
  });
}

void register_reductions(Table& t) {
  add_fixed(t, "softmax", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return softmax(in[0], a.integer(op, "dim"));
  });
  add_fixed(t, "logSoftmax", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return log_softmax(in[0], a.integer(op, "dim"));
  });
  add_fixed(t, "causalSoftmax", 1, [](const char*, const Inputs& in, const Attrs&) { return causal_softmax(in[0]); });

  // 'max'/'min' are the JS names of the dim-reducing amax/amin.
  const std::pair<const char*, ReduceFn> reductions[] = {
      {"sum", &sum}, {"mean", &mean}, {"prod", &prod}, {"max", &amax}, {"min", &amin},
      {"logsumexp", &logsumexp}, {"any", &any}, {"all", &all},
  };
  for (const auto& [name, f] : reductions)
    add_fixed(t, name, 1, [fn = f](const char* op, const Inputs& in, const Attrs& a) {
      return fn(in[0], a.ints(op, "dim"), a.flag(op, "keepdim", false));
    });
  add_fixed(t, "var", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return var(in[0], a.ints(op, "dim"), a.flag(op, "keepdim", false), a.flag(op, "unbiased", true));
  });
  add_fixed(t, "std", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return sg::std(in[0], a.ints(op, "dim"), a.flag(op, "keepdim", false), a.flag(op, "unbiased", true));
  });
  add_fixed(t, "norm", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return norm(in[0], a.number(op, "p", 2.0), a.ints(op, "dim"), a.flag(op, "keepdim", false));
  });
  add_fixed(t, "argmax", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return argmax(in[0], a.opt_integer(op, "dim"), a.flag(op, "keepdim", false));
  });
  add_fixed(t, "argmin", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return argmin(in[0], a.opt_integer(op, "dim"), a.flag(op, "keepdim", false));
  });
}

// Scans, sorting and scatter: ops along one dim.
void register_along_dim(Table& t) {
  add_fixed(t, "cumsum", 1, [](const char* op, const Inputs& in, const Attrs& a) { return cumsum(in[0], a.integer(op, "dim")); });
  add_fixed(t, "cumprod", 1, [](const char* op, const Inputs& in, const Attrs& a) { return cumprod(in[0], a.integer(op, "dim")); });
  add_row(t, "sort", 1, 1, [](const Inputs& in, const Attrs& a) -> Outputs {
    const char* op = "sort";
    const Sorted s = sort(in[0], a.integer(op, "dim", -1), a.flag(op, "descending", false));
    return {s.values, s.indices};
  });
  add_fixed(t, "argsort", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return argsort(in[0], a.integer(op, "dim", -1), a.flag(op, "descending", false));
  });
  add_row(t, "topk", 1, 1, [](const Inputs& in, const Attrs& a) -> Outputs {
    const char* op = "topk";
    const Sorted s = topk(in[0], a.integer(op, "k"), a.integer(op, "dim", -1), a.flag(op, "largest", true));
    return {s.values, s.indices};
  });
  add_fixed(t, "scatter", 3, [](const char* op, const Inputs& in, const Attrs& a) {
    return scatter(in[0], a.integer(op, "dim"), in[1], in[2]);
  });
  add_fixed(t, "scatterAdd", 3, [](const char* op, const Inputs& in, const Attrs& a) {
    return scatter_add(in[0], a.integer(op, "dim"), in[1], in[2]);
  });
  add_fixed(t, "scatterReduce", 3, [](const char* op, const Inputs& in, const Attrs& a) {
    return scatter_reduce(in[0], a.integer(op, "dim"), in[1], in[2], a.str(op, "reduce", ""), a.flag(op, "includeSelf", true));
  });
}

void register_shape_ops(Table& t) {
  add_fixed(t, "reshape", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return reshape(in[0], required_ints(op, a, "shape"));
  });
  add_fixed(t, "view", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return view(in[0], required_ints(op, a, "shape"));
  });
  add_fixed(t, "expand", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return expand(in[0], required_ints(op, a, "shape"));
  });
  add_fixed(t, "flatten", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return flatten(in[0], a.integer(op, "startDim", 0), a.integer(op, "endDim", -1));
  });
  add_fixed(t, "squeeze", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return squeeze(in[0], a.opt_integer(op, "dim"));
  });
  add_fixed(t, "unsqueeze", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return unsqueeze(in[0], a.integer(op, "dim"));
  });
  add_fixed(t, "transpose", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return transpose(in[0], a.integer(op, "dim0"), a.integer(op, "dim1"));
  });
  add_fixed(t, "permute", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return permute(in[0], required_ints(op, a, "dims"));
  });
  add_fixed(t, "narrow", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return narrow(in[0], a.integer(op, "dim"), a.integer(op, "start"), a.integer(op, "length"));
  });
  add_fixed(t, "slice", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return slice(in[0], a.integer(op, "dim"), a.opt_integer(op, "start"), a.opt_integer(op, "end"),
                 a.integer(op, "step", 1));
  });
  add_row(t, "cat", 1, -1, [](const Inputs& in, const Attrs& a) -> Outputs {
    return {cat(in, a.integer("cat", "dim", 0))};
  });
  add_row(t, "stack", 1, -1, [](const Inputs& in, const Attrs& a) -> Outputs {
    return {stack(in, a.integer("stack", "dim", 0))};
  });
  add_row(t, "split", 1, 1, [](const Inputs& in, const Attrs& a) -> Outputs {
    const char* op = "split";
    int64_t dim = a.integer(op, "dim", 0);
    bool by_size = a.has("splitSize"), by_sections = a.has("sections");
    if (by_size == by_sections)
      fail(op, ": expected exactly one of 'splitSize' (a number) or 'sections' (an array), got ",
           by_size ? "both" : "neither");
    if (by_sections) return split_sections(in[0], a.ints(op, "sections"), dim);
    return split(in[0], a.integer(op, "splitSize"), dim);
  });
  add_row(t, "chunk", 1, 1, [](const Inputs& in, const Attrs& a) -> Outputs {
    return chunk(in[0], a.integer("chunk", "chunks"), a.integer("chunk", "dim", 0));
  });
  add_fixed(t, "indexSelect", 2, [](const char* op, const Inputs& in, const Attrs& a) {
    return index_select(in[0], a.integer(op, "dim"), in[1]);
  });
  add_fixed(t, "gather", 2, [](const char* op, const Inputs& in, const Attrs& a) {
    return gather(in[0], a.integer(op, "dim"), in[1]);
  });
  add_fixed(t, "pad", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return pad(in[0], required_ints(op, a, "pads"), a.str(op, "mode", "constant"),
               a.number(op, "value", 0.0));
  });
  add_fixed(t, "flip", 1, [](const char* op, const Inputs& in, const Attrs& a) { return flip(in[0], required_ints(op, a, "dims")); });
  add_fixed(t, "roll", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return roll(in[0], required_ints(op, a, "shifts"), a.ints(op, "dims"));
  });
  add_fixed(t, "repeat", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return repeat(in[0], required_ints(op, a, "repeats"));
  });
  add_fixed(t, "tile", 1, [](const char* op, const Inputs& in, const Attrs& a) { return tile(in[0], required_ints(op, a, "repeats")); });
  add_fixed(t, "select", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return select(in[0], a.integer(op, "dim"), a.integer(op, "index"));
  });
  add_fixed(t, "index", 1, [](const char* op, const Inputs& in, const Attrs& a) { return index(in[0], index_items(op, a)); });
}

// Triangles, diagonals and einsum (outer is a binary row of register_elementwise).
void register_matrices(Table& t) {
  add_fixed(t, "tril", 1, [](const char* op, const Inputs& in, const Attrs& a) { return tril(in[0], a.integer(op, "diagonal", 0)); });
  add_fixed(t, "triu", 1, [](const char* op, const Inputs& in, const Attrs& a) { return triu(in[0], a.integer(op, "diagonal", 0)); });
  add_fixed(t, "diag", 1, [](const char* op, const Inputs& in, const Attrs& a) { return diag(in[0], a.integer(op, "diagonal", 0)); });
  add_row(t, "einsum", 1, -1, [](const Inputs& in, const Attrs& a) -> Outputs {
    const char* op = "einsum";
    if (!a.has("equation")) fail(op, ": missing argument 'equation'");
    return {einsum(a.str(op, "equation", ""), in)};
  });
}

void register_creation(Table& t) {
  add_fixed(t, "scalar", 0, [](const char* op, const Inputs&, const Attrs& a) {
    return scalar_tensor(a.number(op, "value"), dtype_attr(op, a, "float32"));
  });
  add_fixed(t, "zeros", 0, [](const char* op, const Inputs&, const Attrs& a) {
    return zeros(required_ints(op, a, "shape"), dtype_attr(op, a, "float32"), device_attr(op, a));
  });
  add_fixed(t, "ones", 0, [](const char* op, const Inputs&, const Attrs& a) {
    return ones(required_ints(op, a, "shape"), dtype_attr(op, a, "float32"), device_attr(op, a));
  });
  add_fixed(t, "full", 0, [](const char* op, const Inputs&, const Attrs& a) {
    return full(required_ints(op, a, "shape"), a.number(op, "value"), dtype_attr(op, a, "float32"),
                device_attr(op, a));
  });
  add_fixed(t, "arange", 0, [](const char* op, const Inputs&, const Attrs& a) {
    return arange(a.number(op, "start"), a.number(op, "end"), a.number(op, "step"),
                  dtype_attr(op, a, "float32"), device_attr(op, a));
  });
  add_fixed(t, "linspace", 0, [](const char* op, const Inputs&, const Attrs& a) {
    return linspace(a.number(op, "start"), a.number(op, "end"), a.integer(op, "steps"), device_attr(op, a),
                    dtype_attr(op, a, "float32"));
  });
  add_fixed(t, "eye", 0, [](const char* op, const Inputs&, const Attrs& a) {
    return eye(a.integer(op, "n"), a.integer(op, "m", -1), device_attr(op, a));
  });
  add_fixed(t, "rand", 0, [](const char* op, const Inputs&, const Attrs& a) {
    return rand(required_ints(op, a, "shape"), device_attr(op, a), dtype_attr(op, a, "float32"));
  });
  add_fixed(t, "randn", 0, [](const char* op, const Inputs&, const Attrs& a) {
    return randn(required_ints(op, a, "shape"), device_attr(op, a), dtype_attr(op, a, "float32"));
  });
  add_fixed(t, "randint", 0, [](const char* op, const Inputs&, const Attrs& a) {
    return randint(a.integer(op, "low"), a.integer(op, "high"), required_ints(op, a, "shape"), device_attr(op, a));
  });
  // Random draws: never merged or removed by the graph compiler (OpInfo::impure).
  for (const char* name : {"rand", "randn", "randint"}) t.at(name).impure = true;
  // Moving data between devices (t.to('webgpu' | 'cpu'), module.to(device)).
  add_fixed(t, "to", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    if (!a.has("device")) fail(op, ": missing argument 'device'");
    return to_device(in[0], device_attr(op, a));
  });
}

void register_sampling(Table& t) {
  add_fixed(t, "bernoulli", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return bernoulli(in[0], a.opt_number(op, "p"));
  });
  add_fixed(t, "multinomial", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return multinomial(in[0], a.integer(op, "numSamples"), a.flag(op, "replacement", false));
  });
  // Random draws, as rand/randn/randint: never merged or removed by the graph compiler.
  for (const char* name : {"bernoulli", "multinomial"}) t.at(name).impure = true;
}

// The decompositions (ops/linalg_decomp.cpp): float32 and float64 (OpInfo::float64).
void register_linalg_decompositions(Table& t) {
  add_row(t, "linalgSvd", 1, 1, [](const Inputs& in, const Attrs& a) -> Outputs {
    const Svd r = linalg_svd(in[0], a.flag("linalgSvd", "fullMatrices", true));
    return {r.U, r.S, r.Vh};
  });
  add_fixed(t, "linalgSvdvals", 1, [](const char*, const Inputs& in, const Attrs&) { return linalg_svdvals(in[0]); });
  add_row(t, "linalgEigh", 1, 1, [](const Inputs& in, const Attrs& a) -> Outputs {
    const Eigh r = linalg_eigh(in[0], a.str("linalgEigh", "UPLO", "L"));
    return {r.eigenvalues, r.eigenvectors};
  });
  add_fixed(t, "linalgEigvalsh", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return linalg_eigvalsh(in[0], a.str(op, "UPLO", "L"));
  });
  add_row(t, "linalgQr", 1, 1, [](const Inputs& in, const Attrs& a) -> Outputs {
    const QR r = linalg_qr(in[0], a.str("linalgQr", "mode", "reduced"));
    return {r.Q, r.R};
  });
  add_fixed(t, "linalgSolveTriangular", 2, [](const char* op, const Inputs& in, const Attrs& a) {
    if (!a.has("upper")) fail(op, ": missing argument 'upper'");
    return linalg_solve_triangular(in[0], in[1], a.flag(op, "upper", false), a.flag(op, "left", true),
                                   a.flag(op, "unitriangular", false));
  });
  add_row(t, "linalgLuFactor", 1, 1, [](const Inputs& in, const Attrs&) -> Outputs {
    const LUFactor r = linalg_lu_factor(in[0]);
    return {r.LU, r.pivots};
  });
  add_fixed(t, "linalgMatrixExp", 1, [](const char*, const Inputs& in, const Attrs&) { return linalg_matrix_exp(in[0]); });
  add_fixed(t, "linalgPinv", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return linalg_pinv(in[0], a.opt_number(op, "atol"), a.opt_number(op, "rtol"));
  });
  for (const char* name : {"linalgSvd", "linalgSvdvals", "linalgEigh", "linalgEigvalsh", "linalgQr",
                           "linalgSolveTriangular", "linalgLuFactor", "linalgMatrixExp", "linalgPinv"})
    t.at(name).float64 = true;
}

// torch.linalg (ops/linalg.h); the JS layer names them linalg.inv, ... (npm/src/linalg/linalg.ts).
void register_linalg(Table& t) {
  const std::pair<const char*, UnaryFn> unary[] = {
      {"linalgInv", &linalg_inv}, {"linalgDet", &linalg_det}, {"logdet", &logdet}};
  for (const auto& [name, f] : unary)
    add_fixed(t, name, 1, [fn = f](const char*, const Inputs& in, const Attrs&) { return fn(in[0]); });
  add_row(t, "linalgSlogdet", 1, 1, [](const Inputs& in, const Attrs&) -> Outputs {
    const SignLogDet s = linalg_slogdet(in[0]);
    return {s.sign, s.logabsdet};
  });
  add_fixed(t, "linalgSolve", 2, [](const char*, const Inputs& in, const Attrs&) { return linalg_solve(in[0], in[1]); });
  add_fixed(t, "linalgCholesky", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return linalg_cholesky(in[0], a.flag(op, "upper", false));
  });
  register_linalg_decompositions(t);
}

// PyTorch's special functions (ops/special.h); npm/src/special/special.ts also names them special.*.
void register_special(Table& t) {
  const std::pair<const char*, UnaryFn> unary[] = {
      {"erfinv", &erfinv}, {"erfc", &erfc}, {"lgamma", &lgamma}, {"digamma", &digamma}, {"i0", &i0}};
  for (const auto& [name, f] : unary)
    add_fixed(t, name, 1, [fn = f](const char*, const Inputs& in, const Attrs&) { return fn(in[0]); });
  add_fixed(t, "polygamma", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return polygamma(a.integer(op, "n"), in[0]);
  });
}

}  // namespace

// Ops that move elements without computing with them take every dtype (OpInfo::any_dtype).
void mark_dtype_generic(Table& t) {
  for (const char* name : {"reshape", "view", "expand", "flatten", "squeeze", "unsqueeze", "transpose", "permute",
                           "narrow", "slice", "select", "cat", "stack", "split", "chunk", "contiguous", "clone",
                           "cast", "to", "indexSelect", "gather", "index"})
    t.at(name).any_dtype = true;
}

// Ops with float64 kernels or formulas that compute in float64 throughout, forward and backward
// (OpInfo::float64; issue 27): float64 inputs reach them and give float64 results.
void mark_float64(Table& t) {
  for (const char* name :
       {"add", "sub", "mul", "div", "pow", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge", "matmul",
        "neg", "exp", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "abs", "sign", "sin", "cos", "erf",
        "square", "reciprocal", "relu", "selu", "sigmoid", "tanh", "silu", "where", "maskedFill", "clamp",
        "leakyRelu", "elu", "gelu", "softplus", "hardtanh", "softmax", "logSoftmax", "causalSoftmax", "sum", "mean",
        "prod", "max", "min", "logsumexp", "var", "std", "norm", "argmax", "argmin", "cumsum", "sort", "argsort",
        "topk", "scatter", "scatterAdd", "pad", "flip", "roll", "repeat", "tile", "erfinv", "erfc", "lgamma",
        "digamma", "i0", "polygamma"})
    t.at(name).float64 = true;
}

void register_all_ops(std::map<std::string, OpInfo>& table) {
  register_elementwise(table);
  register_reductions(table);
  register_along_dim(table);
  register_shape_ops(table);
  register_matrices(table);
  register_creation(table);
  register_sampling(table);
  register_linalg(table);
  register_special(table);
  mark_dtype_generic(table);
  mark_float64(table);
}

}  // namespace sg
