#!/usr/bin/env python3
"""Forward (and some backward) reference values of the sg.nn modules, computed by PyTorch,
for tests/js/nn_forward.test.mjs. Run with Debian's PyTorch (1.13, CPU):

    /usr/bin/python3 tests/data/gen_nn_forward.py     # writes tests/data/nn_forward_ref.json

Each case: the JS construction {ctor, args, opts} (see gen_nn_names.py), the mode ('train' |
'eval'), the module's state dict (PyTorch's initialization, with norm affine parameters and
running stats randomized so they matter), the forward inputs, the JS forward options, the
output ([output, weights] for MultiheadAttention), and optionally the state after the call
(BatchNorm's running stats) and gradients of sum(output * gradOutput) with respect to the
inputs and named parameters. The JS test loads the state dict with loadStateDict and compares
within 1e-4. Floats are written with 9 significant digits (float32 round-trips), ±Infinity as strings."""
import json
import math
import os

import torch
import torch.nn as nn

torch.manual_seed(2024)
CASES = []


def enc(t):
    if t is None:
        return None
    d = t.detach()
    if d.dtype == torch.bool:
        return {"shape": list(d.shape), "dtype": "bool", "data": [int(v) for v in d.reshape(-1).tolist()]}
    if d.dtype in (torch.int64, torch.int32):
        return {"shape": list(d.shape), "dtype": "int32", "data": [int(v) for v in d.reshape(-1).tolist()]}
    # JSON has no infinities: they are written as the strings "Infinity" / "-Infinity".
    return {"shape": list(d.shape), "dtype": "float32",
            "data": [float("%.9g" % v) if math.isfinite(v) else str(v).replace("inf", "Infinity")
                     for v in d.float().reshape(-1).tolist()]}


def js(ctor, *args, **opts):
    return {"ctor": ctor, "args": list(args), "opts": opts}


def randomize_norms(m):
    """Norm layers start at weight 1 / bias 0 / mean 0 / var 1: make them matter."""
    with torch.no_grad():
        for mod in m.modules():
            if isinstance(mod, (nn.BatchNorm1d, nn.BatchNorm2d, nn.InstanceNorm2d, nn.LayerNorm, nn.GroupNorm)):
                if getattr(mod, "weight", None) is not None:
                    mod.weight.copy_(torch.rand_like(mod.weight) + 0.5)
                    mod.bias.copy_(torch.randn_like(mod.bias))
                if getattr(mod, "running_mean", None) is not None:
                    mod.running_mean.copy_(torch.randn_like(mod.running_mean))
                    mod.running_var.copy_(torch.rand_like(mod.running_var) + 0.5)
                    mod.num_batches_tracked.fill_(3)


def case(name, module, spec, inputs, call=None, js_forward=None, mode="eval", after=False, grads=(), randomize=True):
    """call(module, *inputs) runs PyTorch's forward (default module(*inputs)); js_forward: the
    options object the JS forward takes last (null: none); grads: names of parameters (and
    'input0', 'input1', ...) whose gradient of sum(out * gradOutput) is recorded."""
    if randomize:
        randomize_norms(module)
    module.train(mode == "train")
    state = {k: enc(v) for k, v in module.state_dict().items()}
    ins = [t.clone() if isinstance(t, torch.Tensor) else t for t in inputs]
    for i, t in enumerate(ins):
        if f"input{i}" in grads:
            t.requires_grad_(True)
    out = call(module, *ins) if call else module(*ins)
    entry = {"name": name, "js": spec, "mode": mode, "state": state,
             "inputs": [enc(t) if isinstance(t, torch.Tensor) else t for t in inputs],
             "forward": js_forward}
    if isinstance(out, tuple):
        entry["output"] = [enc(o) for o in out]
        main = out[0]
    else:
        entry["output"] = enc(out)
        main = out
    if after:
        entry["after"] = {k: enc(v) for k, v in module.state_dict().items()}
    if grads:
        go = torch.randn(main.shape)
        params = dict(module.named_parameters())
        targets = [ins[int(g[5:])] if g.startswith("input") else params[g] for g in grads]
        gs = torch.autograd.grad(main, targets, go)
        entry["gradOutput"] = enc(go)
        entry["grads"] = {g: enc(v) for g, v in zip(grads, gs)}
    CASES.append(entry)


def rn(*s):
    return torch.randn(*s)


