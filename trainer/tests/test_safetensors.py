# trainer/tests/test_safetensors.py: the safetensors reader/writer against the official layout (the committed file
# tests/data/torch_written.safetensors and tests/data/gen_safetensors.py's writer), every dtype the trainer reads,
# malformed files, and sharded model folders.
import importlib.util
import json
import os
import struct
import tempfile
import unittest

import torch

from trainer import safetensors_io as st
from trainer.tests.tiny import REPO, write_folder

DATA = os.path.join(REPO, "tests", "data")


def load_gen_safetensors():
    spec = importlib.util.spec_from_file_location("gen_safetensors", os.path.join(DATA, "gen_safetensors.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class SafetensorsTest(unittest.TestCase):
    def test_reads_the_committed_file(self):
        tensors, meta = st.load_file(os.path.join(DATA, "torch_written.safetensors"))
        with open(os.path.join(DATA, "torch_written.json")) as f:
            expected = json.load(f)
        self.assertEqual(meta, expected["metadata"])
        self.assertEqual(sorted(tensors), sorted(expected["tensors"]))
        for name, e in expected["tensors"].items():
            t = tensors[name]
            self.assertEqual(st.TORCH_TO_ST[t.dtype], e["file_dtype"], name)
            self.assertEqual(list(t.shape), e["shape"], name)
            if t.dtype == torch.bool:
                self.assertEqual([bool(x) for x in t.reshape(-1).tolist()], e["values"], name)
            elif t.is_floating_point():
                self.assertEqual([float(x) for x in t.float().reshape(-1).tolist()], e["values"], name)
            else:
                self.assertEqual([int(x) for x in t.reshape(-1).tolist()], e["values"], name)

    def test_writer_matches_the_official_layout(self):
        gen = load_gen_safetensors()
        g = torch.Generator().manual_seed(3)
        tensors = {"b.weight": torch.randn(3, 2, generator=g), "a": torch.randn(4, generator=g).half(),
                   "z": torch.randn(2, 2, generator=g).bfloat16(), "ids": torch.arange(5), "n": torch.tensor(2.0),
                   "i32": torch.tensor([[1, -2]], dtype=torch.int32), "empty": torch.zeros(0, 3)}
        meta = {"format": "pt"}
        self.assertEqual(st.dumps(tensors, meta), gen.serialize(tensors, meta))

    def test_round_trip_every_dtype(self):
        g = torch.Generator().manual_seed(4)
        tensors = {"f32": torch.randn(2, 3, generator=g), "f16": torch.randn(5, generator=g).half(),
                   "bf16": torch.randn(2, 2, generator=g).bfloat16(), "f64": torch.randn(3, generator=g).double(),
                   "i64": torch.tensor([0, -1, 2 ** 62]), "i32": torch.tensor([7, -8], dtype=torch.int32),
                   "u8": torch.tensor([0, 255], dtype=torch.uint8), "bool": torch.tensor([True, False]),
                   "scalar": torch.tensor(1.5), "empty": torch.zeros(0, 4)}
        blob = st.dumps(tensors, {"k": "v"})
        self.assertEqual((8 + struct.unpack("<Q", blob[:8])[0]) % 8, 0)
        back, meta = st.loads(blob)
        self.assertEqual(meta, {"k": "v"})
        for name, t in tensors.items():
            self.assertEqual(back[name].dtype, t.dtype, name)
            self.assertEqual(back[name].shape, t.shape, name)
            self.assertTrue(torch.equal(back[name], t), name)
        back["f32"].add_(1)  # the tensors own writable memory

    def test_malformed(self):
        good = st.dumps({"x": torch.ones(4)})
        (n,) = struct.unpack("<Q", good[:8])
        bad_offsets = st.dumps({"x": torch.ones(4)}).replace(b'"data_offsets":[0,16]', b'"data_offsets":[0,20]')
        cases = {"short": good[:5], "header past the end": struct.pack("<Q", 10 ** 6) + good[8:],
                 "truncated data": good[:-4], "offsets": bad_offsets,
                 "not json": struct.pack("<Q", 8) + b"{{{{{{{{",
                 "unknown dtype": good.replace(b'"F32"', b'"Q32"')}
        for what, blob in cases.items():
            with self.assertRaises(st.SafetensorsError, msg=what):
                st.loads(blob)
        self.assertEqual(n % 8, 0)

    def test_sharded_folder(self):
        tensors = {f"w{i}": torch.full((2,), float(i)) for i in range(5)}
        with tempfile.TemporaryDirectory() as d:
            write_folder(d, {"model_type": "x"}, tensors, shards=3)
            self.assertTrue(os.path.exists(os.path.join(d, "model.safetensors.index.json")))
            config, back = st.load_model_folder(d)
        self.assertEqual(config, {"model_type": "x"})
        self.assertEqual(sorted(back), sorted(tensors))
        for k in tensors:
            self.assertTrue(torch.equal(back[k], tensors[k]))


if __name__ == "__main__":
    unittest.main()
