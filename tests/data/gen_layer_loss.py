#!/usr/bin/env python3
"""Reference values for the layer and loss ops (tests/native/nn_layer_test.cpp and
nn_loss_test.cpp), computed by PyTorch. Run with Debian's PyTorch (1.13, CPU):

    /usr/bin/python3 tests/data/gen_layer_loss.py     # writes tests/data/layer_loss_ref.json

Each case: the op's JS name, its family ('layer' | 'loss'), the inputs (null = omitted
optional tensor; 'grad' marks those whose gradient is checked), the op's attrs as passed to
callOp, the output, a fixed upstream gradient and the gradient of every input marked 'grad'
(torch.autograd.grad with that upstream gradient), and the values of in-place updated inputs
(batch-norm running stats) after the call. Floats are written with 9 significant digits
(float32 round-trips)."""
import json
import os

import torch
import torch.nn.functional as F

torch.manual_seed(1234)
CASES = []


def enc(t):
    if t is None:
        return None
    d = t.detach()
    if d.dtype in (torch.int64, torch.int32):
        return {"shape": list(d.shape), "dtype": "int32", "data": [int(v) for v in d.reshape(-1).tolist()]}
    return {"shape": list(d.shape), "dtype": "float32",
            "data": [float("%.9g" % v) for v in d.float().reshape(-1).tolist()]}


def case(name, op, family, fn, inputs, attrs, grad=(), mutated=()):
    """fn(*inputs) is the PyTorch call; inputs[i] for i in `grad` are differentiated;
    inputs[i] for i in `mutated` are compared after the call."""
    inputs = [None if t is None else t.detach().clone() for t in inputs]
    for i in grad:
        inputs[i].requires_grad_(True)
    enc_in = []
    for i, t in enumerate(inputs):
        e = enc(t)
        if e is not None:
            e["grad"] = i in grad
        enc_in.append(e)
    out = fn(*inputs)
    entry = {"name": name, "op": op, "family": family, "inputs": enc_in, "attrs": attrs, "output": enc(out)}
    if grad:
        go = torch.randn(out.shape) if out.dim() > 0 else torch.tensor(0.75)
        gs = torch.autograd.grad(out, [inputs[i] for i in grad], go, allow_unused=True)
        grads = [None] * len(inputs)
        for i, g in zip(grad, gs):
            grads[i] = enc(torch.zeros_like(inputs[i]) if g is None else g)
        entry["grad_output"] = enc(go)
        entry["grads"] = grads
    if mutated:
        entry["after"] = [enc(inputs[i]) if i in mutated else None for i in range(len(inputs))]
    CASES.append(entry)


def rn(*s):
    return torch.randn(*s)


