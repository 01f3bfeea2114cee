#!/usr/bin/python3
"""Generates tests/data/optim_dtypes_ref.json: PyTorch 1.13 optimizer steps on float64, float16
and bfloat16 parameters (tests/js/optim_dtypes.test.mjs).

Run with Debian's PyTorch: /usr/bin/python3 tests/data/gen_optim_dtypes.py

Two parameters (shapes [3, 5] and [4]) of each dtype start from fixed values; a fixed sequence of
gradients (in the parameter's dtype) is applied for STEPS steps, foreach=False (the single-tensor
paths, as simdgrad implements them). For each case and dtype the file holds:
- float64: torch.optim's own trajectory and final state, in double (the test compares to 1e-12).
- float16/bfloat16: two trajectories.
  'once': simdgrad's rule, computed by torch: each step widens the parameter, its gradient and
  its state to float32 (exactly), runs torch.optim's float32 step on them, and rounds the new
  parameter and state once to the 16-bit dtype (as PyTorch's own CPU kernels round each op's
  result once). The test compares to within one ulp of the 16-bit dtype (the float32 steps
  themselves agree to a few float32 ulps, which can move a rounding by one).
  'native': torch.optim run directly on the 16-bit tensors, every in-place op rounding to the
  dtype; 'native_apart' is the largest distance, in ulps of the dtype, between it and 'once'
  (the test holds simdgrad within that distance + 1 of it). Where PyTorch 1.13's CPU has no half
  kernel for an op the algorithm uses (addcmul_ on float16), 'native' is null and 'native_error'
  holds PyTorch's message.
Each dtype also has 'clip': clip_grad_norm_ and clip_grad_value_ on the third step's gradients,
by torch in that dtype.
"""
import json
import math
import os

import torch

from gen_optim import make_optimizer  # torch.optim from the JS option names (foreach=False)

STEPS = 5
SHAPES = [[3, 5], [4]]
SCALES = [1.0, 0.3, 2.0, 0.5, 1.5]
DTYPES = {"float64": torch.float64, "float16": torch.float16, "bfloat16": torch.bfloat16}

# (name, algorithm, camelCase hyper-parameters as simdgrad's optimizer_step reads them)
CASES = [
    ("SGD momentum nesterov weight decay", "SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weightDecay": 0.1}),
    ("SGD dampening maximize", "SGD", {"lr": 0.1, "momentum": 0.5, "dampening": 0.3, "maximize": True}),
    ("Adam amsgrad weight decay", "Adam", {"lr": 0.01, "weightDecay": 0.05, "amsgrad": True}),
    ("AdamW", "AdamW", {"lr": 0.02, "beta1": 0.8, "beta2": 0.99}),
    ("RMSprop centered momentum", "RMSprop", {"lr": 0.01, "momentum": 0.5, "centered": True, "weightDecay": 0.1}),
    ("Adagrad lr decay", "Adagrad", {"lr": 0.1, "lrDecay": 0.1, "initialAccumulatorValue": 0.2}),
    ("Adadelta", "Adadelta", {"lr": 1.0, "rho": 0.8, "weightDecay": 0.05}),
    ("Adamax", "Adamax", {"lr": 0.02, "weightDecay": 0.05}),
    ("NAdam", "NAdam", {"lr": 0.02, "momentumDecay": 0.004}),
    ("RAdam", "RAdam", {"lr": 0.02, "beta2": 0.9}),
]

def flat(t):
    return [float(x) for x in t.detach().double().reshape(-1).tolist()]


def ulp(dtype, v):
    """The spacing of the 16-bit dtype at |v| (subnormal spacing below the normal range)."""
    mant, emin = (10, -14) if dtype == torch.float16 else (7, -126)
    e = max(math.frexp(abs(v))[1] - 1, emin) if v != 0 else emin
    return 2.0 ** (e - mant)


def run_native(algorithm, hyper, init, grads):
    params = [p.clone().requires_grad_(True) for p in init]
    opt = make_optimizer(algorithm, params, hyper)
    trajectory = []
    for k in range(STEPS):
        for i, p in enumerate(params):
            p.grad = grads[k][i].clone()
        opt.step()
        trajectory.append([flat(p) for p in params])
    state = [{key: flat(v) if torch.is_tensor(v) else [float(v)] for key, v in opt.state[p].items() if v is not None}
             for p in params]
    return trajectory, state


