#!/usr/bin/python3
"""Reference values for sg.autocast and sg.amp.GradScaler (tests/js/amp.test.mjs), from PyTorch 1.13.

Run with Debian's PyTorch: /usr/bin/python3 tests/data/gen_autocast.py
Writes tests/data/autocast_ref.json:
  - autocast: for each op of a program, the dtype of its result under
    torch.autocast('cpu', dtype=torch.bfloat16) (PyTorch 1.13's CPU autocast, the one runnable
    here) when its floating inputs are float32, bfloat16, or mixed (the first bfloat16, the rest
    float32), and outside autocast for the same inputs. A value of None: PyTorch refused the call
    (an op without a bfloat16 CPU kernel in 1.13), not compared.
  - scaler: sequences of torch.cuda.amp.GradScaler steps. Its class (torch/cuda/amp/grad_scaler.py)
    runs unchanged but for its CUDA-only asserts, on CPU tensors, with its two CUDA kernels
    (_amp_foreach_non_finite_check_and_unscale_ and _amp_update_scale_, which 1.13 has only for
    CUDA) written below from aten/src/ATen/native/cuda/AmpKernels.cu: per step, the parameters
    after SGD, whether the step ran, the scale and the growth tracker.
"""
import inspect
import json
import math
import os
import re

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))


def autocast_cases():
    g = torch.Generator().manual_seed(5)

    def r(*shape):
        return torch.randn(*shape, generator=g)

    idx = torch.tensor([1, 0, 3])
    # name (the registry op), inputs (floating tensors are cast per variant), function
    return [
        ("matmul", [r(3, 4), r(4, 2)], lambda a, b: a @ b),
        ("linear", [r(3, 4), r(2, 4), r(2)], lambda a, w, b: F.linear(a, w, b)),
        ("conv1d", [r(1, 2, 6), r(3, 2, 3)], lambda a, w: F.conv1d(a, w)),
        ("conv2d", [r(1, 2, 5, 5), r(3, 2, 3, 3), r(3)], lambda a, w, b: F.conv2d(a, w, b)),
        ("convTranspose2d", [r(1, 2, 4, 4), r(2, 3, 3, 3)], lambda a, w: F.conv_transpose2d(a, w)),
        ("mseLoss", [r(3, 4), r(3, 4)], lambda a, b: F.mse_loss(a, b)),
        ("l1Loss", [r(3, 4), r(3, 4)], lambda a, b: F.l1_loss(a, b)),
        ("smoothL1Loss", [r(3, 4), r(3, 4)], lambda a, b: F.smooth_l1_loss(a, b)),
        ("huberLoss", [r(3, 4), r(3, 4)], lambda a, b: F.huber_loss(a, b)),
        ("nllLoss", [r(3, 4), idx], lambda a, t: F.nll_loss(a, t)),
        ("crossEntropy", [r(3, 4), idx], lambda a, t: F.cross_entropy(a, t)),
        ("binaryCrossEntropy", [torch.rand(3, 4, generator=g), torch.rand(3, 4, generator=g)], lambda a, b: F.binary_cross_entropy(a, b)),
        ("binaryCrossEntropyWithLogits", [r(3, 4), torch.rand(3, 4, generator=g)], lambda a, b: F.binary_cross_entropy_with_logits(a, b)),
        ("softmax", [r(3, 4)], lambda a: torch.softmax(a, -1)),
        ("logSoftmax", [r(3, 4)], lambda a: torch.log_softmax(a, -1)),
        ("layerNorm", [r(3, 4), r(4), r(4)], lambda a, w, b: F.layer_norm(a, [4], w, b)),
        ("sum", [r(3, 4)], lambda a: a.sum()),
        ("mean", [r(3, 4)], lambda a: a.mean()),
        ("exp", [r(3, 4)], lambda a: a.exp()),
        ("add", [r(3, 4), r(3, 4)], lambda a, b: a + b),
        ("mul", [r(3, 4), r(3, 4)], lambda a, b: a * b),
        ("relu", [r(3, 4)], lambda a: torch.relu(a)),
        ("gelu", [r(3, 4)], lambda a: F.gelu(a)),
        ("tanh", [r(3, 4)], lambda a: torch.tanh(a)),
        ("cat", [r(2, 3), r(2, 3)], lambda a, b: torch.cat([a, b])),
        ("stack", [r(2, 3), r(2, 3)], lambda a, b: torch.stack([a, b])),
        ("embedding", [idx, r(5, 3)], lambda i, w: F.embedding(i, w)),
    ]


def spec(t):
    return {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape),
            "values": t.reshape(-1).tolist()}


def autocast_ref():
    out = []
    for name, inputs, fn in autocast_cases():
        floats = [k for k, t in enumerate(inputs) if t.is_floating_point()]
        entry = {"op": name, "inputs": [spec(t) for t in inputs], "results": {}}
        for variant in ["float32", "bfloat16", "mixed"]:
            args = list(inputs)
            for j, k in enumerate(floats):
                low = variant == "bfloat16" or (variant == "mixed" and j == 0)
                args[k] = inputs[k].to(torch.bfloat16) if low else inputs[k]
            for where in ["autocast", "plain"]:
                try:
                    if where == "autocast":
                        with torch.autocast("cpu", dtype=torch.bfloat16):
                            y = fn(*args)
                    else:
                        y = fn(*args)
                    entry["results"][f"{variant} {where}"] = str(y.dtype).replace("torch.", "")
                except RuntimeError:
                    entry["results"][f"{variant} {where}"] = None
        out.append(entry)
    return out


