// einsum: the equation is parsed into one label per dim of each operand ('...' becomes labels of
// its own, aligned from the right across operands, so those dims broadcast), then:
//   1. a label repeated within one operand takes that operand's diagonal (a strided view);
//   2. labels that only one operand has and the output does not are summed away at once;
//   3. operands are contracted left to right, each pair by one batched matmul: shared labels that
//      are still needed become the batch, shared labels that are not are contracted, the rest
//      are rows and columns (permute + reshape around matmul);
//   4. whatever the output does not name is summed, and the result is permuted into its order.
// Every step is an op with a gradient, so einsum is differentiable throughout.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "autograd/record.h"
#include "core/copy.h"
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {

namespace {

using Grads = std::vector<Tensor>;
using Labels = std::vector<int>;

constexpr const char* kOp = "einsum";
constexpr int kLetters = 52;  // 'A'..'Z' → 0..25, 'a'..'z' → 26..51 (ASCII order); '...' dims after

struct Term {
  Labels letters_before, letters_after;  // around the '...'
  bool ellipsis = false;
};

struct Operand {
  Tensor t;
  Labels labels;  // one per dim of t
};

int letter_label(char c, const std::string& eq) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
  fail(kOp, ": invalid character '", std::string(1, c), "' in equation '", eq,
       "' (expected letters, ',', '->' and '...')");
}

char label_char(int label) { return label < 26 ? char('A' + label) : char('a' + label - 26); }

Term parse_term(const std::string& s, const std::string& eq) {
  Term t;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '.') {
      check(s.compare(i, 3, "...") == 0 && !t.ellipsis, kOp, ": invalid '.' in equation '", eq,
            "' (expected at most one '...' per term)");
      t.ellipsis = true;
      i += 2;
      continue;
    }
    (t.ellipsis ? t.letters_after : t.letters_before).push_back(letter_label(s[i], eq));
  }
  return t;
}

std::vector<std::string> split_terms(const std::string& s) {
  std::vector<std::string> out(1);
  for (char c : s) {
    if (c == ',') out.emplace_back();
    else out.back() += c;
  }
  return out;
}

// A term's labels for a tensor of ndim dims; ellipsis dims get kLetters + their position among
// the `ell` right-aligned broadcast dims.
Labels expand_term(const Term& t, int64_t ndim, int64_t ell, size_t which, const std::string& eq) {
  const int64_t letters = int64_t(t.letters_before.size() + t.letters_after.size());
  if (!t.ellipsis)
    check(letters == ndim, kOp, ": operand ", which, " has ", ndim, " dims but its term in '", eq, "' names ", letters);
  else
    check(letters <= ndim, kOp, ": operand ", which, " has ", ndim, " dims but its term in '", eq, "' names ", letters,
          " besides '...'");
  Labels out = t.letters_before;
  const int64_t mine = ndim - letters;
  for (int64_t j = 0; j < mine && t.ellipsis; ++j) out.push_back(int(kLetters + ell - mine + j));
  out.insert(out.end(), t.letters_after.begin(), t.letters_after.end());
  return out;
}

int64_t position_of(const Labels& labels, int label) {
  return int64_t(std::find(labels.begin(), labels.end(), label) - labels.begin());
}

// The diagonal over dims p < q of equal size: a view with dim q removed and p striding both.
Tensor diagonal(const Tensor& x, int64_t p, int64_t q) {
  Shape shape = x.shape(), strides = x.strides();
  strides[p] += strides[q];
  shape.erase(shape.begin() + q);
  strides.erase(strides.begin() + q);
  Tensor out = Tensor::view_of(x, shape, strides, x.offset());
  return record("einsum", out, {x}, [in_shape = x.shape(), p, q](const Tensor& g) -> Grads {
    Tensor z = zeros(in_shape, DType::Float32, g.device());
    Shape s = z.strides();
    s[p] += s[q];
    s.erase(s.begin() + q);
    copy_into(Tensor::view_of(z, g.shape(), s, 0), g);
    return {z};
  });
}

