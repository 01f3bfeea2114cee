"""Reference values and gradients of advanced indexing from PyTorch 1.13 (CPU) for
tests/js/advanced_indexing.test.mjs: x[items] (x.index(...items)) and x[items] = v /
index_put_(..., accumulate=True) (x.indexPut_(items, v, { accumulate })).

Cases: 1-D, 2-D and 3-D index tensors; several index tensors broadcast together; adjacent
advanced indices (their dims replace them in place) and separated ones (their dims go first);
mixed with numbers (a select, before advanced indexing: never an advanced index), ranges with
steps and negative bounds, whole dims and '...'; negative indices; bool masks over all dims,
the leading dims, a middle dim, with an index tensor after them, all false; 0-d bool (x[True],
x[False]) and 0-d integer (a select) tensors; empty index tensors and 0-size dims; repeated
indices (the gradient of x accumulates); nested lists (torch.tensor of them: an index tensor of
their shape, not Python's legacy tuple reading); int32 and bool x (values only); a transposed
(non-contiguous) x. Puts: tensor and number values broadcast to x[items]'s shape (and a value
with a leading dim of size 1, which Python's x[items] = v drops), accumulate both ways, repeated
positions (accumulate=False: with one value written there, PyTorch leaves which one undefined).

Items are written as JSON: an integer {"n": i}, a whole dim null, '...' "...", a range
{"r": [start, end, step]} (nulls open), an input tensor {"in": k} (the case's k-th input; int
index tensors are int32 there, int64 here), a nested list {"list": [...]}. A put case's value is
its last input, or {"num": v} for a number. PyTorch's x[items] = v has no accumulate; those cases
add through index_put_ at the flat positions arange(x.numel()).reshape(x.shape)[items] (the same
semantics, computed by PyTorch).

Run: /usr/bin/python3 tests/data/gen_advanced_indexing.py  (writes tests/data/advanced_indexing_ref.json)
"""
import torch

from ref_json import Cases, write

cases = Cases(20261129)


def t(v):
    """An index tensor item (int32 in the JSON; int64 for PyTorch 1.13, whose indices must be long)."""
    if isinstance(v, torch.Tensor):
        return ("t", v)
    flat = torch.tensor(v)
    return ("t", flat.to(torch.int32) if flat.dtype != torch.bool else flat)


def r(start=None, end=None, step=None):
    return ("r", start, end, step)


def lst(v):
    return ("list", v)


def build(items, tensors):
    """The Python subscript of the items, the tensor items taken from `tensors` in order."""
    it = iter(tensors)
    out = []
    for item in items:
        if item is None:
            out.append(slice(None))
        elif item == "...":
            out.append(Ellipsis)
        elif isinstance(item, int):
            out.append(item)
        elif item[0] == "r":
            out.append(slice(*item[1:]))
        elif item[0] == "t":
            v = next(it)
            out.append(v if v.dtype == torch.bool else v.long())
        else:
            v = torch.tensor(item[1])
            out.append(v if v.dtype == torch.bool else v.long())
    return tuple(out)


def encode(items):
    out, k = [], 1
    for item in items:
        if item is None or item == "...":
            out.append(item)
        elif isinstance(item, int):
            out.append({"n": item})
        elif item[0] == "r":
            out.append({"r": list(item[1:])})
        elif item[0] == "t":
            out.append({"in": k})
            k += 1
        else:
            out.append({"list": item[1]})
    return out


def tensors_of(items):
    return [item[1] for item in items if isinstance(item, tuple) and item[0] == "t"]


def index_case(cid, x, items, grad=True, pre=None):
    def fn(xx, *ts):
        base = xx.t() if pre == "t" else xx
        return base[build(items, ts)]

    cases.case(cid, fn, [x, *tensors_of(items)], grad=(0,) if grad and x.is_floating_point() else ())
    cases[-1].update(op="index", items=encode(items), pre=pre)


def put_case(cid, x, items, v, accumulate=False, grad=True):
    number = not isinstance(v, torch.Tensor)

    def fn(xx, *rest):
        ts, vv = (rest, v) if number else (rest[:-1], rest[-1])
        y = xx.clone()
        idx = build(items, ts)
        if not accumulate:
            y[idx] = vv
            return y
        pos = torch.arange(y.numel()).reshape(y.shape)[idx]
        vals = torch.as_tensor(vv, dtype=y.dtype).expand(pos.shape)
        return y.reshape(-1).index_put((pos.reshape(-1),), vals.reshape(-1), accumulate=True).reshape(y.shape)

    ins = [x, *tensors_of(items)] + ([] if number else [v])
    floating = x.is_floating_point()
    gs = () if not (grad and floating) else ((0,) if number else (0, len(ins) - 1))
    cases.case("put: " + cid, fn, ins, grad=gs)
    cases[-1].update(op="put", items=encode(items), accumulate=accumulate, value={"num": v} if number else None)


