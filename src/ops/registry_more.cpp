// The op table rows of ops_more.h (bindings/README.md, "more ops"): each row reads its
// attributes through the Attrs getters and calls one C++ function; no op logic lives here.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "core/error.h"
#include "ops/bitwise.h"
#include "ops/linalg.h"
#include "ops/ops_more.h"
#include "ops/registry.h"
#include "ops/special.h"

namespace sg {

namespace {

using Table = std::map<std::string, OpInfo>;
using Inputs = std::vector<Tensor>;
using Outputs = std::vector<Tensor>;

// A row whose tensor inputs are all required (max_inputs −1: any number), checked for null here
// rather than dereferenced inside the op.
template <class F>
void row(Table& t, const char* name, int min_inputs, int max_inputs, F f) {
  t.emplace(name, OpInfo{min_inputs, max_inputs, [name, f](const Inputs& in, const Attrs& a) -> Outputs {
                           for (size_t i = 0; i < in.size(); ++i)
                             if (!in[i].defined()) fail(name, ": tensor argument ", i, " is null");
                           return f(name, in, a);
                         }});
}

// A row with n inputs and one result.
template <class F>
void one(Table& t, const char* name, int n, F f) {
  row(t, name, n, n, [f](const char* op, const Inputs& in, const Attrs& a) -> Outputs { return {f(op, in, a)}; });
}

std::vector<int64_t> required_ints(const char* op, const Attrs& a, const char* name) {
  if (!a.has(name)) fail(op, ": missing argument '", name, "'");
  return a.ints(op, name);
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

using UnaryFn = Tensor (*)(const Tensor&);
using BinaryFn = Tensor (*)(const Tensor&, const Tensor&);
using TestFn = Tensor (*)(const Tensor&, const Dims&, bool);

void register_elementwise(Table& t) {
  const std::pair<const char*, UnaryFn> unary[] = {
      {"floor", &floor}, {"ceil", &ceil}, {"round", &round}, {"trunc", &trunc}, {"tan", &tan},
      {"atan", &atan},   {"asin", &asin}, {"acos", &acos},   {"sinh", &sinh},   {"cosh", &cosh},
      {"logicalNot", &logical_not}, {"bitwiseNot", &bitwise_not},
  };
  for (const auto& [name, f] : unary)
    one(t, name, 1, [fn = f](const char*, const Inputs& in, const Attrs&) { return fn(in[0]); });
  const std::pair<const char*, BinaryFn> binary[] = {
      {"atan2", &atan2}, {"fmod", &fmod}, {"remainder", &remainder}, {"floorDivide", &floor_divide},
      {"logicalAnd", &logical_and}, {"logicalOr", &logical_or},
      {"logicalXor", &logical_xor}, {"outer", &outer},
      {"bitwiseAnd", &bitwise_and}, {"bitwiseOr", &bitwise_or}, {"bitwiseXor", &bitwise_xor},
      {"bitwiseLeftShift", &bitwise_left_shift}, {"bitwiseRightShift", &bitwise_right_shift},
      {"gcd", &gcd}, {"lcm", &lcm},
  };
  for (const auto& [name, f] : binary)
    one(t, name, 2, [fn = f](const char*, const Inputs& in, const Attrs&) { return fn(in[0], in[1]); });
  one(t, "divRounded", 2, [](const char* op, const Inputs& in, const Attrs& a) {
    return div_rounded(in[0], in[1], a.str(op, "roundingMode", "trunc"));
  });
  one(t, "hardtanh", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return hardtanh(in[0], a.number(op, "minVal", -1.0), a.number(op, "maxVal", 1.0));
  });
  const std::pair<const char*, TestFn> tests[] = {{"any", &any}, {"all", &all}};
  for (const auto& [name, f] : tests)
    one(t, name, 1, [fn = f](const char* op, const Inputs& in, const Attrs& a) {
      return fn(in[0], a.ints(op, "dim"), a.flag(op, "keepdim", false));
    });
}

void register_along_dim(Table& t) {
  one(t, "cumsum", 1, [](const char* op, const Inputs& in, const Attrs& a) { return cumsum(in[0], a.integer(op, "dim")); });
  one(t, "cumprod", 1, [](const char* op, const Inputs& in, const Attrs& a) { return cumprod(in[0], a.integer(op, "dim")); });
  row(t, "sort", 1, 1, [](const char* op, const Inputs& in, const Attrs& a) -> Outputs {
    const Sorted s = sort(in[0], a.integer(op, "dim", -1), a.flag(op, "descending", false));
    return {s.values, s.indices};
  });
  one(t, "argsort", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return argsort(in[0], a.integer(op, "dim", -1), a.flag(op, "descending", false));
  });
  row(t, "topk", 1, 1, [](const char* op, const Inputs& in, const Attrs& a) -> Outputs {
    const Sorted s = topk(in[0], a.integer(op, "k"), a.integer(op, "dim", -1), a.flag(op, "largest", true));
    return {s.values, s.indices};
  });
  one(t, "scatter", 3, [](const char* op, const Inputs& in, const Attrs& a) {
    return scatter(in[0], a.integer(op, "dim"), in[1], in[2]);
  });
  one(t, "scatterAdd", 3, [](const char* op, const Inputs& in, const Attrs& a) {
    return scatter_add(in[0], a.integer(op, "dim"), in[1], in[2]);
  });
  one(t, "scatterReduce", 3, [](const char* op, const Inputs& in, const Attrs& a) {
    return scatter_reduce(in[0], a.integer(op, "dim"), in[1], in[2], a.str(op, "reduce", ""), a.flag(op, "includeSelf", true));
  });
}

void register_rearranging(Table& t) {
  one(t, "tril", 1, [](const char* op, const Inputs& in, const Attrs& a) { return tril(in[0], a.integer(op, "diagonal", 0)); });
  one(t, "triu", 1, [](const char* op, const Inputs& in, const Attrs& a) { return triu(in[0], a.integer(op, "diagonal", 0)); });
  one(t, "diag", 1, [](const char* op, const Inputs& in, const Attrs& a) { return diag(in[0], a.integer(op, "diagonal", 0)); });
  row(t, "einsum", 1, -1, [](const char* op, const Inputs& in, const Attrs& a) -> Outputs {
    if (!a.has("equation")) fail(op, ": missing argument 'equation'");
    return {einsum(a.str(op, "equation", ""), in)};
  });
  one(t, "flip", 1, [](const char* op, const Inputs& in, const Attrs& a) { return flip(in[0], required_ints(op, a, "dims")); });
  one(t, "roll", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return roll(in[0], required_ints(op, a, "shifts"), a.ints(op, "dims"));
  });
  one(t, "repeat", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return repeat(in[0], required_ints(op, a, "repeats"));
  });
  one(t, "tile", 1, [](const char* op, const Inputs& in, const Attrs& a) { return tile(in[0], required_ints(op, a, "repeats")); });
  one(t, "select", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return select(in[0], a.integer(op, "dim"), a.integer(op, "index"));
  });
  one(t, "index", 1, [](const char* op, const Inputs& in, const Attrs& a) { return index(in[0], index_items(op, a)); });
}