class PositionalEncoding(nn.Module):
    """The PyTorch tutorial's (Language Modeling with nn.Transformer)."""

    def __init__(self, d_model, dropout=0.1, max_len=5000):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer('pe', pe)

    def forward(self, x):
        x = x + self.pe[:x.size(0)]
        return self.dropout(x)


def layers():
    case("Linear", nn.Linear(4, 3), js("Linear", 4, 3), [rn(2, 4)], grads=("input0", "weight", "bias"))
    case("Linear 3-D input no bias", nn.Linear(4, 3, bias=False), js("Linear", 4, 3, bias=False), [rn(2, 5, 4)])
    case("Bilinear", nn.Bilinear(3, 4, 2), js("Bilinear", 3, 4, 2), [rn(5, 3), rn(5, 4)])
    case("Conv1d stride padding", nn.Conv1d(2, 4, 3, stride=2, padding=1), js("Conv1d", 2, 4, 3, stride=2, padding=1),
         [rn(2, 2, 9)])
    case("Conv2d groups dilation", nn.Conv2d(4, 6, 3, padding=2, dilation=2, groups=2),
         js("Conv2d", 4, 6, 3, padding=2, dilation=2, groups=2), [rn(2, 4, 7, 6)], grads=("input0", "weight", "bias"))
    case("Conv2d same reflect", nn.Conv2d(2, 3, (3, 4), padding="same", padding_mode="reflect"),
         js("Conv2d", 2, 3, [3, 4], padding="same", paddingMode="reflect"), [rn(1, 2, 5, 6)])
    case("Conv2d replicate", nn.Conv2d(2, 3, 3, padding=1, padding_mode="replicate", bias=False),
         js("Conv2d", 2, 3, 3, padding=1, paddingMode="replicate", bias=False), [rn(2, 2, 4, 4)])
    case("ConvTranspose2d", nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1),
         js("ConvTranspose2d", 4, 2, 3, stride=2, padding=1, outputPadding=1), [rn(2, 4, 3, 3)],
         grads=("input0", "weight"))
    case("MaxPool2d", nn.MaxPool2d(2), js("MaxPool2d", 2), [rn(2, 3, 5, 4)])
    case("MaxPool1d", nn.MaxPool1d(3, stride=2, padding=1), js("MaxPool1d", 3, stride=2, padding=1), [rn(2, 3, 8)])
    case("AvgPool2d", nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False),
         js("AvgPool2d", 3, stride=2, padding=1, countIncludePad=False), [rn(1, 2, 5, 5)])
    case("AvgPool1d ceil", nn.AvgPool1d(2, ceil_mode=True), js("AvgPool1d", 2, ceilMode=True), [rn(2, 3, 7)])
    case("AdaptiveAvgPool2d", nn.AdaptiveAvgPool2d((3, None)), js("AdaptiveAvgPool2d", [3, None]), [rn(2, 2, 7, 5)])
    case("AdaptiveAvgPool1d", nn.AdaptiveAvgPool1d(3), js("AdaptiveAvgPool1d", 3), [rn(2, 2, 8)])
    case("Flatten", nn.Flatten(), js("Flatten"), [rn(2, 3, 2, 2)])
    case("Unflatten", nn.Unflatten(1, (2, 3)), js("Unflatten", 1, [2, 3]), [rn(2, 6, 2)])
    case("Embedding paddingIdx", nn.Embedding(10, 3, padding_idx=2), js("Embedding", 10, 3, paddingIdx=2),
         [torch.tensor([[1, 2, 4], [9, 0, 2]])], grads=("weight",))
    case("Dropout eval", nn.Dropout(0.5), js("Dropout", 0.5), [rn(3, 4)])


