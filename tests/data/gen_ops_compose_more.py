#!/usr/bin/env python3
"""Reference values for the composite ops of npm/src/ops_compose_more.ts
(tests/js/ops_compose_more.test.mjs), computed by PyTorch. Run with Debian's PyTorch (1.13, CPU):

    /usr/bin/python3 tests/data/gen_ops_compose_more.py   # writes tests/data/ops_compose_more_ref.json

The case format is gen_ops_compose.py's (ref_json.grad_case): inputs ('grad' marks those
differentiated), every output, and for cases with gradients a fixed upstream gradient per output
and torch.autograd.grad of sum(out_k * upstream_k). PyTorch's int64 results are written as int32.
"""
import torch

from ref_json import grad_case, write

torch.manual_seed(20261126)
CASES = []
inf, nan = float("inf"), float("nan")


def case(cid, fn, inputs, grad=()):
    CASES.append(grad_case(cid, fn, inputs, grad))


f = lambda *shape: torch.randn(*shape)
i32 = lambda *v: torch.tensor(v, dtype=torch.int32)

case("addcmul", torch.addcmul, [f(2, 3), f(3), f(2, 1)], grad=(0, 1, 2))
case("addcmul value", lambda a, b, c: torch.addcmul(a, b, c, value=-0.5), [f(4), f(4), f(4)], grad=(0, 1, 2))
case("addcdiv", lambda a, b, c: torch.addcdiv(a, b, c, value=2.0), [f(2, 3), f(2, 3), torch.rand(2, 3) + 0.5], grad=(0, 1, 2))
case("baddbmm", lambda i, a, b: torch.baddbmm(i, a, b, beta=0.5, alpha=1.5), [f(2, 3, 4), f(2, 3, 5), f(2, 5, 4)], grad=(0, 1, 2))
case("addbmm", torch.addbmm, [f(3, 4), f(2, 3, 5), f(2, 5, 4)], grad=(0, 1, 2))
case("addmv", lambda i, m, v: torch.addmv(i, m, v, alpha=-1.0), [f(3), f(3, 4), f(4)], grad=(0, 1, 2))
close_a = torch.tensor([1.0, 1.0, inf, inf, nan, nan, 1e-9, 100.0, 0.0, -inf])
close_b = torch.tensor([1.0 + 1e-6, 1.0 + 1e-4, inf, -inf, nan, 1.0, 0.0, 100.001, 1e-8, -inf])
case("isclose", torch.isclose, [close_a, close_b])
case("isclose equalNan", lambda a, b: torch.isclose(a, b, equal_nan=True), [close_a, close_b])
case("isclose tolerances", lambda a, b: torch.isclose(a, b, rtol=0.0, atol=1e-3), [close_a, close_b])
case("isclose zero tolerances", lambda a, b: torch.isclose(a, b, rtol=0.0, atol=0.0), [close_a, close_b])
case("isclose int32", lambda a, b: torch.isclose(a, b, rtol=0.1, atol=1.0), [i32(0, 5, 10, 100, -3), i32(1, 7, 12, 111, -3)])
nans = torch.tensor([[1.0, nan, 2.0], [nan, nan, nan], [0.5, -1.0, 4.0]])
case("nansum", torch.nansum, [nans], grad=(0,))
case("nansum dim keepdim", lambda x: torch.nansum(x, 1, keepdim=True), [nans], grad=(0,))
case("nansum int32", lambda x: torch.nansum(x, 0), [i32(1, 2, 3)])
case("nanmean dim", lambda x: torch.nanmean(x, 1), [nans[[0, 2]]], grad=(0,))
case("nanmean all", torch.nanmean, [nans], grad=(0,))
# An all-NaN row: NaN (0/0). Its gradient is NaN in PyTorch (nansum's g·mask with g = 1/0) and 0
# here (a selection), so this case compares values only.
case("nanmean all-NaN row", lambda x: torch.nanmean(x, 1), [nans])
zeros_mix = torch.tensor([[0.0, 1.0, -0.0], [nan, 0.0, 2.0]])
case("countNonzero", torch.count_nonzero, [zeros_mix])
case("countNonzero dim", lambda x: torch.count_nonzero(x, dim=1), [zeros_mix])
case("countNonzero dims", lambda x: torch.count_nonzero(x, dim=(0, 1)), [zeros_mix])
distinct = torch.randperm(12).float().reshape(3, 4) - 5
case("aminmax", lambda x: torch.aminmax(x), [distinct])
case("aminmax dim keepdim", lambda x: torch.aminmax(x, dim=1, keepdim=True), [distinct])
case("varMean", lambda x: torch.var_mean(x, 1), [f(3, 5)], grad=(0,))
case("varMean biased keepdim", lambda x: torch.var_mean(x, 0, unbiased=False, keepdim=True), [f(3, 5)], grad=(0,))
case("varMean all", torch.var_mean, [f(3, 5)], grad=(0,))
case("stdMean", lambda x: torch.std_mean(x, (0, 1)), [f(3, 5)], grad=(0,))
case("diff", torch.diff, [f(3, 6)], grad=(0,))
case("diff n dim", lambda x: torch.diff(x, n=2, dim=0), [f(5, 3)], grad=(0,))
case("diff prepend append", lambda x, p, a: torch.diff(x, dim=1, prepend=p, append=a), [f(2, 4), f(2, 1), f(2, 3)], grad=(0, 1, 2))
case("diff bool", torch.diff, [torch.tensor([True, True, False, True, False, False])])
case("diff int32", lambda x: torch.diff(x, n=3), [i32(1, 4, 9, 16, 25, 36)])
case("diff n too large", lambda x: torch.diff(x, n=5), [f(3)])
rows_a, rows_b = f(2, 4, 3), f(2, 5, 3)
rows_b[0, 1] = rows_a[0, 2]  # a zero distance: the gradient is 0 there
case("cdist", torch.cdist, [rows_a, rows_b], grad=(0, 1))
case("cdist p1", lambda a, b: torch.cdist(a, b, p=1.0), [f(4, 3), f(5, 3)], grad=(0, 1))
case("cdist p3 broadcast", lambda a, b: torch.cdist(a, b, p=3.0), [f(2, 3, 4), f(1, 5, 4)], grad=(0, 1))
case("cdist inf", lambda a, b: torch.cdist(a, b, p=inf), [f(3, 4), f(2, 4)], grad=(0, 1))
case("cdist p0", lambda a, b: torch.cdist(a, b, p=0.0), [torch.tensor([[1.0, 2.0, 3.0], [0.0, 2.0, 5.0]]), torch.tensor([[1.0, 2.0, 4.0]])])
case("cdist mm", torch.cdist, [f(30, 6), f(7, 6)], grad=(0, 1))
bounds = torch.tensor([-1.0, 0.0, 0.0, 2.5, 10.0])
vals = torch.tensor([[-3.0, -1.0, 0.0, 0.5], [2.5, 11.0, nan, -inf]])
case("bucketize", torch.bucketize, [vals, bounds])
case("bucketize right", lambda x, b: torch.bucketize(x, b, right=True), [vals, bounds])
seq2 = torch.tensor([[1.0, 3.0, 5.0, 7.0], [2.0, 2.0, 4.0, 8.0]])
case("searchsorted", torch.searchsorted, [bounds, vals])
case("searchsorted rows right", lambda s, v: torch.searchsorted(s, v, side="right"), [seq2, torch.tensor([[0.0, 3.0, 9.0], [2.0, 5.0, 8.0]])])
case("heaviside", torch.heaviside, [torch.tensor([-2.0, 0.0, -0.0, 3.0, nan, inf]), torch.tensor([0.5])])
case("inner", torch.inner, [f(2, 4), f(3, 4)], grad=(0, 1))
case("inner 3d 1d", torch.inner, [f(2, 3, 4), f(4)], grad=(0, 1))
case("inner scalar", torch.inner, [torch.tensor(1.5), f(2, 3)], grad=(0, 1))
case("kron", torch.kron, [f(2, 3), f(3, 2)], grad=(0, 1))
case("kron ndim", torch.kron, [f(2), f(2, 3)], grad=(0, 1))
case("tensordot", torch.tensordot, [f(3, 4, 5), f(4, 5, 2)], grad=(0, 1))
case("tensordot lists", lambda a, b: torch.tensordot(a, b, dims=([1, 0], [0, 2])), [f(3, 4, 2), f(4, 5, 3)], grad=(0, 1))
case("tensordot 0", lambda a, b: torch.tensordot(a, b, dims=0), [f(2), f(3)], grad=(0, 1))
x34 = f(3, 4)
case("takeAlongDim", lambda x, i: torch.take_along_dim(x, i.long(), dim=1), [x34, torch.argsort(x34, dim=1).int()], grad=(0,))
case("takeAlongDim broadcast", lambda x, i: torch.take_along_dim(x, i.long(), dim=0), [f(3, 1, 4), i32(2, 0).reshape(2, 1, 1)], grad=(0,))
case("takeAlongDim flat", lambda x, i: torch.take_along_dim(x, i.long()), [x34, i32(11, 0, 5)], grad=(0,))
case("rot90", torch.rot90, [f(2, 3)], grad=(0,))
case("rot90 k2", lambda x: torch.rot90(x, 2, [1, 2]), [f(2, 3, 4)], grad=(0,))
case("rot90 k-1", lambda x: torch.rot90(x, -1, [0, 2]), [f(2, 3, 4)], grad=(0,))
case("rot90 k4", lambda x: torch.rot90(x, 4), [f(2, 3)], grad=(0,))
case("msort", torch.msort, [torch.randperm(12).float().reshape(4, 3)], grad=(0,))
case("diagonal", torch.diagonal, [f(3, 4)], grad=(0,))
case("diagonal offset", lambda x: torch.diagonal(x, 1), [f(3, 4)], grad=(0,))
case("diagonal negative offset dims", lambda x: torch.diagonal(x, -1, 2, 0), [f(4, 2, 3)], grad=(0,))
case("diagonal empty", lambda x: torch.diagonal(x, 5), [f(3, 4)])
case("diagEmbed", torch.diag_embed, [f(2, 3)], grad=(0,))
case("diagEmbed offset dims", lambda x: torch.diag_embed(x, 1, 0, 2), [f(2, 3)], grad=(0,))
case("diagEmbed negative offset", lambda x: torch.diag_embed(x, -2), [torch.tensor([1.0, inf, nan])])
case("combinations", torch.combinations, [f(4)], grad=(0,))
case("combinations r3 replacement", lambda x: torch.combinations(x, 3, with_replacement=True), [f(3)], grad=(0,))
case("combinations too many", lambda x: torch.combinations(x, 4), [f(3)])
case("cartesianProd", torch.cartesian_prod, [f(2), f(3), f(2)], grad=(0, 1, 2))
case("triuIndices", lambda: torch.triu_indices(3, 4, 1), [])
case("trilIndices", lambda: torch.tril_indices(4, 3, -1), [])

