#!/usr/bin/python3
"""Generates tests/data/optim_defaults_ref.json: PyTorch 1.13's optimizer defaults and which
negative hyper-parameters its constructors refuse (with their messages), and the keyword
parameters of its learning-rate schedulers (those with a default, which simdgrad takes in the
options object), for tests/js/argument_errors.test.mjs (each simdgrad optimizer and scheduler takes
exactly these options, in camelCase, an optimizer with these defaults, refusing the same negative
values by name).

Run with Debian's PyTorch: /usr/bin/python3 tests/data/gen_optim_defaults.py

Left out: foreach, capturable, differentiable and fused (implementation switches of PyTorch's
kernels, not hyper-parameters). SGD's lr has no default in 1.13 (`required`): it is given as 0.1.
"""
import json
import os

import torch

import inspect

SWITCHES = {"foreach", "capturable", "differentiable", "fused"}
SCHEDULERS = ["StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "LinearLR", "OneCycleLR",
              "ReduceLROnPlateau", "CosineAnnealingWarmRestarts", "CyclicLR", "LambdaLR", "MultiplicativeLR",
              "ConstantLR", "PolynomialLR"]
NAMES = ["SGD", "Adam", "AdamW", "Adamax", "Adagrad", "Adadelta", "RMSprop", "NAdam", "RAdam", "LBFGS"]


def main():
    p = [torch.zeros(1, requires_grad=True)]
    out = {}
    for name in NAMES:
        cls = getattr(torch.optim, name)
        given = {"lr": 0.1} if name == "SGD" else {}
        defaults = {k: (list(v) if isinstance(v, tuple) else v) for k, v in cls(p, **given).defaults.items() if k not in SWITCHES}
        negative = {}
        for k, v in defaults.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                continue
            try:
                cls(p, **{**given, k: -1})
                negative[k] = None
            except ValueError as e:
                negative[k] = str(e)
        out[name] = {"given": given, "defaults": defaults, "negative": negative}
    schedulers = {}
    for name in SCHEDULERS:
        params = list(inspect.signature(getattr(torch.optim.lr_scheduler, name)).parameters.values())[1:]  # after optimizer
        schedulers[name] = {
            "positional": [q.name for q in params if q.default is inspect.Parameter.empty],
            # verbose: PyTorch's printing switch, not a scheduling parameter
            "options": [q.name for q in params if q.default is not inspect.Parameter.empty and q.name != "verbose"],
        }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "optim_defaults_ref.json")
    with open(path, "w") as f:
        json.dump({"torch": torch.__version__, "optimizers": out, "schedulers": schedulers}, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
