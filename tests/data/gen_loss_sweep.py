#!/usr/bin/env python3
"""PyTorch 1.13's loss modules, each with every reduction and with its options set, on fixed inputs:
the loss and its gradients, for tests/js/nn_loss_sweep.test.mjs (the same module built with
sg.nn on the same inputs must agree).

    /usr/bin/python3 tests/data/gen_loss_sweep.py   # writes tests/data/loss_sweep_ref.json

A case: the PyTorch and sg expressions (W is the case's weight tensor, where it has one), the
inputs as ref_json's typed tensors, which of them are differentiated ('grad'), and PyTorch's
result and gradients (of the result's sum).
"""
import json
import os
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ref_json import enc, typed  # noqa: E402

torch.manual_seed(20261130)


def randn(*s):
    return torch.randn(*s)


def sign(*s):
    return torch.randint(0, 2, s).float() * 2 - 1


def classes(n, c):
    return torch.randint(0, c, (n,))


def multilabel_targets():
    # MultiLabelMarginLoss: class indices, each row ended by -1 (or full)
    return torch.tensor([[3, 0, -1, 1], [1, 2, 3, 0], [0, -1, 2, 2]])


# [PyTorch constructor, sg constructor, inputs (name: tensor), names differentiated, W or None]
X = randn(3, 4)
T = randn(3, 4)
LOGITS = randn(3, 5)
TGT = classes(3, 5)
PROBS = torch.softmax(randn(3, 5), 1)
SPEC = [
    ('MSELoss', '', '', [X, T], [0, 1]),
    ('L1Loss', '', '', [X, T], [0, 1]),
    ('SmoothL1Loss', '', '', [X, T], [0, 1]),
    ('SmoothL1Loss', 'beta=0.5', 'beta: 0.5', [X, T], [0, 1]),
    ('HuberLoss', '', '', [X, T], [0, 1]),
    ('HuberLoss', 'delta=0.4', 'delta: 0.4', [X, T], [0, 1]),
    ('BCELoss', '', '', [torch.sigmoid(X), torch.rand(3, 4)], [0]),
    ('BCELoss', 'weight=W', 'weight: W', [torch.sigmoid(X), torch.rand(3, 4)], [0], torch.rand(4) + 0.5),
    ('BCEWithLogitsLoss', '', '', [X, torch.rand(3, 4)], [0]),
    ('BCEWithLogitsLoss', 'pos_weight=W', 'posWeight: W', [X, torch.rand(3, 4)], [0], torch.rand(4) + 0.5),
    ('BCEWithLogitsLoss', 'weight=W', 'weight: W', [X, torch.rand(3, 4)], [0], torch.rand(3, 1) + 0.5),
    ('CrossEntropyLoss', '', '', [LOGITS, TGT], [0]),
    ('CrossEntropyLoss', 'weight=W', 'weight: W', [LOGITS, TGT], [0], torch.rand(5) + 0.5),
    ('CrossEntropyLoss', 'ignore_index=2', 'ignoreIndex: 2', [LOGITS, torch.tensor([2, 0, 4])], [0]),
    ('CrossEntropyLoss', 'label_smoothing=0.2', 'labelSmoothing: 0.2', [LOGITS, TGT], [0]),
    ('CrossEntropyLoss', 'weight=W, label_smoothing=0.1', 'weight: W, labelSmoothing: 0.1', [LOGITS, TGT], [0], torch.rand(5) + 0.5),
    ('CrossEntropyLoss', '', '', [LOGITS, PROBS], [0]),
    ('CrossEntropyLoss', 'label_smoothing=0.3', 'labelSmoothing: 0.3', [LOGITS, PROBS], [0]),
    ('CrossEntropyLoss', '', '', [randn(2, 5, 3), torch.randint(0, 5, (2, 3))], [0]),
    ('NLLLoss', '', '', [torch.log_softmax(LOGITS, 1), TGT], [0]),
    ('NLLLoss', 'weight=W, ignore_index=1', 'weight: W, ignoreIndex: 1', [torch.log_softmax(LOGITS, 1), torch.tensor([1, 3, 0])], [0], torch.rand(5) + 0.5),
    ('KLDivLoss', '', '', [torch.log_softmax(LOGITS, 1), PROBS], [0]),
    ('KLDivLoss', 'log_target=True', 'logTarget: true', [torch.log_softmax(LOGITS, 1), torch.log(PROBS)], [0]),
    ('CosineEmbeddingLoss', '', '', [X, T, sign(3)], [0, 1]),
    ('CosineEmbeddingLoss', 'margin=0.3', 'margin: 0.3', [X, T, sign(3)], [0, 1]),
    ('TripletMarginLoss', '', '', [X, T, randn(3, 4)], [0, 1, 2]),
    ('TripletMarginLoss', 'margin=2.0, p=1.0, swap=True', 'margin: 2, p: 1, swap: true', [X, T, randn(3, 4)], [0, 1, 2]),
    ('TripletMarginLoss', 'eps=0.5', 'eps: 0.5', [X, T, randn(3, 4)], [0, 1, 2]),
    ('MarginRankingLoss', '', '', [randn(5), randn(5), sign(5)], [0, 1]),
    ('MarginRankingLoss', 'margin=0.5', 'margin: 0.5', [randn(5), randn(5), sign(5)], [0, 1]),
    ('HingeEmbeddingLoss', '', '', [X, sign(3, 4)], [0]),
    ('HingeEmbeddingLoss', 'margin=0.5', 'margin: 0.5', [X, sign(3, 4)], [0]),
    ('MultiLabelSoftMarginLoss', '', '', [X, torch.randint(0, 2, (3, 4)).float()], [0]),
    ('MultiLabelSoftMarginLoss', 'weight=W', 'weight: W', [X, torch.randint(0, 2, (3, 4)).float()], [0], torch.rand(4) + 0.5),
    ('SoftMarginLoss', '', '', [X, sign(3, 4)], [0]),
    ('MultiMarginLoss', '', '', [LOGITS, TGT], [0]),
    ('MultiMarginLoss', 'p=2, margin=0.5', 'p: 2, margin: 0.5', [LOGITS, TGT], [0]),
    ('MultiMarginLoss', 'weight=W', 'weight: W', [LOGITS, TGT], [0], torch.rand(5) + 0.5),
    ('MultiLabelMarginLoss', '', '', [X, multilabel_targets()], [0]),
    ('PoissonNLLLoss', '', '', [X, torch.rand(3, 4) * 3], [0]),
    ('PoissonNLLLoss', 'log_input=False, full=True', 'logInput: false, full: true', [torch.rand(3, 4) + 0.1, torch.rand(3, 4) * 3 + 1], [0]),
    ('PoissonNLLLoss', 'log_input=False, eps=0.1', 'logInput: false, eps: 0.1', [torch.rand(3, 4), torch.rand(3, 4) * 3], [0]),
    ('GaussianNLLLoss', '', '', [X, T, torch.rand(3, 4) + 0.1], [0, 2]),
    ('GaussianNLLLoss', 'full=True, eps=0.2', 'full: true, eps: 0.2', [X, T, torch.rand(3, 4)], [0, 2]),
    ('GaussianNLLLoss', '', '', [X, T, torch.rand(3, 1) + 0.1], [0, 2]),
]