void register_sampling(Table& t) {
  one(t, "bernoulli", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return bernoulli(in[0], a.opt_number(op, "p"));
  });
  one(t, "multinomial", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return multinomial(in[0], a.integer(op, "numSamples"), a.flag(op, "replacement", false));
  });
}

// torch.linalg (ops/linalg.h); the JS layer names them linalg.inv, ... (npm/src/linalg.ts).
void register_linalg(Table& t) {
  const std::pair<const char*, UnaryFn> unary[] = {
      {"linalgInv", &linalg_inv}, {"linalgDet", &linalg_det}, {"logdet", &logdet}};
  for (const auto& [name, f] : unary)
    one(t, name, 1, [fn = f](const char*, const Inputs& in, const Attrs&) { return fn(in[0]); });
  row(t, "linalgSlogdet", 1, 1, [](const char*, const Inputs& in, const Attrs&) -> Outputs {
    const SignLogDet s = linalg_slogdet(in[0]);
    return {s.sign, s.logabsdet};
  });
  one(t, "linalgSolve", 2, [](const char*, const Inputs& in, const Attrs&) { return linalg_solve(in[0], in[1]); });
  one(t, "linalgCholesky", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return linalg_cholesky(in[0], a.flag(op, "upper", false));
  });
}

// PyTorch's special functions (ops/special.h); npm/src/special.ts also names them special.*.
void register_special(Table& t) {
  const std::pair<const char*, UnaryFn> unary[] = {
      {"erfinv", &erfinv}, {"erfc", &erfc}, {"lgamma", &lgamma}, {"digamma", &digamma}, {"i0", &i0}};
  for (const auto& [name, f] : unary)
    one(t, name, 1, [fn = f](const char*, const Inputs& in, const Attrs&) { return fn(in[0]); });
  one(t, "polygamma", 1, [](const char* op, const Inputs& in, const Attrs& a) {
    return polygamma(a.integer(op, "n"), in[0]);
  });
}

}  // namespace

void register_more_ops(std::map<std::string, OpInfo>& table) {
  register_elementwise(table);
  register_along_dim(table);
  register_rearranging(table);
  register_sampling(table);
  register_linalg(table);
  register_special(table);
}

}  // namespace sg
