#!/usr/bin/python3
"""Generates tests/data/schedulers_lambda_cyclic_ref.json: PyTorch 1.13's LambdaLR, MultiplicativeLR,
ConstantLR, PolynomialLR, CosineAnnealingWarmRestarts, CyclicLR, SequentialLR and
ChainedScheduler, for tests/js/optim_schedulers_lambda_cyclic.test.mjs (gen_schedulers.py covers the
others). Run with Debian's PyTorch: /usr/bin/python3 tests/data/gen_schedulers_lambda_cyclic.py

As gen_schedulers.py: two param groups of different lrs, the scheduler made (its constructor
takes the first step), then STEPS times optimizer.step() and scheduler.step(); each group's lr
after construction and after every step (and the momentum when CyclicLR cycles it). Lambdas are
named (LAMBDAS, written identically in the JS test); composite schedulers list their children
(made first, in order, on the same optimizer). A case with "epochs" calls step(epoch) with those
(fractional) epochs instead (CosineAnnealingWarmRestarts). Options are simdgrad's camelCase names.
"""
import torch
from torch.optim import lr_scheduler as L
from ref_json import write

STEPS = 40

LAMBDAS = {
    "pow0.95": lambda e: 0.95 ** e,
    "inverse": lambda e: 1 / (e + 1),
    "times0.9": lambda e: 0.9,
    "alternate": lambda e: 0.99 if e % 2 else 0.8,
}

TORCH_NAMES = {
    "factor": "factor", "totalIters": "total_iters", "power": "power", "t0": "T_0", "tMult": "T_mult",
    "etaMin": "eta_min", "baseLr": "base_lr", "maxLr": "max_lr", "stepSizeUp": "step_size_up",
    "stepSizeDown": "step_size_down", "mode": "mode", "gamma": "gamma", "cycleMomentum": "cycle_momentum",
    "baseMomentum": "base_momentum", "maxMomentum": "max_momentum", "startFactor": "start_factor",
    "endFactor": "end_factor", "tMax": "T_max", "stepSize": "step_size", "milestones": "milestones",
    "lr": "lr", "momentum": "momentum",
}

SGD = {"algorithm": "SGD", "options": {"lr": 0.1, "momentum": 0.9}, "groupLrs": [0.1, 0.02]}
ADAM = {"algorithm": "Adam", "options": {"lr": 0.01}, "groupLrs": [0.01, 0.003]}
RMSPROP = {"algorithm": "RMSprop", "options": {"lr": 0.01, "momentum": 0.5}, "groupLrs": [0.01, 0.03]}


def child(kind, options):
    return {"scheduler": kind, "options": options}


