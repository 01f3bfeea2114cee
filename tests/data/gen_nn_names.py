#!/usr/bin/env python3
"""PyTorch's parameter, buffer and state-dict names (with shapes and dtypes) of the sg.nn
modules, for tests/js/nn_names.test.mjs. Run with Debian's PyTorch (1.13, CPU):

    /usr/bin/python3 tests/data/gen_nn_names.py     # writes tests/data/nn_names_ref.json

Each case gives the JS construction next to the PyTorch one: {ctor, args, opts} where an
argument {"$module": {...}} is itself a module to build first (TransformerEncoder's layer).
The JS test builds the module and compares namedParameters(), namedBuffers(),
Object.keys(stateDict()) (with shapes) and namedChildren() names against PyTorch's."""
import json
import math
import os

import torch
import torch.nn as nn

CASES = []


def js(ctor, *args, **opts):
    return {"ctor": ctor, "args": list(args), "opts": opts}


def jsmod(spec):
    return {"$module": spec}


def dtype_name(t):
    return {torch.float32: "float32", torch.int64: "int32", torch.int32: "int32", torch.bool: "bool"}[t.dtype]


def case(name, module, spec):
    CASES.append({
        "name": name,
        "js": spec,
        "parameters": [[n, list(p.shape)] for n, p in module.named_parameters()],
        "buffers": [[n, list(b.shape)] for n, b in module.named_buffers()],
        # int64 buffers (num_batches_tracked) are int32 here.
        "stateDict": [[n, list(t.shape), dtype_name(t)] for n, t in module.state_dict().items()],
        "children": [n for n, _ in module.named_children()],
        "modules": [n for n, _ in module.named_modules()],
    })


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


class Net(nn.Module):
    """The user model of tests/js/nn_names.test.mjs (same attribute order)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.scale = nn.Parameter(torch.ones(1))
        self.blocks = nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 2))
        self.register_buffer('steps', torch.zeros(2))
        self.head = nn.Linear(2, 2, bias=False)


def main():
    torch.manual_seed(0)
    case("Linear", nn.Linear(4, 3), js("Linear", 4, 3))
    case("Linear no bias", nn.Linear(4, 3, bias=False), js("Linear", 4, 3, bias=False))
    case("Bilinear", nn.Bilinear(3, 4, 2), js("Bilinear", 3, 4, 2))
    case("Conv1d", nn.Conv1d(2, 4, 3), js("Conv1d", 2, 4, 3))
    case("Conv2d groups no bias", nn.Conv2d(4, 6, 3, groups=2, bias=False), js("Conv2d", 4, 6, 3, groups=2, bias=False))
    case("Conv2d rectangular kernel", nn.Conv2d(3, 5, (3, 2)), js("Conv2d", 3, 5, [3, 2]))
    case("ConvTranspose2d groups", nn.ConvTranspose2d(4, 6, (3, 2), groups=2), js("ConvTranspose2d", 4, 6, [3, 2], groups=2))
    case("BatchNorm1d", nn.BatchNorm1d(5), js("BatchNorm1d", 5))
    case("BatchNorm2d no affine", nn.BatchNorm2d(3, affine=False), js("BatchNorm2d", 3, affine=False))
    case("BatchNorm2d no running stats", nn.BatchNorm2d(3, track_running_stats=False), js("BatchNorm2d", 3, trackRunningStats=False))
    case("LayerNorm 2 dims", nn.LayerNorm([4, 5]), js("LayerNorm", [4, 5]))
    case("LayerNorm no affine", nn.LayerNorm(4, elementwise_affine=False), js("LayerNorm", 4, elementwiseAffine=False))
    case("GroupNorm", nn.GroupNorm(2, 4), js("GroupNorm", 2, 4))
    case("InstanceNorm2d", nn.InstanceNorm2d(3), js("InstanceNorm2d", 3))
    case("InstanceNorm2d affine tracked", nn.InstanceNorm2d(3, affine=True, track_running_stats=True),
         js("InstanceNorm2d", 3, affine=True, trackRunningStats=True))
    case("Embedding", nn.Embedding(10, 3, padding_idx=0), js("Embedding", 10, 3, paddingIdx=0))
    case("PReLU", nn.PReLU(3), js("PReLU", 3))
    case("Dropout", nn.Dropout(0.2), js("Dropout", 0.2))
    case("Sequential", nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)),
         js("Sequential", jsmod(js("Linear", 2, 3)), jsmod(js("ReLU")), jsmod(js("Linear", 3, 1))))
    case("ModuleList", nn.ModuleList([nn.Linear(2, 2), nn.LayerNorm(2)]),
         js("ModuleList", [jsmod(js("Linear", 2, 2)), jsmod(js("LayerNorm", 2))]))
    case("ModuleDict", nn.ModuleDict({"enc": nn.Linear(2, 3), "dec": nn.Linear(3, 2)}),
         js("ModuleDict", {"enc": jsmod(js("Linear", 2, 3)), "dec": jsmod(js("Linear", 3, 2))}))
    case("MultiheadAttention", nn.MultiheadAttention(8, 2), js("MultiheadAttention", 8, 2))
    case("MultiheadAttention kdim vdim", nn.MultiheadAttention(8, 2, kdim=4, vdim=6), js("MultiheadAttention", 8, 2, kdim=4, vdim=6))
    case("MultiheadAttention no bias", nn.MultiheadAttention(8, 2, bias=False), js("MultiheadAttention", 8, 2, bias=False))
    case("MultiheadAttention bias kv", nn.MultiheadAttention(8, 2, add_bias_kv=True), js("MultiheadAttention", 8, 2, addBiasKv=True))
    case("TransformerEncoderLayer", nn.TransformerEncoderLayer(8, 2, dim_feedforward=16),
         js("TransformerEncoderLayer", 8, 2, dimFeedforward=16))
    case("TransformerDecoderLayer", nn.TransformerDecoderLayer(8, 2, dim_feedforward=16),
         js("TransformerDecoderLayer", 8, 2, dimFeedforward=16))
    case("TransformerEncoder with norm",
         nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, dim_feedforward=16), 2, norm=nn.LayerNorm(8)),
         js("TransformerEncoder", jsmod(js("TransformerEncoderLayer", 8, 2, dimFeedforward=16)), 2,
            norm=jsmod(js("LayerNorm", 8))))
    case("TransformerDecoder",
         nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, dim_feedforward=16), 2),
         js("TransformerDecoder", jsmod(js("TransformerDecoderLayer", 8, 2, dimFeedforward=16)), 2))
    case("PositionalEncoding", PositionalEncoding(8, max_len=50), js("PositionalEncoding", 8, maxLen=50))
    case("CrossEntropyLoss weight", nn.CrossEntropyLoss(weight=torch.ones(3)), js("CrossEntropyLoss", weight={"$ones": [3]}))
    case("CrossEntropyLoss", nn.CrossEntropyLoss(), js("CrossEntropyLoss"))
    case("BCEWithLogitsLoss pos_weight", nn.BCEWithLogitsLoss(pos_weight=torch.ones(4)),
         js("BCEWithLogitsLoss", posWeight={"$ones": [4]}))
    case("Net", Net(), js("Net"))

    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nn_names_ref.json")
    with open(out, "w") as f:
        json.dump({"generator": "tests/data/gen_nn_names.py", "torch": torch.__version__, "cases": CASES}, f, indent=1)
    print("wrote", out, len(CASES), "cases")


if __name__ == "__main__":
    main()