# Shapes that depend on the values (npm/src/ops_data_dependent.ts).
mixed = torch.tensor([[0.0, 1.5, 0.0], [-2.0, 0.0, nan], [0.0, 0.0, 3.0]])
case("nonzero", torch.nonzero, [mixed])
case("nonzero asTuple", lambda x: torch.nonzero(x, as_tuple=True), [torch.tensor([[0, 2], [3, 0]], dtype=torch.int32)])
case("argwhere", torch.argwhere, [torch.tensor([True, False, True, True])])
case("maskedSelect", torch.masked_select, [f(2, 3), torch.tensor([True, False, True])], grad=(0,))
# (NaN is left out: PyTorch 1.13 sorts with a comparison NaN breaks, and its NaNs land anywhere)
dups = torch.tensor([3.0, 1.0, 3.0, -2.0, 1.0, 3.0, 0.0, -0.0])
case("unique", torch.unique, [dups])
case("unique inverse counts", lambda x: torch.unique(x, return_inverse=True, return_counts=True), [torch.tensor([[3.0, 1.0], [3.0, 2.0], [1.0, 7.0]])])
case("unique int32 counts", lambda x: torch.unique(x, return_counts=True), [torch.tensor([5, 2, 5, 5, -1], dtype=torch.int32)])
case("uniqueConsecutive", lambda x: torch.unique_consecutive(x, return_inverse=True, return_counts=True), [torch.tensor([1.0, 1.0, 2.0, 2.0, 1.0, 3.0, 3.0, 3.0])])
case("bincount", torch.bincount, [torch.tensor([1, 3, 3, 0, 7, 3], dtype=torch.int32)])
case("bincount weights minlength", lambda x, w: torch.bincount(x, weights=w, minlength=10), [torch.tensor([1, 3, 3, 0, 7, 3], dtype=torch.int32), torch.rand(6)])
hist_in = torch.cat([torch.randn(200), torch.tensor([4.0, -4.0, 2.5, nan])])
case("histc", lambda x: torch.histc(x, bins=7), [hist_in[:-1]])  # (with a NaN and no range PyTorch raises: the range is not finite)
# (NaN is left out here: PyTorch 1.13's CPU histc counts a NaN in the first bin, where its own comment says NaN is skipped; we skip it)
case("histc range", lambda x: torch.histc(x, bins=5, min=-1.0, max=2.5), [hist_in[:-1]])
case("histc constant", lambda x: torch.histc(x, bins=4), [torch.full((5,), 2.0)])

write("gen_ops_compose_more.py", "ops_compose_more_ref.json", {"cases": CASES})
