#!/usr/bin/python3
"""Generates tests/data/tensor_defaults_ref.json: PyTorch 1.13's results of tensor functions
called with their optional arguments left out (bincount's minlength, histc's bins/min/max,
addcmul_/addcdiv_'s value, vander's N, var/std's unbiased, round's decimals, nan_to_num's
replacements, the add*mm family's beta/alpha, index_add's alpha, cdist's p, aminmax/kthvalue/
median/nanmedian/nansum/nanmean/quantile's keepdim, diff's n and dim, scatter_reduce's
include_self, slice_scatter's dim/start/end/step, quantile's interpolation, cov's correction,
diagonal_scatter's offset/dims, sort/argsort ascending along the last dim, topk's largest,
searchsorted/bucketize's left side, unique's sorted output), for tests/js/tensor_defaults.test.mjs.
Run with Debian's PyTorch: /usr/bin/python3 tests/data/gen_tensor_defaults.py
Each case: the result's values (nested lists; NaN as the string 'nan') and shape.
"""
import json
import warnings
import math
from pathlib import Path

import torch

warnings.filterwarnings('ignore')
nan = float('nan')
inf = float('inf')
X = torch.tensor([[1.0, 5.0, 2.0], [4.0, 3.0, 6.0]])
A = torch.tensor([[0.5, -1.0], [2.0, 0.25]])
B = torch.tensor([[1.5, 2.0], [-0.5, 3.0]])


def cases():
    yield 'bincount', torch.bincount(torch.tensor([0, 1, 1, 3]))
    yield 'histc', torch.histc(torch.tensor([1.0, 2, 2, 3, 7]))
    yield 'addcmul_', torch.tensor([1.0, 2.0]).addcmul_(torch.tensor([3.0, 4.0]), torch.tensor([0.5, -2.0]))
    yield 'addcdiv_', torch.tensor([1.0, 2.0]).addcdiv_(torch.tensor([3.0, 4.0]), torch.tensor([0.5, -2.0]))
    yield 'vander', torch.vander(torch.tensor([1.0, 2.0, 3.0]))
    yield 'var', torch.tensor([1.0, 2.0, 3.0, 4.0]).var()
    yield 'std_dim', X.std(1)
    yield 'round', torch.round(torch.tensor([0.5, 1.5, 2.5, -0.5, 1.25, -2.5]))
    yield 'nanToNum', torch.nan_to_num(torch.tensor([nan, inf, -inf, 1.0]))
    yield 'addmm', torch.addmm(B, A, B)
    yield 'addmv', torch.addmv(torch.tensor([1.0, -1.0]), A, torch.tensor([2.0, 3.0]))
    yield 'baddbmm', torch.baddbmm(B.unsqueeze(0), A.unsqueeze(0), B.unsqueeze(0))
    yield 'addbmm', torch.addbmm(B, torch.stack([A, B]), torch.stack([B, A]))
    yield 'indexAdd', torch.zeros(3, 2).index_add(0, torch.tensor([0, 2, 0]), torch.tensor([[1.0, 2], [3, 4], [5, 6]]))
    yield 'cdist', torch.cdist(A, B)
    yield 'aminmax_min', torch.aminmax(X, dim=1).min
    yield 'aminmax_max', torch.aminmax(X, dim=1).max
    yield 'kthvalue', X.kthvalue(2).values
    yield 'median', X.median(0).values
    yield 'nanmedian', torch.tensor([[1.0, nan], [3.0, 4.0], [2.0, 0.0]]).nanmedian(0).values
    yield 'nansum', torch.tensor([[1.0, nan], [3.0, 4.0]]).nansum(0)
    yield 'nanmean', torch.tensor([[1.0, nan], [3.0, 4.0]]).nanmean(0)
    yield 'diff', torch.diff(torch.tensor([[1.0, 4.0, 9.0], [2.0, 2.0, 5.0]]))
    idx = torch.tensor([0, 1, 0])
    src = torch.tensor([5.0, -1.0, 2.0])
    yield 'scatterReduce_sum', torch.tensor([1.0, 1.0]).scatter_reduce(0, idx, src, 'sum')
    yield 'scatterReduce_amin', torch.tensor([1.0, 1.0]).scatter_reduce(0, idx, src, 'amin')
    yield 'sliceScatter', torch.slice_scatter(torch.zeros(2, 3), torch.tensor([[1.0, 2, 3], [4, 5, 6]]), step=1)  # this build's binding rejects the documented default step=1 when left out
    yield 'quantile', torch.quantile(torch.tensor([1.0, 7.0, 3.0, 4.0]), 0.3)
    yield 'quantile_dim', torch.quantile(X, 0.4, dim=1)
    yield 'nanquantile', torch.nanquantile(torch.tensor([1.0, nan, 3.0, 4.0]), 0.3)
    yield 'cov', torch.cov(X)
    S = torch.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    yield 'sort_values', S.sort().values
    yield 'sort_indices', S.sort().indices
    yield 'argsort', S.argsort()
    yield 'topk_values', S.topk(2).values
    yield 'topk_indices', S.topk(2).indices
    yield 'searchsorted', torch.searchsorted(torch.tensor([1.0, 3.0, 5.0]), torch.tensor([3.0, 0.0, 6.0]))
    yield 'bucketize', torch.bucketize(torch.tensor([3.0, 0.0, 6.0]), torch.tensor([1.0, 3.0, 5.0]))
    yield 'unique', torch.unique(torch.tensor([3.0, 1.0, 3.0, 2.0]))
    yield 'diagonalScatter', torch.diagonal_scatter(torch.zeros(2, 3), torch.tensor([7.0, 8.0]))


def plain(v):
    if isinstance(v, list):
        return [plain(x) for x in v]
    return 'nan' if isinstance(v, float) and math.isnan(v) else v


if __name__ == '__main__':
    out = {name: {'values': plain(t.tolist()), 'shape': list(t.shape)} for name, t in cases()}
    path = Path(__file__).with_name('tensor_defaults_ref.json')
    path.write_text(json.dumps({'torch': torch.__version__, 'cases': out}, indent=1) + '\n')
    print(f'wrote {path}')