# ------------------------------------------------------------------ layers
def layers():
    case("linear 2-D with bias", "linear", "layer", F.linear, [rn(3, 4), rn(5, 4), rn(5)], {}, grad=(0, 1, 2))
    case("linear 3-D input, no bias", "linear", "layer", F.linear, [rn(2, 3, 4), rn(5, 4), None], {}, grad=(0, 1))
    case("linear 1-D input", "linear", "layer", F.linear, [rn(4), rn(3, 4), rn(3)], {}, grad=(0, 1, 2))
    case("bilinear", "bilinear", "layer", F.bilinear, [rn(3, 4), rn(3, 2), rn(5, 4, 2), rn(5)], {},
         grad=(0, 1, 2, 3))

    def bn(training, momentum, eps):
        return lambda x, rm, rv, w, b: F.batch_norm(x, rm, rv, w, b, training, momentum, eps)
    case("batchNorm training [N, C] with running stats", "batchNorm", "layer", bn(True, 0.1, 1e-5),
         [rn(4, 3), rn(3), torch.rand(3) + 0.5, rn(3), rn(3)], {"training": True, "momentum": 0.1, "eps": 1e-5},
         grad=(0, 3, 4), mutated=(1, 2))
    case("batchNorm training [N, C, H, W] momentum 0.3", "batchNorm", "layer", bn(True, 0.3, 1e-3),
         [rn(3, 2, 4, 3) * 2 + 1, torch.zeros(2), torch.ones(2), rn(2), rn(2)],
         {"training": True, "momentum": 0.3, "eps": 1e-3}, grad=(0, 3, 4), mutated=(1, 2))
    case("batchNorm training, no running stats, no affine", "batchNorm", "layer", bn(True, 0.1, 1e-5),
         [rn(4, 3, 5), None, None, None, None], {"training": True}, grad=(0,))
    case("batchNorm eval", "batchNorm", "layer", bn(False, 0.1, 1e-5),
         [rn(2, 3, 4), rn(3), torch.rand(3) + 0.5, rn(3), rn(3)], {"training": False}, grad=(0, 3, 4))

    case("layerNorm over the last dim", "layerNorm", "layer", lambda x, w, b: F.layer_norm(x, [4], w, b),
         [rn(2, 3, 4), rn(4), rn(4)], {"normalizedShape": [4]}, grad=(0, 1, 2))
    case("layerNorm over 2 dims, eps 1e-3", "layerNorm", "layer",
         lambda x, w, b: F.layer_norm(x, [3, 4], w, b, 1e-3),
         [rn(2, 3, 4), rn(3, 4), rn(3, 4)], {"normalizedShape": [3, 4], "eps": 1e-3}, grad=(0, 1, 2))
    case("layerNorm without affine", "layerNorm", "layer", lambda x, w, b: F.layer_norm(x, [5], None, None),
         [rn(3, 5), None, None], {"normalizedShape": [5]}, grad=(0,))

    case("groupNorm 3 groups of 2 channels", "groupNorm", "layer", lambda x, w, b: F.group_norm(x, 3, w, b),
         [rn(2, 6, 5), rn(6), rn(6)], {"numGroups": 3}, grad=(0, 1, 2))
    case("groupNorm 4-D, no affine, eps 1e-3", "groupNorm", "layer",
         lambda x, w, b: F.group_norm(x, 2, None, None, 1e-3),
         [rn(2, 4, 3, 3), None, None], {"numGroups": 2, "eps": 1e-3}, grad=(0,))
    case("groupNorm one group", "groupNorm", "layer", lambda x, w, b: F.group_norm(x, 1, w, b),
         [rn(3, 4, 2), rn(4), rn(4)], {"numGroups": 1}, grad=(0, 1, 2))

    def inorm(use, momentum=0.1, eps=1e-5):
        return lambda x, rm, rv, w, b: F.instance_norm(x, rm, rv, w, b, use, momentum, eps)
    case("instanceNorm plain", "instanceNorm", "layer", inorm(True), [rn(2, 3, 5), None, None, None, None], {},
         grad=(0,))
    case("instanceNorm 2-D with affine and running stats", "instanceNorm", "layer", inorm(True, 0.2),
         [rn(2, 3, 4, 4), rn(3), torch.rand(3) + 0.5, rn(3), rn(3)], {"useInputStats": True, "momentum": 0.2},
         grad=(0, 3, 4), mutated=(1, 2))
    case("instanceNorm with running stats (useInputStats false)", "instanceNorm", "layer", inorm(False),
         [rn(2, 3, 4), rn(3), torch.rand(3) + 0.5, rn(3), rn(3)], {"useInputStats": False}, grad=(0, 3, 4))

    idx = torch.tensor([[1, 2, 2, 9], [0, 2, 5, 1]])
    case("embedding", "embedding", "layer", lambda w, i: F.embedding(i, w), [rn(10, 3), idx], {}, grad=(0,))
    case("embedding paddingIdx 2", "embedding", "layer", lambda w, i: F.embedding(i, w, padding_idx=2),
         [rn(10, 3), idx], {"paddingIdx": 2}, grad=(0,))
    case("embedding paddingIdx -1", "embedding", "layer", lambda w, i: F.embedding(i, w, padding_idx=-1),
         [rn(10, 3), idx], {"paddingIdx": -1}, grad=(0,))
    case("oneHot inferred classes", "oneHot", "layer", lambda i: F.one_hot(i), [torch.tensor([3, 0, 1, 3, 2])], {})
    case("oneHot 6 classes, 2-D", "oneHot", "layer", lambda i: F.one_hot(i, 6),
         [torch.tensor([[1, 5, 0], [2, 2, 4]])], {"numClasses": 6})


