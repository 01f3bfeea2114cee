"""Reference values and gradients of Tensor.scatter_reduce(dim, index, src, reduce, include_self)
from PyTorch 1.13 (CPU) for tests/js/scatter_reduce.test.mjs: every reduce × include_self on
1-D, 2-D and 3-D inputs with dims 0, 1 and negative, repeated indices and positions no index
reaches, index shorter than src (and than the input off the dim), ties for amax/amin (small
whole numbers, the input's value among them), zeros for prod (one, two at one position, in the
input), int32 (mean rounds down; sums and products wrap), NaN, an empty index and 0-d tensors.

Each case carries the call's dim, reduce and include_self. Where src is larger than index,
PyTorch 1.13's backward fails (ScatterReduceBackward0 returns a gradient of index's shape for
src), so the reference differentiates the same call with src cut to index's window
(src[:i0, :i1, ...], which is all the forward reads): zeros outside the window.

Run: /usr/bin/python3 tests/data/gen_scatter_reduce.py  (writes tests/data/scatter_reduce_ref.json)
"""
import torch

from ref_json import Cases, nan, write

REDUCES = ("sum", "prod", "mean", "amax", "amin")
cases = Cases(20261125)


def case(cid, x, dim, index, src, reduce, include_self, grad=True):
    window = tuple(slice(0, n) for n in index.shape)

    def fn(a, i, s):
        return a.scatter_reduce(dim, i.long(), s[window] if s.dim() else s, reduce, include_self=include_self)

    floating = x.dtype == torch.float32
    cases.case(cid, fn, [x, index.int(), src], grad=(0, 2) if grad and floating else ())
    cases[-1].update(dim=dim, reduce=reduce, includeSelf=include_self)


def whole(*shape, lo=-2, hi=3):
    """Small whole numbers as float32: ties are frequent."""
    return torch.randint(lo, hi, shape).float()


def values(reduce, *shape):
    # amax/amin: ties; prod: factors near ±1 so products stay moderate.
    if reduce in ("amax", "amin"):
        return whole(*shape)
    if reduce == "prod":
        return (torch.rand(*shape) + 0.5) * torch.where(torch.rand(*shape) < 0.3, -1.0, 1.0)
    return torch.randn(*shape)


for reduce in REDUCES:
    for inc in (True, False):
        tag = f"{reduce} include_self={inc}"
        # 1-D: repeated indices, positions 1 and 4 reached by none; src longer than index.
        case(f"{tag} 1-D dim 0", values(reduce, 6), 0, torch.tensor([0, 2, 2, 5, 0, 2, 3]), values(reduce, 9), reduce, inc)
        # 2-D along dim 1: index [2, 5] (shorter than input and src in dim 0, longer than input in dim 1).
        case(f"{tag} 2-D dim 1", values(reduce, 3, 4), 1, torch.randint(0, 4, (2, 5)), values(reduce, 3, 6), reduce, inc)
        # 2-D along dim -2 with index and src of the same shape.
        case(f"{tag} 2-D dim -2", values(reduce, 3, 2), -2, torch.randint(0, 3, (4, 2)), values(reduce, 4, 2), reduce, inc)
        # 3-D along dim -1 (negative), index shorter than the input in dim 1.
        case(f"{tag} 3-D dim -1", values(reduce, 2, 3, 4), -1, torch.randint(0, 4, (2, 2, 5)), values(reduce, 2, 3, 5), reduce, inc)
        # 3-D along dim 0.
        case(f"{tag} 3-D dim 0", values(reduce, 2, 2, 3), 0, torch.randint(0, 2, (3, 2, 3)), values(reduce, 3, 2, 3), reduce, inc)
        # int32 (mean: floor division of negative sums too); no gradients.
        case(f"{tag} int32 2-D dim 0", torch.randint(-9, 10, (3, 4), dtype=torch.int32), 0,
             torch.tensor([[0, 1, 2, 0], [0, 1, 0, 0], [2, 1, 0, 2]]), torch.randint(-9, 10, (3, 4), dtype=torch.int32),
             reduce, inc)
        case(f"{tag} int32 1-D dim -1", torch.tensor([7, -5, 3, 0], dtype=torch.int32), -1,
             torch.tensor([1, 1, 0, 1, 3]), torch.tensor([-4, 2, 9, 1, -8, 6], dtype=torch.int32), reduce, inc)
        # Ties with the input's own value (amax/amin split the gradient among them).
        case(f"{tag} ties", torch.tensor([2.0, 1.0, -1.0, 0.0]), 0, torch.tensor([0, 0, 1, 2, 2, 0]),
             torch.tensor([2.0, 2.0, 3.0, -1.0, -1.0, 1.0]), reduce, inc)
        # An empty index: the input unchanged. 0-d input, index and src.
        case(f"{tag} empty index", torch.randn(3, 2), 1, torch.zeros(3, 0, dtype=torch.int64), torch.randn(3, 1), reduce, inc)
        case(f"{tag} 0-d", torch.tensor(1.5), 0, torch.tensor(0), torch.tensor(-2.0), reduce, inc)
        # NaN in the input or in src propagates (amax/amin too); values only.
        case(f"{tag} NaN", torch.tensor([1.0, nan, 0.0]), 0, torch.tensor([0, 0, 1, 1, 2, 2]),
             torch.tensor([nan, 2.0, 3.0, 5.0, nan, -1.0]), reduce, inc, grad=False)
    # prod's zeros: one zero at a position (its gradient is the product of the others), two
    # zeros at one position (every gradient there 0), a zero in the input.
    for inc in (True, False):
        if reduce != "prod":
            break
        tag = f"prod include_self={inc}"
        case(f"{tag} zeros in src", torch.tensor([1.5, -2.0, 3.0, 0.5]), 0, torch.tensor([0, 0, 1, 1, 1, 2, 3]),
             torch.tensor([0.0, 2.0, 0.0, 0.0, 4.0, -3.0, 0.0]), "prod", inc)
        case(f"{tag} zeros in input", torch.tensor([[0.0, 2.0], [3.0, 0.0]]), 1, torch.tensor([[0, 0], [1, 0]]),
             torch.tensor([[2.0, -1.5, 9.0], [0.0, 4.0, 9.0]]), "prod", inc)

# int32 sums and products wrap (two's complement), and mean divides the wrapped sum.
for reduce in ("sum", "prod", "mean"):
    case(f"{reduce} include_self=True int32 wrapping", torch.tensor([2**31 - 1, 65536, -2**31], dtype=torch.int32), 0,
         torch.tensor([0, 1, 2]), torch.tensor([1, 65536, -1], dtype=torch.int32), reduce, True)

write("gen_scatter_reduce.py", "scatter_reduce_ref.json", {"cases": list(cases)})
