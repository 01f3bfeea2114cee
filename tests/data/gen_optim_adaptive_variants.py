#!/usr/bin/python3
"""Generates tests/data/optim_adaptive_variants_ref.json: PyTorch 1.13 trajectories of Adadelta, Adamax, NAdam
and RAdam (tests/js/optim_adaptive_variants.test.mjs; LBFGS has its own generator, gen_lbfgs.py).

Run with Debian's PyTorch: /usr/bin/python3 tests/data/gen_optim_adaptive_variants.py

The layout of gen_optim.py's optim_ref.json: two parameters (shapes [2, 9] and [5]: full SIMD
vectors plus a tail, and a tail alone) start from fixed values and get a fixed gradient per step,
of changing magnitude; parameter 1 has none at step 2 (PyTorch skips it). Ten steps, so that
RAdam's variance rectification starts during the run (its ρ_t passes 5 at step 6 with β2 = 0.9
and at step 7 with the default 0.999). Every case records the parameters after each step and
the final state (float32 values). "groups" cases put the two parameters in two param groups
with their own options. The single-tensor code paths are used (foreach=False).
"""
import torch
from ref_json import f32, flat, write

STEPS = 10
SHAPES = [[2, 9], [5]]
SCALES = [1.0, 0.3, 2.0, 0.1, 1.5, 0.05, 0.8, 3.0, 0.2, 1.0]
NONE_AT = (1, 2)

# (name, algorithm, camelCase options, per-group overrides or None)
CASES = [
    ("Adadelta default", "Adadelta", {}, None),
    ("Adadelta rho eps weight decay", "Adadelta", {"lr": 0.5, "rho": 0.8, "eps": 1e-4, "weightDecay": 0.1}, None),
    ("Adadelta maximize", "Adadelta", {"lr": 2.0, "maximize": True}, None),
    ("Adamax default", "Adamax", {}, None),
    ("Adamax betas eps weight decay", "Adamax", {"lr": 0.01, "betas": [0.8, 0.95], "eps": 1e-3, "weightDecay": 0.05}, None),
    ("Adamax maximize", "Adamax", {"lr": 0.02, "maximize": True}, None),
    ("NAdam default", "NAdam", {}, None),
    ("NAdam momentum decay weight decay", "NAdam",
     {"lr": 0.01, "betas": [0.85, 0.99], "eps": 1e-6, "weightDecay": 0.1, "momentumDecay": 0.05}, None),
    ("RAdam default (rectified from step 7)", "RAdam", {"lr": 0.01}, None),
    ("RAdam beta2 0.9 (rectified from step 6) weight decay", "RAdam",
     {"lr": 0.02, "betas": [0.8, 0.9], "eps": 1e-5, "weightDecay": 0.05}, None),
    ("Adadelta groups", "Adadelta", {"lr": 1.0}, [{}, {"rho": 0.5, "lr": 0.3}]),
    ("Adamax groups", "Adamax", {"lr": 0.01}, [{"weightDecay": 0.2}, {"betas": [0.5, 0.9]}]),
    ("NAdam groups", "NAdam", {"lr": 0.01}, [{}, {"momentumDecay": 0.1, "lr": 0.05}]),
    ("RAdam groups", "RAdam", {"lr": 0.01}, [{"betas": [0.9, 0.8]}, {"lr": 0.1}]),
]

TORCH_NAMES = {"lr": "lr", "rho": "rho", "eps": "eps", "weightDecay": "weight_decay", "maximize": "maximize",
               "betas": "betas", "momentumDecay": "momentum_decay"}


def kwargs_of(options):
    return {TORCH_NAMES[k]: (tuple(v) if k == "betas" else v) for k, v in options.items()}




def main():
    torch.manual_seed(4321)
    init = [torch.empty(s).uniform_(-1, 1) for s in SHAPES]
    grads = [[torch.randn(s) * SCALES[k] for s in SHAPES] for k in range(STEPS)]
    cases = []
    for name, algorithm, options, groups in CASES:
        params = [p.clone().requires_grad_(True) for p in init]
        cls = getattr(torch.optim, algorithm)
        if groups is None:
            opt = cls(params, foreach=False, **kwargs_of(options))
        else:
            opt = cls([{"params": [p], **kwargs_of(g)} for p, g in zip(params, groups)], foreach=False,
                      **kwargs_of(options))
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
                entries[key] = flat(value) if torch.is_tensor(value) else [f32(float(value))]
            state.append(entries)
        cases.append({"name": name, "algorithm": algorithm, "options": options, "groups": groups,
                      "trajectory": trajectory, "final_state": state})
    write("gen_optim_adaptive_variants.py", "optim_adaptive_variants_ref.json", {
        "shapes": SHAPES,
        "init": [flat(p) for p in init],
        "grads": [[None if (i, k) == NONE_AT else flat(g) for i, g in enumerate(gs)] for k, gs in enumerate(grads)],
        "cases": cases,
    })


if __name__ == "__main__":
    main()
