#!/usr/bin/python3
"""Generates tests/data/init_dtypes_ref.json: which dtypes PyTorch 1.13's torch.nn.init functions
fill on the CPU, for tests/js/nn_init_dtypes.test.mjs (sg.nn.init must take the same ones and
refuse the others by name). Run with Debian's PyTorch: /usr/bin/python3 tests/data/gen_init_dtypes.py

Each function is called on a fresh [4, 5] tensor of each dtype; 'takes' lists the dtypes it filled
without raising. The values are random (PyTorch's generator is not this library's): the test checks
them by exact and statistical properties instead.
"""
import json
import os

import torch

DTYPES = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
          "bfloat16": torch.bfloat16, "int32": torch.int32, "int64": torch.int64}

FUNCTIONS = {
    "uniform_": lambda t: torch.nn.init.uniform_(t, -1.0, 1.0),
    "normal_": lambda t: torch.nn.init.normal_(t, 0.5, 2.0),
    "truncNormal_": lambda t: torch.nn.init.trunc_normal_(t),
    "xavierUniform_": lambda t: torch.nn.init.xavier_uniform_(t),
    "xavierNormal_": lambda t: torch.nn.init.xavier_normal_(t),
    "kaimingUniform_": lambda t: torch.nn.init.kaiming_uniform_(t),
    "kaimingNormal_": lambda t: torch.nn.init.kaiming_normal_(t),
    "orthogonal_": lambda t: torch.nn.init.orthogonal_(t),
}


def takes(fn):
    out = []
    for name, dtype in DTYPES.items():
        try:
            fn(torch.zeros(4, 5, dtype=dtype))
            out.append(name)
        except (RuntimeError, TypeError):
            pass
    return out


def main():
    ref = {"torch": torch.__version__, "takes": {name: takes(fn) for name, fn in FUNCTIONS.items()}}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "init_dtypes_ref.json")
    with open(path, "w") as f:
        json.dump(ref, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
