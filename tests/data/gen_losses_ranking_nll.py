#!/usr/bin/python3
"""Generates tests/data/losses_ranking_nll_ref.json: PyTorch 1.13's triplet_margin_loss,
margin_ranking_loss, hinge_embedding_loss, multilabel_soft_margin_loss, poisson_nll_loss,
gaussian_nll_loss and torchvision 0.14's ops.sigmoid_focal_loss, for tests/js/nn_losses_ranking_nll.test.mjs.
Run with Debian's PyTorch and torchvision (apt-get install python3-torch python3-torchvision):
    /usr/bin/python3 tests/data/gen_losses_ranking_nll.py

Each case: the function (simdgrad's sg.F name), its tensor arguments, the camelCase options,
the result, and the gradients of Σ result·R (R a fixed random tensor of the result's shape,
written too) with respect to every floating argument that is not a label.
"""
import torch
import torch.nn.functional as F
from torchvision.ops import sigmoid_focal_loss
from ref_json import enc, write

torch.manual_seed(99)

TORCH_NAMES = {"margin": "margin", "p": "p", "eps": "eps", "swap": "swap", "reduction": "reduction",
               "logInput": "log_input", "full": "full", "alpha": "alpha", "gamma": "gamma"}

FUNCTIONS = {
    "tripletMarginLoss": F.triplet_margin_loss,
    "marginRankingLoss": F.margin_ranking_loss,
    "hingeEmbeddingLoss": F.hinge_embedding_loss,
    "multilabelSoftMarginLoss": F.multilabel_soft_margin_loss,
    "poissonNllLoss": F.poisson_nll_loss,
    "gaussianNllLoss": F.gaussian_nll_loss,
    "sigmoidFocalLoss": sigmoid_focal_loss,
}



def case(name, fn, args, differentiable, options=None, weight=None):
    """args: tensors in sg.F's positional order; differentiable: their indices with gradients;
    weight: multilabelSoftMarginLoss's per-class weight."""
    options = options or {}
    ins = [a.clone().requires_grad_(i in differentiable) for i, a in enumerate(args)]
    kwargs = {TORCH_NAMES[k]: v for k, v in options.items()}
    if weight is not None:
        kwargs["weight"] = weight
    out = FUNCTIONS[fn](*ins, **kwargs)
    r = torch.randn_like(out)
    (out * r).sum().backward()
    entry = {"name": name, "fn": fn, "args": [enc(a) for a in args], "options": options, "result": enc(out),
             "r": enc(r), "grads": {str(i): enc(ins[i].grad) for i in differentiable}}
    if weight is not None:
        entry["weight"] = enc(weight)
    return entry


def signs(*shape):
    return torch.randint(0, 2, shape).float() * 2 - 1


def main():
    a, p, n = torch.randn(5, 4), torch.randn(5, 4), torch.randn(5, 4)
    x1, x2 = torch.randn(6), torch.randn(6)
    h = torch.randn(3, 4) * 2
    logits, labels = torch.randn(4, 5) * 2, torch.randint(0, 2, (4, 5)).float()
    cases = []
    for red in ("mean", "sum", "none"):
        cases.append(case(f"triplet {red}", "tripletMarginLoss", [a, p, n], [0, 1, 2], {"reduction": red}))
        cases.append(case(f"margin ranking {red}", "marginRankingLoss", [x1, x2, signs(6)], [0, 1], {"margin": 0.3, "reduction": red}))
        cases.append(case(f"hinge embedding {red}", "hingeEmbeddingLoss", [h, signs(3, 4)], [0], {"reduction": red}))
        cases.append(case(f"multilabel soft margin {red}", "multilabelSoftMarginLoss", [logits, labels], [0], {"reduction": red}))
        cases.append(case(f"sigmoid focal {red}", "sigmoidFocalLoss", [logits, labels], [0], {"reduction": red}))
    cases += [
        case("triplet p=1 margin 0.5 swap", "tripletMarginLoss", [a, p, n], [0, 1, 2], {"p": 1.0, "margin": 0.5, "swap": True}),
        case("triplet p=3 eps 1e-3 1-D", "tripletMarginLoss", [a[0], p[0], n[0]], [0, 1, 2], {"p": 3.0, "eps": 1e-3, "margin": 2.0}),
        case("margin ranking broadcast target", "marginRankingLoss", [torch.randn(3, 4), torch.randn(3, 4), signs(1, 4)], [0, 1]),
        case("hinge embedding margin 2 with labels other than ±1", "hingeEmbeddingLoss",
             [h, torch.tensor([[1.0, -1.0, 0.0, 2.0]] * 3)], [0], {"margin": 2.0}),
        case("multilabel soft margin weighted", "multilabelSoftMarginLoss", [logits, labels], [0], {}, weight=torch.rand(5) + 0.5),
        case("multilabel soft margin 1-D", "multilabelSoftMarginLoss", [logits[0], labels[0]], [0], {"reduction": "none"}),
        case("poisson log input", "poissonNllLoss", [torch.randn(3, 4), torch.poisson(torch.rand(3, 4) * 4)], [0]),
        case("poisson rates full sum", "poissonNllLoss", [torch.rand(3, 4) * 3 + 0.1, torch.poisson(torch.rand(3, 4) * 4)], [0],
             {"logInput": False, "full": True, "reduction": "sum"}),
        case("poisson full none (targets 0, 1 and above)", "poissonNllLoss",
             [torch.randn(6), torch.tensor([0.0, 1.0, 2.0, 3.0, 7.0, 0.5])], [0], {"full": True, "reduction": "none"}),
        case("gaussian heteroscedastic", "gaussianNllLoss", [torch.randn(4, 3), torch.randn(4, 3), torch.rand(4, 3) + 0.1], [0, 1, 2]),
        case("gaussian one variance per sample full sum", "gaussianNllLoss", [torch.randn(4, 3), torch.randn(4, 3), torch.rand(4) + 0.1],
             [0, 2], {"full": True, "reduction": "sum"}),
        case("gaussian var [N, 1] none, clamped below eps", "gaussianNllLoss",
             [torch.randn(4, 3), torch.randn(4, 3), torch.tensor([[1e-9], [0.5], [0.0], [2.0]])], [0, 2], {"reduction": "none", "eps": 1e-3}),
        case("sigmoid focal alpha -1 gamma 0", "sigmoidFocalLoss", [logits, labels], [0], {"alpha": -1.0, "gamma": 0.0, "reduction": "sum"}),
        case("sigmoid focal alpha 0.7 gamma 1.5 soft targets", "sigmoidFocalLoss", [logits, torch.rand(4, 5)], [0, 1],
             {"alpha": 0.7, "gamma": 1.5, "reduction": "mean"}),
    ]
    write("gen_losses_ranking_nll.py", "losses_ranking_nll_ref.json", {"cases": cases})


if __name__ == "__main__":
    main()
