#!/usr/bin/python3
"""Reference results of the shape ops on empty tensors (a dim of size 0), from PyTorch 1.13:
for every case, the result's shape(s) (or that PyTorch raises), and after
sum(results).backward() the gradient of each input that requires grad (shape and values).
The cases are named; tests/js/empty_shapes.test.mjs runs the same calls by name.

Run: /usr/bin/python3 tests/data/gen_empty_shapes.py  (writes tests/data/empty_shapes_ref.json)
"""
import json
import os

import torch
import torch.nn.functional as F


def z(*shape):
    return torch.zeros(*shape, requires_grad=True)


def o(*shape):
    return torch.ones(*shape, requires_grad=True)


def idx(*shape):
    return torch.zeros(*shape, dtype=torch.long)


# name -> (inputs that require grad, function of them returning a tensor or a list of tensors)
CASES = {
    'cat 1-D empties': (lambda: [z(0), z(0)], lambda a, b: torch.cat([a, b], 0)),
    'cat [0, 3] along 0': (lambda: [z(0, 3), z(0, 3)], lambda a, b: torch.cat([a, b], 0)),
    'cat [2, 0] along 1': (lambda: [z(2, 0), z(2, 0)], lambda a, b: torch.cat([a, b], 1)),
    'cat [0, 3] along 1': (lambda: [z(0, 3), z(0, 2)], lambda a, b: torch.cat([a, b], 1)),
    'cat empty and full along 1': (lambda: [z(2, 0), o(2, 3)], lambda a, b: torch.cat([a, b], 1)),
    'cat skips [0] beside [2, 3]': (lambda: [z(0), o(2, 3)], lambda a, b: torch.cat([a, b], 0)),
    'stack 1-D empties': (lambda: [z(0), z(0)], lambda a, b: torch.stack([a, b], 0)),
    'stack [2, 0] along 1': (lambda: [z(2, 0), z(2, 0), z(2, 0)], lambda a, b, c: torch.stack([a, b, c], 1)),
    'stack [0, 3] along -1': (lambda: [z(0, 3), z(0, 3)], lambda a, b: torch.stack([a, b], -1)),
    'split size 2 of [0, 3]': (lambda: [z(0, 3)], lambda a: list(torch.split(a, 2, 0))),
    'split size 2 of [4, 0]': (lambda: [z(4, 0)], lambda a: list(torch.split(a, 2, 0))),
    'split sections [0, 0] of [2, 0]': (lambda: [z(2, 0)], lambda a: list(torch.split(a, [0, 0], 1))),
    'split sections [0, 3] of [2, 3]': (lambda: [o(2, 3)], lambda a: list(torch.split(a, [0, 3], 1))),
    'chunk 2 of [0, 3]': (lambda: [z(0, 3)], lambda a: list(torch.chunk(a, 2, 0))),
    'chunk 3 of [2, 0]': (lambda: [z(2, 0)], lambda a: list(torch.chunk(a, 3, 0))),
    'narrow to length 0': (lambda: [o(2, 3)], lambda a: a.narrow(1, 1, 0)),
    'narrow of [0, 3]': (lambda: [z(0, 3)], lambda a: a.narrow(1, 0, 2)),
    'reshape [2, 0, 3] to [3, 0]': (lambda: [z(2, 0, 3)], lambda a: a.reshape(3, 0)),
    'reshape [2, 0, 3] to [0]': (lambda: [z(2, 0, 3)], lambda a: a.reshape(0)),
    'reshape [2, 0, 3] to [-1, 3]': (lambda: [z(2, 0, 3)], lambda a: a.reshape(-1, 3)),
    'reshape [0, 3] to [0, -1] is ambiguous': (lambda: [z(0, 3)], lambda a: a.reshape(0, -1)),
    'view [0, 3] as [3, 0]': (lambda: [z(0, 3)], lambda a: a.view(3, 0)),
    'view [0, 3] as [0, 1, 3]': (lambda: [z(0, 3)], lambda a: a.view(0, 1, 3)),
    'squeeze all of [1, 0, 1]': (lambda: [z(1, 0, 1)], lambda a: a.squeeze()),
    'squeeze dim 0 of [1, 0, 1]': (lambda: [z(1, 0, 1)], lambda a: a.squeeze(0)),
    'squeeze dim 1 of [1, 0, 1] (size 0 stays)': (lambda: [z(1, 0, 1)], lambda a: a.squeeze(1)),
    'unsqueeze [0] at 0': (lambda: [z(0)], lambda a: a.unsqueeze(0)),
    'unsqueeze [0] at -1': (lambda: [z(0)], lambda a: a.unsqueeze(-1)),
    'flatten [2, 0, 3]': (lambda: [z(2, 0, 3)], lambda a: a.flatten()),
    'flatten [2, 0, 3] from 1': (lambda: [z(2, 0, 3)], lambda a: a.flatten(1)),
    'flatten [2, 0, 3] dims 0..1': (lambda: [z(2, 0, 3)], lambda a: a.flatten(0, 1)),
    'permute [2, 0, 3] to (2, 0, 1)': (lambda: [z(2, 0, 3)], lambda a: a.permute(2, 0, 1)),
    'transpose [2, 0, 3] dims 0, 1': (lambda: [z(2, 0, 3)], lambda a: a.transpose(0, 1)),
    'expand [0, 1] to [0, 4]': (lambda: [z(0, 1)], lambda a: a.expand(0, 4)),
    'expand [1, 3] to [0, 3]': (lambda: [o(1, 3)], lambda a: a.expand(0, 3)),
    'expand [2, 0] to [3, 2, 0]': (lambda: [z(2, 0)], lambda a: a.expand(3, 2, 0)),
    'repeat [2, 0] by (2, 3)': (lambda: [z(2, 0)], lambda a: a.repeat(2, 3)),
    'repeat [2, 3] by (0, 1)': (lambda: [o(2, 3)], lambda a: a.repeat(0, 1)),
    'flip [2, 0] along 0': (lambda: [z(2, 0)], lambda a: a.flip(0)),
    'flip [0, 3] along both': (lambda: [z(0, 3)], lambda a: a.flip(0, 1)),
    'roll [2, 0] by 1 along 1': (lambda: [z(2, 0)], lambda a: a.roll(1, 1)),
    'roll [0, 3] flattened': (lambda: [z(0, 3)], lambda a: a.roll(1)),
    'gather with an empty index': (lambda: [o(2, 3)], lambda a: a.gather(1, idx(2, 0))),
    'gather from [2, 0]': (lambda: [z(2, 0)], lambda a: a.gather(1, idx(2, 0))),
    'indexSelect with an empty index': (lambda: [o(2, 3)], lambda a: a.index_select(1, idx(0))),
    'indexSelect of [0, 3] along 0': (lambda: [z(0, 3)], lambda a: a.index_select(0, idx(0))),
    'pad [2, 0] by (1, 1)': (lambda: [z(2, 0)], lambda a: F.pad(a, (1, 1))),
    'pad [0, 3] by (1, 2)': (lambda: [z(0, 3)], lambda a: F.pad(a, (1, 2), value=5.0)),
    'pad [0, 3] by (0, 0, 1, 1)': (lambda: [z(0, 3)], lambda a: F.pad(a, (0, 0, 1, 1))),
    'unbind [0, 3] along 0': (lambda: [z(0, 3)], lambda a: list(torch.unbind(a, 0))),
    'unbind [2, 0] along 0': (lambda: [z(2, 0)], lambda a: list(torch.unbind(a, 0))),
    'slice [2, 3] past the end': (lambda: [o(2, 3)], lambda a: a[:, 3:]),
}


def run(make, fn):
    inputs = make()
    try:
        out = fn(*inputs)
    except RuntimeError as e:
        return {'error': str(e).split('\n')[0]}
    outs = out if isinstance(out, list) else [out]
    total = sum((t.sum() for t in outs), torch.zeros(()))
    result = {
        'list': isinstance(out, list),
        'shapes': [list(t.shape) for t in outs],
        'values': [t.detach().flatten().tolist() for t in outs],
    }
    if total.requires_grad:
        total.backward()
    result['grads'] = [
        None if t.grad is None else {'shape': list(t.grad.shape), 'values': t.grad.flatten().tolist()} for t in inputs
    ]
    return result


def main():
    ref = {'torch': torch.__version__, 'cases': {name: run(*case) for name, case in CASES.items()}}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'empty_shapes_ref.json')
    with open(path, 'w') as f:
        json.dump(ref, f, indent=1)
        f.write('\n')
    print(f'wrote {len(CASES)} cases to {path} (torch {torch.__version__})')


if __name__ == '__main__':
    main()
