#!/usr/bin/env python3
"""Reference values for round(x, { decimals }) (tests/js/ops_round.test.mjs), computed by
PyTorch in float32 as it rounds a float32 tensor (x · 10^d, round half to even, ÷ 10^d; for
d < 0 the divide first), and for bfloat16 tensors (the scale in bfloat16). Run with Debian's PyTorch (1.13, CPU):

    /usr/bin/python3 tests/data/gen_round_decimals.py   # writes tests/data/round_decimals_ref.json

The inputs mix ties at each scale (2.5, 0.125, -0.55, 1234.5678 ...), large and tiny values,
±0, ±inf and NaN; the outputs are float32 values written with 9 significant digits (enough to
round-trip float32 exactly), NaN and ±inf as strings.
"""
import torch

from ref_json import num, write

torch.manual_seed(20261125)


xs = [1.234, 2.5, -0.55, 1234.5678, 0.125, -0.125, 0.0, -0.0, 0.05, 0.15, 0.25, 0.35, 99.995, -99.995,
      1e-7, -3.4e38, 3.4e38, 123456.78, 5.0, 15.0, 25.0, -25.0, float("inf"), float("-inf"), float("nan")]
xs += (torch.randn(40) * 100).tolist()
x = torch.tensor(xs, dtype=torch.float32)
cases = []
for d in [-3, -2, -1, 1, 2, 3, 5]:
    y = torch.round(x, decimals=d)
    assert y.dtype == torch.float32
    cases.append({"decimals": d, "out": [num(v) for v in y.tolist()]})
# bfloat16: its scale rounded to bfloat16, as round_decimals_kernel's static_cast<scalar_t>
# (float16 has no CPU kernel; float64 has one, but sg's round has no float64 kernel yet).
xbf = (torch.randn(30) * 100).to(torch.bfloat16)
casesbf = [{"decimals": d, "out": [num(v) for v in torch.round(xbf, decimals=d).float().tolist()]} for d in [-2, -1, 1, 2, 4]]
write("gen_round_decimals.py", "round_decimals_ref.json", {"x": [num(v) for v in x.tolist()], "cases": cases,
      "bfloat16": {"x": [num(v) for v in xbf.float().tolist()], "cases": casesbf}})
