#!/usr/bin/python3
"""Reference values for float64 compute (tests/js/float64.test.mjs), from PyTorch 1.13.

Run with Debian's PyTorch: /usr/bin/python3 tests/data/gen_float64.py
Writes tests/data/float64_ref.json: for each case, float64 inputs (values drawn here, kept in full
double precision: JSON's numbers are doubles and Python writes them exactly), the op's float64
result and the float64 gradients of sum(result * w) for a drawn w of the result's shape, all from
torch in float64 (CPU). The JS test runs the same op by name (its own table of the op in the JS
API) and compares values and gradients to ~1e-12 relative: the point of float64 is that precision.
"""
import json
import os

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(27)


def draw(shape, lo=-2.0, hi=2.0):
    return (torch.rand(shape, dtype=torch.float64) * (hi - lo) + lo)


POS = (0.2, 3.0)
CLASS_W = torch.tensor([0.7, 1.3, 0.9, 1.1, 0.6], dtype=torch.float64)  # float64.test.mjs has the same  # a domain for log, sqrt, rsqrt, reciprocal, pow's base

# name -> (input domains [(shape, lo, hi) | ('int', shape, high)], torch function). The JS test has
# the same names in its own table (float64.test.mjs OPS), written against the JS API.
CASES = {
    # pointwise unary
    "neg": ([((3, 5), -2, 2)], lambda x: -x),
    "exp": ([((3, 5), -2, 2)], torch.exp),
    "log": ([((3, 5), *POS)], torch.log),
    "log2": ([((3, 5), *POS)], torch.log2),
    "log10": ([((3, 5), *POS)], torch.log10),
    "log1p": ([((3, 5), -0.5, 2)], torch.log1p),
    "expm1": ([((3, 5), -2, 2)], torch.expm1),
    "sqrt": ([((3, 5), *POS)], torch.sqrt),
    "rsqrt": ([((3, 5), *POS)], torch.rsqrt),
    "abs": ([((3, 5), -2, 2)], torch.abs),
    "sin": ([((3, 5), -3, 3)], torch.sin),
    "cos": ([((3, 5), -3, 3)], torch.cos),
    "erf": ([((3, 5), -2, 2)], torch.erf),
    "square": ([((3, 5), -2, 2)], torch.square),
    "reciprocal": ([((3, 5), *POS)], torch.reciprocal),
    "relu": ([((3, 5), -2, 2)], torch.relu),
    "sigmoid": ([((3, 5), -4, 4)], torch.sigmoid),
    "tanh": ([((3, 5), -3, 3)], torch.tanh),
    "silu": ([((3, 5), -3, 3)], F.silu),
    "gelu": ([((3, 5), -3, 3)], F.gelu),
    "geluTanh": ([((3, 5), -3, 3)], lambda x: F.gelu(x, approximate="tanh")),
    "selu": ([((3, 5), -2, 2)], F.selu),
    "elu": ([((3, 5), -2, 2)], lambda x: F.elu(x, alpha=0.7)),
    "leakyRelu": ([((3, 5), -2, 2)], lambda x: F.leaky_relu(x, 0.13)),
    "softplus": ([((3, 5), -3, 3)], lambda x: F.softplus(x, beta=1.7, threshold=2.5)),
    "hardtanh": ([((3, 5), -2, 2)], lambda x: F.hardtanh(x, -0.7, 0.9)),
    "clamp": ([((3, 5), -2, 2)], lambda x: torch.clamp(x, -0.3, 0.7)),
    # pointwise binary, with broadcasting and a number
    "add": ([((3, 5), -2, 2), ((5,), -2, 2)], torch.add),
    "sub": ([((3, 1), -2, 2), ((3, 5), -2, 2)], torch.sub),
    "mul": ([((3, 5), -2, 2), ((3, 5), -2, 2)], torch.mul),
    "div": ([((3, 5), -2, 2), ((1, 5), *POS)], torch.div),
    "pow": ([((3, 5), *POS), ((3, 5), -2, 2)], torch.pow),
    "maximum": ([((3, 5), -2, 2), ((3, 5), -2, 2)], torch.maximum),
    "minimum": ([((3, 5), -2, 2), ((3, 5), -2, 2)], torch.minimum),
    "mulNumber": ([((3, 5), -2, 2)], lambda x: x * 0.1),
    "addNumber": ([((3, 5), -2, 2)], lambda x: x + 1e-9),
    "whereGt": ([((3, 5), -2, 2), ((3, 5), -2, 2)], lambda a, b: torch.where(a > b, a * b, a - b)),
    # reductions
    "sumAll": ([((4, 6), -2, 2)], torch.sum),
    "sumDim": ([((4, 6), -2, 2)], lambda x: x.sum(1)),
    "mean": ([((4, 6), -2, 2)], lambda x: x.mean(0)),
    "prod": ([((4, 3), 0.5, 1.5)], lambda x: x.prod(1)),
    "amax": ([((4, 6), -2, 2)], lambda x: x.amax(1)),
    "amin": ([((4, 6), -2, 2)], lambda x: x.amin(0)),
    "var": ([((4, 6), -2, 2)], lambda x: x.var(1)),
    "std": ([((4, 6), -2, 2)], lambda x: x.std(0)),
    "logsumexp": ([((4, 6), -3, 3)], lambda x: x.logsumexp(1)),
    "norm": ([((4, 6), -2, 2)], lambda x: torch.linalg.vector_norm(x, 3, dim=1)),
    # softmax
    "softmax": ([((4, 6), -3, 3)], lambda x: x.softmax(1)),
    "logSoftmax": ([((4, 6), -3, 3)], lambda x: x.log_softmax(0)),
    # matrix products
    "matmul": ([((5, 7), -1, 1), ((7, 3), -1, 1)], torch.matmul),
    "matmulBatched": ([((2, 3, 4), -1, 1), ((4, 5), -1, 1)], torch.matmul),
    "matmulVec": ([((4,), -1, 1), ((2, 4, 3), -1, 1)], torch.matmul),
    "linear": ([((3, 4), -1, 1), ((5, 4), -1, 1), ((5,), -1, 1)], F.linear),
    # scans, sorting and indexing (gradients routed in float64)
    "cumsum": ([((3, 5), -2, 2)], lambda x: x.cumsum(1)),
    "sortValues": ([((3, 5), -2, 2)], lambda x: x.sort(1, descending=True).values),
    "topkValues": ([((3, 5), -2, 2)], lambda x: x.topk(2, 1).values),
    "gather": ([((3, 4), -2, 2)], lambda x: x.gather(1, torch.tensor([[0, 3], [2, 2], [1, 0]]))),
    "indexSelect": ([((4, 3), -2, 2)], lambda x: x.index_select(0, torch.tensor([3, 0, 3]))),
    "scatterAdd": ([((3, 4), -2, 2), ((3, 2), -2, 2)],
                   lambda x, s: x.scatter_add(1, torch.tensor([[0, 3], [2, 2], [1, 0]]), s)),
    "scatter": ([((3, 4), -2, 2), ((3, 2), -2, 2)],
                lambda x, s: x.scatter(1, torch.tensor([[0, 3], [2, 1], [1, 0]]), s)),
    "maskedFill": ([((3, 4), -2, 2)], lambda x: x.masked_fill(x > 0.5, 0.25)),
    "sign": ([((3, 4), -2, 2)], torch.sign),
    # integer and bool results: values only (no gradient flows through them)
    "argmax": ([((3, 5), -2, 2)], lambda x: x.argmax(1).int()),
    "argmin": ([((3, 5), -2, 2)], lambda x: x.argmin(0).int()),
    "argsort": ([((3, 5), -2, 2)], lambda x: x.argsort(1).int()),
    "compare": ([((3, 5), -2, 2), ((3, 5), -2, 2)],
                lambda a, b: torch.stack([a.eq(b), a.ne(b), a.lt(b), a.le(b), a.gt(b), a.ge(b)]).int()),
    # normalization layers (batch statistics) and regression losses
    "layerNorm": ([((3, 6), -2, 2), ((6,), 0.5, 1.5), ((6,), -1, 1)],
                  lambda x, w, b: F.layer_norm(x, [6], w, b, eps=1e-5)),
    "batchNorm": ([((4, 3, 2), -2, 2), ((3,), 0.5, 1.5), ((3,), -1, 1)],
                  lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True, eps=1e-5)),
    "instanceNorm": ([((2, 3, 4), -2, 2), ((3,), 0.5, 1.5), ((3,), -1, 1)],
                     lambda x, w, b: F.instance_norm(x, weight=w, bias=b, eps=1e-5)),
    "groupNorm": ([((2, 4, 3), -2, 2), ((4,), 0.5, 1.5), ((4,), -1, 1)],
                  lambda x, w, b: F.group_norm(x, 2, w, b, eps=1e-5)),
    "mseLoss": ([((4, 3), -2, 2), ((4, 3), -2, 2)], F.mse_loss),
    "l1Loss": ([((4, 3), -2, 2), ((4, 3), -2, 2)], lambda a, b: F.l1_loss(a, b, reduction="sum")),
    "smoothL1Loss": ([((4, 3), -2, 2), ((4, 3), -2, 2)], lambda a, b: F.smooth_l1_loss(a, b, beta=0.3)),
    "huberLoss": ([((4, 3), -2, 2), ((4, 3), -2, 2)], lambda a, b: F.huber_loss(a, b, delta=0.7)),
    "crossEntropy": ([((4, 5), -2, 2)],
                     lambda x: F.cross_entropy(x, torch.tensor([1, 0, 4, 2]), label_smoothing=0.1)),
    "crossEntropyWeighted": ([((4, 5), -2, 2)],
                             lambda x: F.cross_entropy(x, torch.tensor([1, -100, 4, 4]), weight=CLASS_W)),
    # a composed function (an MLP's loss) through many of the above
    "mlp": ([((4, 3), -1, 1), ((5, 3), -1, 1), ((5,), -1, 1), ((2, 5), -1, 1)],
            lambda x, w1, b1, w2: F.linear(torch.tanh(F.linear(x, w1, b1)), w2).log_softmax(1).mean()),
}


def main():
    out = {}
    for name, (domains, fn) in CASES.items():
        inputs = [draw(shape, lo, hi).requires_grad_() for shape, lo, hi in domains]
        y = fn(*inputs)
        w = draw(tuple(y.shape), -1, 1)
        # Integer results carry no gradient: an empty list (the test compares their values exactly).
        grads = torch.autograd.grad((y * w).sum(), inputs) if y.is_floating_point() else []
        out[name] = {
            "inputs": [{"shape": list(t.shape), "values": t.detach().flatten().tolist()} for t in inputs],
            "out": {"shape": list(y.shape), "values": y.detach().flatten().tolist()},
            "w": w.flatten().tolist(),
            "grads": [g.flatten().tolist() for g in grads],
        }
    path = os.path.join(HERE, "float64_ref.json")
    with open(path, "w") as f:
        json.dump({"torch": torch.__version__, "cases": out}, f)
        f.write("\n")
    print("wrote", path, len(out), "cases")


if __name__ == "__main__":
    main()
