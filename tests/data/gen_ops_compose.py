#!/usr/bin/env python3
"""Reference values for the composite ops of npm/src/tensor/the tensor/ family files, the F functions of
npm/src/nn/distance_pixel_shuffle.ts and the modules of npm/src/nn/rearrange_modules.ts
(tests/js/ops_compose.test.mjs),
computed by PyTorch. Run with Debian's PyTorch (1.13, CPU):

    /usr/bin/python3 tests/data/gen_ops_compose.py     # writes tests/data/ops_compose_ref.json

Each case: an id the test maps to its JS call, the inputs (float32 values, or int32; 'grad' marks
those differentiated), every output, and for cases with gradients a fixed upstream gradient per
output and the gradient of every marked input (torch.autograd.grad of sum(out_k * upstream_k)).
Inputs are float32 and PyTorch computes in float32, as the JS side does; tensors are written by
ref_json.typed (float32 values exactly, NaN and infinities as "nan", "inf", "-inf").
"""
import torch

from ref_json import grad_case, write

torch.manual_seed(20261125)
CASES = []
inf, nan = float("inf"), float("nan")


def case(cid, fn, inputs, grad=()):
    CASES.append(grad_case(cid, fn, inputs, grad))

f = lambda *shape: torch.randn(*shape)
special = torch.tensor([0.0, -0.0, 1.5, -2.0, inf, -inf, nan, 3e38, -1e-30])