randn = torch.randn

# ---- x[items] ----
index_case("1-D: repeats and negatives", randn(6), [t([0, 5, -1, 2, 2, -6])])
index_case("2-D index into rows (embedding)", randn(5, 3), [t([[0, 1], [4, -2], [1, 1]])])
index_case("3-D index", randn(6, 2), [t([[[0, 5], [5, 0]], [[3, 3], [-1, 2]]])])
index_case("pair of index tensors", randn(4, 5), [t([3, 0, -1]), t([1, 4, 0])])
index_case("broadcast [3,1] with [2]", randn(4, 5), [t([[0], [2], [3]]), t([1, -1])])
index_case("broadcast [2,1,1] with [3] into 3-D x", randn(3, 4, 5), [t([[[0]], [[2]]]), t([0, 1, 3])])
index_case("middle dim, 2-D index", randn(3, 4, 5), [None, t([[0, 3], [2, 2]])])
index_case("separated: first and last dim (dims go first)", randn(3, 4, 5), [t([0, 2, 1]), None, t([4, 0, -1])])
index_case("separated by a range with a step", randn(3, 4, 5), [t([[0], [2]]), r(None, None, 2), t([1, 3])])
index_case("adjacent in the middle of 4-D", randn(3, 4, 5, 2), [None, t([0, 3, 1]), t([4, 0, 2])])
index_case("adjacent last two", randn(3, 4, 5), [None, t([[1], [3]]), t([0, 4])])
index_case("index then a number (select first)", randn(3, 4, 5), [t([2, 0]), 1])
index_case("index, range, number: separated in numpy, adjacent in PyTorch", randn(3, 4, 5, 6), [None, t([0, 3]), None, 0])
index_case("index, whole dim, number", randn(5, 6, 7, 8), [None, t([0, 1]), None, -2])
index_case("number first, then index", randn(3, 4, 5), [1, None, t([4, 0, 0])])
index_case("numbers around an index", randn(3, 4, 5), [-1, t([[3, 0]]), 2])
index_case("'...' then index", randn(3, 4, 5), ["...", t([1, -1, 2])])
index_case("index, '...', range", randn(3, 4, 5), [t([2, 0]), "...", r(1, None, 2)])
index_case("ranges around an index", randn(5, 4, 6), [r(0, None, 2), t([[1, 2], [3, 0]]), r(1, 4)])
index_case("negative range bounds", randn(5, 6), [r(-3, None), t([5, -6, 0])])
index_case("range with step before two separated indices", randn(4, 5, 6), [t([0, 3]), r(-4, -1, 2), t([5, 1])])
index_case("mask over all dims", randn(3, 4), [t([[True, False, True, True], [False, False, False, True], [True, True, False, False]])])
index_case("mask over the leading dims of 3-D x", randn(3, 4, 2), [t([[True, False, True, True], [False, False, False, True], [True, True, False, False]])])
index_case("mask on a middle dim", randn(3, 4, 5), [None, t([True, False, True, True])])
index_case("mask then an index (broadcast)", randn(3, 4, 5), [None, t([False, True, False, True]), t([4, 0])])
index_case("mask and index separated", randn(4, 3, 5), [t([True, False, True, False]), None, t([[1], [3]])])
index_case("mask on the last dim after '...'", randn(2, 3, 4), ["...", t([True, True, False, True])])
index_case("mask all false", randn(3, 4), [t([[False] * 4] * 3)])
index_case("1-D x, 1-D mask", randn(5), [t([True, False, False, True, True])])
index_case("0-d True", randn(2, 3), [t(torch.tensor(True))])
index_case("0-d False", randn(2, 3), [t(torch.tensor(False))])
index_case("0-d True and an index, separated", randn(3, 4), [t(torch.tensor(True)), None, t([1, 3, 0])])
index_case("0-d True next to an index", randn(3, 4), [t(torch.tensor(True)), t([2, 0])])
index_case("0-d int tensor (a select) then index", randn(3, 4, 5), [None, t(torch.tensor(2, dtype=torch.int32)), t([4, 1])])
index_case("0-d int tensor between index and range", randn(5, 6, 7, 8), [None, t([0, 1]), None, t(torch.tensor(-1, dtype=torch.int32))])
index_case("0-d int tensor alone", randn(3, 4), [t(torch.tensor(-2, dtype=torch.int32))])
index_case("empty index", randn(3, 4), [t(torch.zeros(0, dtype=torch.int32))])
index_case("empty 2-D index on a middle dim", randn(3, 4, 2), [None, t(torch.zeros(2, 0, dtype=torch.int32))])
index_case("0-size x dim", randn(0, 3), [t(torch.zeros(0, dtype=torch.int32))])
index_case("0-size trailing dim", randn(3, 0), [t([2, 0])])
index_case("nested list (an index tensor of its shape)", randn(4, 3), [lst([[0, 2], [1, 1]])])
index_case("nested lists on two dims", randn(4, 3), [lst([[0], [3]]), lst([[2, 0]])])
index_case("list of booleans (a mask)", randn(3, 2), [lst([True, False, True])])
index_case("int32 x", torch.randint(-9, 10, (4, 3), dtype=torch.int32), [t([3, 3, 0]), t([[0], [2]])])
index_case("bool x, mask", torch.rand(3, 3) > 0.5, [None, t([True, False, True])])
index_case("transposed x", randn(4, 3), [t([2, 0, 2]), r(1, None)], pre="t")
index_case("transposed x, two indices", randn(4, 3), [t([[2], [0]]), t([1, 3, 3])], pre="t")
index_case("repeated rows accumulate", randn(3, 2), [t([[1, 1, 1], [0, 1, 2]])])