// Takes the diagonal of every label repeated within the operand.
void take_diagonals(Operand& o, const std::string& eq) {
  for (size_t p = 0; p < o.labels.size(); ++p)
    for (size_t q = p + 1; q < o.labels.size();) {
      if (o.labels[q] != o.labels[p]) {
        ++q;
        continue;
      }
      check(o.t.shape()[p] == o.t.shape()[q], kOp, ": label '", std::string(1, label_char(o.labels[p])),
            "' repeats within one operand over dims of sizes ", o.t.shape()[p], " and ", o.t.shape()[q], " in '", eq, "'");
      o.t = diagonal(o.t, int64_t(p), int64_t(q));
      o.labels.erase(o.labels.begin() + q);
    }
}

// Sums the operand over the labels `drop` says to.
template <class Pred>
void sum_labels(Operand& o, Pred drop) {
  Dims dims;
  Labels kept;
  for (size_t d = 0; d < o.labels.size(); ++d) {
    if (drop(o.labels[d])) dims.push_back(int64_t(d));
    else kept.push_back(o.labels[d]);
  }
  if (dims.empty()) return;
  o.t = sum(o.t, dims);
  o.labels = kept;
}

// o's dims arranged as `order` (labels it has), each expanded to sizes[label].
Tensor arranged(const Operand& o, const Labels& order, const std::map<int, int64_t>& sizes) {
  Dims perm;
  Shape target;
  for (int l : order) {
    perm.push_back(position_of(o.labels, l));
    target.push_back(sizes.at(l));
  }
  Tensor t = permute(o.t, perm);
  return t.shape() == target ? t : expand(t, target);
}

int64_t product(const Labels& ls, const std::map<int, int64_t>& sizes) {
  int64_t n = 1;
  for (int l : ls) n *= sizes.at(l);
  return n;
}

