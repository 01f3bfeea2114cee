#!/usr/bin/python3
"""Generates tests/data/optim_js_ref.json: PyTorch 1.13 trajectories of optimizers with several
parameter groups, and of optimizers driven by a learning-rate scheduler (whose momentum cycling
changes SGD's momentum / Adam's beta1 between steps), for tests/js/optim_reference.test.mjs.
(Single-group trajectories of every option are in optim_ref.json, from gen_optim.py.)

Run with Debian's PyTorch: /usr/bin/python3 tests/data/gen_optim_js.py

Three parameters (shapes [3, 5], [7], [2, 2]) start from fixed values; a fixed gradient per step
and parameter is applied (parameter 2 has none at step 1: PyTorch skips it). Groups: parameters
0 and 1 in group 0, parameter 2 in group 1. Options are simdgrad's JS names.
"""
import json
import os

import torch

STEPS = 9
SHAPES = [[3, 5], [7], [2, 2]]
NONE_AT = (2, 1)

TORCH_NAMES = {"lr": "lr", "momentum": "momentum", "dampening": "dampening", "weightDecay": "weight_decay",
               "nesterov": "nesterov", "eps": "eps", "amsgrad": "amsgrad", "alpha": "alpha",
               "centered": "centered", "lrDecay": "lr_decay", "betas": "betas", "maximize": "maximize",
               "initialAccumulatorValue": "initial_accumulator_value",
               "stepSize": "step_size", "gamma": "gamma", "maxLr": "max_lr", "totalSteps": "total_steps",
               "tMax": "T_max", "etaMin": "eta_min", "pctStart": "pct_start"}

# (name, algorithm, defaults, [group 0 overrides, group 1 overrides], scheduler or None)
CASES = [
    ("SGD groups", "SGD", {"lr": 0.1, "momentum": 0.9},
     [{}, {"lr": 0.01, "momentum": 0.5, "nesterov": True, "weightDecay": 0.1}], None),
    ("Adam groups", "Adam", {"lr": 0.01},
     [{}, {"lr": 0.05, "amsgrad": True, "betas": [0.8, 0.9], "weightDecay": 0.01}], None),
    ("AdamW groups", "AdamW", {"lr": 0.02, "weightDecay": 0.1}, [{}, {"weightDecay": 0.0, "eps": 1e-4}], None),
    ("RMSprop groups", "RMSprop", {"lr": 0.01, "alpha": 0.9},
     [{"centered": True}, {"lr": 0.003, "momentum": 0.7}], None),
    ("Adagrad groups", "Adagrad", {"lr": 0.1, "lrDecay": 0.05},
     [{}, {"lr": 0.3, "initialAccumulatorValue": 0.2}], None),
    ("SGD momentum with StepLR", "SGD", {"lr": 0.2, "momentum": 0.9}, [{}, {"lr": 0.05}],
     ("StepLR", {"stepSize": 3, "gamma": 0.5})),
    ("Adam with OneCycleLR (beta1 cycling)", "Adam", {"lr": 0.01}, [{}, {}],
     ("OneCycleLR", {"maxLr": [0.05, 0.02], "totalSteps": 10, "pctStart": 0.3})),
    ("SGD with OneCycleLR (momentum cycling)", "SGD", {"lr": 0.1, "momentum": 0.9}, [{}, {"nesterov": True}],
     ("OneCycleLR", {"maxLr": 0.1, "totalSteps": 10})),
    ("RMSprop with CosineAnnealingLR", "RMSprop", {"lr": 0.01, "momentum": 0.3}, [{}, {}],
     ("CosineAnnealingLR", {"tMax": 4, "etaMin": 0.001})),
]


def torch_kwargs(options):
    return {TORCH_NAMES[k]: (tuple(v) if k == "betas" else v) for k, v in options.items()}


def f32(x):
    return float(f"{x:.9g}")


def flat(t):
    return [f32(x) for x in t.detach().reshape(-1).tolist()]


def main():
    torch.manual_seed(7)
    init = [torch.empty(s).uniform_(-1, 1) for s in SHAPES]
    grads = [[torch.randn(s) * (0.3 + k % 3) for s in SHAPES] for k in range(STEPS)]
    cases = []
    for name, algorithm, defaults, overrides, sched in CASES:
        params = [p.clone().requires_grad_(True) for p in init]
        groups = [dict({"params": params[:2]}, **torch_kwargs(overrides[0])),
                  dict({"params": params[2:]}, **torch_kwargs(overrides[1]))]
        opt = getattr(torch.optim, algorithm)(groups, foreach=False, **torch_kwargs(defaults))
        scheduler = None
        if sched is not None:
            scheduler = getattr(torch.optim.lr_scheduler, sched[0])(opt, **torch_kwargs(sched[1]))
        trajectory = []
        for k in range(STEPS):
            for i, p in enumerate(params):
                p.grad = None if (i, k) == NONE_AT else grads[k][i].clone()
            opt.step()
            if scheduler is not None:
                scheduler.step()
            trajectory.append([flat(p) for p in params])
        case = {"name": name, "algorithm": algorithm, "defaults": defaults, "groups": overrides,
                "trajectory": trajectory}
        if sched is not None:
            case["scheduler"] = {"name": sched[0], "options": sched[1]}
        cases.append(case)
    out = {
        "generator": "tests/data/gen_optim_js.py, torch " + torch.__version__,
        "shapes": SHAPES,
        "groups": [[0, 1], [2]],
        "init": [flat(p) for p in init],
        "grads": [[None if (i, k) == NONE_AT else flat(g) for i, g in enumerate(gs)] for k, gs in enumerate(grads)],
        "cases": cases,
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "optim_js_ref.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
