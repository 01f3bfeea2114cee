#!/usr/bin/env python3
"""PyTorch 1.13's parameter names of every torch.* function and torch.nn.functional function, for
tests/js/arg_names_torch.test.mjs: an sg op given a wrong argument must name itself and that
argument by PyTorch's name (camelCased). The names come from torch.overrides.get_testing_overrides(),
whose stand-in lambdas carry each function's Python signature.

    /usr/bin/python3 tests/data/gen_arg_names.py   # writes tests/data/arg_names_ref.json
"""
import inspect
import json
import os

import torch

table = {'torch': {}, 'F': {}}
for fn, stand_in in torch.overrides.get_testing_overrides().items():
    name, module = getattr(fn, '__name__', None), getattr(fn, '__module__', '') or ''
    try:
        params = list(inspect.signature(stand_in).parameters)
    except (TypeError, ValueError):
        continue
    if module == 'torch.nn.functional':
        table['F'][name] = params
    elif module == 'torch':
        table['torch'][name] = params
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'arg_names_ref.json')
with open(path, 'w') as f:
    json.dump({'generator': 'tests/data/gen_arg_names.py', 'torch': torch.__version__, **{k: dict(sorted(v.items())) for k, v in table.items()}},
              f, separators=(',', ':'))
    f.write('\n')
print(f"{len(table['torch'])} torch and {len(table['F'])} F signatures -> {path}")
