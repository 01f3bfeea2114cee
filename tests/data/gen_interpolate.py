#!/usr/bin/python3
"""Generates tests/data/interpolate_ref.json: PyTorch 1.13's F.interpolate, for
tests/js/nn_interpolate.test.mjs. Run with Debian's PyTorch: /usr/bin/python3 tests/data/gen_interpolate.py

Each case: the input, simdgrad's camelCase options, the output, and the gradient of Σ out·R with
respect to the input (R fixed random, written too). Sizes and scales are chosen to hit ATen's
special cases (output = input, output = 2·input) and its rounding of sizes and coordinates
(scales that are not exact in float32, downsampling, alignCorners, recomputeScaleFactor).
"""
import torch
import torch.nn.functional as F
from ref_json import enc, write

torch.manual_seed(5)
TORCH_NAMES = {"size": "size", "scaleFactor": "scale_factor", "mode": "mode", "alignCorners": "align_corners",
               "recomputeScaleFactor": "recompute_scale_factor"}



def case(name, shape, options):
    x = torch.randn(*shape, requires_grad=True)
    out = F.interpolate(x, **{TORCH_NAMES[k]: v for k, v in options.items()})
    r = torch.randn_like(out)
    (out * r).sum().backward()
    return {"name": name, "input": enc(x), "options": options, "output": enc(out), "r": enc(r), "grad": enc(x.grad)}


def main():
    cases = [
        case("nearest scale 2", [2, 3, 4, 5], {"scaleFactor": 2.0}),
        case("nearest scale 1.7", [1, 2, 5, 6], {"scaleFactor": 1.7}),
        case("nearest scale 0.6", [1, 2, 7, 9], {"scaleFactor": 0.6}),
        case("nearest size", [2, 1, 4, 5], {"size": [7, 3]}),
        case("nearest scale per dim, recomputed", [1, 2, 5, 6], {"scaleFactor": [1.3, 2.9], "recomputeScaleFactor": True}),
        case("nearest 3-D", [2, 3, 5], {"size": 12}),
        case("nearest 5-D", [1, 1, 2, 3, 4], {"scaleFactor": [2.0, 1.0, 1.5]}),
        case("nearest-exact scale 1.7", [1, 2, 5, 6], {"scaleFactor": 1.7, "mode": "nearest-exact"}),
        case("nearest-exact size", [1, 2, 5, 6], {"size": [3, 11], "mode": "nearest-exact"}),
        case("bilinear scale 2", [2, 2, 3, 4], {"scaleFactor": 2.0, "mode": "bilinear"}),
        case("bilinear scale 2 alignCorners", [2, 2, 3, 4], {"scaleFactor": 2.0, "mode": "bilinear", "alignCorners": True}),
        case("bilinear size", [1, 3, 4, 5], {"size": [7, 9], "mode": "bilinear"}),
        case("bilinear size alignCorners", [1, 3, 4, 5], {"size": [7, 9], "mode": "bilinear", "alignCorners": True}),
        case("bilinear downsampling 0.55", [1, 2, 9, 11], {"scaleFactor": 0.55, "mode": "bilinear"}),
        case("bilinear scale per dim recomputed", [1, 2, 5, 6], {"scaleFactor": [1.5, 2.3], "mode": "bilinear", "recomputeScaleFactor": True}),
        case("bilinear one dim unchanged", [1, 2, 4, 5], {"size": [4, 8], "mode": "bilinear"}),
        case("bilinear to size 1 alignCorners", [1, 1, 4, 5], {"size": [1, 3], "mode": "bilinear", "alignCorners": True}),
        case("linear scale 2.5", [2, 3, 4], {"scaleFactor": 2.5, "mode": "linear"}),
        case("linear alignCorners", [2, 3, 4], {"size": 9, "mode": "linear", "alignCorners": True}),
        case("area 2-D", [1, 2, 6, 7], {"size": [3, 2], "mode": "area"}),
        case("area 1-D scale", [2, 2, 9], {"scaleFactor": 0.5, "mode": "area"}),
    ]
    write("gen_interpolate.py", "interpolate_ref.json", {"cases": cases})


if __name__ == "__main__":
    main()