cases = []
for spec in SPEC:
    name, t_opts, s_opts, inputs, grads = spec[:5]
    W = spec[5] if len(spec) > 5 else None
    reductions = ['none', 'mean', 'sum'] + (['batchmean'] if name == 'KLDivLoss' else [])
    for red in reductions:
        t_args = ', '.join(a for a in [t_opts, f"reduction='{red}'"] if a)
        s_args = ', '.join(a for a in [s_opts, f"reduction: '{red}'"] if a)
        t_expr, s_expr = f'nn.{name}({t_args})', f'new sg.nn.{name}({{ {s_args} }})'
        m = eval(t_expr)
        xs = [t.clone().requires_grad_(i in grads) for i, t in enumerate(inputs)]
        r = m(*xs)
        r.sum().backward()
        cases.append({'torch': t_expr, 'sg': s_expr, 'W': typed(W) if W is not None else None,
                      'inputs': [typed(t) for t in inputs], 'grad': grads, 'result': enc(r),
                      'grads': [enc(xs[i].grad) for i in grads]})
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'loss_sweep_ref.json')
with open(path, 'w') as f:
    head = json.dumps({'generator': 'tests/data/gen_loss_sweep.py', 'torch': torch.__version__})[:-1]
    f.write(head + ', "cases": [\n' + ',\n'.join(json.dumps(c, separators=(',', ':')) for c in cases) + '\n]}\n')
print(f'{len(cases)} cases -> {path}')