case("isnan", torch.isnan, [special])
case("isinf", torch.isinf, [special])
case("isfinite", torch.isfinite, [special])
case("isfinite int32", torch.isfinite, [torch.tensor([1, -2, 3], dtype=torch.int32)])
case("nanToNum", torch.nan_to_num, [special])
case("nanToNum options", lambda x: torch.nan_to_num(x, nan=-1.0, posinf=7.0, neginf=-7.0), [special])
case("nanToNum grad", lambda x: torch.nan_to_num(x, nan=0.5), [torch.tensor([1.0, nan, -2.0, inf, 0.25])], grad=(0,))
ties = torch.tensor([[1.0, 3.0, 3.0, -1.0], [2.0, 2.0, 2.0, 0.5], [-4.0, 0.0, 5.0, 5.0]])
case("amax dim 1", lambda x: torch.amax(x, 1), [ties], grad=(0,))
case("amax all keepdim", lambda x: torch.amax(x, (0, 1), keepdim=True), [ties], grad=(0,))
case("amin dim 0", lambda x: torch.amin(x, 0), [ties], grad=(0,))
case("lerp scalar low", lambda a, b: torch.lerp(a, b, 0.3), [f(3, 4), f(3, 4)], grad=(0, 1))
case("lerp scalar high", lambda a, b: torch.lerp(a, b, 0.8), [f(3, 4), f(4)], grad=(0, 1))
case("lerp tensor", torch.lerp, [f(3, 4), f(3, 4), torch.rand(3, 4) * 1.4 - 0.2], grad=(0, 1, 2))
case("logaddexp", torch.logaddexp, [f(2, 5) * 3, f(5) * 3], grad=(0, 1))
case("logaddexp large", torch.logaddexp, [torch.tensor([100.0, -100.0, 0.0, 80.0]), torch.tensor([100.0, -101.0, 200.0, 80.0])], grad=(0, 1))
case("logaddexp infinities", torch.logaddexp, [torch.tensor([inf, -inf, -inf, 2.0]), torch.tensor([inf, -inf, 1.0, -inf])])
case("xlogy", torch.xlogy, [torch.tensor([0.0, 0.0, 2.0, -1.5, 3.0, 0.0]), torch.tensor([0.0, 5.0, 0.5, 2.0, 4.0, 7.0])], grad=(0, 1))
case("xlogy nan", torch.xlogy, [torch.tensor([0.0, 1.0, nan]), torch.tensor([nan, nan, 1.0])])
case("logit", torch.logit, [torch.rand(7) * 0.9 + 0.05], grad=(0,))
case("logit eps", lambda x: torch.logit(x, eps=0.1), [torch.tensor([0.0, 0.05, 0.3, 0.95, 1.0])], grad=(0,))
case("sinc", torch.sinc, [torch.tensor([0.0, 0.5, -1.25, 2.0, 0.05, 3.7])], grad=(0,))  # (near 0 the float32 gradient formulas cancel)
case("frac", torch.frac, [torch.tensor([2.75, -2.75, 0.5, -0.0, 7.0, 1e7 + 0.5])], grad=(0,))
case("exp2", torch.exp2, [f(6) * 4], grad=(0,))
case("rad2deg", torch.rad2deg, [f(5)], grad=(0,))
case("deg2rad", torch.deg2rad, [f(5) * 180], grad=(0,))
case("clampMin", lambda x: torch.clamp_min(x, -0.5), [f(8)], grad=(0,))
case("clampMax", lambda x: torch.clamp_max(x, 0.25), [f(8)], grad=(0,))
case("bmm", torch.bmm, [f(2, 3, 4), f(2, 4, 5)], grad=(0, 1))
case("mv", torch.mv, [f(3, 4), f(4)], grad=(0, 1))
case("dot", torch.dot, [f(6), f(6)], grad=(0, 1))
case("addmm", torch.addmm, [f(5), f(3, 4), f(4, 5)], grad=(0, 1, 2))
case("addmm beta alpha", lambda i, a, b: torch.addmm(i, a, b, beta=0.5, alpha=-2.0), [f(3, 5), f(3, 4), f(4, 5)], grad=(0, 1, 2))
case("addmm beta 0", lambda i, a, b: torch.addmm(i, a, b, beta=0.0), [torch.full((3, 2), nan), f(3, 4), f(4, 2)])
case("trace", torch.trace, [f(4, 3)], grad=(0,))
case("unbind 1", lambda x: torch.unbind(x, 1), [f(2, 3, 2)], grad=(0,))
case("movedim", lambda x: torch.movedim(x, 0, 2), [f(2, 3, 4)], grad=(0,))
case("movedim lists", lambda x: torch.movedim(x, (0, 3), (2, 0)), [f(2, 3, 4, 5)], grad=(0,))
case("swapaxes", lambda x: torch.swapaxes(x, 0, 2), [f(2, 3, 4)], grad=(0,))
case("repeatInterleave dim", lambda x: torch.repeat_interleave(x, 3, dim=1), [f(2, 3)], grad=(0,))
case("repeatInterleave flat", lambda x: torch.repeat_interleave(x, 2), [f(2, 2)], grad=(0,))
case("meshgrid ij", lambda a, b, c: torch.meshgrid(a, b, c, indexing="ij"), [f(2), f(3), f(4)], grad=(0, 1, 2))
case("meshgrid xy", lambda a, b: torch.meshgrid(a, b, indexing="xy"), [f(2), f(3)], grad=(0, 1))

case("cross", lambda a, b: torch.cross(a, b, dim=1), [f(4, 3), f(4, 3)], grad=(0, 1))
case("cross default dim", torch.cross, [f(3, 2), f(3, 2)], grad=(0, 1))
case("cross broadcast", lambda a, b: torch.cross(a, b, dim=-1), [f(2, 4, 3), f(1, 4, 3)], grad=(0, 1))
distinct = torch.randperm(24).float().reshape(4, 6) * 0.5 - 3  # no ties: positions are unambiguous
case("kthvalue", lambda x: torch.kthvalue(x, 2, 1), [distinct], grad=(0,))
case("kthvalue keepdim dim 0", lambda x: torch.kthvalue(x, 4, 0, keepdim=True), [distinct], grad=(0,))
case("median all", torch.median, [distinct], grad=(0,))
case("median dim", lambda x: torch.median(x, 1), [distinct], grad=(0,))
case("median even keepdim", lambda x: torch.median(x, 0, keepdim=True), [distinct], grad=(0,))
case("median nan", lambda x: torch.median(x, 1), [torch.tensor([[3.0, 1.0, nan, 2.0], [4.0, 1.0, 2.0, 3.0]])])
case("median all nan", torch.median, [torch.tensor([3.0, nan, 1.0])])
case("quantile", lambda x: torch.quantile(x, 0.3), [distinct], grad=(0,))
case("quantile list dim", lambda x: torch.quantile(x, torch.tensor([0.0, 0.25, 0.5, 1.0]), dim=1), [distinct], grad=(0,))
case("quantile keepdim", lambda x: torch.quantile(x, 0.6, dim=0, keepdim=True), [distinct], grad=(0,))
case("quantile all keepdim list", lambda x: torch.quantile(x, torch.tensor([0.1, 0.9]), keepdim=True), [distinct])
for mode in ["lower", "higher", "midpoint", "nearest"]:
    case(f"quantile {mode}", lambda x, m=mode: torch.quantile(x, torch.tensor([0.3, 0.5, 0.7]), dim=1, interpolation=m), [distinct])