# ------------------------------------------------------------------ losses
def losses():
    n, c = 6, 5
    logits = rn(n, c) * 2
    tgt = torch.tensor([0, 4, 2, 2, 1, 3])
    tgt_ign = torch.tensor([0, -100, 2, 2, -100, 3])
    tgt_ign2 = torch.tensor([0, 4, 2, 2, 1, 3])  # with ignoreIndex 2
    wts = torch.rand(c) + 0.2
    probs = torch.softmax(rn(n, c), 1)

    def ce(**kw):
        return lambda x, t, w: F.cross_entropy(x, t, w, **kw)
    for red in ("mean", "sum", "none"):
        case(f"crossEntropy indices {red}", "crossEntropy", "loss", ce(reduction=red), [logits, tgt, None],
             {"reduction": red}, grad=(0,))
        case(f"crossEntropy weights + ignored -100, {red}", "crossEntropy", "loss", ce(reduction=red),
             [logits, tgt_ign, wts], {"reduction": red}, grad=(0,))
        case(f"crossEntropy weights, ignoreIndex 2, smoothing 0.2, {red}", "crossEntropy", "loss",
             ce(reduction=red, ignore_index=2, label_smoothing=0.2), [logits, tgt_ign2, wts],
             {"reduction": red, "ignoreIndex": 2, "labelSmoothing": 0.2}, grad=(0,))
        case(f"crossEntropy probabilities + weights, smoothing 0.1, {red}", "crossEntropy", "loss",
             ce(reduction=red, label_smoothing=0.1), [logits, probs, wts],
             {"reduction": red, "labelSmoothing": 0.1}, grad=(0, 1))
    case("crossEntropy smoothing 0.3, no weights, ignored", "crossEntropy", "loss", ce(label_smoothing=0.3),
         [logits, tgt_ign, None], {"labelSmoothing": 0.3}, grad=(0,))
    case("crossEntropy smoothing 1", "crossEntropy", "loss", ce(label_smoothing=1.0),
         [logits, tgt, wts], {"labelSmoothing": 1.0}, grad=(0,))
    case("crossEntropy probabilities, no weights", "crossEntropy", "loss", ce(), [logits, probs, None], {},
         grad=(0, 1))
    case("crossEntropy unbatched [C]", "crossEntropy", "loss", ce(), [rn(c), torch.tensor(3), None], {}, grad=(0,))
    x4 = rn(2, 4, 3, 2)
    t4 = torch.tensor([[[0, 3], [1, -100], [2, 2]], [[3, 3], [0, 1], [-100, 2]]])
    case("crossEntropy [N, C, d1, d2] weights, ignored, smoothing 0.1", "crossEntropy", "loss",
         ce(label_smoothing=0.1), [x4, t4, torch.rand(4) + 0.5], {"labelSmoothing": 0.1}, grad=(0,))
    case("crossEntropy [N, C, d1, d2] none", "crossEntropy", "loss", ce(reduction="none"), [x4, t4, None],
         {"reduction": "none"}, grad=(0,))
    case("crossEntropy [N, C, d] probabilities", "crossEntropy", "loss", ce(reduction="sum"),
         [rn(2, 3, 4), torch.softmax(rn(2, 3, 4), 1), None], {"reduction": "sum"}, grad=(0, 1))
    case("crossEntropy logits of 1e4", "crossEntropy", "loss", ce(reduction="none"),
         [torch.tensor([[1e4, -1e4, 0.0], [1e4, 1e4, -1e4], [-1e4, 0.0, 1e4]]), torch.tensor([0, 1, 0]), None],
         {"reduction": "none"}, grad=(0,))

    logp = torch.log_softmax(logits, 1)
    for red in ("mean", "sum", "none"):
        case(f"nllLoss weights + ignored, {red}", "nllLoss", "loss",
             lambda x, t, w, red=red: F.nll_loss(x, t, w, reduction=red), [logp, tgt_ign, wts], {"reduction": red},
             grad=(0,))
    case("nllLoss ignoreIndex 2", "nllLoss", "loss", lambda x, t, w: F.nll_loss(x, t, w, ignore_index=2),
         [logp, tgt_ign2, None], {"ignoreIndex": 2}, grad=(0,))
    case("nllLoss [N, C, d]", "nllLoss", "loss", lambda x, t, w: F.nll_loss(x, t, w),
         [rn(2, 3, 4), torch.tensor([[0, 1, 2, 1], [2, 2, 0, 1]]), rn(3).abs()], {}, grad=(0,))

    a, b = rn(3, 4), rn(3, 4)
    for red in ("mean", "sum", "none"):
        case(f"mseLoss {red}", "mseLoss", "loss", lambda x, t, red=red: F.mse_loss(x, t, reduction=red), [a, b],
             {"reduction": red}, grad=(0, 1))
        case(f"l1Loss {red}", "l1Loss", "loss", lambda x, t, red=red: F.l1_loss(x, t, reduction=red), [a, b],
             {"reduction": red}, grad=(0, 1))
        case(f"smoothL1Loss beta 0.5 {red}", "smoothL1Loss", "loss",
             lambda x, t, red=red: F.smooth_l1_loss(x, t, reduction=red, beta=0.5), [a, b],
             {"reduction": red, "beta": 0.5}, grad=(0, 1))
        case(f"huberLoss delta 0.7 {red}", "huberLoss", "loss",
             lambda x, t, red=red: F.huber_loss(x, t, reduction=red, delta=0.7), [a, b],
             {"reduction": red, "delta": 0.7}, grad=(0, 1))
    case("mseLoss broadcast target", "mseLoss", "loss", lambda x, t: F.mse_loss(x, t), [a, rn(4)], {}, grad=(0, 1))
    case("smoothL1Loss default beta", "smoothL1Loss", "loss", lambda x, t: F.smooth_l1_loss(x, t), [a * 2, b], {},
         grad=(0, 1))
    case("smoothL1Loss beta 0", "smoothL1Loss", "loss", lambda x, t: F.smooth_l1_loss(x, t, beta=0.0), [a, b],
         {"beta": 0.0}, grad=(0, 1))
    case("huberLoss default delta", "huberLoss", "loss", lambda x, t: F.huber_loss(x, t), [a * 2, b], {},
         grad=(0, 1))

    p, y = torch.sigmoid(rn(3, 4)), torch.rand(3, 4)
    for red in ("mean", "sum", "none"):
        case(f"binaryCrossEntropy weight {red}", "binaryCrossEntropy", "loss",
             lambda x, t, w, red=red: F.binary_cross_entropy(x, t, w, reduction=red), [p, y, torch.rand(4)],
             {"reduction": red}, grad=(0, 1))
        case(f"binaryCrossEntropyWithLogits weight, posWeight {red}", "binaryCrossEntropyWithLogits", "loss",
             lambda x, t, w, pw, red=red: F.binary_cross_entropy_with_logits(x, t, w, reduction=red, pos_weight=pw),
             [rn(3, 4) * 3, y, torch.rand(3, 1), torch.rand(4) * 2], {"reduction": red}, grad=(0, 1))
    case("binaryCrossEntropy at 0 and 1 (log clamped)", "binaryCrossEntropy", "loss",
         lambda x, t, w: F.binary_cross_entropy(x, t, w, reduction="none"),
         [torch.tensor([0.0, 1.0, 0.5, 1.0]), torch.tensor([0.5, 0.25, 1.0, 1.0]), None], {"reduction": "none"})
    case("binaryCrossEntropyWithLogits plain, large logits", "binaryCrossEntropyWithLogits", "loss",
         lambda x, t, w, pw: F.binary_cross_entropy_with_logits(x, t, reduction="none"),
         [torch.tensor([-60.0, -5.0, 0.0, 3.0, 60.0]), torch.tensor([1.0, 0.0, 0.3, 1.0, 0.0]), None, None],
         {"reduction": "none"}, grad=(0, 1))

    lp, tp = torch.log_softmax(rn(3, 4), 1), torch.softmax(rn(3, 4), 1)
    tp0 = tp.clone()
    tp0[0, 1] = 0.0
    for red in ("mean", "sum", "none", "batchmean"):
        case(f"klDiv {red}", "klDiv", "loss", lambda x, t, red=red: F.kl_div(x, t, reduction=red), [lp, tp],
             {"reduction": red}, grad=(0, 1))
    # A zero target element counts 0·log 0 = 0. (PyTorch 1.13's target gradient there is NaN,
    # through xlogy's autograd; simdgrad gives 0, checked in nn_loss_test.cpp.)
    case("klDiv target with a zero", "klDiv", "loss", lambda x, t: F.kl_div(x, t, reduction="sum"), [lp, tp0],
         {"reduction": "sum"}, grad=(0,))
    case("klDiv logTarget batchmean", "klDiv", "loss",
         lambda x, t: F.kl_div(x, t, reduction="batchmean", log_target=True),
         [lp, torch.log_softmax(rn(3, 4), 1)], {"reduction": "batchmean", "logTarget": True}, grad=(0, 1))

    x1, x2 = rn(4, 5), rn(4, 5)
    x2[1] = -x1[1] * 0.5 + 0.1 * rn(5)  # a pair far apart
    yy = torch.tensor([1, -1, -1, 1])
    for red in ("mean", "sum", "none"):
        case(f"cosineEmbeddingLoss margin 0.2 {red}", "cosineEmbeddingLoss", "loss",
             lambda u, v, t, red=red: F.cosine_embedding_loss(u, v, t, margin=0.2, reduction=red), [x1, x2, yy],
             {"margin": 0.2, "reduction": red}, grad=(0, 1))
    case("cosineEmbeddingLoss 1-D inputs", "cosineEmbeddingLoss", "loss",
         lambda u, v, t: F.cosine_embedding_loss(u, v, t), [rn(5), rn(5), torch.tensor(-1)], {}, grad=(0, 1))


layers()
losses()
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "layer_loss_ref.json")
with open(out, "w") as f:
    json.dump({"generator": "tests/data/gen_layer_loss.py", "torch": torch.__version__, "cases": CASES}, f,
              separators=(",", ":"), allow_nan=False)
    f.write("\n")
print(f"wrote {len(CASES)} cases to {out} ({os.path.getsize(out)} bytes)")
