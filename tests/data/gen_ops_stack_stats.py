#!/usr/bin/env python3
"""Reference values for npm/src/tensor/stack_split.ts and npm/src/tensor/statistics.ts
(tests/js/ops_stack_stats.test.mjs), computed by PyTorch. Run with Debian's PyTorch (1.13, CPU):

    /usr/bin/python3 tests/data/gen_ops_stack_stats.py   # writes tests/data/ops_stack_stats_ref.json

The case format is gen_ops_compose.py's (ref_json.grad_case). PyTorch's int64 results are int32.
"""
import torch

from ref_json import Cases, i32, inf, nan, randn as f, write

CASES = Cases(20261128)
case = CASES.case

case("flipud", torch.flipud, [f(3, 2)], grad=(0,))
case("fliplr", torch.fliplr, [f(2, 3, 2)], grad=(0,))
case("atleast1d", torch.atleast_1d, [torch.tensor(2.5)], grad=(0,))
case("atleast2d list", lambda a, b: torch.atleast_2d(a, b), [torch.tensor(1.5), f(3)], grad=(0, 1))
case("atleast3d list", lambda a, b, c: torch.atleast_3d(a, b, c), [torch.tensor(1.5), f(3), f(2, 2)], grad=(0, 1, 2))
case("broadcastTo", lambda x: torch.broadcast_to(x, (2, 3, 4)), [f(3, 1)], grad=(0,))
case("broadcastTensors", lambda a, b: torch.broadcast_tensors(a, b), [f(3, 1), f(4)], grad=(0, 1))
case("tensorSplit sections", lambda x: torch.tensor_split(x, 3, dim=1), [f(2, 7)], grad=(0,))
case("tensorSplit indices", lambda x: torch.tensor_split(x, [1, 4, -1, 10]), [f(6, 2)], grad=(0,))
case("hsplit", lambda x: torch.hsplit(x, 2), [f(3, 4)], grad=(0,))
case("hsplit 1d", lambda x: torch.hsplit(x, [2]), [f(5)], grad=(0,))
case("vsplit", lambda x: torch.vsplit(x, [1, 3]), [f(4, 2)], grad=(0,))
case("dsplit", lambda x: torch.dsplit(x, 2), [f(2, 1, 4)], grad=(0,))
case("hstack", lambda a, b: torch.hstack([a, b]), [f(2, 1), f(2, 3)], grad=(0, 1))
case("hstack 1d", lambda a, b: torch.hstack([a, b]), [f(2), f(3)], grad=(0, 1))
case("vstack", lambda a, b: torch.vstack([a, b]), [f(3), f(2, 3)], grad=(0, 1))
case("rowStack", lambda a, b: torch.row_stack([a, b]), [f(3), f(3)], grad=(0, 1))
case("dstack", lambda a, b: torch.dstack([a, b]), [f(2, 2), f(2, 2, 2)], grad=(0, 1))
case("columnStack", lambda a, b, c: torch.column_stack([a, b, c]), [f(3), f(3, 2), f(3)], grad=(0, 1, 2))
case("blockDiag", lambda a, b, c: torch.block_diag(a, b, c), [f(2, 2), f(3), torch.tensor(4.0)], grad=(0, 1, 2))
case("narrowCopy", lambda x: torch.narrow_copy(x, 1, 1, 2), [f(2, 4)], grad=())
case("take", lambda x, i: torch.take(x, i.long()), [f(3, 4), i32(0, 11, -1, 5, 5, -12).reshape(2, 3)], grad=(0,))
case("indexAdd", lambda x, i, s: torch.index_add(x, 1, i.long(), s, alpha=2.0), [f(2, 5), i32(4, 0, 4), f(2, 3)], grad=(0, 2))
case("indexCopy", lambda x, i, s: torch.index_copy(x, 0, i.long(), s), [f(5, 2), i32(3, 0), f(2, 2)], grad=(0, 2))
case("indexFill", lambda x, i: torch.index_fill(x, 1, i.long(), -7.0), [f(2, 4), i32(3, 1)], grad=(0,))
case("selectScatter", lambda x, s: torch.select_scatter(x, s, 1, -1), [f(2, 3, 2), f(2, 2)], grad=(0, 1))
case("sliceScatter", lambda x, s: torch.slice_scatter(x, s, dim=1, start=1, end=6, step=2), [f(2, 7), f(2, 3)], grad=(0, 1))
case("diagonalScatter", lambda x, s: torch.diagonal_scatter(x, s, 1), [f(3, 4), f(3)], grad=(0, 1))
case("diagonalScatter dims", lambda x, s: torch.diagonal_scatter(x, s, -1, 2, 0), [f(3, 2, 4), f(2, 3)], grad=(0, 1))
# (values only: PyTorch 1.13's vander backward fails on its own in-place cumprod; central differences check ours)
case("vander", torch.vander, [f(4)])
case("vander N increasing", lambda x: torch.vander(x, N=3, increasing=True), [f(5)])

