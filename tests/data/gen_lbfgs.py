#!/usr/bin/python3
"""Generates tests/data/lbfgs_ref.json: PyTorch 1.13's torch.optim.LBFGS on three problems, for
tests/js/optim_lbfgs.test.mjs. Run with Debian's PyTorch: /usr/bin/python3 tests/data/gen_lbfgs.py

Each case calls opt.step(closure) STEPS times and records, after each call, the loss it returned
(the closure's first evaluation), the parameters and the state's func_evals and n_iter:
  - Rosenbrock's function of x [2] from (-1.5, 2), with the strong-Wolfe line search;
  - a 3-class logistic regression (W [3, 4], b [3]) on 10 fixed points, fixed step lr 0.5 and
    historySize 3 (the correction pairs are shifted out), maxIter 5;
  - a badly scaled quadratic of two parameters (one without a gradient term of its own half
    the time: its .grad is None when the closure leaves it out), strong Wolfe, historySize 2.
The JS test writes the same closures with simdgrad ops. 'steps64' records the same problem run
over float64 parameters (from the same float32 starting values), for LBFGS in float64.
`--float64-only` rewrites 'steps64' and keeps the file's float32 steps (see main()).
"""
import json
import os
import sys

import torch
import torch.nn.functional as F
from ref_json import f32, flat, write

STEPS = 4




def trajectory(params, closure, options, steps):
    opt = torch.optim.LBFGS(params, **options)
    out = []
    for _ in range(steps):
        loss = opt.step(closure)
        state = opt.state[params[0]]
        out.append((float(loss), [p.detach().clone() for p in params], state["func_evals"], state["n_iter"]))
    return out


def run(name, make, options, steps=STEPS):
    """make(dtype) → (params, closure). The float32 run is the reference; the float64 run of the
    same problem measures how far rounding alone moves the trajectory (its largest difference
    from the float32 one, per step, relative to 1 + |value|: 'spread')."""
    params, closure = make(torch.float32)
    init = [flat(p) for p in params]
    ref = trajectory(params, closure, options, steps)
    params64, closure64 = make(torch.float64)
    wide = trajectory(params64, closure64, options, steps)
    records = []
    for (loss, ps, evals, iters), (_, ps64, _, _) in zip(ref, wide):
        spread = max(float(((a.double() - b) .abs() / (1 + b.abs())).max()) for a, b in zip(ps, ps64))
        records.append({"loss": f32(loss), "params": [flat(p) for p in ps], "funcEvals": evals, "nIter": iters,
                        "spread": spread})
    # The float64 run itself, to double precision: what sg.optim.LBFGS over float64 parameters
    # must follow.
    records64 = [{"loss": loss, "params": [p.reshape(-1).tolist() for p in ps], "funcEvals": evals, "nIter": iters}
                 for loss, ps, evals, iters in wide]
    return {"name": name, "options": options, "init": init, "steps": records, "steps64": records64}


def main():
    torch.manual_seed(77)
    cases = []

    def rosenbrock(dtype):
        x = torch.tensor([-1.5, 2.0], dtype=dtype, requires_grad=True)

        def closure():
            x.grad = None
            loss = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
            loss.backward()
            return loss
        return [x], closure
    cases.append(run("Rosenbrock, strong Wolfe", rosenbrock, {"line_search_fn": "strong_wolfe"}))

    data = torch.randn(10, 4)
    labels = torch.tensor([0, 1, 2, 0, 1, 2, 2, 1, 0, 0])
    w0 = torch.randn(3, 4) * 0.1

    def logistic(dtype):
        w = w0.to(dtype).clone().requires_grad_(True)
        b = torch.zeros(3, dtype=dtype, requires_grad=True)
        x = data.to(dtype)

        def closure():
            w.grad = None
            b.grad = None
            loss = F.cross_entropy(x @ w.t() + b, labels)
            loss.backward()
            return loss
        return [w, b], closure
    case = run("logistic regression, fixed step, historySize 3", logistic, {"lr": 0.5, "max_iter": 5, "history_size": 3})
    case["data"] = flat(data)
    case["labels"] = labels.tolist()
    cases.append(case)

    def quadratic(dtype):
        u = torch.tensor([3.0, -2.0, 1.0], dtype=dtype, requires_grad=True)
        v = torch.tensor([0.5, 0.5], dtype=dtype, requires_grad=True)
        calls = [0]

        def closure():
            u.grad = None
            v.grad = None
            calls[0] += 1
            loss = (u[0] ** 2 + 10 * u[1] ** 2 + 0.1 * u[2] ** 2) + (u[0] - v[0]) ** 2
            if calls[0] % 2 == 0:
                loss = loss + 3 * v[1] ** 2
            loss.backward()
            return loss
        return [u, v], closure
    cases.append(run("quadratic, strong Wolfe, historySize 2, a parameter without grad", quadratic,
                     {"line_search_fn": "strong_wolfe", "history_size": 2, "max_iter": 6}))

    if "--float64-only" in sys.argv:
        # PyTorch's float32 runs differ between machines in the last bits, which L-BFGS amplifies
        # (on the machine of issue 27 the quadratic's third step took 35 evaluations, not the 29
        # of the committed file's float32 run, written where the float32 test was tuned): this
        # mode keeps the file's float32 steps and spreads and writes only the float64 runs, which
        # agree between machines to about 1e-15.
        old = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "lbfgs_ref.json")))
        for case, kept in zip(cases, old["cases"]):
            assert case["name"] == kept["name"]
            case["init"], case["steps"] = kept["init"], kept["steps"]
            if "data" in kept:
                case["data"] = kept["data"]
    write("gen_lbfgs.py", "lbfgs_ref.json", {"cases": cases})


if __name__ == "__main__":
    main()