case("quantile nan", lambda x: torch.quantile(x, 0.5, dim=1), [torch.tensor([[3.0, 1.0, nan, 2.0], [4.0, 1.0, 2.0, 3.0]])])
# Positions that are not halves (ranks 1.0 and 3.1 of 0..5, and the tie 0.5): 'nearest' rounds them plainly,
# half to even only at .5 (the table above has ranks 1.5, 2.5, 3.5 only).
case("quantile nearest off-tie", lambda x: torch.quantile(x, torch.tensor([0.1, 0.2, 0.62]), dim=1, interpolation="nearest"), [distinct])

import torch.nn.functional as F  # noqa: E402
import torch.nn as nn  # noqa: E402

case("F.cosineSimilarity", lambda a, b: F.cosine_similarity(a, b, dim=1), [f(3, 5), f(3, 5)], grad=(0, 1))
case("F.cosineSimilarity broadcast dim -1", lambda a, b: F.cosine_similarity(a, b, dim=-1, eps=1e-6), [f(2, 3, 4), f(4)], grad=(0, 1))
case("F.cosineSimilarity tiny", lambda a, b: F.cosine_similarity(a, b), [torch.tensor([[1e-10, 0.0, 0.0]]), torch.tensor([[3e-10, 4e-10, 0.0]])])
case("F.pairwiseDistance", F.pairwise_distance, [f(4, 3), f(4, 3)], grad=(0, 1))
case("F.pairwiseDistance p1 keepdim", lambda a, b: F.pairwise_distance(a, b, p=1.0, keepdim=True), [f(4, 3), f(3)], grad=(0, 1))
case("F.pairwiseDistance inf", lambda a, b: F.pairwise_distance(a, b, p=float("inf")), [f(2, 5), f(2, 5)])
case("F.pixelShuffle", lambda x: F.pixel_shuffle(x, 2), [f(1, 8, 2, 3)], grad=(0,))
case("F.pixelUnshuffle", lambda x: F.pixel_unshuffle(x, 2), [f(2, 2, 4, 6)], grad=(0,))
case("nn.ZeroPad2d", nn.ZeroPad2d(1), [f(1, 1, 2, 3)], grad=(0,))
case("nn.ConstantPad1d", nn.ConstantPad1d((1, 2), 3.5), [f(2, 3)], grad=(0,))
case("nn.ReflectionPad2d", nn.ReflectionPad2d((1, 1, 2, 0)), [f(1, 2, 3, 3)], grad=(0,))
case("nn.ReplicationPad1d", nn.ReplicationPad1d(2), [f(1, 2, 3)], grad=(0,))
case("nn.PixelShuffle", nn.PixelShuffle(3), [f(2, 9, 1, 2)])
case("nn.CosineSimilarity", nn.CosineSimilarity(dim=0), [f(4, 2), f(4, 2)])
case("nn.PairwiseDistance", nn.PairwiseDistance(p=3.0), [f(3, 2), f(3, 2)])

write("gen_ops_compose.py", "ops_compose_ref.json", {"cases": CASES})