CASES = [
    {"name": "LambdaLR one lambda", "scheduler": "LambdaLR", "optimizer": SGD, "lambdas": ["pow0.95"]},
    {"name": "LambdaLR one per group", "scheduler": "LambdaLR", "optimizer": ADAM, "lambdas": ["pow0.95", "inverse"]},
    {"name": "MultiplicativeLR", "scheduler": "MultiplicativeLR", "optimizer": SGD, "lambdas": ["times0.9"]},
    {"name": "MultiplicativeLR one per group", "scheduler": "MultiplicativeLR", "optimizer": ADAM, "lambdas": ["alternate", "times0.9"]},
    {"name": "ConstantLR defaults", "scheduler": "ConstantLR", "optimizer": SGD, "options": {}},
    {"name": "ConstantLR factor 0.5 for 4", "scheduler": "ConstantLR", "optimizer": ADAM, "options": {"factor": 0.5, "totalIters": 4}},
    {"name": "PolynomialLR defaults", "scheduler": "PolynomialLR", "optimizer": SGD, "options": {}},
    {"name": "PolynomialLR power 2 over 30", "scheduler": "PolynomialLR", "optimizer": ADAM, "options": {"totalIters": 30, "power": 2.0}},
    {"name": "CosineAnnealingWarmRestarts tMult 2", "scheduler": "CosineAnnealingWarmRestarts", "optimizer": SGD,
     "options": {"t0": 3, "tMult": 2, "etaMin": 0.001}},
    {"name": "CosineAnnealingWarmRestarts tMult 1", "scheduler": "CosineAnnealingWarmRestarts", "optimizer": ADAM, "options": {"t0": 7}},
    {"name": "CosineAnnealingWarmRestarts fractional epochs", "scheduler": "CosineAnnealingWarmRestarts", "optimizer": SGD,
     "options": {"t0": 2, "tMult": 3}, "epochs": [k * 0.3 for k in range(1, 41)]},
    {"name": "CyclicLR triangular with momentum", "scheduler": "CyclicLR", "optimizer": SGD,
     "options": {"baseLr": 0.001, "maxLr": 0.1, "stepSizeUp": 4, "stepSizeDown": 6}},
    {"name": "CyclicLR triangular2 per group", "scheduler": "CyclicLR", "optimizer": RMSPROP,
     "options": {"baseLr": [0.001, 0.002], "maxLr": [0.01, 0.05], "stepSizeUp": 5, "mode": "triangular2",
                 "baseMomentum": [0.7, 0.8], "maxMomentum": 0.95}},
    {"name": "CyclicLR exp_range without momentum", "scheduler": "CyclicLR", "optimizer": ADAM,
     "options": {"baseLr": 0.001, "maxLr": 0.006, "stepSizeUp": 3, "mode": "exp_range", "gamma": 0.95, "cycleMomentum": False}},
    {"name": "SequentialLR warm-up then cosine", "scheduler": "SequentialLR", "optimizer": SGD,
     "children": [child("LinearLR", {"startFactor": 0.1, "totalIters": 5}), child("CosineAnnealingLR", {"tMax": 20})],
     "milestones": [5]},
    {"name": "SequentialLR constant, exponential, step", "scheduler": "SequentialLR", "optimizer": ADAM,
     "children": [child("ConstantLR", {"factor": 0.5, "totalIters": 2}), child("ExponentialLR", {"gamma": 0.9}),
                  child("StepLR", {"stepSize": 4, "gamma": 0.5})], "milestones": [3, 12]},
    {"name": "SequentialLR multistep, warm restarts, polynomial", "scheduler": "SequentialLR", "optimizer": SGD,
     "children": [child("MultiStepLR", {"milestones": [2, 4], "gamma": 0.5}), child("CosineAnnealingWarmRestarts", {"t0": 4}),
                  child("PolynomialLR", {"totalIters": 8})], "milestones": [6, 20]},
    {"name": "ChainedScheduler constant and exponential", "scheduler": "ChainedScheduler", "optimizer": SGD,
     "children": [child("ConstantLR", {"factor": 0.1, "totalIters": 2}), child("ExponentialLR", {"gamma": 0.9})]},
    {"name": "ChainedScheduler linear and cosine", "scheduler": "ChainedScheduler", "optimizer": ADAM,
     "children": [child("LinearLR", {"startFactor": 0.5, "totalIters": 4}), child("CosineAnnealingLR", {"tMax": 10, "etaMin": 0.0001})]},
]


def kwargs_of(options):
    return {TORCH_NAMES[k]: v for k, v in options.items()}


def make(kind, opt, options=None, lambdas=None):
    if lambdas is not None:
        fns = [LAMBDAS[n] for n in lambdas]
        return getattr(L, kind)(opt, fns[0] if len(fns) == 1 else fns)
    return getattr(L, kind)(opt, **kwargs_of(options))


def main():
    cases = []
    for c in CASES:
        params = [torch.zeros(3, requires_grad=True), torch.zeros(2, requires_grad=True)]
        spec = c["optimizer"]
        groups = [{"params": [p], "lr": lr} for p, lr in zip(params, spec["groupLrs"])]
        opt = getattr(torch.optim, spec["algorithm"])(groups, **kwargs_of(spec["options"]))
        kind = c["scheduler"]
        if kind == "SequentialLR":
            children = [make(ch["scheduler"], opt, ch["options"]) for ch in c["children"]]
            sched = L.SequentialLR(opt, children, c["milestones"])
        elif kind == "ChainedScheduler":
            sched = L.ChainedScheduler([make(ch["scheduler"], opt, ch["options"]) for ch in c["children"]])
        else:
            sched = make(kind, opt, c.get("options"), c.get("lambdas"))
        lrs = [[g["lr"] for g in opt.param_groups]]
        momenta = [[g.get("momentum") for g in opt.param_groups]]
        epochs = c.get("epochs")
        for k in range(len(epochs) if epochs else STEPS):
            for p in params:
                p.grad = torch.full_like(p, 0.1)
            opt.step()
            if epochs:
                sched.step(epochs[k])
            else:
                sched.step()
            lrs.append([g["lr"] for g in opt.param_groups])
            momenta.append([g.get("momentum") for g in opt.param_groups])
        out = dict(c)
        out["lrs"] = lrs
        if kind == "CyclicLR" and c["options"].get("cycleMomentum", True):
            out["momenta"] = momenta
        cases.append(out)
    write("gen_schedulers_lambda_cyclic.py", "schedulers_lambda_cyclic_ref.json", {"cases": cases})


if __name__ == "__main__":
    main()