# ---- torch.cuda.amp.GradScaler on CPU ----

def amp_foreach_non_finite_check_and_unscale_(grads, found_inf, inv_scale):
    # AmpKernels.cu: found_inf = 1 if any element is not finite; every element × inv_scale
    # (in float opmath, stored back).
    for g in grads:
        if not bool(torch.isfinite(g).all()):
            found_inf.fill_(1.0)
        g.mul_(inv_scale)


def amp_update_scale_(current_scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval):
    # AmpKernels.cu _amp_update_scale_cuda_kernel: float scale times a double factor, stored as float.
    if float(found_inf.item()):
        current_scale.fill_(float(current_scale.item()) * backoff_factor)
        growth_tracker.fill_(0)
    else:
        successful = int(growth_tracker.item()) + 1
        if successful == growth_interval:
            new_scale = torch.tensor(float(current_scale.item()) * growth_factor, dtype=torch.float32)
            if math.isfinite(float(new_scale)):
                current_scale.fill_(new_scale)
            growth_tracker.fill_(0)
        else:
            growth_tracker.fill_(successful)
    return current_scale


def grad_scaler_class():
    import torch.cuda.amp.grad_scaler as gs
    src = inspect.getsource(gs)
    # CUDA-only asserts and availability checks go; nothing else changes.
    src = "\n".join(l for l in src.split("\n") if not re.match(r"\s*assert .*is_cuda", l))
    src = src.replace("amp_definitely_not_available()", "False")
    src = src.replace("torch._amp_foreach_non_finite_check_and_unscale_", "amp_foreach_non_finite_check_and_unscale_")
    src = src.replace("torch._amp_update_scale_", "amp_update_scale_")
    src = src.replace("from .common import", "from torch.cuda.amp.common import")
    ns = {"__name__": "grad_scaler_cpu",
          "amp_foreach_non_finite_check_and_unscale_": amp_foreach_non_finite_check_and_unscale_,
          "amp_update_scale_": amp_update_scale_}
    exec(compile(src, "grad_scaler_cpu.py", "exec"), ns)
    return ns["GradScaler"]


INF, NAN = float("inf"), float("nan")


def scaler_ref():
    GradScaler = grad_scaler_class()
    scenarios = [
        # growth every 3 clean steps; an inf, a NaN and a gradient that overflows float32 once scaled
        {"options": {"init_scale": 16.0, "growth_factor": 2.0, "backoff_factor": 0.5, "growth_interval": 3},
         "coeffs": [[1, 2, 3], [0.5, -1, 2], [1, 1, 1], [2, -3, 1], [INF, 1, 1], [1, 2, -1], [NAN, 0, 1], [0.25, 0.5, 1],
                    [1, -1, 1], [1, 1, 2], [3e37, 1, 1], [1, 2, 3], [-1, 0.5, 2]],
         "unscale_first": False},
        # odd factors (rounding of the float32 scale), an explicit unscale_ before step
        {"options": {"init_scale": 3.0, "growth_factor": 1.7, "backoff_factor": 0.3, "growth_interval": 2},
         "coeffs": [[1, 2, 3], [1, 1, 1], [2, 2, 2], [INF, 0, 0], [1, -2, 0.5], [1, 1, 1], [0.1, 0.2, 0.3]],
         "unscale_first": True},
        # a scale that would grow past float32's range stays where it is
        {"options": {"init_scale": 2.0 ** 127, "growth_factor": 2.0, "backoff_factor": 0.5, "growth_interval": 1},
         "coeffs": [[1, 0.5, 0.25], [0.5, -1, 1]],
         "unscale_first": False},
    ]
    out = []
    for sc in scenarios:
        p = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
        opt = torch.optim.SGD([p], lr=0.1)
        calls = []
        real_step = opt.step
        opt.step = lambda *a, **k: (calls.append(1), real_step(*a, **k))[1]
        scaler = GradScaler(**sc["options"])
        steps = []
        for c in sc["coeffs"]:
            opt.zero_grad()
            loss = (p * torch.tensor(c)).sum()
            scaler.scale(loss).backward()
            if sc["unscale_first"]:
                scaler.unscale_(opt)
            n = len(calls)
            scaler.step(opt)
            scaler.update()
            steps.append({"coeffs": [str(v) if not math.isfinite(v) else v for v in c],
                          "stepped": len(calls) > n,
                          "params": p.detach().tolist(), "scale": scaler.get_scale(),
                          "growth_tracker": int(scaler._get_growth_tracker())})
        out.append({"options": sc["options"], "unscale_first": sc["unscale_first"], "steps": steps})
    return out


def main():
    ref = {"autocast": autocast_ref(), "scaler": scaler_ref()}
    with open(os.path.join(HERE, "autocast_ref.json"), "w") as f:
        json.dump(ref, f, indent=1)
    for e in ref["autocast"]:
        print(e["op"], e["results"])


if __name__ == "__main__":
    main()