def run_once(algorithm, hyper, init, grads, dtype):
    """Each step in float32 on widened copies, the results rounded once to dtype."""
    params = [p.clone() for p in init]
    states = [{} for _ in params]
    trajectory = []
    for k in range(STEPS):
        wide = [p.float().requires_grad_(True) for p in params]
        opt = make_optimizer(algorithm, wide, hyper)
        for i, w in enumerate(wide):
            w.grad = grads[k][i].float()
            # 'step' and NAdam's 'mu_product' are float32 in PyTorch 1.13 whatever the dtype: kept.
            if states[i]:  # the first step keeps what the constructor made (Adagrad's 'sum')
                opt.state[w] = {key: (v.float().clone() if torch.is_tensor(v) else v) for key, v in states[i].items()}
        opt.step()
        for i, w in enumerate(wide):
            params[i] = w.detach().to(dtype)
            states[i] = {key: (v if not torch.is_tensor(v) else v.to(dtype) if key not in ("step", "mu_product")
                               else v.clone()) for key, v in opt.state[w].items() if v is not None}
        trajectory.append([flat(p) for p in params])
    state = [{key: flat(v) if torch.is_tensor(v) else [float(v)] for key, v in st.items()} for st in states]
    return trajectory, state


def clip_cases(grads):
    """clip_grad_norm_ (max_norm 0.7, each norm type) and clip_grad_value_ (0.3) on grads of one
    dtype, by torch itself (its norms and coefficient are tensors of that dtype)."""
    cases = []
    for norm_type in (2.0, 1.0, math.inf):
        params = [torch.zeros_like(g).requires_grad_(True) for g in grads]
        for p, g in zip(params, grads):
            p.grad = g.clone()
        total = torch.nn.utils.clip_grad_norm_(params, 0.7, norm_type)
        cases.append({"fn": "norm", "normType": "inf" if math.isinf(norm_type) else norm_type,
                      "total": float(total), "grads": [flat(p.grad) for p in params]})
    params = [torch.zeros_like(g).requires_grad_(True) for g in grads]
    for p, g in zip(params, grads):
        p.grad = g.clone()
    torch.nn.utils.clip_grad_value_(params, 0.3)
    cases.append({"fn": "value", "grads": [flat(p.grad) for p in params]})
    return cases


def clip_or_error(grads):
    try:
        return clip_cases(grads)
    except RuntimeError as e:  # PyTorch 1.13's CPU has no float16 clamp_max
        return {"error": str(e)}


def main():
    torch.manual_seed(2713)
    init64 = [torch.empty(s, dtype=torch.float64).uniform_(-1, 1) for s in SHAPES]
    grads64 = [[torch.randn(s, dtype=torch.float64) * SCALES[k] for s in SHAPES] for k in range(STEPS)]
    out = {"generator": "tests/data/gen_optim_dtypes.py, torch " + torch.__version__, "shapes": SHAPES,
           "steps": STEPS, "dtypes": {}}
    for name, dtype in DTYPES.items():
        init = [p.to(dtype) for p in init64]
        grads = [[g.to(dtype) for g in gs] for gs in grads64]
        cases = []
        for case, algorithm, hyper in CASES:
            try:
                native, native_state = run_native(algorithm, hyper, init, grads)
            except RuntimeError as e:  # PyTorch 1.13's CPU lacks some half kernels (addcmul_ for Half)
                native, native_state = None, str(e)
            entry = {"name": case, "algorithm": algorithm, "hyper": hyper}
            if dtype == torch.float64:
                entry.update(trajectory=native, final_state=native_state)
            else:
                once, once_state = run_once(algorithm, hyper, init, grads, dtype)
                apart = None
                if native is not None:
                    apart = 0.0
                    for a_step, b_step in zip(once, native):
                        for a_p, b_p in zip(a_step, b_step):
                            for a, b in zip(a_p, b_p):
                                apart = max(apart, abs(a - b) / ulp(dtype, b))
                entry.update(trajectory=once, final_state=once_state, native=native, native_apart=apart)
                if native is None:
                    entry["native_error"] = native_state
                print(f"{name} {case}: native torch.optim", "refused: " + native_state if native is None
                      else f"{apart:g} ulps from float32 rounded once")
            cases.append(entry)
        out["dtypes"][name] = {"init": [flat(p) for p in init], "grads": [[flat(g) for g in gs] for gs in grads],
                               "cases": cases, "clip": clip_or_error(grads[2])}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "optim_dtypes_ref.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
