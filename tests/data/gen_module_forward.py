#!/usr/bin/env python3
"""The output shapes of PyTorch 1.13's nn modules on given inputs, for tests/js/nn_module_sweep.test.mjs:
each module of gen_module_repr.py's table that takes tensors (not the losses, containers and
MaxUnpool) runs forward and backward in sg on inputs of these shapes, must give PyTorch's output
structure and shapes, and must leave no tensor behind.

    /usr/bin/python3 tests/data/gen_module_forward.py   # writes tests/data/module_forward_ref.json

Inputs: a list of shapes (float inputs, randn), or {"int": [shape, high]} for index inputs. Outputs:
PyTorch's result as nested lists of shapes (a tuple such as LSTM's (out, (h, c)) stays nested).
For the modules that draw no random numbers, also the values (ref_json's { shape, data }): the
module's state_dict before the call, the inputs, every output (flattened in order), and the
gradients of the sum of all float outputs with respect to the float inputs and the parameters,
so that the test loads PyTorch's parameters and compares forward and backward.
"""
import json
import os
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_module_repr import CASES  # noqa: E402  (the sg expression of each PyTorch module)
from ref_json import enc, typed  # noqa: E402

A = [[3, 4]]  # an activation's input
INPUTS = {
    'nn.Linear(4, 3)': [[2, 4]], 'nn.Linear(4, 3, bias=False)': [[2, 4]],
    'nn.Bilinear(2, 3, 4)': [[5, 2], [5, 3]], 'nn.Bilinear(2, 3, 4, bias=False)': [[5, 2], [5, 3]],
    'nn.Identity()': [[2, 3]], 'nn.Flatten()': [[2, 3, 4]], 'nn.Flatten(0, 2)': [[2, 3, 4, 5]], 'nn.Unflatten(1, (2, 5))': [[3, 10]],
    'nn.Conv1d(2, 4, 3)': [[2, 2, 9]],
    'nn.Conv1d(2, 4, 3, stride=2, padding=1, dilation=2, groups=2, bias=False, padding_mode="reflect")': [[2, 2, 9]],
    'nn.Conv2d(3, 8, 3)': [[2, 3, 9, 9]],
    'nn.Conv2d(3, 8, (3, 5), stride=(2, 1), padding=(1, 2), bias=False)': [[2, 3, 9, 10]],
    'nn.Conv2d(4, 8, 3, padding="same", dilation=2, groups=4, padding_mode="replicate")': [[1, 4, 7, 7]],
    'nn.Conv3d(2, 4, 3)': [[1, 2, 5, 5, 5]], 'nn.Conv3d(2, 4, (1, 2, 3), stride=2, padding=1, bias=False)': [[1, 2, 4, 5, 6]],
    'nn.ConvTranspose1d(2, 4, 3)': [[2, 2, 5]],
    'nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1)': [[1, 4, 4, 4]],
    'nn.ConvTranspose2d(4, 4, 3, groups=2, bias=False, dilation=2)': [[1, 4, 4, 4]],
    'nn.ConvTranspose3d(2, 4, 2, stride=2)': [[1, 2, 2, 3, 2]],
    'nn.Unfold(3)': [[2, 2, 6, 6]], 'nn.Unfold((2, 3), dilation=2, padding=1, stride=(1, 2))': [[1, 2, 6, 7]],
    'nn.Fold((4, 5), 2)': [[1, 12, 12]],
    'nn.MaxPool1d(3)': [[2, 3, 10]], 'nn.MaxPool1d(3, stride=1, padding=1, dilation=2, ceil_mode=True)': [[2, 3, 10]],
    'nn.MaxPool2d(2)': [[2, 3, 7, 8]], 'nn.MaxPool2d((2, 3), stride=(1, 2), padding=1, ceil_mode=True)': [[1, 2, 7, 8]],
    'nn.AvgPool1d(3)': [[2, 3, 10]], 'nn.AvgPool1d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)': [[2, 3, 10]],
    'nn.AvgPool2d(2)': [[2, 3, 7, 8]], 'nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False)': [[1, 2, 7, 8]],
    'nn.MaxPool3d(2)': [[1, 2, 4, 5, 6]], 'nn.AvgPool3d(2, stride=1)': [[1, 2, 4, 5, 6]],
    'nn.AdaptiveAvgPool1d(5)': [[2, 3, 11]], 'nn.AdaptiveAvgPool2d((3, 4))': [[2, 3, 7, 9]], 'nn.AdaptiveAvgPool2d(2)': [[1, 2, 5, 5]],
    'nn.AdaptiveMaxPool1d(3)': [[2, 3, 10]], 'nn.AdaptiveMaxPool2d((2, 3))': [[2, 3, 7, 8]],
    'nn.AdaptiveAvgPool3d(2)': [[1, 2, 5, 6, 7]], 'nn.AdaptiveMaxPool3d((1, 2, 3))': [[1, 2, 4, 5, 6]],
    'nn.AdaptiveAvgPool2d((3, None))': [[1, 2, 7, 5]],
    'nn.LPPool1d(2, 3)': [[2, 3, 9]], 'nn.LPPool2d(1.5, 2, stride=1, ceil_mode=True)': [[1, 2, 5, 6]],
    'nn.BatchNorm1d(4)': [[3, 4]],
    'nn.BatchNorm2d(3, eps=0.001, momentum=0.2, affine=False, track_running_stats=False)': [[2, 3, 4, 4]],
    'nn.BatchNorm3d(2, momentum=None)': [[2, 2, 3, 3, 3]],
    'nn.InstanceNorm1d(3)': [[2, 3, 5]], 'nn.InstanceNorm2d(3, affine=True, track_running_stats=True)': [[2, 3, 4, 4]],
    'nn.InstanceNorm3d(2, eps=0.01)': [[2, 2, 3, 3, 3]],
    'nn.LayerNorm(5)': [[2, 5]], 'nn.LayerNorm((2, 3), eps=1e-6, elementwise_affine=False)': [[4, 2, 3]],
    'nn.GroupNorm(2, 4)': [[2, 4, 3]], 'nn.GroupNorm(3, 6, eps=0.01, affine=False)': [[2, 6, 4]], 'nn.GroupNorm(2, 4, eps=1.5e-7)': [[2, 4, 3]],
    'nn.LocalResponseNorm(3)': [[2, 4, 5]], 'nn.LocalResponseNorm(2, alpha=0.001, beta=0.5, k=2.0)': [[2, 4, 3, 3]],
    'nn.Dropout()': A, 'nn.Dropout1d(0.1)': [[2, 3, 4]], 'nn.Dropout2d(0.3)': [[2, 3, 4, 4]], 'nn.Dropout3d(0.4)': [[2, 3, 2, 2, 2]],
    'nn.AlphaDropout(0.2)': A, 'nn.FeatureAlphaDropout(0.2)': [[2, 3, 4, 4]], 'nn.Dropout(p=1e-5)': A, 'nn.Dropout2d(0.3, inplace=True)': [[2, 3, 4, 4]],
    'nn.Embedding(10, 3)': [{'int': [[2, 5], 10]}], 'nn.Embedding(10, 3, padding_idx=0)': [{'int': [[2, 5], 10]}],
    'nn.EmbeddingBag(10, 3)': [{'int': [[2, 4], 10]}], 'nn.EmbeddingBag(10, 3, mode="sum", padding_idx=2)': [{'int': [[2, 4], 10]}],
    'nn.Upsample(scale_factor=2.0)': [[1, 2, 3, 4]],
    'nn.Upsample(size=(4, 6), mode="bilinear", align_corners=True)': [[1, 2, 3, 3]],
    'nn.UpsamplingNearest2d(scale_factor=3)': [[1, 2, 2, 2]], 'nn.UpsamplingBilinear2d(size=5)': [[1, 2, 3, 3]],
    'nn.PixelShuffle(2)': [[1, 8, 3, 3]], 'nn.PixelUnshuffle(3)': [[1, 2, 6, 6]], 'nn.ChannelShuffle(2)': [[1, 4, 2, 2]],
    'nn.CosineSimilarity(dim=0, eps=1e-6)': [[3, 4], [3, 4]], 'nn.PairwiseDistance(p=1.0, keepdim=True)': [[3, 4], [3, 4]],
    'nn.ZeroPad2d(2)': [[1, 2, 3, 3]], 'nn.ZeroPad2d((1, 2, 3, 4))': [[1, 2, 3, 3]],
    'nn.ConstantPad1d(2, 3.5)': [[2, 3, 4]], 'nn.ConstantPad2d((1, 0, 2, 1), -1.0)': [[1, 2, 3, 3]], 'nn.ConstantPad3d(1, 0.5)': [[1, 1, 2, 2, 2]],
    'nn.ReflectionPad1d((1, 2))': [[2, 3, 4]], 'nn.ReflectionPad2d(1)': [[1, 2, 3, 3]], 'nn.ReflectionPad3d(1)': [[1, 1, 2, 3, 3]],
    'nn.ReplicationPad1d(3)': [[2, 3, 4]], 'nn.ReplicationPad2d((0, 1, 2, 3))': [[1, 2, 3, 3]], 'nn.ReplicationPad3d(2)': [[1, 1, 2, 3, 3]],
    'nn.PReLU(3)': [[2, 3, 4]], 'nn.Softmax2d()': [[2, 3, 2, 2]],
    'nn.RNN(3, 5)': [[4, 2, 3]],
    'nn.RNN(3, 5, num_layers=2, nonlinearity="relu", bias=False, batch_first=True, dropout=0.5, bidirectional=True)': [[2, 4, 3]],
    'nn.LSTM(4, 6)': [[5, 2, 4]], 'nn.LSTM(4, 6, num_layers=3, batch_first=True, proj_size=2)': [[2, 5, 4]],
    'nn.LSTM(4, 6, num_layers=2, dropout=1e-5)': [[5, 2, 4]], 'nn.GRU(2, 3, bidirectional=True)': [[4, 2, 2]],
    'nn.RNNCell(3, 4)': [[2, 3]], 'nn.RNNCell(3, 4, bias=False, nonlinearity="relu")': [[2, 3]],
    'nn.LSTMCell(3, 4)': [[2, 3]], 'nn.GRUCell(3, 4, bias=False)': [[2, 3]],
    'nn.MultiheadAttention(8, 2)': [[5, 2, 8], [6, 2, 8], [6, 2, 8]],
    'nn.MultiheadAttention(8, 2, kdim=4, vdim=6)': [[5, 2, 8], [6, 2, 4], [6, 2, 6]],
    'nn.TransformerEncoderLayer(8, 2, dim_feedforward=16)': [[5, 2, 8]],
    'nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, dropout=0.0, activation="gelu", norm_first=True, layer_norm_eps=1e-6)': [[5, 2, 8], [6, 2, 8]],
    'nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Sequential(nn.Linear(3, 1), nn.Sigmoid()))': [[3, 2]],
}
# Activations (every module of the table below nn.ReLU() up to the containers) take A.
SKIP = ('Loss', 'ModuleList', 'ModuleDict', 'MaxUnpool')


