#!/usr/bin/env python3
"""Reference values for the F functions of npm/src/nn/activations_composed.ts, loss_more.ts, unfold.ts,
grid_sample.ts and F.convTranspose1d (tests/js/nn_activation_fold_grid.test.mjs), computed by PyTorch. Run with
Debian's PyTorch (1.13, CPU):

    /usr/bin/python3 tests/data/gen_nn_activation_fold_grid.py   # writes tests/data/nn_activation_fold_grid_ref.json

The case format is gen_ops_compose.py's (ref_json.grad_case).
"""
import torch
import torch.nn.functional as F

from ref_json import Cases, i32, inf, nan, randn as f, write

CASES = Cases(20261127)
case = CASES.case
band = torch.tensor([-2.0, -1.2, -0.5, -0.3, 0.0, 0.3, 0.5, 0.7, 1.2, 3.0])
special = torch.tensor([nan, inf, -inf, 0.0, -0.0])

case("hardshrink", F.hardshrink, [band], grad=(0,))
case("hardshrink lambd", lambda x: F.hardshrink(x, 1.2), [band], grad=(0,))
case("hardshrink special", F.hardshrink, [special])
case("softshrink", F.softshrink, [band], grad=(0,))
case("softshrink lambd", lambda x: F.softshrink(x, 0.3), [band], grad=(0,))
case("softshrink special", F.softshrink, [torch.tensor([inf, -inf, 0.0, -0.0])])
case("tanhshrink", F.tanhshrink, [f(7) * 2], grad=(0,))
case("celu", F.celu, [f(8) * 2], grad=(0,))
case("celu alpha", lambda x: F.celu(x, 0.5), [torch.cat([f(8) * 2, torch.tensor([0.0, -0.0])])], grad=(0,))
case("threshold", lambda x: F.threshold(x, 0.1, 20.0), [torch.cat([f(8), torch.tensor([0.1, nan])])])
case("threshold grad", lambda x: F.threshold(x, 0.1, 20.0), [torch.cat([f(8), torch.tensor([0.1])])], grad=(0,))
case("rrelu eval", lambda x: F.rrelu(x, training=False), [f(8)], grad=(0,))
case("rrelu eval bounds", lambda x: F.rrelu(x, 0.2, 0.6, training=False), [f(8)], grad=(0,))
case("softmax2d", lambda x: torch.nn.Softmax2d()(x), [f(2, 3, 2, 2)], grad=(0,))

case("softMarginLoss", F.soft_margin_loss, [f(3, 4), torch.randint(0, 2, (3, 4)).float() * 2 - 1], grad=(0,))
case("softMarginLoss none", lambda x, y: F.soft_margin_loss(x, y, reduction="none"), [f(5), torch.randint(0, 2, (5,)).float() * 2 - 1], grad=(0,))
case("multiMarginLoss", lambda x, y: F.multi_margin_loss(x, y.long()), [f(4, 5), torch.tensor([0, 3, 4, 1], dtype=torch.int32)], grad=(0,))
case("multiMarginLoss p2 margin weight", lambda x, y, w: F.multi_margin_loss(x, y.long(), p=2, margin=0.7, weight=w, reduction="none"),
     [f(3, 4), torch.tensor([2, 0, 3], dtype=torch.int32), torch.rand(4) + 0.5], grad=(0,))
case("multiMarginLoss single sum", lambda x, y: F.multi_margin_loss(x, y.long(), reduction="sum"), [f(6), torch.tensor(2, dtype=torch.int32)], grad=(0,))
ml_target = torch.tensor([[3, 0, -1, 1], [1, 2, 3, 0], [2, 2, -1, -1], [-1, 1, 2, 3]], dtype=torch.int32)
case("multilabelMarginLoss", lambda x, y: F.multilabel_margin_loss(x, y.long()), [f(4, 4), ml_target], grad=(0,))
case("multilabelMarginLoss none", lambda x, y: F.multilabel_margin_loss(x, y.long(), reduction="none"), [f(4, 4), ml_target], grad=(0,))
case("multilabelMarginLoss single", lambda x, y: F.multilabel_margin_loss(x, y.long()), [f(5), torch.tensor([4, 1, -1, 0, 2], dtype=torch.int32)], grad=(0,))
case("tripletMarginWithDistanceLoss", F.triplet_margin_with_distance_loss, [f(4, 3), f(4, 3), f(4, 3)], grad=(0, 1, 2))
case("tripletMarginWithDistanceLoss cosine swap", lambda a, p, n: F.triplet_margin_with_distance_loss(
    a, p, n, distance_function=lambda x, y: 1.0 - F.cosine_similarity(x, y), margin=0.5, swap=True, reduction="none"),
    [f(5, 3), f(5, 3), f(5, 3)], grad=(0, 1, 2))

