"""Shared by the generators gen_rnn.py, gen_optim_more.py, gen_lbfgs.py, gen_schedulers_more.py,
gen_losses_more.py, gen_interpolate.py, gen_transformer.py, gen_round_decimals.py and gen_ops_compose.py: how a tensor and a whole
reference file are written (each generator imports it from its own folder)."""
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
