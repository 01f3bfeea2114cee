#!/usr/bin/env python3
"""Writes the seed corpus of the safetensors fuzzer (tests/fuzz/corpus/safetensors/).

Valid files of every dtype the reader supports (F32, F16, BF16, I32, I64, BOOL), with and
without metadata, 0-d, empty and multi-tensor, plus one malformed file per kind of
malformation the reader must reject (truncated, header length beyond the file, invalid JSON
and UTF-8, unknown dtype, bad shapes, offsets out of range, overlapping, holes, size
mismatch, deep nesting, duplicates). Run: python3 tests/fuzz/make_corpus.py
The fuzzer adds its own finds next to these (scripts/fuzz.sh with FUZZ_MERGE=1).
"""
import json
import os
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus", "safetensors")


def st(header, data=b"", header_len=None, pad=True):
    h = header if isinstance(header, bytes) else json.dumps(header, separators=(",", ":")).encode()
    if pad:
        h += b" " * ((8 - len(h) % 8) % 8)
    n = len(h) if header_len is None else header_len
    return struct.pack("<Q", n) + h + data


def f32(*v):
    return struct.pack("<%df" % len(v), *v)


def entry(dtype, shape, begin, end):
    return {"dtype": dtype, "shape": shape, "data_offsets": [begin, end]}


valid = {
    "f32_vector": st({"a": entry("F32", [3], 0, 12)}, f32(1, -2, 3.5)),
    "f32_matrix_meta": st({"__metadata__": {"format": "pt", "k": "v"}, "w": entry("F32", [2, 2], 0, 16)}, f32(1, 2, 3, 4)),
    "scalar_0d": st({"s": entry("F32", [], 0, 4)}, f32(7)),
    "empty_tensor": st({"e": entry("F32", [0, 3], 0, 0)}),
    "empty_header": st({}),
    # Found by the fuzzer: a zero-element tensor with a nonzero dim was reported non-contiguous.
    "empty_3x0_f16": st({"e": entry("F16", [3, 0], 0, 0)}),
    "f16_bf16": st({"h": entry("F16", [2], 0, 4), "b": entry("BF16", [2], 4, 8)},
                   struct.pack("<4H", 0x3C00, 0xFC00, 0x3F80, 0x7FC0)),
    "i32_i64_bool": st({"i": entry("I32", [2], 0, 8), "l": entry("I64", [2], 8, 24), "m": entry("BOOL", [3], 24, 27)},
                       struct.pack("<2i2q3B", -1, 2**31 - 1, -(2**31), 5, 0, 1, 7)),
    "unordered_offsets": st({"b": entry("F32", [1], 4, 8), "a": entry("F32", [1], 0, 4)}, f32(2, 1)),
    "unicode_names": st({"poids.é": entry("F32", [1], 0, 4), "\u6743\u91cd": entry("F32", [1], 4, 8)}, f32(1, 2)),
    "nan_inf": st({"x": entry("F32", [3], 0, 12)}, f32(float("nan"), float("inf"), -0.0)),
}

# One malformation each. ok = a valid header to start from.
ok_h = {"a": entry("F32", [2], 0, 8)}
malformed = {
    "bad_empty": b"",
    "bad_short_prefix": b"\x08\x00\x00",
    "bad_truncated_data": st(ok_h, f32(1)),
    "bad_header_beyond_file": st(ok_h, f32(1, 2), header_len=1000),
    "bad_header_len_2p63": st(ok_h, f32(1, 2), header_len=2**63),
    "bad_json": st(b'{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]', f32(1, 2), pad=False),
    "bad_json_array": st(b"[1,2,3]", pad=False),
    "bad_utf8": st(b'{"\xff\xfe":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}', f32(1)),
    "bad_lone_surrogate": st(b'{"\\ud800":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}', f32(1)),
    "bad_dtype": st({"a": entry("F64", [1], 0, 8)}, b"\0" * 8),
    "bad_dtype_number": st({"a": {"dtype": 4, "shape": [1], "data_offsets": [0, 4]}}, f32(1)),
    "bad_missing_shape": st({"a": {"dtype": "F32", "data_offsets": [0, 4]}}, f32(1)),
    "bad_shape_string": st({"a": entry("F32", "2", 0, 8)}, f32(1, 2)),
    "bad_negative_dim": st({"a": entry("F32", [-1], 0, 4)}, f32(1)),
    "bad_fraction_dim": st({"a": entry("F32", [1.5], 0, 4)}, f32(1)),
    "bad_huge_shape": st({"a": entry("F32", [2**40, 2**40], 0, 8)}, f32(1, 2)),
    "bad_offsets_out_of_range": st({"a": entry("F32", [4], 0, 16)}, f32(1, 2)),
    "bad_offsets_reversed": st({"a": entry("F32", [0], 8, 4)}, f32(1, 2)),
    "bad_size_mismatch": st({"a": entry("F32", [3], 0, 8)}, f32(1, 2)),
    "bad_overlap": st({"a": entry("F32", [2], 0, 8), "b": entry("F32", [2], 4, 12)}, f32(1, 2, 3)),
    "bad_hole": st({"a": entry("F32", [1], 4, 8)}, f32(1, 2)),
    "bad_trailing_data": st(ok_h, f32(1, 2, 3)),
    "bad_duplicate_name": st(b'{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}', f32(1, 2)),
    "bad_duplicate_key": st(b'{"a":{"dtype":"F32","dtype":"I32","shape":[1],"data_offsets":[0,4]}}', f32(1)),
    "bad_i64_overflow": st({"a": entry("I64", [1], 0, 8)}, struct.pack("<q", 2**40)),
    "bad_metadata_value": st({"__metadata__": {"k": 1}, **ok_h}, f32(1, 2)),
    "bad_deep_nesting": st(b'{"a":' + b"[" * 200 + b"]" * 200 + b"}", pad=False),
    "bad_number_literal": st(b'{"a":{"dtype":"F32","shape":[1e999],"data_offsets":[0,4]}}', f32(1)),
}


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, data in {**valid, **malformed}.items():
        with open(os.path.join(OUT, name + ".safetensors"), "wb") as f:
            f.write(data)
    torch_file = os.path.join(HERE, "..", "data", "torch_written.safetensors")
    if os.path.exists(torch_file):
        shutil.copy(torch_file, os.path.join(OUT, "torch_written.safetensors"))
    print(f"{len(valid)} valid + {len(malformed)} malformed seeds in {OUT}")


if __name__ == "__main__":
    main()