def norms():
    case("BatchNorm1d train", nn.BatchNorm1d(3), js("BatchNorm1d", 3), [rn(5, 3) * 2 + 1], mode="train", after=True,
         grads=("input0", "weight", "bias"))
    case("BatchNorm1d train 3-D momentum None", nn.BatchNorm1d(2, momentum=None), js("BatchNorm1d", 2, momentum=None),
         [rn(3, 2, 4)], mode="train", after=True)
    case("BatchNorm2d eval", nn.BatchNorm2d(3), js("BatchNorm2d", 3), [rn(2, 3, 4, 4)])
    case("BatchNorm2d train no running stats", nn.BatchNorm2d(3, track_running_stats=False),
         js("BatchNorm2d", 3, trackRunningStats=False), [rn(2, 3, 2, 2)], mode="train")
    case("BatchNorm2d eval no running stats", nn.BatchNorm2d(3, track_running_stats=False, affine=False),
         js("BatchNorm2d", 3, trackRunningStats=False, affine=False), [rn(2, 3, 2, 2)])
    case("LayerNorm", nn.LayerNorm([3, 4], eps=1e-3), js("LayerNorm", [3, 4], eps=1e-3), [rn(2, 3, 4)],
         grads=("input0", "weight", "bias"))
    case("GroupNorm", nn.GroupNorm(2, 4), js("GroupNorm", 2, 4), [rn(2, 4, 3, 3)])
    case("InstanceNorm2d", nn.InstanceNorm2d(3), js("InstanceNorm2d", 3), [rn(2, 3, 4, 4)])
    case("InstanceNorm2d unbatched", nn.InstanceNorm2d(3), js("InstanceNorm2d", 3), [rn(3, 4, 4)])
    case("InstanceNorm2d affine tracked train", nn.InstanceNorm2d(3, affine=True, track_running_stats=True),
         js("InstanceNorm2d", 3, affine=True, trackRunningStats=True), [rn(2, 3, 3, 3)], mode="train", after=True)
    case("InstanceNorm2d affine tracked eval", nn.InstanceNorm2d(3, affine=True, track_running_stats=True),
         js("InstanceNorm2d", 3, affine=True, trackRunningStats=True), [rn(2, 3, 3, 3)])


def activations():
    x = rn(2, 3, 4) * 3
    for name, mod, spec in [
        ("ReLU", nn.ReLU(), js("ReLU")),
        ("ReLU6", nn.ReLU6(), js("ReLU6")),
        ("LeakyReLU", nn.LeakyReLU(0.2), js("LeakyReLU", 0.2)),
        ("PReLU", nn.PReLU(3, init=0.1), js("PReLU", 3, 0.1)),
        ("ELU", nn.ELU(0.5), js("ELU", 0.5)),
        ("SELU", nn.SELU(), js("SELU")),
        ("GELU", nn.GELU(), js("GELU")),
        ("GELU tanh", nn.GELU("tanh"), js("GELU", "tanh")),
        ("Sigmoid", nn.Sigmoid(), js("Sigmoid")),
        ("Tanh", nn.Tanh(), js("Tanh")),
        ("SiLU", nn.SiLU(), js("SiLU")),
        ("Mish", nn.Mish(), js("Mish")),
        ("Softplus", nn.Softplus(2, 5), js("Softplus", 2, 5)),
        ("Softsign", nn.Softsign(), js("Softsign")),
        ("Hardtanh", nn.Hardtanh(-0.5, 2), js("Hardtanh", -0.5, 2)),
        ("Hardsigmoid", nn.Hardsigmoid(), js("Hardsigmoid")),
        ("Hardswish", nn.Hardswish(), js("Hardswish")),
        ("LogSigmoid", nn.LogSigmoid(), js("LogSigmoid")),
        ("Softmax", nn.Softmax(1), js("Softmax", 1)),
        ("LogSoftmax", nn.LogSoftmax(-1), js("LogSoftmax", -1)),
        ("Softmin", nn.Softmin(0), js("Softmin", 0)),
        ("GLU", nn.GLU(), js("GLU")),
        ("Identity", nn.Identity(), js("Identity")),
    ]:
        case(name, mod, spec, [x])