case("unfold", lambda x: F.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), [f(2, 3, 5, 6)], grad=(0,))
case("unfold unbatched", lambda x: F.unfold(x, 2), [f(2, 3, 3)], grad=(0,))
case("fold", lambda x: F.fold(x, (5, 6), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), [f(2, 18, 12)], grad=(0,))
case("fold unbatched overlap", lambda x: F.fold(x, 4, 2), [f(8, 9)], grad=(0,))

theta = torch.tensor([[[0.9, -0.3, 0.1], [0.2, 1.1, -0.2]], [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
case("affineGrid", lambda t: F.affine_grid(t, [2, 3, 4, 5], align_corners=False), [theta], grad=(0,))
case("affineGrid alignCorners", lambda t: F.affine_grid(t, [2, 1, 3, 2], align_corners=True), [theta], grad=(0,))
img, grid = f(2, 3, 4, 5), torch.rand(2, 3, 6, 2) * 2.4 - 1.2
for mode in ("bilinear", "nearest"):
    for pad in ("zeros", "border", "reflection"):
        for align in (False, True):
            grads = (0, 1) if mode == "bilinear" else (0,)
            case(f"gridSample {mode} {pad} {align}", lambda x, g, m=mode, p=pad, a=align: F.grid_sample(x, g, mode=m, padding_mode=p, align_corners=a), [img, grid], grad=grads)

case("convTranspose1d", lambda x, w, b: F.conv_transpose1d(x, w, b, stride=2, padding=1, output_padding=1, dilation=2), [f(2, 4, 5), f(4, 3, 3), f(3)], grad=(0, 1, 2))
case("convTranspose1d groups unbatched", lambda x, w: F.conv_transpose1d(x, w, groups=2), [f(4, 6), f(4, 2, 2)], grad=(0, 1))

pool_in = torch.randperm(2 * 3 * 7 * 6).float().reshape(2, 3, 7, 6) / 10 - 12  # distinct: one maximum per window
case("maxPool2d indices", lambda x: F.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, return_indices=True), [pool_in], grad=(0,))
case("maxPool2d indices dilation", lambda x: F.max_pool2d(x, (2, 3), stride=(1, 2), dilation=(2, 1), return_indices=True), [pool_in], grad=(0,))
case("maxPool1d indices unbatched", lambda x: F.max_pool1d(x, 2, return_indices=True), [pool_in[0, :, 0, :]], grad=(0,))
case("adaptiveMaxPool2d", lambda x: F.adaptive_max_pool2d(x, (3, 4), return_indices=True), [pool_in], grad=(0,))
case("adaptiveMaxPool2d keep dim", lambda x: F.adaptive_max_pool2d(x, (None, 2)), [pool_in], grad=(0,))
case("adaptiveMaxPool1d", lambda x: F.adaptive_max_pool1d(x, 4, return_indices=True), [pool_in[:, :, 1, :]], grad=(0,))
pooled, where = F.max_pool2d(pool_in, 2, return_indices=True)
case("maxUnpool2d", lambda x, i: F.max_unpool2d(x, i.long(), 2), [pooled.detach(), where.int()], grad=(0,))
case("maxUnpool2d outputSize", lambda x, i: F.max_unpool2d(x, i.long(), 2, output_size=[7, 6]), [pooled.detach(), where.int()], grad=(0,))
pooled1, where1 = F.max_pool1d(pool_in[:, :, 2, :], 3, stride=2, return_indices=True)
case("maxUnpool1d", lambda x, i: F.max_unpool1d(x, i.long(), 3, stride=2), [pooled1.detach(), where1.int()], grad=(0,))

table = f(7, 3)
bag_in = torch.tensor([1, 2, 4, 5, 4, 3, 2, 0, 6], dtype=torch.int32)
bag_off = torch.tensor([0, 2, 2, 5], dtype=torch.int32)  # the second bag is empty
case("embeddingBag mean", lambda w, i, o: F.embedding_bag(i.long(), w, o.long()), [table, bag_in, bag_off], grad=(0,))
case("embeddingBag sum weights", lambda w, i, o, p: F.embedding_bag(i.long(), w, o.long(), mode="sum", per_sample_weights=p), [table, bag_in, bag_off, torch.rand(9)], grad=(0, 3))
case("embeddingBag max padding", lambda w, i, o: F.embedding_bag(i.long(), w, o.long(), mode="max", padding_idx=4), [table, bag_in, bag_off], grad=(0,))
case("embeddingBag mean padding last offset", lambda w, i, o: F.embedding_bag(i.long(), w, o.long(), padding_idx=2, include_last_offset=True),
     [table, bag_in, torch.tensor([0, 3, 3, 9], dtype=torch.int32)], grad=(0,))  # (a last offset short of the input crashes PyTorch 1.13)
rows_in = torch.tensor([[1, 2, 4], [5, 5, 0], [6, 3, 3]], dtype=torch.int32)
case("embeddingBag 2d sum", lambda w, i: F.embedding_bag(i.long(), w, mode="sum"), [table, rows_in], grad=(0,))
case("embeddingBag 2d max padding", lambda w, i: F.embedding_bag(i.long(), w, mode="max", padding_idx=5), [table, rows_in], grad=(0,))
case("embeddingBag 2d mean padding", lambda w, i: F.embedding_bag(i.long(), w, padding_idx=3), [table, rows_in], grad=(0,))

from torch.nn.utils.rnn import pad_sequence
case("padSequence", lambda a, b, c: pad_sequence([a, b, c]), [f(3, 2), f(1, 2), f(4, 2)], grad=(0, 1, 2))
case("padSequence batchFirst value", lambda a, b: pad_sequence([a, b], batch_first=True, padding_value=-1.5), [f(2), f(5)], grad=(0, 1))

# CTC: the inputs are logits and the loss takes their log_softmax, as in training. (PyTorch's
# ctc_loss backward returns exp(log_probs) − posterior for log_probs, the gradient through a
# log_softmax it assumes, not the partial derivative; through the log_softmax both give the
# same gradient of the logits, which is what these cases compare.) Padded and concatenated
# targets, repeats (which need a blank between them), an empty target, and a target too long
# for its frames (an infinite loss).
ctc_x = f(7, 3, 5)
ctc_targets = torch.tensor([[1, 2, 2, 0], [3, 3, 4, 1], [2, 0, 0, 0]], dtype=torch.int32)
ctc_in, ctc_tg = i32(7, 6, 7), i32(3, 4, 0)
ls = lambda x: x.log_softmax(-1)
case("ctcLoss", lambda x, y: F.ctc_loss(ls(x), y.long(), ctc_in.long(), ctc_tg.long()), [ctc_x, ctc_targets], grad=(0,))
case("ctcLoss sum blank", lambda x, y: F.ctc_loss(ls(x), y.long(), ctc_in.long(), ctc_tg.long(), blank=4, reduction="sum"),
     [ctc_x, torch.tensor([[1, 2, 2, 0], [3, 3, 0, 1], [2, 0, 0, 0]], dtype=torch.int32)], grad=(0,))
case("ctcLoss concatenated none", lambda x, y: F.ctc_loss(ls(x), y.long(), ctc_in.long(), ctc_tg.long(), reduction="none"), [ctc_x, i32(1, 2, 2, 3, 3, 4, 1)], grad=(0,))
case("ctcLoss infinite", lambda x, y: F.ctc_loss(ls(x), y.long(), i32(2, 7).long(), i32(3, 2).long(), reduction="none"), [f(7, 2, 4), i32(1, 1, 1, 2, 1, 1, 1, 2).reshape(2, 4)])
case("ctcLoss zeroInfinity", lambda x, y: F.ctc_loss(ls(x), y.long(), i32(2, 7).long(), i32(3, 2).long(), zero_infinity=True), [f(7, 2, 4), i32(1, 2, 1, 2, 3, 3, 0, 0).reshape(2, 4)], grad=(0,))
case("ctcLoss unbatched", lambda x, y: F.ctc_loss(ls(x), y.long(), i32(6).long(), i32(2).long()), [f(6, 4), i32(3, 1)], grad=(0,))

# More layers (npm/src/nn/layers_composed.ts, norm.ts, rearrange_modules.ts): the deterministic ones.
vol = f(2, 3, 2, 3, 4)
case("batchNorm3d", lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), [vol, torch.rand(3) + 0.5, f(3)], grad=(0, 1, 2))
case("instanceNorm3d", lambda x: F.instance_norm(x), [vol], grad=(0,))
case("localResponseNorm", lambda x: F.local_response_norm(x, 3, alpha=0.2, beta=0.8, k=1.5), [f(2, 5, 3, 3)], grad=(0,))
case("localResponseNorm 3d even", lambda x: F.local_response_norm(x, 4), [f(2, 6, 5)], grad=(0,))
case("lpPool2d", lambda x: F.lp_pool2d(x, 2.0, 2), [f(1, 2, 4, 5)], grad=(0,))
case("lpPool1d stride", lambda x: F.lp_pool1d(x, 3.0, 3, stride=2), [torch.rand(2, 3, 9) + 0.1], grad=(0,))
case("channelShuffle", lambda x: torch.nn.ChannelShuffle(3)(x), [f(2, 6, 2, 2)])
case("channelShuffle groups 2", lambda x: torch.nn.ChannelShuffle(2)(x), [f(1, 4, 3)])  # (PyTorch 1.13 has no derivative for it; ours is checked by central differences)
case("constantPad3d", lambda x: torch.nn.ConstantPad3d((1, 0, 2, 1, 0, 1), 0.5)(x), [f(1, 2, 2, 2, 3)], grad=(0,))
case("reflectionPad3d", lambda x: torch.nn.ReflectionPad3d(1)(x), [f(1, 1, 2, 3, 3)], grad=(0,))
case("replicationPad3d", lambda x: torch.nn.ReplicationPad3d((0, 2, 1, 0, 1, 1))(x), [f(1, 2, 2, 2, 2)], grad=(0,))

write("gen_nn_activation_fold_grid.py", "nn_activation_fold_grid_ref.json", {"cases": CASES})
