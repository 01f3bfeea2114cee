#!/usr/bin/python3
"""Reference values for the dtypes (tests/js/dtypes.test.mjs), from PyTorch 1.13.

Run with Debian's PyTorch: /usr/bin/python3 tests/data/gen_dtypes.py
Writes tests/data/dtypes_ref.json and tests/data/torch_dtypes.safetensors:
  - promote: torch.promote_types for every pair of the nine dtypes (int16, which simdgrad lacks,
    is recorded as torch gives it; the test maps it to int32);
  - result_type: torch.result_type for tensors of several ranks with numbers;
  - finfo / iinfo of every dtype;
  - rounding: float32 bit patterns (edge cases and random ones) and the float32 bits of their
    float16 and bfloat16 roundings widened back (x.half().float(), x.bfloat16().float());
  - casts: small values cast between every pair of dtypes (in-range values only: out-of-range
    float to integer casts are undefined behaviour in C++, PyTorch's included);
  - the safetensors file: one tensor of each dtype, written in the official layout by
    gen_safetensors.serialize, with its values in the JSON (int64 as decimal strings).
"""
import json
import os
import struct

import torch

from gen_safetensors import serialize

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = ["float32", "int32", "bool", "float16", "bfloat16", "float64", "int64", "int8", "uint8"]
DTYPES = {n: getattr(torch, n) for n in NAMES}
TORCH_NAME = {v: k for k, v in DTYPES.items()}
TORCH_NAME[torch.int16] = "int16"


def f32_bits(values):
    return [struct.unpack("<I", struct.pack("<f", v))[0] for v in values]


def bits_to_f32(bits):
    return torch.tensor([struct.unpack("<f", struct.pack("<I", b))[0] for b in bits], dtype=torch.float32)


def main():
    out = {}
    out["promote"] = {a: {b: TORCH_NAME[torch.promote_types(DTYPES[a], DTYPES[b])] for b in NAMES} for a in NAMES}

    cases = []
    for a in NAMES:
        for shape in ([3], []):
            t = torch.zeros(shape, dtype=DTYPES[a])
            for num in (2, 2.5, True):
                cases.append({"dtype": a, "shape": shape, "number": num, "result": TORCH_NAME[torch.result_type(t, num)]})
            for b in ("float32", "float64", "int64", "float16"):
                u = torch.zeros([], dtype=DTYPES[b])
                cases.append({"dtype": a, "shape": shape, "zeroDim": b, "result": TORCH_NAME[torch.result_type(t, u)]})
    out["resultType"] = cases

    out["finfo"] = {}
    for n in ("float32", "float64", "float16", "bfloat16"):
        f = torch.finfo(DTYPES[n])
        out["finfo"][n] = {"bits": f.bits, "eps": f.eps, "max": f.max, "min": f.min, "tiny": f.tiny}
    out["iinfo"] = {}
    for n in ("int32", "int64", "int8", "uint8"):
        i = torch.iinfo(DTYPES[n])
        out["iinfo"][n] = {"bits": i.bits, "max": str(i.max), "min": str(i.min)}

    # float32 → float16 / bfloat16 rounding: ties, subnormals, overflow, NaN, ±0, ±inf.
    edge = [0.0, -0.0, 1.0, -1.0, 65504.0, 65519.99, 65520.0, 65536.0, 1e-8, 5.960464477539063e-08,
            2.9802322387695312e-08, 2.98023223876953125e-08 * 1.0000001, 6.103515625e-05, 6.1e-05,
            1.00048828125, 1.0009765625, 1.00146484375, 3.0e38, 3.4028234663852886e38, float("inf"),
            float("-inf"), 1.00390625, 1.01171875, 1.0078125, -2.5e-39, 1.1754942e-38, 1e-45]
    bits = f32_bits(edge) + [0x7FC00000, 0xFFC00001, 0x7F800001, 0x3F808000, 0x3F818000, 0x00000001, 0x807FFFFF]
    g = torch.Generator().manual_seed(0)
    rnd = torch.randint(0, 2 ** 31 - 1, (400,), generator=g).tolist()
    bits += [(r * 2 + (r & 1)) & 0xFFFFFFFF for r in rnd]
    x = bits_to_f32(bits)
    out["rounding"] = {
        "bits": bits,
        "float16": f32_bits(x.half().float().tolist()),
        "bfloat16": f32_bits(x.bfloat16().float().tolist()),
    }

    # Casts between every pair on values every dtype holds (non-negative integers below 100,
    # fractions for the floats, which integer targets truncate).
    casts = []
    for src in NAMES:
        vals = [0, 1, 3, 7, 100] if src not in ("float32", "float64", "float16", "bfloat16") else [0.0, 1.5, 2.75, -0.0, 99.9]
        if src == "bool":
            vals = [False, True, True]
        t = torch.tensor(vals, dtype=DTYPES[src])
        for dst in NAMES:
            r = t.to(DTYPES[dst])
            casts.append({"from": src, "to": dst, "input": [float(v) for v in t.tolist()], "output": [float(v) for v in r.tolist()]})
    out["casts"] = casts

    tensors = {
        "f32": torch.tensor([1.5, -2.25, 3.0e-3], dtype=torch.float32),
        "f16": torch.tensor([[0.1, -65504.0], [6.0e-8, 1.0]], dtype=torch.float16),
        "bf16": torch.tensor([1.0e30, -0.3, 2.0], dtype=torch.bfloat16),
        "f64": torch.tensor([0.1, 1.0e300, -2.0 ** -1074], dtype=torch.float64),
        "i64": torch.tensor([9007199254740993, -3, 2 ** 62], dtype=torch.int64),
        "i32": torch.tensor([-7, 2 ** 31 - 1], dtype=torch.int32),
        "i8": torch.tensor([-128, 5, 127], dtype=torch.int8),
        "u8": torch.tensor([0, 200, 255], dtype=torch.uint8),
        "b": torch.tensor([True, False], dtype=torch.bool),
    }
    blob = serialize(tensors, {"format": "pt"})
    with open(os.path.join(HERE, "torch_dtypes.safetensors"), "wb") as f:
        f.write(blob)
    expect = {}
    for k, t in tensors.items():
        vals = t.flatten().tolist()
        if t.dtype == torch.int64:
            vals = [str(v) for v in vals]
        elif t.dtype in (torch.float16, torch.bfloat16):
            vals = t.float().flatten().tolist()
        expect[k] = {"dtype": TORCH_NAME[t.dtype], "shape": list(t.shape), "values": vals}
    out["safetensors"] = expect

    with open(os.path.join(HERE, "dtypes_ref.json"), "w") as f:
        json.dump(out, f, indent=None, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
