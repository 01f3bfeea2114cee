// select(dim, i) and multi-dimensional indexing, x.index(null, -1, [0, T]) in JavaScript (Python's
// x[:, -1, :T]): views composed of narrow + squeeze (a position) and slice (a range), dim by
// dim, so their gradients are those ops' (g written back into zeros at the viewed positions).
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {

namespace {

// Position i (negative counts from the end) of a dim of the given size, checked.
int64_t position(const char* op, int64_t i, int64_t dim, int64_t size) {
  check(i >= -size && i < size, op, ": index ", i, " is out of range for dim ", dim, " of size ", size,
        " (expected an index in [", -size, ", ", size - 1, "])");
  return i < 0 ? i + size : i;
}

Tensor select_at(const Tensor& x, int64_t d, int64_t i) { return squeeze(narrow(x, d, i, 1), d); }

}  // namespace

Tensor select(const Tensor& x, int64_t dim, int64_t index) {
  check(x.ndim() > 0, "select: cannot select from a 0-dim tensor");
  const int64_t d = normalize_dim(dim, x.ndim(), "select");
  return select_at(x, d, position("select", index, d, x.shape()[d]));
}

Tensor index(const Tensor& x, const std::vector<IndexItem>& items) {
  const char* op = "index";
  using Kind = IndexItem::Kind;
  int64_t ellipses = 0, named = 0;
  for (const IndexItem& it : items) {
    if (it.kind == Kind::Ellipsis) ++ellipses;
    else ++named;
  }
  check(ellipses <= 1, op, ": expected at most one '...', got ", ellipses);
  check(named <= x.ndim(), op, ": too many indices for a tensor of ", x.ndim(), " dims (shape ", x.shape(), "): got ",
        named);
  Tensor out = x;
  int64_t d = 0;  // the dim of `out` the next item applies to (dims removed by positions drop out)
  int64_t src = 0;  // the dim of x it came from, for messages
  for (const IndexItem& it : items) {
    switch (it.kind) {
      case Kind::Ellipsis: {
        const int64_t skip = x.ndim() - named;
        d += skip;
        src += skip;
        continue;
      }
      case Kind::All: break;
      case Kind::At: {
        out = select_at(out, d, position(op, it.at, src, out.shape()[d]));
        ++src;
        continue;  // the dim is gone: the next item applies to the same d
      }
      case Kind::Range: {
        check(it.step > 0, op, ": expected a positive step in the range for dim ", src, ", got ", it.step);
        out = slice(out, d, it.start, it.end, it.step);
        break;
      }
    }
    ++d;
    ++src;
  }
  // Nothing narrowed (x.index(), x.index('...')): still a view of x, as x[...] is in PyTorch.
  return out.same(x) ? reshape(x, x.shape()) : out;
}

}  // namespace sg