nan_mix = torch.tensor([1.0, nan, 3.0, -1.0, nan, 2.0])
case("fmax", torch.fmax, [nan_mix, torch.tensor([2.0, 5.0, nan, -1.0, nan, 1.0])], grad=(0, 1))
case("fmin", torch.fmin, [nan_mix, torch.tensor([2.0, 5.0, nan, -1.0, nan, 1.0])], grad=(0, 1))
case("trueDivide", torch.true_divide, [f(3), torch.rand(3) + 0.5], grad=(0, 1))
case("cov", torch.cov, [f(3, 6)], grad=(0,))
case("cov 1d correction", lambda x: torch.cov(x, correction=0), [f(5)], grad=(0,))
case("corrcoef", torch.corrcoef, [f(3, 7)], grad=(0,))
rows_nan = torch.tensor([[3.0, nan, 1.0, 2.0], [nan, nan, nan, nan], [4.0, 1.0, nan, -2.0]])
case("nanmedian", torch.nanmedian, [rows_nan])
case("nanmedian dim", lambda x: torch.nanmedian(x, 1), [rows_nan[[0, 2]]])
# A row of NaN only: NaN; which NaN's position PyTorch reports there is up to its nth_element (values only).
case("nanmedian all-NaN row", lambda x: torch.nanmedian(x, 1).values, [rows_nan])
case("nanmedian dim grad", lambda x: torch.nanmedian(x, 0, keepdim=True), [torch.tensor([[3.0, nan], [1.0, 2.0], [nan, 5.0], [0.5, 7.0]])], grad=(0,))
case("nanquantile", lambda x: torch.nanquantile(x, 0.4, dim=1), [rows_nan])
case("nanquantile list keepdim", lambda x: torch.nanquantile(x, torch.tensor([0.25, 0.5, 1.0]), dim=1, keepdim=True), [rows_nan])
case("nanquantile all", lambda x: torch.nanquantile(x, 0.7), [rows_nan])
for mode in ("lower", "higher", "midpoint", "nearest"):
    case(f"nanquantile {mode}", lambda x, m=mode: torch.nanquantile(x, torch.tensor([0.3, 0.5]), dim=1, interpolation=m), [rows_nan])
case("nanquantile grad", lambda x: torch.nanquantile(x, 0.35, dim=0), [torch.tensor([[3.0, nan], [1.0, 2.0], [nan, 5.0], [0.5, 7.0]])], grad=(0,))
run = torch.tensor([[1.0, 3.0, 2.0, 3.0, 0.5, 4.0], [-1.0, nan, 2.0, 5.0, nan, 1.0]])
case("cummax", lambda x: torch.cummax(x, 1), [run])
case("cummin", lambda x: torch.cummin(x, 1), [run])
case("cummax dim0 grad", lambda x: torch.cummax(x, 0), [f(5, 3)], grad=(0,))
case("cummin grad", lambda x: torch.cummin(x, -1), [f(2, 6)], grad=(0,))
case("logcumsumexp", lambda x: torch.logcumsumexp(x, 1), [f(3, 6) * 4], grad=(0,))
case("logcumsumexp infinities", lambda x: torch.logcumsumexp(x, 0), [torch.tensor([-inf, 1.0, -inf, 2.0, inf, 0.0])])
case("logspace", lambda: torch.logspace(-2, 3, 6), [])
case("logspace base", lambda: torch.logspace(0, 1, 5, base=2.0), [])

write("gen_ops_stack_stats.py", "ops_stack_stats_ref.json", {"cases": CASES})