def attention():
    L, S, N, E = 3, 4, 2, 8
    q, k, v = rn(L, N, E), rn(S, N, E), rn(S, N, E)
    mha = lambda m, *a: m(*a)  # noqa: E731
    case("MHA basic", nn.MultiheadAttention(E, 2), js("MultiheadAttention", E, 2), [q, k, v], call=mha,
         js_forward=None, grads=("input0", "input1", "in_proj_weight", "out_proj.weight", "in_proj_bias"))
    attn_mask = torch.tensor([[False, True, False, False], [False, False, True, True], [True, False, False, False]])
    kpm = torch.tensor([[False, False, False, True], [False, True, False, False]])
    case("MHA bool masks per-head weights", nn.MultiheadAttention(E, 2), js("MultiheadAttention", E, 2),
         [q, k, v, kpm, attn_mask],
         call=lambda m, q, k, v, kpm, am: m(q, k, v, key_padding_mask=kpm, attn_mask=am, average_attn_weights=False),
         js_forward={"keyPaddingMask": 3, "attnMask": 4, "averageAttnWeights": False})
    fmask = rn(N * 2, L, S)
    case("MHA float 3-D mask no weights", nn.MultiheadAttention(E, 2), js("MultiheadAttention", E, 2),
         [q, k, v, fmask], call=lambda m, q, k, v, am: m(q, k, v, attn_mask=am, need_weights=False),
         js_forward={"attnMask": 3, "needWeights": False})
    case("MHA float 2-D mask bool padding", nn.MultiheadAttention(E, 4), js("MultiheadAttention", E, 4),
         [q, k, v, rn(L, S), kpm], call=lambda m, q, k, v, am, kpm: m(q, k, v, attn_mask=am, key_padding_mask=kpm),
         js_forward={"attnMask": 3, "keyPaddingMask": 4})
    case("MHA batchFirst", nn.MultiheadAttention(E, 2, batch_first=True), js("MultiheadAttention", E, 2, batchFirst=True),
         [q.transpose(0, 1).contiguous(), k.transpose(0, 1).contiguous(), v.transpose(0, 1).contiguous()], call=mha)
    case("MHA kdim vdim", nn.MultiheadAttention(E, 2, kdim=5, vdim=3), js("MultiheadAttention", E, 2, kdim=5, vdim=3),
         [q, rn(S, N, 5), rn(S, N, 3)], call=mha, grads=("q_proj_weight", "k_proj_weight", "v_proj_weight"))
    case("MHA unbatched", nn.MultiheadAttention(E, 2), js("MultiheadAttention", E, 2), [rn(L, E), rn(S, E), rn(S, E)],
         call=mha)
    case("MHA bias kv zero attn", nn.MultiheadAttention(E, 2, add_bias_kv=True, add_zero_attn=True),
         js("MultiheadAttention", E, 2, addBiasKv=True, addZeroAttn=True), [q, k, v, kpm],
         call=lambda m, q, k, v, kpm: m(q, k, v, key_padding_mask=kpm), js_forward={"keyPaddingMask": 3})
    case("MHA no bias", nn.MultiheadAttention(E, 2, bias=False), js("MultiheadAttention", E, 2, bias=False), [q, k, v],
         call=mha)


def transformers():
    S, N, E = 5, 2, 8
    src = rn(S, N, E)
    kpm = torch.tensor([[False, False, False, True, True], [False, False, False, False, False]])
    case("TransformerEncoderLayer eval padding mask", nn.TransformerEncoderLayer(E, 2, dim_feedforward=16),
         js("TransformerEncoderLayer", E, 2, dimFeedforward=16), [src, kpm],
         call=lambda m, x, kpm: m(x, src_key_padding_mask=kpm), js_forward={"srcKeyPaddingMask": 1},
         grads=("input0", "self_attn.in_proj_weight", "linear1.weight", "norm2.weight"))
    causal = torch.triu(torch.full((S, S), float("-inf")), diagonal=1)
    case("TransformerEncoderLayer normFirst gelu causal", nn.TransformerEncoderLayer(E, 4, dim_feedforward=12, activation="gelu", norm_first=True),
         js("TransformerEncoderLayer", E, 4, dimFeedforward=12, activation="gelu", normFirst=True), [src, causal],
         call=lambda m, x, mask: m(x, src_mask=mask), js_forward={"srcMask": 1})
    case("TransformerEncoderLayer batchFirst", nn.TransformerEncoderLayer(E, 2, dim_feedforward=16, batch_first=True),
         js("TransformerEncoderLayer", E, 2, dimFeedforward=16, batchFirst=True), [src.transpose(0, 1).contiguous()])
    T = 4
    tgt = rn(T, N, E)
    tmask = torch.triu(torch.full((T, T), float("-inf")), diagonal=1)
    case("TransformerDecoderLayer eval", nn.TransformerDecoderLayer(E, 2, dim_feedforward=16),
         js("TransformerDecoderLayer", E, 2, dimFeedforward=16), [tgt, src, tmask, kpm],
         call=lambda m, t, mem, tm, kpm: m(t, mem, tgt_mask=tm, memory_key_padding_mask=kpm),
         js_forward={"tgtMask": 2, "memoryKeyPaddingMask": 3})
    layer = nn.TransformerEncoderLayer(E, 2, dim_feedforward=16)
    enc = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(E), enable_nested_tensor=False)
    with torch.no_grad():  # distinct layers, so that loading them by name matters
        for p in enc.layers[1].parameters():
            p.add_(torch.randn_like(p) * 0.1)
    case("TransformerEncoder 2 layers norm", enc,
         js("TransformerEncoder", {"$module": js("TransformerEncoderLayer", E, 2, dimFeedforward=16)}, 2,
            norm={"$module": js("LayerNorm", E)}), [src, kpm],
         call=lambda m, x, kpm: m(x, src_key_padding_mask=kpm), js_forward={"srcKeyPaddingMask": 1})
    case("PositionalEncoding eval", PositionalEncoding(E, max_len=20), js("PositionalEncoding", E, maxLen=20),
         [rn(6, N, E)])


