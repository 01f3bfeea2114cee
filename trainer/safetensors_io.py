# trainer/safetensors_io.py: a small safetensors reader and writer (struct + json + torch only; Debian ships
# no `safetensors` package). The writer reproduces the official library's layout (as tests/data/gen_safetensors.py
# documents it): tensors ordered by dtype (descending in the library's Dtype order) then by name, packed back to
# back little-endian, a compact JSON header with "__metadata__" first, padded with spaces to a multiple of 8, and an
# 8-byte little-endian header length in front. Also loads a Hugging Face model folder's weights (one
# model.safetensors, or model.safetensors.index.json with its shards).
import json
import os
import struct
import sys

import torch

# safetensors' Rust `enum Dtype` declaration order (its derived Ord), used for the writer's tensor order.
DTYPE_ORDER = ["BOOL", "U8", "I8", "F8_E5M2", "F8_E4M3", "I16", "U16", "F16", "BF16",
               "I32", "U32", "F32", "F64", "I64", "U64"]
ST_TO_TORCH = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16, "F64": torch.float64,
               "I64": torch.int64, "I32": torch.int32, "I16": torch.int16, "I8": torch.int8,
               "U8": torch.uint8, "BOOL": torch.bool}
TORCH_TO_ST = {v: k for k, v in ST_TO_TORCH.items()}

MAX_HEADER_BYTES = 100 * 1024 * 1024  # the official reader's limit

if sys.byteorder != "little":  # torch.frombuffer reads native order; safetensors is little-endian
    raise ImportError("trainer.safetensors_io assumes a little-endian machine")


class SafetensorsError(ValueError):
    """A malformed or inconsistent safetensors file."""


def loads(blob):
    """Parses safetensors bytes → ({name: tensor (own memory, stored dtype)}, metadata dict or None)."""
    view = memoryview(blob)
    if len(view) < 8:
        raise SafetensorsError("safetensors: shorter than its 8-byte header length")
    (n,) = struct.unpack("<Q", view[:8])
    if n > MAX_HEADER_BYTES or 8 + n > len(view):
        raise SafetensorsError(f"safetensors: header length {n} does not fit in {len(view)} bytes")
    try:
        header = json.loads(bytes(view[8:8 + n]).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise SafetensorsError(f"safetensors: header is not JSON ({e})") from None
    if not isinstance(header, dict):
        raise SafetensorsError("safetensors: header is not a JSON object")
    data = view[8 + n:]
    metadata = header.pop("__metadata__", None)
    if metadata is not None and not (isinstance(metadata, dict)
                                     and all(isinstance(v, str) for v in metadata.values())):
        raise SafetensorsError("safetensors: __metadata__ must map strings to strings")
    tensors = {}
    for name, info in header.items():
        try:
            dtype = ST_TO_TORCH[info["dtype"]]
            shape = [int(d) for d in info["shape"]]
            begin, end = (int(x) for x in info["data_offsets"])
        except (KeyError, TypeError, ValueError):
            raise SafetensorsError(f"safetensors: tensor '{name}': bad or unsupported entry {info!r}") from None
        count = 1
        for d in shape:
            if d < 0:
                raise SafetensorsError(f"safetensors: tensor '{name}': negative dimension in {shape}")
            count *= d
        itemsize = torch.empty((), dtype=dtype).element_size()
        if not (0 <= begin <= end <= len(data)) or end - begin != count * itemsize:
            raise SafetensorsError(f"safetensors: tensor '{name}': offsets [{begin}, {end}] do not hold "
                                   f"{info['dtype']} {shape} within {len(data)} data bytes")
        if count == 0:
            tensors[name] = torch.empty(shape, dtype=dtype)
        else:
            raw = bytearray(data[begin:end])  # a writable copy the tensor owns
            tensors[name] = torch.frombuffer(raw, dtype=dtype).reshape(shape)
    return tensors, metadata


def load_file(path):
    with open(path, "rb") as f:
        return loads(f.read())


def _tensor_bytes(t):
    t = t.detach().to("cpu").contiguous()
    if t.numel() == 0:
        return b""
    if t.dtype in (torch.float16, torch.bfloat16):
        t = t.view(torch.int16)
    return t.numpy().tobytes()  # native order = little-endian (checked at import)


def dumps(tensors, metadata=None):
    """{name: tensor} (+ optional {str: str} metadata) → safetensors bytes in the official layout."""
    for name, t in tensors.items():
        if t.dtype not in TORCH_TO_ST:
            raise SafetensorsError(f"safetensors: tensor '{name}' has unsupported dtype {t.dtype}")
    items = sorted(tensors.items(), key=lambda kv: kv[0])
    items.sort(key=lambda kv: DTYPE_ORDER.index(TORCH_TO_ST[kv[1].dtype]), reverse=True)  # stable
    header = {}
    if metadata is not None:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    blobs = []
    offset = 0
    for name, t in items:
        data = _tensor_bytes(t)
        header[name] = {"dtype": TORCH_TO_ST[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def save_file(tensors, path, metadata=None):
    with open(path, "wb") as f:
        f.write(dumps(tensors, metadata))


def load_model_folder(folder):
    """A Hugging Face model folder → (config dict, {name: tensor}). Reads config.json and model.safetensors, or
    model.safetensors.index.json and the shards its weight_map names."""
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    single = os.path.join(folder, "model.safetensors")
    index = os.path.join(folder, "model.safetensors.index.json")
    if os.path.exists(single):
        tensors, _ = load_file(single)
    elif os.path.exists(index):
        with open(index, encoding="utf-8") as f:
            weight_map = json.load(f)["weight_map"]
        tensors = {}
        for shard in sorted(set(weight_map.values())):
            part, _ = load_file(os.path.join(folder, shard))
            for name, t in part.items():
                if weight_map.get(name) == shard:
                    tensors[name] = t
        missing = sorted(set(weight_map) - set(tensors))
        if missing:
            raise SafetensorsError(f"{index}: tensors missing from their shards: {missing[:5]}")
    else:
        raise FileNotFoundError(f"{folder}: neither model.safetensors nor model.safetensors.index.json")
    return config, tensors