// a ⊗ b summed over the labels both have and `keep` lacks.
Operand contract(Operand a, Operand b, const std::set<int>& keep, const std::map<int, int64_t>& sizes) {
  auto has = [](const Operand& o, int l) { return std::count(o.labels.begin(), o.labels.end(), l) > 0; };
  sum_labels(a, [&](int l) { return !keep.count(l) && !has(b, l); });
  sum_labels(b, [&](int l) { return !keep.count(l) && !has(a, l); });
  Labels batch, summed, rows, cols;
  for (int l : a.labels) (has(b, l) ? (keep.count(l) ? batch : summed) : rows).push_back(l);
  for (int l : b.labels)
    if (!has(a, l)) cols.push_back(l);
  auto joined = [](std::initializer_list<const Labels*> parts) {
    Labels out;
    for (const Labels* p : parts) out.insert(out.end(), p->begin(), p->end());
    return out;
  };
  const int64_t B = product(batch, sizes), M = product(rows, sizes), K = product(summed, sizes), N = product(cols, sizes);
  const Tensor a3 = reshape(arranged(a, joined({&batch, &rows, &summed}), sizes), {B, M, K});
  const Tensor b3 = reshape(arranged(b, joined({&batch, &summed, &cols}), sizes), {B, K, N});
  Operand out;
  out.labels = joined({&batch, &rows, &cols});
  Shape shape;
  for (int l : out.labels) shape.push_back(sizes.at(l));
  out.t = reshape(matmul(a3, b3), shape);
  return out;
}

}  // namespace

Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands) {
  std::string eq;
  for (char c : equation)
    if (c != ' ') eq += c;
  check(!operands.empty(), kOp, ": expected at least one operand");
  const size_t arrow = eq.find("->");
  const std::vector<std::string> terms_text = split_terms(eq.substr(0, arrow));
  check(terms_text.size() == operands.size(), kOp, ": the equation '", equation, "' has ", terms_text.size(),
        " operand terms but ", operands.size(), " tensors were given");
  std::vector<Term> terms;
  int64_t ell = 0;  // dims the '...' stands for: the most any operand has
  for (size_t i = 0; i < operands.size(); ++i) {
    check(operands[i].dtype() == DType::Float32, kOp, ": expected float32 operands, got ",
          dtype_name(operands[i].dtype()), " (operand ", i, ")");
    terms.push_back(parse_term(terms_text[i], equation));
    const Term& t = terms.back();
    if (t.ellipsis) ell = std::max(ell, operands[i].ndim() - int64_t(t.letters_before.size() + t.letters_after.size()));
  }
  operands_device(kOp, operands);

  // Label sizes (size 1 broadcasts) and how often each label occurs.
  std::vector<Operand> ops;
  std::map<int, int64_t> sizes;
  std::map<int, int> count;
  for (size_t i = 0; i < operands.size(); ++i) {
    Operand o{operands[i], expand_term(terms[i], operands[i].ndim(), ell, i, equation)};
    for (size_t d = 0; d < o.labels.size(); ++d) {
      const int l = o.labels[d];
      const int64_t s = o.t.shape()[d];
      auto [it, fresh] = sizes.emplace(l, s);
      if (!fresh && it->second != s) {
        check(it->second == 1 || s == 1, kOp, ": label '",
              l < kLetters ? std::string(1, label_char(l)) : std::string("..."), "' has sizes ", it->second, " and ", s,
              " in '", equation, "' (expected equal sizes, or 1 to broadcast)");
        it->second = std::max(it->second, s);
      }
      ++count[l];
    }
    ops.push_back(std::move(o));
  }

  // The output's labels: as written, or (no '->') the '...' dims, then the letters used once, in order.
  Labels output;
  if (arrow != std::string::npos) {
    const Term t = parse_term(eq.substr(arrow + 2), equation);
    output = t.letters_before;
    for (int64_t j = 0; j < ell && t.ellipsis; ++j) output.push_back(int(kLetters + j));
    output.insert(output.end(), t.letters_after.begin(), t.letters_after.end());
    for (size_t k = 0; k < output.size(); ++k) {
      const int l = output[k];
      check(count.count(l), kOp, ": output label '", std::string(1, label_char(l)), "' does not occur in any operand of '",
            equation, "'");
      check(std::count(output.begin(), output.end(), l) == 1, kOp, ": output label '", std::string(1, label_char(l)),
            "' appears more than once in '", equation, "'");
    }
  } else {
    for (int64_t j = 0; j < ell; ++j) output.push_back(int(kLetters + j));
    for (const auto& [l, n] : count)
      if (l < kLetters && n == 1) output.push_back(l);
  }

  // 1 and 2: per operand.
  const std::set<int> out_set(output.begin(), output.end());
  for (Operand& o : ops) take_diagonals(o, equation);
  std::map<int, int> users;  // operands that have each label, after the diagonals
  for (const Operand& o : ops)
    for (int l : std::set<int>(o.labels.begin(), o.labels.end())) ++users[l];
  for (Operand& o : ops) sum_labels(o, [&](int l) { return !out_set.count(l) && users[l] == 1; });

  // 3: left to right, keeping the labels the output or a later operand still needs.
  Operand acc = ops[0];
  for (size_t i = 1; i < ops.size(); ++i) {
    std::set<int> keep = out_set;
    for (size_t j = i + 1; j < ops.size(); ++j) keep.insert(ops[j].labels.begin(), ops[j].labels.end());
    acc = contract(acc, ops[i], keep, sizes);
  }

  // 4: sum what the output does not name (one operand only), expand broadcast dims, order. A
  // lone operand's permutation is still a view of it: einsum returns a new tensor.
  sum_labels(acc, [&](int l) { return !out_set.count(l); });
  const Tensor result = arranged(acc, output, sizes);
  return result.impl()->storage == operands[0].impl()->storage ? clone(result) : result;
}

}  // namespace sg
