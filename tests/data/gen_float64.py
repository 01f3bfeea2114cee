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
CLASS_W = torch.tensor([0.7, 1.3, 0.9, 1.1, 0.6], dtype=torch.float64)
BCE_W = torch.tensor([0.6, 1.4, 0.9, 1.2], dtype=torch.float64)  # float64.test.mjs has the same (constants)
POS_W = torch.tensor([1.5, 0.5, 2.0, 1.0], dtype=torch.float64)  # float64.test.mjs has the same  # a domain for log, sqrt, rsqrt, reciprocal, pow's base

def rnn_out(module, params, x, state):
    """The module's outputs and final states, flattened into one tensor, with params as its parameters
    (float64.test.mjs passes them through sg.func.functionalCall)."""
    # PyTorch 1.13's functional_call misses the RNN modules' cached _flat_weights: the input
    # tensors replace the parameters as plain attributes and the cache is rebuilt from them.
    for name, t in params.items():
        delattr(module, name)
        setattr(module, name, t)
    module._flat_weights = [getattr(module, n) for n in module._flat_weights_names]
    out, last = module(x, state)
    finals = last if isinstance(last, tuple) else (last,)
    return torch.cat([out.flatten()] + [t.flatten() for t in finals])


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
    # rearranging (composed of index_select / narrow+cat / expand: gradients routed in float64)
    "flip": ([((3, 4), -2, 2)], lambda x: x.flip(0, 1)),
    "roll": ([((3, 4), -2, 2)], lambda x: x.roll((1, -3), (0, 1))),
    "repeat": ([((2, 3), -2, 2)], lambda x: x.repeat(2, 1, 2)),
    "tile": ([((2, 3), -2, 2)], lambda x: x.tile((3,))),
    "padConstant": ([((2, 3, 4), -2, 2)], lambda x: F.pad(x, (1, 2, 0, 1), value=0.3)),
    "padReflect": ([((2, 3, 4), -2, 2)], lambda x: F.pad(x, (2, 1, 1, 2), mode="reflect")),
    "padReplicate": ([((2, 3, 4), -2, 2)], lambda x: F.pad(x, (3, 1), mode="replicate")),
    # special functions (ATen's double kernels; gradients derivatives.yaml's)
    "erfinv": ([((3, 4), -0.9, 0.9)], torch.erfinv),
    "erfc": ([((3, 4), -2, 2)], torch.erfc),
    "lgamma": ([((3, 4), 0.2, 4)], torch.lgamma),
    "digamma": ([((3, 4), 0.2, 4)], torch.digamma),
    "polygamma1": ([((3, 4), 0.3, 4)], lambda x: torch.polygamma(1, x)),
    "polygamma3": ([((3, 4), 0.5, 4)], lambda x: torch.polygamma(3, x)),
    "i0": ([((3, 4), -3, 3)], torch.i0),
    # losses with class-index targets, probabilities and log-probabilities
    "nllLoss": ([((4, 5), -3, 0)], lambda x: F.nll_loss(x, torch.tensor([1, 0, 4, 2]))),
    "nllLossWeighted": ([((4, 5, 2), -3, 0)],
                        lambda x: F.nll_loss(x, torch.tensor([[1, 0], [4, -100], [2, 2], [0, 3]]), weight=CLASS_W,
                                             reduction="sum")),
    "binaryCrossEntropy": ([((3, 4), 0.05, 0.95), ((3, 4), 0, 1)],
                           lambda x, t: F.binary_cross_entropy(x, t, weight=BCE_W)),
    "binaryCrossEntropyWithLogits": ([((3, 4), -3, 3), ((3, 4), 0, 1)],
                                     lambda x, t: F.binary_cross_entropy_with_logits(x, t, weight=BCE_W,
                                                                                     pos_weight=POS_W, reduction="sum")),
    "klDiv": ([((3, 4), -3, -0.1), ((3, 4), 0.05, 1)], lambda x, t: F.kl_div(x, t, reduction="batchmean")),
    "klDivLogTarget": ([((3, 4), -3, -0.1), ((3, 4), -3, 0)],
                       lambda x, t: F.kl_div(x, t, reduction="mean", log_target=True)),
    "embedding": ([((5, 3), -2, 2)], lambda w: F.embedding(torch.tensor([[0, 4], [2, 2], [1, 4]]), w)),
    # padding_idx: that row gets no gradient by definition (not the derivative: no gradcheck)
    "embeddingPadding": ([((5, 3), -2, 2)],
                         lambda w: F.embedding(torch.tensor([[0, 4], [2, 2], [1, 4]]), w, padding_idx=2)),
    # convolutions and pools (the reference loops in double; conv3d/convTranspose1d/3d and the 3-d and
    # adaptive-max pools are compositions in the JS layer over these)
    "conv1d": ([((2, 3, 7), -1, 1), ((4, 3, 3), -1, 1), ((4,), -1, 1)],
               lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1)),
    "conv2d": ([((2, 3, 5, 6), -1, 1), ((4, 3, 3, 2), -1, 1), ((4,), -1, 1)],
               lambda x, w, b: F.conv2d(x, w, b, padding=(1, 0), dilation=(1, 2))),
    "conv2dGroups": ([((1, 4, 5, 5), -1, 1), ((6, 2, 3, 3), -1, 1)],
                     lambda x, w: F.conv2d(x, w, stride=2, groups=2)),
    "conv3d": ([((1, 2, 4, 4, 4), -1, 1), ((3, 2, 2, 3, 2), -1, 1), ((3,), -1, 1)],
               lambda x, w, b: F.conv3d(x, w, b, padding=1)),
    "convTranspose1d": ([((2, 3, 5), -1, 1), ((3, 2, 3), -1, 1), ((2,), -1, 1)],
                        lambda x, w, b: F.conv_transpose1d(x, w, b, stride=2)),
    "convTranspose2d": ([((2, 3, 4, 4), -1, 1), ((3, 2, 3, 3), -1, 1), ((2,), -1, 1)],
                        lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1)),
    "convTranspose3d": ([((1, 2, 3, 3, 3), -1, 1), ((2, 2, 2, 2, 2), -1, 1)],
                        lambda x, w: F.conv_transpose3d(x, w, stride=2)),
    "maxPool1d": ([((2, 3, 9), -2, 2)], lambda x: F.max_pool1d(x, 3, stride=2, padding=1)),
    "maxPool2d": ([((2, 3, 6, 7), -2, 2)], lambda x: F.max_pool2d(x, (3, 2), stride=2, padding=1, ceil_mode=True)),
    "maxPool3d": ([((1, 2, 4, 5, 4), -2, 2)], lambda x: F.max_pool3d(x, 2, stride=2)),
    "avgPool1d": ([((2, 3, 9), -2, 2)], lambda x: F.avg_pool1d(x, 4, stride=3, padding=2)),
    "avgPool2d": ([((2, 3, 6, 7), -2, 2)],
                  lambda x: F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False)),
    "avgPool3d": ([((1, 2, 4, 5, 4), -2, 2)], lambda x: F.avg_pool3d(x, 2, stride=2)),
    "adaptiveAvgPool2d": ([((2, 3, 7, 5), -2, 2)], lambda x: F.adaptive_avg_pool2d(x, (3, 2))),
    "adaptiveMaxPool2d": ([((2, 3, 7, 5), -2, 2)], lambda x: F.adaptive_max_pool2d(x, (3, 2))),
    # recurrent layers (op rnnLayer: float64 composed step by step), parameters passed as inputs
    # through functional_call; one output tensor: the outputs and final states flattened together
    "lstmProj": ([((4, 2, 3), -1, 1), ((1, 2, 2), -1, 1), ((1, 2, 5), -1, 1), ((20, 3), -0.5, 0.5),
                  ((20, 2), -0.5, 0.5), ((20,), -0.5, 0.5), ((20,), -0.5, 0.5), ((2, 5), -0.5, 0.5)],
                 lambda x, h0, c0, wi, wh, bi, bh, wr: rnn_out(
                     torch.nn.LSTM(3, 5, proj_size=2).double(),
                     dict(weight_ih_l0=wi, weight_hh_l0=wh, bias_ih_l0=bi, bias_hh_l0=bh, weight_hr_l0=wr),
                     x, (h0, c0))),
    "gruBidirectional": ([((3, 2, 3), -1, 1), ((2, 2, 4), -1, 1)] + [((12, 3), -0.5, 0.5), ((12, 4), -0.5, 0.5),
                                                                     ((12,), -0.5, 0.5), ((12,), -0.5, 0.5)] * 2,
                         lambda x, h0, *w: rnn_out(
                             torch.nn.GRU(3, 4, bidirectional=True).double(),
                             dict(zip(["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_ih_l0_reverse",
                                       "weight_hh_l0_reverse", "bias_ih_l0_reverse", "bias_hh_l0_reverse"], w)), x, h0)),
    "rnnReluNoBias": ([((3, 2, 3), -1, 1), ((4, 3), -0.5, 0.5), ((4, 4), -0.5, 0.5)],
                      lambda x, wi, wh: rnn_out(torch.nn.RNN(3, 4, nonlinearity="relu", bias=False).double(),
                                                dict(weight_ih_l0=wi, weight_hh_l0=wh), x, None)),
    # a composed function (an MLP's loss) through many of the above
    "mlp": ([((4, 3), -1, 1), ((5, 3), -1, 1), ((5,), -1, 1), ((2, 5), -1, 1)],
            lambda x, w1, b1, w2: F.linear(torch.tanh(F.linear(x, w1, b1)), w2).log_softmax(1).mean()),
    # attention's causal softmax (the op causalSoftmax) as PyTorch's composed form with the mask
    # built: [2, 4, 6] scores, L < S. Kept last: a case added before would change every later draw.
    "causalSoftmax": ([((2, 4, 6), -3, 3)],
                      lambda x: (x + torch.full((4, 6), float("-inf"), dtype=torch.float64).triu(1)).softmax(-1)),
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
        # Creation computed in double (float64.test.mjs compares to 1e-15: torch's CPU kernel
        # rounds whole SIMD vectors from their first index): linspace's symmetric formula in
        # float64, which a float32 linspace widened would miss by ~1e-8.
        creation = {"linspace": torch.linspace(-1.3, 2.9, 11, dtype=torch.float64).tolist(),
                    "linspaceLong": torch.linspace(0.1, 1e3, 1001, dtype=torch.float64).tolist()}
        json.dump({"torch": torch.__version__, "cases": out, "creation": creation}, f)
        f.write("\n")
    print("wrote", path, len(out), "cases")


if __name__ == "__main__":
    main()
