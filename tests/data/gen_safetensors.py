#!/usr/bin/python3
"""Writes tests/data/torch_written.safetensors and torch_written.json from torch tensors.

Run with Debian's PyTorch: /usr/bin/python3 tests/data/gen_safetensors.py
Debian packages no `safetensors` for Python, so this reproduces the official writer's layout
(safetensors' Rust `serialize`, which torch's save_file calls) with struct and json only:
  - tensors sorted by dtype, descending in the library's Dtype order, then by name;
  - data packed back to back in that order, little-endian, offsets from 0;
  - header: compact JSON, "__metadata__" first, then the tensors in data order, each
    {"dtype", "shape", "data_offsets"}; padded with spaces to a multiple of 8 bytes;
  - an 8-byte little-endian header length in front.
The file is then read back by an independent minimal reader (below) as a self-check.
torch_written.json holds the expected values (as float/int/bool JSON values) for the native
test (tests/native/safetensors_test.cpp), which only reads the committed files.
"""
import json
import os
import struct

import torch

# safetensors' Rust `enum Dtype` declaration order (its derived Ord).
DTYPE_ORDER = ["BOOL", "U8", "I8", "F8_E5M2", "F8_E4M3", "I16", "U16", "F16", "BF16",
               "I32", "U32", "F32", "F64", "I64", "U64"]
TORCH_TO_ST = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
               torch.int32: "I32", torch.int64: "I64", torch.bool: "BOOL", torch.float64: "F64",
               torch.int8: "I8", torch.uint8: "U8"}


def tensor_bytes(t):
    t = t.contiguous()
    if t.dtype in (torch.float16, torch.bfloat16):
        return t.view(torch.int16).numpy().astype("<i2").tobytes()
    if t.dtype == torch.bool:
        return t.numpy().astype("u1").tobytes()
    return t.numpy().astype(t.numpy().dtype.newbyteorder("<")).tobytes()


def serialize(tensors, metadata):
    items = sorted(tensors.items(), key=lambda kv: kv[0])
    # Stable sorts: by name, then by dtype descending (= dtype desc, then name).
    items.sort(key=lambda kv: DTYPE_ORDER.index(TORCH_TO_ST[kv[1].dtype]), reverse=True)
    header = {}
    if metadata is not None:
        header["__metadata__"] = metadata
    blobs = []
    offset = 0
    for name, t in items:
        data = tensor_bytes(t)
        header[name] = {"dtype": TORCH_TO_ST[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def read(blob):
    """A minimal independent reader: returns {name: (dtype, shape, raw bytes)}, metadata."""
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n].decode("utf-8"))
    buffer = blob[8 + n:]
    metadata = header.pop("__metadata__", None)
    out = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        out[name] = (info["dtype"], info["shape"], buffer[begin:end])
    return out, metadata, list(header.keys())


def expected_values(t):
    if t.dtype in (torch.float16, torch.bfloat16, torch.float32):
        return [float(x) for x in t.float().reshape(-1).tolist()]
    if t.dtype == torch.bool:
        return [bool(x) for x in t.reshape(-1).tolist()]
    return [int(x) for x in t.reshape(-1).tolist()]


def main():
    torch.manual_seed(7)
    tensors = {
        "weight": torch.randn(2, 3),
        "bias": torch.tensor([0.5, -1.25, 3.0]),
        "scalar": torch.tensor(2.5),  # 0-dim
        "empty": torch.zeros(0, 3),
        # 1, −2, smallest normal, smallest subnormal, largest finite, −0, 1/3 rounded
        "half": torch.tensor([1.0, -2.0, 6.103515625e-05, 5.960464477539063e-08, 65504.0, -0.0,
                              1.0 / 3.0], dtype=torch.float16),
        "brain": torch.tensor([[1.0, -3.140625], [1e-3, 3.0e38]], dtype=torch.bfloat16),
        "ids": torch.tensor([0, -1, 2147483647, -2147483648, 42], dtype=torch.int64),
        "counts": torch.tensor([[1, -2], [300000, 7]], dtype=torch.int32),
        "mask": torch.tensor([True, False, True]),
    }
    metadata = {"format": "pt", "note": "written by gen_safetensors.py"}
    blob = serialize(tensors, metadata)

    read_tensors, read_metadata, order = read(blob)
    assert read_metadata == metadata
    for name, t in tensors.items():
        dtype, shape, raw = read_tensors[name]
        assert dtype == TORCH_TO_ST[t.dtype] and shape == list(t.shape), name
        assert raw == tensor_bytes(t), name
    assert (8 + struct.unpack("<Q", blob[:8])[0]) % 8 == 0

    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "torch_written.safetensors"), "wb") as f:
        f.write(blob)
    expected = {
        "generator": "tests/data/gen_safetensors.py, torch " + torch.__version__,
        "order": order,
        "metadata": metadata,
        "tensors": {name: {"file_dtype": TORCH_TO_ST[t.dtype], "shape": list(t.shape),
                           "values": expected_values(t)} for name, t in tensors.items()},
    }
    with open(os.path.join(here, "torch_written.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")
    print("wrote", len(blob), "bytes; order:", order)


if __name__ == "__main__":
    main()