def losses():
    logits = rn(4, 3) * 2
    cls = torch.tensor([2, 0, 1, 2])
    w = torch.rand(3) + 0.5
    case("CrossEntropyLoss weight smoothing", nn.CrossEntropyLoss(weight=w, label_smoothing=0.1),
         js("CrossEntropyLoss", weight={"$tensor": enc(w)}, labelSmoothing=0.1), [logits, cls])
    case("CrossEntropyLoss ignoreIndex sum", nn.CrossEntropyLoss(ignore_index=1, reduction="sum"),
         js("CrossEntropyLoss", ignoreIndex=1, reduction="sum"), [logits, cls])
    probs = torch.softmax(rn(4, 3), 1)
    case("CrossEntropyLoss probabilities", nn.CrossEntropyLoss(), js("CrossEntropyLoss"), [logits, probs])
    case("NLLLoss none", nn.NLLLoss(weight=w, reduction="none"), js("NLLLoss", weight={"$tensor": enc(w)}, reduction="none"),
         [torch.log_softmax(logits, 1), cls])
    a, b = rn(3, 4), rn(3, 4)
    case("MSELoss sum", nn.MSELoss(reduction="sum"), js("MSELoss", reduction="sum"), [a, b])
    case("L1Loss none", nn.L1Loss(reduction="none"), js("L1Loss", reduction="none"), [a, b])
    case("SmoothL1Loss beta", nn.SmoothL1Loss(beta=0.5), js("SmoothL1Loss", beta=0.5), [a, b])
    case("HuberLoss delta", nn.HuberLoss(delta=0.7), js("HuberLoss", delta=0.7), [a, b])
    p = torch.sigmoid(rn(3, 4))
    t01 = (torch.rand(3, 4) > 0.5).float()
    bw = torch.rand(4) + 0.5
    case("BCELoss weight", nn.BCELoss(weight=bw), js("BCELoss", weight={"$tensor": enc(bw)}), [p, t01])
    pw = torch.rand(4) + 0.5
    case("BCEWithLogitsLoss posWeight", nn.BCEWithLogitsLoss(pos_weight=pw), js("BCEWithLogitsLoss", posWeight={"$tensor": enc(pw)}),
         [rn(3, 4), t01])
    case("KLDivLoss batchmean", nn.KLDivLoss(reduction="batchmean"), js("KLDivLoss", reduction="batchmean"),
         [torch.log_softmax(rn(3, 4), 1), torch.softmax(rn(3, 4), 1)])
    case("KLDivLoss logTarget", nn.KLDivLoss(reduction="sum", log_target=True), js("KLDivLoss", reduction="sum", logTarget=True),
         [torch.log_softmax(rn(3, 4), 1), torch.log_softmax(rn(3, 4), 1)])
    case("CosineEmbeddingLoss margin", nn.CosineEmbeddingLoss(margin=0.2), js("CosineEmbeddingLoss", margin=0.2),
         [rn(4, 5), rn(4, 5), torch.tensor([1, -1, -1, 1])])


def main():
    layers()
    norms()
    activations()
    attention()
    transformers()
    losses()
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nn_forward_ref.json")
    with open(out, "w") as f:
        json.dump({"generator": "tests/data/gen_nn_forward.py", "torch": torch.__version__, "cases": CASES}, f)
    print("wrote", out, len(CASES), "cases", os.path.getsize(out), "bytes")


if __name__ == "__main__":
    main()
