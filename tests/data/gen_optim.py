#!/usr/bin/python3
"""Generates tests/data/optim_ref.json: PyTorch 1.13 optimizer trajectories.

Run with Debian's PyTorch: /usr/bin/python3 tests/data/gen_optim.py
(the tests only read the committed JSON; PyTorch is not needed to run them).

Two parameters (shapes [2, 9] and [5]: full SIMD vectors plus a tail, and a tail alone) start
from fixed values; a fixed sequence of gradients, of changing magnitude so that amsgrad's
running maximum matters, is applied step after step. Parameter 1 has no gradient (None) at
step 2, which PyTorch skips (its state and step count do not move). Every case records the
parameters after each step and the final optimizer state, in float32 values. The single-tensor
code paths are used (foreach=False), as simdgrad implements them.
"""
import json
import os

import torch

STEPS = 6
SHAPES = [[2, 9], [5]]
SCALES = [1.0, 0.3, 2.0, 0.1, 1.5, 0.05]  # gradient magnitude per step
NONE_AT = (1, 2)  # (param, step) without a gradient

# (name, algorithm, camelCase hyper-parameters as simdgrad's optimizer_step reads them)
CASES = [
    ("SGD plain", "SGD", {"lr": 0.1}),
    ("SGD momentum", "SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD momentum dampening", "SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.5}),
    ("SGD nesterov", "SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
    ("SGD weight decay momentum", "SGD", {"lr": 0.05, "momentum": 0.5, "weightDecay": 0.1}),
    ("SGD nesterov weight decay maximize", "SGD",
     {"lr": 0.05, "momentum": 0.8, "weightDecay": 0.2, "nesterov": True, "maximize": True}),
    ("Adam default", "Adam", {"lr": 0.01}),
    ("Adam weight decay", "Adam", {"lr": 0.01, "weightDecay": 0.1}),
    ("Adam amsgrad", "Adam", {"lr": 0.01, "amsgrad": True}),
    ("Adam amsgrad weight decay betas eps", "Adam",
     {"lr": 0.02, "beta1": 0.8, "beta2": 0.99, "eps": 1e-6, "weightDecay": 0.05, "amsgrad": True}),
    ("Adam maximize", "Adam", {"lr": 0.01, "maximize": True}),
    ("AdamW default", "AdamW", {"lr": 0.01}),
    ("AdamW weight decay amsgrad", "AdamW", {"lr": 0.01, "weightDecay": 0.1, "amsgrad": True}),
    ("RMSprop default", "RMSprop", {"lr": 0.01}),
    ("RMSprop centered", "RMSprop", {"lr": 0.01, "centered": True}),
    ("RMSprop momentum", "RMSprop", {"lr": 0.01, "momentum": 0.9}),
    ("RMSprop centered momentum weight decay", "RMSprop",
     {"lr": 0.01, "alpha": 0.9, "eps": 1e-6, "momentum": 0.5, "weightDecay": 0.1, "centered": True}),
    ("RMSprop maximize", "RMSprop", {"lr": 0.01, "maximize": True}),
    ("Adagrad default", "Adagrad", {"lr": 0.1}),
    ("Adagrad lr decay", "Adagrad", {"lr": 0.1, "lrDecay": 0.1}),
    ("Adagrad weight decay initial accumulator eps", "Adagrad",
     {"lr": 0.1, "weightDecay": 0.1, "initialAccumulatorValue": 0.5, "eps": 1e-6}),
    ("Adagrad maximize", "Adagrad", {"lr": 0.1, "maximize": True}),
]

TORCH_NAMES = {"lr": "lr", "momentum": "momentum", "dampening": "dampening",
               "weightDecay": "weight_decay", "nesterov": "nesterov", "maximize": "maximize",
               "eps": "eps", "amsgrad": "amsgrad", "alpha": "alpha", "centered": "centered",
               "lrDecay": "lr_decay", "initialAccumulatorValue": "initial_accumulator_value",
               "rho": "rho", "momentumDecay": "momentum_decay"}


def make_optimizer(algorithm, params, hyper):
    kwargs = {"foreach": False}
    for key, value in hyper.items():
        if key in ("beta1", "beta2"):
            continue
        kwargs[TORCH_NAMES[key]] = value
    if "beta1" in hyper or "beta2" in hyper:
        kwargs["betas"] = (hyper.get("beta1", 0.9), hyper.get("beta2", 0.999))
    return getattr(torch.optim, algorithm)(params, **kwargs)


def f32(x):
    # 9 significant digits identify a float32 exactly; shorter than the double's repr.
    return float(f"{x:.9g}")


def flat(t):
    return [f32(x) for x in t.detach().reshape(-1).tolist()]


def main():
    torch.manual_seed(1234)
    init = [torch.empty(s).uniform_(-1, 1) for s in SHAPES]
    grads = [[torch.randn(s) * SCALES[k] for s in SHAPES] for k in range(STEPS)]
    cases = []
    for name, algorithm, hyper in CASES:
        params = [p.clone().requires_grad_(True) for p in init]
        opt = make_optimizer(algorithm, params, hyper)
        trajectory = []
        for k in range(STEPS):
            for i, p in enumerate(params):
                p.grad = None if (i, k) == NONE_AT else grads[k][i].clone()
            opt.step()
            trajectory.append([flat(p) for p in params])
        state = []
        for p in params:
            entries = {}
            for key, value in opt.state[p].items():
                if value is None:
                    continue  # SGD keeps momentum_buffer=None without momentum
                entries[key] = flat(value) if torch.is_tensor(value) else [f32(float(value))]
            state.append(entries)
        cases.append({"name": name, "algorithm": algorithm, "hyper": hyper,
                      "trajectory": trajectory, "final_state": state})
    out = {
        "generator": "tests/data/gen_optim.py, torch " + torch.__version__,
        "shapes": SHAPES,
        "init": [flat(p) for p in init],
        "grads": [[None if (i, k) == NONE_AT else flat(g) for i, g in enumerate(gs)]
                  for k, gs in enumerate(grads)],
        "cases": cases,
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "optim_ref.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
