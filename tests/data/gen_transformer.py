#!/usr/bin/python3
"""Generates tests/data/transformer_ref.json: PyTorch 1.13's nn.Transformer, for
tests/js/nn_transformer_wrapper.test.mjs. Run with Debian's PyTorch: /usr/bin/python3 tests/data/gen_transformer.py

Each case: simdgrad's constructor options (camelCase), PyTorch's state dict (its own
initialisation, moved into simdgrad with loadStateDict; the key order is checked too), src and
tgt, the masks (a causal tgt mask, a key padding mask), the output, and the gradients of
Σ out·R with respect to src, tgt and a few parameters. Dropout is 0 and the module in training
mode, so PyTorch takes its regular (not the inference fast) path.
"""
import torch
import torch.nn as nn
from ref_json import enc, write

torch.manual_seed(21)
TORCH_NAMES = {"dModel": "d_model", "nhead": "nhead", "numEncoderLayers": "num_encoder_layers",
               "numDecoderLayers": "num_decoder_layers", "dimFeedforward": "dim_feedforward", "dropout": "dropout",
               "activation": "activation", "batchFirst": "batch_first", "normFirst": "norm_first",
               "layerNormEps": "layer_norm_eps"}
GRAD_PARAMS = ["encoder.layers.0.self_attn.in_proj_weight", "encoder.norm.weight", "decoder.layers.0.multihead_attn.out_proj.weight",
               "decoder.layers.0.linear2.bias", "decoder.norm.bias"]



def case(name, options, src_shape, tgt_shape, masks):
    m = nn.Transformer(**{TORCH_NAMES[k]: v for k, v in options.items()})
    m.train()
    src = torch.randn(*src_shape, requires_grad=True)
    tgt = torch.randn(*tgt_shape, requires_grad=True)
    kw = {}
    T = tgt_shape[1] if options.get("batchFirst") else tgt_shape[0]
    N = src_shape[0] if options.get("batchFirst") else src_shape[1]
    S = src_shape[1] if options.get("batchFirst") else src_shape[0]
    if "tgtMask" in masks:
        kw["tgt_mask"] = nn.Transformer.generate_square_subsequent_mask(T)
    if "srcKeyPaddingMask" in masks:
        pad = torch.zeros(N, S, dtype=torch.bool)
        pad[0, -1] = True
        kw["src_key_padding_mask"] = pad
        kw["memory_key_padding_mask"] = pad
    out = m(src, tgt, **kw)
    r = torch.randn_like(out)
    (out * r).sum().backward()
    params = dict(m.named_parameters())
    return {"name": name, "options": options, "masks": masks,
            "state": {k: enc(v) for k, v in m.state_dict().items()},
            "src": enc(src), "tgt": enc(tgt), "output": enc(out), "r": enc(r),
            "srcGrad": enc(src.grad), "tgtGrad": enc(tgt.grad),
            "paramGrads": {k: enc(params[k].grad) for k in GRAD_PARAMS}}


def main():
    base = {"dModel": 8, "nhead": 2, "numEncoderLayers": 2, "numDecoderLayers": 2, "dimFeedforward": 16, "dropout": 0.0}
    cases = [
        case("post-norm with a causal target mask", base, [5, 2, 8], [4, 2, 8], ["tgtMask"]),
        case("batchFirst, norm first, gelu, key padding", {**base, "batchFirst": True, "normFirst": True, "activation": "gelu",
                                                          "layerNormEps": 1e-6}, [2, 5, 8], [2, 3, 8], ["tgtMask", "srcKeyPaddingMask"]),
        case("one encoder layer, three decoder layers", {**base, "numEncoderLayers": 1, "numDecoderLayers": 3}, [3, 1, 8], [6, 1, 8], []),
    ]
    write("gen_transformer.py", "transformer_ref.json", {"cases": cases})


if __name__ == "__main__":
    main()