# Modules that draw random numbers in train mode (shapes only): dropout modules, RReLU, and those
# with a dropout between layers (TransformerEncoderLayer's default 0.1).
RANDOM = ('Dropout', 'RReLU', 'dropout=0.5', 'dropout=1e-5', 'TransformerEncoderLayer')


def shapes(out):
    if isinstance(out, torch.Tensor):
        return list(out.shape)
    return [shapes(o) for o in out]


def flat(out):
    if isinstance(out, torch.Tensor):
        return [out]
    return [t for o in out for t in flat(o)]


torch.manual_seed(0)
out = []
for torch_expr, sg_expr in CASES:
    if any(s in torch_expr for s in SKIP):
        continue
    m = eval(torch_expr)
    inputs = INPUTS.get(torch_expr)
    if inputs is None:
        inputs = [[2, 3, 2, 2]] if 'Softmax2d' in torch_expr else A
    args = [torch.randint(0, i['int'][1], i['int'][0]) if isinstance(i, dict) else torch.randn(i) for i in inputs]
    if 'LPPool' in torch_expr:
        args = [a.abs() + 0.1 for a in args]  # a fractional power of a negative number is NaN
    inplace = 'inplace=True' in torch_expr
    state = {k: typed(v) for k, v in m.state_dict().items()}
    x = [typed(a) for a in args]
    for a in args:
        a.requires_grad_(a.is_floating_point() and not inplace)
    with torch.no_grad() if inplace else torch.enable_grad():
        r = m(*([a.clone() for a in args] if inplace else args))
    case = {'torch': torch_expr, 'sg': sg_expr, 'inputs': inputs, 'inplace': inplace, 'shapes': shapes(r)}
    if not any(k in torch_expr for k in RANDOM):
        outs = flat(r)
        case.update({'state': state, 'x': x, 'out': [enc(o) for o in outs]})
        if not inplace:
            try:
                sum(o.sum() for o in outs if o.requires_grad).backward()
                case['gradIn'] = [enc(a.grad) if a.grad is not None else None for a in args]
                case['gradParams'] = {k: enc(p.grad) for k, p in m.named_parameters() if p.grad is not None}
            except RuntimeError as e:  # PyTorch 1.13 has no derivative of channel_shuffle
                case['torchNoGrad'] = str(e)
    out.append(case)
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'module_forward_ref.json')
with open(path, 'w') as f:
    # one case a line: the values would take a line each with indent
    head = json.dumps({'generator': 'tests/data/gen_module_forward.py', 'torch': torch.__version__})[:-1]
    f.write(head + ', "cases": [\n' + ',\n'.join(json.dumps(c, separators=(',', ':')) for c in out) + '\n]}\n')
print(f'{len(out)} cases -> {path}')
