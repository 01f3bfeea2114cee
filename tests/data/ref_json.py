"""Shared by the generators gen_rnn.py, gen_optim_adaptive_variants.py, gen_lbfgs.py, gen_schedulers_lambda_cyclic.py,
gen_losses_ranking_nll.py, gen_interpolate.py, gen_transformer.py, gen_round_decimals.py, gen_ops_compose.py, gen_modulo.py,
gen_linalg.py, gen_ops_compose_search.py, gen_nn_activation_fold_grid.py and gen_ops_stack_stats.py: how a tensor, a whole
reference file and an op's case are written (each generator imports it from its own folder)."""
import json
import math
import os

import torch


def f32(x):
    """9 significant digits identify a float32 exactly; shorter than the double's repr."""
    return float(f"{x:.9g}")


def num(x):
    """f32(x), with NaN and ±inf as the strings "nan", "inf", "-inf" (JSON has no such numbers)."""
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f32(x)


def flat(t):
    return [f32(v) for v in t.detach().float().reshape(-1).tolist()]


def enc(t):
    """A tensor as { shape, data } (row-major float32 values)."""
    return {"shape": list(t.shape), "data": flat(t)}


def typed(t):
    """A tensor as { shape, dtype, data }: bool and integer tensors as 0/1 and int32 numbers, the
    rest as float32 values (num: NaN and infinities as strings)."""
    d = t.detach()
    if d.dtype == torch.bool:
        return {"shape": list(d.shape), "dtype": "bool", "data": [int(v) for v in d.reshape(-1).tolist()]}
    if d.dtype in (torch.int64, torch.int32):
        return {"shape": list(d.shape), "dtype": "int32", "data": [int(v) for v in d.reshape(-1).tolist()]}
    return {"shape": list(d.shape), "dtype": "float32", "data": [num(v) for v in d.float().reshape(-1).tolist()]}


def write(generator, name, payload):
    """Writes tests/data/<name> as one line of JSON: { generator: '<generator>, torch <version>', ...payload }."""
    out = {"generator": f"tests/data/{generator}, torch {torch.__version__}", **payload}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", path, os.path.getsize(path), "bytes")


def grad_case(cid, fn, inputs, grad=()):
    """One reference case of an op (gen_ops_compose.py, gen_modulo.py): its id, the inputs (typed;
    'grad' marks those differentiated), every output, and, when some inputs are differentiated, a
    random upstream gradient per output and the gradients of sum(out_k * upstream_k)."""
    ins = [t.clone().requires_grad_(i in grad) for i, t in enumerate(inputs)]
    out = fn(*ins)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    entry = {"id": cid, "inputs": [dict(typed(t), grad=i in grad) for i, t in enumerate(ins)], "outputs": [typed(o) for o in outs]}
    if grad:
        ups = [torch.randn(o.shape) for o in outs]
        total = sum((o * u).sum() for o, u in zip(outs, ups))
        gs = torch.autograd.grad(total, [ins[i] for i in grad])
        entry["upstream"] = [typed(u) for u in ups]
        entry["grads"] = [typed(g) for g in gs]
    return entry


inf, nan = float("inf"), float("nan")


def randn(*shape):
    return torch.randn(*shape)


def i32(*values):
    return torch.tensor(values, dtype=torch.int32)


class Cases(list):
    """A generator's cases, seeded: `case(id, fn, inputs, grad)` appends grad_case's entry."""

    def __init__(self, seed):
        super().__init__()
        torch.manual_seed(seed)

    def case(self, cid, fn, inputs, grad=()):
        self.append(grad_case(cid, fn, inputs, grad))