# ---- x[items] = v ----
put_case("1-D put", randn(6), [t([0, 5, -2])], randn(3))
put_case("x[:, 0] = v", randn(4, 3), [None, 0], randn(4))
put_case("x[:, 0] = v broadcast from [1]", randn(4, 3), [None, 0], randn(1))
put_case("x[mask] = 0", randn(3, 4), [t([[True, False, True, True], [False, False, False, True], [True, True, False, False]])], 0.0)
put_case("x[mask] = v", randn(3, 4), [t([[True, False, False, True], [False, True, False, False], [False, False, False, False]])], randn(3))
put_case("x[mask] = row (leading-dims mask)", randn(3, 2, 4), [t([[True, False], [False, False], [True, True]])], randn(4))
put_case("separated indices = v broadcast", randn(3, 4, 5), [t([0, 2]), None, t([4, -1])], randn(4))
put_case("adjacent indices = v", randn(3, 4, 5), [None, t([[0], [3]]), t([1, 2, 4])], randn(3, 2, 3))
put_case("'...' and index = v", randn(2, 3, 4), ["...", t([3, 0])], randn(3, 2))
put_case("rows = v with a leading 1 (dropped, as Python)", randn(5, 3), [t([4, 1])], randn(1, 2, 3))
put_case("number, range and index = number", randn(3, 4, 5), [1, r(None, None, 2), t([0, 4])], 7.5)
put_case("0-d True = v", randn(2, 3), [t(torch.tensor(True))], randn(3))
put_case("0-d int tensor (select) and index = v", randn(3, 4), [t(torch.tensor(-1, dtype=torch.int32)), t([0, 2])], randn(2))
put_case("empty index = v", randn(3, 4), [t(torch.zeros(0, dtype=torch.int32))], randn(4))
put_case("nested list = v", randn(4, 3), [lst([[0, 3], [2, 1]])], randn(2, 2, 3))
put_case("repeats, one value (scalar tensor)", randn(5), [t([1, 3, 1, 1])], randn(()))
put_case("repeats, rows of one value", randn(4, 3), [t([2, 0, 2])], randn(3))
put_case("int32 x", torch.randint(-9, 10, (4, 3), dtype=torch.int32), [t([3, 0]), t([1, 1])], torch.tensor([5, -6], dtype=torch.int32))
put_case("int32 x, mask = number", torch.randint(-9, 10, (2, 3), dtype=torch.int32), [t([[True, False, True], [False, True, False]])], 4)
for acc_id, x, items, v in [
    ("1-D repeats", randn(5), [t([0, 0, 3, 0, -1])], randn(5)),
    ("rows with repeats", randn(4, 3), [t([[1, 1], [3, 1]])], randn(2, 2, 3)),
    ("pair with repeats, value broadcast", randn(3, 4), [t([0, 2, 0, 0]), t([1, 3, 1, 1])], randn(1)),
    ("separated with repeats", randn(3, 4, 5), [t([0, 0]), None, t([2, 2])], randn(2, 4)),
    ("mask", randn(3, 4), [t([[True, False, True, True], [False, False, False, True], [True, True, False, False]])], randn(6)),
    ("basic items only", randn(3, 4), [1, r(1, None)], randn(3)),
    ("number value", randn(2, 3), [t([1, 1, 0])], 2.5),
]:
    put_case(f"accumulate: {acc_id}", x, items, v, accumulate=True)
put_case("accumulate: int32 x", torch.randint(-9, 10, (4,), dtype=torch.int32), [t([1, 1, 3])], torch.tensor([2, 3, -4], dtype=torch.int32), accumulate=True)
put_case("accumulate=False, explicitly", randn(4), [t([3, 1])], randn(2), accumulate=False)

write("gen_advanced_indexing.py", "advanced_indexing_ref.json", {"cases": cases})
