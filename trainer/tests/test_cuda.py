# trainer/tests/test_cuda.py: the trainer on CUDA (NCCL), skipped where torch sees no GPU (Debian's python3-torch
# is CPU-only): forward, the gradient of the custom sum and save/load on one GPU against the CPU computation; with
# two or more GPUs, 2 NCCL ranks against 1.
import os
import tempfile
import unittest

import torch

from trainer import safetensors_io
from trainer.tests.test_server import make_data, ref_logprobs, ref_loss, reference_model, rel
from trainer.tests.tiny import LLAMA_CONFIG, TrainerProcess, llama_tensors, write_folder


@unittest.skipUnless(torch.cuda.is_available(), "no CUDA device")
class CudaTest(unittest.TestCase):
    def test_one_gpu_matches_cpu(self):
        with tempfile.TemporaryDirectory() as tmp:
            folder = write_folder(os.path.join(tmp, "llama"), LLAMA_CONFIG, llama_tensors(LLAMA_CONFIG))
            data, weights = make_data(9, [7, 3, 12], LLAMA_CONFIG["vocab_size"])
            model, names = reference_model(folder)
            want_lp = ref_logprobs(model, data)
            ref_loss(model, data, weights).backward()
            servers = [TrainerProcess(folder, nproc=1, device="cuda").wait_ready()]
            if torch.cuda.device_count() >= 2:
                servers.append(TrainerProcess(folder, nproc=2, device="cuda").wait_ready())
            try:
                for srv in servers:
                    out = srv.post("/forward", {"data": data})
                    for got, want in zip(out["logprobs"], want_lp):
                        self.assertLess(float((torch.tensor(got) - want.detach()).abs().max()), 1e-4)
                    srv.post("/forward_backward", {"data": data, "weights": weights})
                    srv.post("/optim_step", {"betas": [0.0, 0.999]})
                    blob = srv.post("/save_state")
                    st = safetensors_io.loads(blob)[0]
                    for pname, p in model.named_parameters():
                        self.assertLess(rel(st["optimizer." + names[pname] + ".exp_avg"], p.grad), 1e-4, pname)
                    self.assertEqual(srv.post("/load_state", raw=blob)["step"], 1)
                    self.assertEqual(len(srv.post("/sample", {"promptIds": [1, 2], "maxNewTokens": 3})["ids"]), 5)
            finally:
                for srv in servers:
                    srv.stop()


if __name__ == "__main__":
    unittest.main()
