#!/usr/bin/python3
"""Generates tests/data/schedulers_ref.json: PyTorch 1.13 learning-rate schedules.

Run with Debian's PyTorch: /usr/bin/python3 tests/data/gen_schedulers.py
(tests/js/optim_schedulers.test.mjs only reads the committed JSON).

Every case builds an optimizer with two parameter groups of different learning rates, makes the
scheduler (whose constructor already takes the first step), then alternates optimizer.step()
and scheduler.step() (scheduler.step(metric) for ReduceLROnPlateau) STEPS times. It records
each group's lr after construction and after every step (and, for OneCycleLR with momentum
cycling, each group's momentum or Adam beta1). Options are written as simdgrad's JS API names
(camelCase); TORCH_NAMES maps them to PyTorch's keywords.
"""
import json
import math
import os

import torch

STEPS = 45

TORCH_NAMES = {
    "stepSize": "step_size", "gamma": "gamma", "milestones": "milestones", "tMax": "T_max",
    "etaMin": "eta_min", "startFactor": "start_factor", "endFactor": "end_factor",
    "totalIters": "total_iters", "maxLr": "max_lr", "totalSteps": "total_steps",
    "epochs": "epochs", "stepsPerEpoch": "steps_per_epoch", "pctStart": "pct_start",
    "annealStrategy": "anneal_strategy", "cycleMomentum": "cycle_momentum",
    "baseMomentum": "base_momentum", "maxMomentum": "max_momentum", "divFactor": "div_factor",
    "finalDivFactor": "final_div_factor", "threePhase": "three_phase", "mode": "mode",
    "factor": "factor", "patience": "patience", "threshold": "threshold",
    "thresholdMode": "threshold_mode", "cooldown": "cooldown", "minLr": "min_lr", "eps": "eps",
    "lr": "lr", "momentum": "momentum", "weightDecay": "weight_decay", "betas": "betas",
}

SGD = {"algorithm": "SGD", "options": {"lr": 0.1, "momentum": 0.9}, "groupLrs": [0.1, 0.02]}
ADAM = {"algorithm": "Adam", "options": {"lr": 0.01}, "groupLrs": [0.01, 0.003]}
ADAGRAD = {"algorithm": "Adagrad", "options": {"lr": 0.1}, "groupLrs": [0.1, 0.5]}
RMSPROP = {"algorithm": "RMSprop", "options": {"lr": 0.01, "momentum": 0.5}, "groupLrs": [0.01, 0.03]}

# A metric that improves, stalls, oscillates and improves again (for ReduceLROnPlateau).
METRICS = [1.0, 0.9, 0.85, 0.86, 0.849, 0.85, 0.851, 0.7, 0.7, 0.7, 0.7, 0.7, 0.69, 0.695, 0.5,
           0.5, 0.5, 0.5, 0.5, 0.5, 0.4, 0.41, 0.42, 0.43, 0.44, 0.45, 0.3, 0.3, 0.3, 0.3,
           0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.29999, 0.3, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2]

CASES = [
    ("StepLR", "StepLR", SGD, {"stepSize": 7, "gamma": 0.5}),
    ("StepLR default gamma", "StepLR", ADAM, {"stepSize": 3}),
    ("MultiStepLR repeated milestone", "MultiStepLR", SGD, {"milestones": [5, 12, 12, 30], "gamma": 0.3}),
    ("ExponentialLR", "ExponentialLR", ADAM, {"gamma": 0.9}),
    ("CosineAnnealingLR restarts", "CosineAnnealingLR", SGD, {"tMax": 10, "etaMin": 0.001}),
    ("CosineAnnealingLR odd period", "CosineAnnealingLR", ADAM, {"tMax": 7}),
    ("LinearLR warm-up", "LinearLR", SGD, {"startFactor": 0.25, "endFactor": 1.0, "totalIters": 8}),
    ("LinearLR decay", "LinearLR", ADAM, {"startFactor": 1.0, "endFactor": 0.1, "totalIters": 20}),
    ("LinearLR defaults", "LinearLR", SGD, {}),
    ("OneCycleLR SGD momentum", "OneCycleLR", SGD, {"maxLr": [0.1, 0.05], "totalSteps": 46}),
    ("OneCycleLR Adam three-phase linear", "OneCycleLR", ADAM,
     {"maxLr": 0.01, "epochs": 5, "stepsPerEpoch": 10, "annealStrategy": "linear", "threePhase": True,
      "divFactor": 10.0, "finalDivFactor": 100.0, "pctStart": 0.25, "baseMomentum": 0.8, "maxMomentum": [0.9, 0.99]}),
    ("OneCycleLR RMSprop cos", "OneCycleLR", RMSPROP, {"maxLr": 0.02, "totalSteps": 50, "pctStart": 0.4}),
    ("OneCycleLR Adagrad no momentum", "OneCycleLR", ADAGRAD, {"maxLr": 1.0, "totalSteps": 60, "cycleMomentum": False}),
    ("ReduceLROnPlateau min rel", "ReduceLROnPlateau", SGD,
     {"patience": 2, "factor": 0.5, "cooldown": 1, "threshold": 0.01, "minLr": [0.01, 0.004]}),
    ("ReduceLROnPlateau max abs", "ReduceLROnPlateau", ADAM,
     {"mode": "max", "thresholdMode": "abs", "threshold": 0.05, "patience": 1, "factor": 0.7}),
    ("ReduceLROnPlateau defaults eps", "ReduceLROnPlateau", ADAGRAD, {"patience": 0, "eps": 0.01, "factor": 0.2}),
]


def torch_kwargs(options):
    out = {}
    for k, v in options.items():
        out[TORCH_NAMES[k]] = tuple(v) if k == "betas" else v
    return out


def momentum_of(group):
    if "betas" in group:
        return group["betas"][0]
    return group.get("momentum")


def main():
    cases = []
    for name, kind, opt_spec, options in CASES:
        params = [torch.zeros(3, requires_grad=True), torch.zeros(2, requires_grad=True)]
        groups = [{"params": [p], "lr": lr} for p, lr in zip(params, opt_spec["groupLrs"])]
        opt = getattr(torch.optim, opt_spec["algorithm"])(groups, **torch_kwargs(opt_spec["options"]))
        sched = getattr(torch.optim.lr_scheduler, kind)(opt, **torch_kwargs(options))
        cycles = kind == "OneCycleLR" and options.get("cycleMomentum", True)
        lrs = [[g["lr"] for g in opt.param_groups]]
        momenta = [[momentum_of(g) for g in opt.param_groups]]
        steps = min(STEPS, getattr(sched, "total_steps", STEPS + 1) - 1)
        for k in range(steps):
            for p in params:
                p.grad = torch.full_like(p, 0.1)
            opt.step()
            if kind == "ReduceLROnPlateau":
                sched.step(METRICS[k])
            else:
                sched.step()
            lrs.append([g["lr"] for g in opt.param_groups])
            momenta.append([momentum_of(g) for g in opt.param_groups])
        case = {"name": name, "scheduler": kind, "optimizer": opt_spec, "options": options, "lrs": lrs}
        if kind == "ReduceLROnPlateau":
            case["metrics"] = METRICS[:steps]
        if cycles:
            case["momenta"] = momenta
        cases.append(case)
    out = {"generator": "tests/data/gen_schedulers.py, torch " + torch.__version__, "cases": cases}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schedulers_ref.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
