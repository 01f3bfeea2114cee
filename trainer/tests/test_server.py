# trainer/tests/test_server.py: the HTTP trainer as a process (python -m trainer on 127.0.0.1, ephemeral ports).
# ProtocolTest: a tiny GPT-2 served by 2 ranks (A, in micro-batches) and by 1 rank (B): authentication, bad and oversized requests
# (the server keeps serving), forward and sample against an in-process reference, and training: forward_backward's
# loss and gradient (read back exactly through AdamW's exp_avg with beta1 = 0) against torch autograd of
# −Σ w·logprob, and the same AdamW update on 1 and 2 ranks.
# RestartFaultTest: a tiny Llama on 2 ranks: save_state, restart, load_state resumes bit-identically; killing
# rank 1 makes the next call answer 503 naming it within seconds.
import copy
import os
import random
import signal
import tempfile
import time
import unittest

import torch

from trainer import safetensors_io
from trainer.models import load_pretrained
from trainer.tests.tiny import (GPT2_CONFIG, LLAMA_CONFIG, TrainerProcess, gpt2_tensors, llama_tensors,
                                write_folder)


def make_data(seed, lengths, vocab):
    rnd = random.Random(seed)
    data = [{"inputIds": [rnd.randrange(vocab) for _ in range(t)], "targets": [rnd.randrange(vocab) for _ in range(t)]}
            for t in lengths]
    weights = [[round(rnd.uniform(-1.0, 2.0), 3) for _ in range(t)] for t in lengths]
    return data, weights


def reference_model(folder, state=None):
    """The folder's model in this process, with the weights of `state` (save_state's tensors) when given."""
    model, _, names = load_pretrained(folder)
    if state is not None:
        with torch.no_grad():
            for pname, p in model.named_parameters():
                p.copy_(state[names[pname]])
    return model, names


def ref_logprobs(model, data):
    out = []
    for d in data:  # one datum at a time: no padding
        logits = model(torch.tensor([d["inputIds"]]))[0]
        out.append(torch.log_softmax(logits, -1).gather(-1, torch.tensor(d["targets"])[:, None])[:, 0])
    return out


def ref_loss(model, data, weights):
    return -sum((torch.tensor(w) * lp).sum() for w, lp in zip(weights, ref_logprobs(model, data)))


def rel(a, b):
    return float((a.double() - b.double()).norm() / max(float(b.double().norm()), 1e-30))


def no_key_bias(name, t, n_embd):
    """GPT-2's c_attn.bias without its key part [C, 2C): a key bias adds the same number to every score of a query,
    which softmax ignores, so its gradient is rounding noise (~1e-7 of the others), and AdamW's step g/(|g| + eps)
    turns noise into ±lr moves. Updates are compared without those elements."""
    if name.endswith("attn.c_attn.bias"):
        return torch.cat([t[:n_embd], t[2 * n_embd:]])
    return t


class ProtocolTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.set_num_threads(1)
        cls.tmp = tempfile.TemporaryDirectory()
        cls.folder = write_folder(os.path.join(cls.tmp.name, "gpt2"), GPT2_CONFIG, gpt2_tensors(GPT2_CONFIG))
        # A runs forwards of at most 8 padded tokens: several micro-batches (DDP no_sync) on one rank, one on another
        cls.A = TrainerProcess(cls.folder, nproc=2, token="tok-A",
                               extra=["--max-request-bytes", "65536", "--micro-batch-tokens", "8"])
        cls.B = TrainerProcess(cls.folder, nproc=1, token="tok-B")
        cls.A.wait_ready()
        cls.B.wait_ready()

    @classmethod
    def tearDownClass(cls):
        cls.A.stop()
        cls.B.stop()
        cls.tmp.cleanup()

    def state(self, srv):
        blob = srv.post("/save_state")
        self.assertIsInstance(blob, bytes)
        return safetensors_io.loads(blob)[0]

    def assert_serving(self, srv):
        self.assertEqual(srv.request("GET", "/health")[0], 200)
        out = srv.post("/forward", {"data": [{"inputIds": [1, 2], "targets": [2, 3]}]})
        self.assertEqual(len(out["logprobs"][0]), 2)

    def test_ready_line_and_health(self):
        self.assertRegex(self.A.first_line, r"^trainer listening on http://127\.0\.0\.1:\d+ \(2 ranks\)$")
        self.assertRegex(self.B.first_line, r"^trainer listening on http://127\.0\.0\.1:\d+ \(1 ranks\)$")
        status, h = self.A.request("GET", "/health")
        self.assertEqual(status, 200)
        self.assertEqual((h["ok"], h["ranks"], h["modelType"], len(h["pids"])), (True, 2, "gpt2", 2))

    def test_authentication(self):
        body = {"data": [{"inputIds": [1], "targets": [2]}]}
        for token in (None, "wrong", "tok-B"):
            status, out = self.A.request("POST", "/forward", body, token=token)
            self.assertEqual(status, 401, token)
            self.assertIn("authentication", out["error"])
        status, out = self.A.request("GET", "/health", headers={"Authorization": "tok-A"}, token=None)
        self.assertEqual(status, 401)  # no 'Bearer ' scheme
        status, out = self.A.request("POST", "/save_state", token=None)
        self.assertEqual(status, 401)
        self.assert_serving(self.A)

    def test_bad_requests_keep_serving(self):
        A = self.A
        ok_datum = {"inputIds": [1, 2], "targets": [2, 3]}
        cases = [
            ("/forward", b'{"data": [', 400, "malformed JSON"),
            ("/forward", b'[1, 2]', 400, "JSON object"),
            ("/forward", {"data": [ok_datum], "extra": 1}, 400, "unknown field"),
            ("/forward", {"data": [{"inputIds": [1, 50], "targets": [2, 3]}]}, 400, "token id"),
            ("/forward", {"data": [{"inputIds": [1, True], "targets": [2, 3]}]}, 400, "token id"),
            ("/forward", {"data": [{"inputIds": [1, 2], "targets": [2]}]}, 400, "targets"),
            ("/forward", {"data": [{"inputIds": [1] * 33, "targets": [1] * 33}]}, 400, "positions"),
            ("/forward", {"data": {"inputIds": [1]}}, 400, "list"),
            ("/forward_backward", {"data": [ok_datum]}, 400, "weights"),
            ("/forward_backward", {"data": [ok_datum], "weights": [[1.0]]}, 400, "weights"),
            ("/forward_backward", b'{"data": [{"inputIds": [1], "targets": [2]}], "weights": [[NaN]]}', 400,
             "finite"),
            ("/optim_step", {"betas": [0.9]}, 400, "betas"),
            ("/optim_step", {"lr": "big"}, 400, "lr"),
            ("/optim_step", {"weight_decay": 0.1}, 400, "unknown field"),
            ("/sample", {"promptIds": []}, 400, "promptIds"),
            ("/sample", {"promptIds": [1], "temperature": -1}, 400, "temperature"),
            ("/load_state", b"not a safetensors file", 400, "safetensors"),
            ("/load_state", safetensors_io.dumps({"x": torch.ones(2)}), 400, "missing"),
            ("/forward", b"x" * 70000, 413, "limit"),
            ("/load_state", b"\0" * (3 << 20), 413, "limit"),
            ("/nowhere", {}, 404, "endpoint"),
        ]
        for path, body, status, words in cases:
            raw = body if isinstance(body, bytes) else None
            got, out = A.request("POST", path, None if raw is not None else body, raw=raw)
            self.assertEqual(got, status, (path, words, out))
            self.assertIn(words, out["error"], path)
            self.assertEqual(A.request("GET", "/health")[0], 200, (path, words))
        self.assertEqual(A.request("GET", "/forward")[0], 405)
        self.assert_serving(A)

    def test_forward_and_sample_match_reference(self):
        for srv in (self.A, self.B):
            model, _ = reference_model(self.folder, self.state(srv))
            data, _ = make_data(1, [6, 1, 9, 4, 2], 50)  # 5 items: 3 + 2 on two ranks, different lengths
            out = srv.post("/forward", {"data": data})
            want = ref_logprobs(model, data)
            self.assertEqual([len(x) for x in out["logprobs"]], [6, 1, 9, 4, 2])
            for got, w in zip(out["logprobs"], want):
                self.assertLess(float((torch.tensor(got) - w).abs().max()), 2e-5)
            self.assertEqual(srv.post("/forward", {"data": []}), {"logprobs": []})

            prompt = [3, 1, 4, 1, 5]
            ids = list(prompt)
            with torch.no_grad():
                for _ in range(6):
                    ids.append(int(model(torch.tensor([ids]))[0, -1].argmax()))
            greedy = srv.post("/sample", {"promptIds": prompt, "maxNewTokens": 6, "temperature": 0})["ids"]
            self.assertEqual(greedy, ids)
            top1 = srv.post("/sample", {"promptIds": prompt, "maxNewTokens": 6, "temperature": 1.0, "topK": 1})
            self.assertEqual(top1["ids"], ids)
            s1 = srv.post("/sample", {"promptIds": prompt, "maxNewTokens": 8, "temperature": 1.5, "seed": 7})
            s2 = srv.post("/sample", {"promptIds": prompt, "maxNewTokens": 8, "temperature": 1.5, "seed": 7})
            self.assertEqual(s1, s2)
            self.assertEqual(s1["ids"][:5], prompt)
            self.assertEqual(len(s1["ids"]), 13)
            long = srv.post("/sample", {"promptIds": list(range(40)), "maxNewTokens": 2, "temperature": 0})
            self.assertEqual(len(long["ids"]), 42)  # the window keeps the last n_positions tokens

    def test_training_one_vs_two_ranks_vs_autograd(self):
        with open(os.path.join(self.folder, "model.safetensors"), "rb") as f:
            initial = f.read()
        for srv in (self.A, self.B):  # same start whatever ran before: the folder's weights, fresh AdamW
            self.assertEqual(srv.post("/load_state", raw=initial), {"ok": True, "step": 0, "optimizerState": False})
        d1, w1 = make_data(2, [5, 3, 7], 50)
        d2, w2 = make_data(3, [4], 50)  # one datum: rank 1 of A has nothing and joins the all-reduce with zero loss
        hp = {"lr": 0.01, "betas": [0.0, 0.999], "eps": 1e-8, "weightDecay": 0.1}
        results = {}
        for name, srv in (("A", self.A), ("B", self.B)):
            r1 = srv.post("/forward_backward", {"data": d1, "weights": w1})
            r2 = srv.post("/forward_backward", {"data": d2, "weights": w2})
            self.assertEqual(r1["metrics"]["tokens"], 15)
            step = srv.post("/optim_step", hp)
            self.assertEqual(step["step"], 1)
            results[name] = (r1, r2, step, self.state(srv))

        # reference: autograd of the custom sum over both calls, then torch's AdamW
        model, names = reference_model(self.folder)
        before = {names[n]: p.detach().clone() for n, p in model.named_parameters()}
        loss1, loss2 = ref_loss(model, d1, w1), ref_loss(model, d2, w2)
        (loss1 + loss2).backward()
        grads = {names[n]: p.grad.clone() for n, p in model.named_parameters()}
        gnorm = sum(float(g.double().pow(2).sum()) for g in grads.values()) ** 0.5
        opt = torch.optim.AdamW(model.parameters(), lr=0.01, betas=(0.0, 0.999), eps=1e-8, weight_decay=0.1)
        opt.step()
        after = {names[n]: p.detach().clone() for n, p in model.named_parameters()}
        want_lp = ref_logprobs(model, d1)  # (after the step; only to shape-check below)

        for name in ("A", "B"):
            r1, r2, step, st = results[name]
            self.assertAlmostEqual(r1["loss"], float(loss1), delta=1e-5 * abs(float(loss1)))
            self.assertAlmostEqual(r2["loss"], float(loss2), delta=1e-5 * abs(float(loss2)))
            self.assertEqual([len(x) for x in r1["logprobs"]], [len(x) for x in want_lp])
            self.assertAlmostEqual(step["metrics"]["gradNorm"], gnorm, delta=1e-5 * gnorm)
            for key, g in grads.items():  # beta1 = 0: exp_avg is the accumulated gradient itself
                self.assertLess(rel(st["optimizer." + key + ".exp_avg"], g), 1e-5, (name, key))
                self.assertEqual(float(st["optimizer." + key + ".step"]), 1.0)
                upd, want = st[key] - before[key], after[key] - before[key]
                c = GPT2_CONFIG["n_embd"]
                self.assertLess(rel(no_key_bias(key, upd, c), no_key_bias(key, want, c)), 1e-5, (name, key))
        sa, sb = results["A"][3], results["B"][3]
        self.assertEqual(sorted(sa), sorted(sb))
        for key in grads:
            self.assertLess(rel(sa["optimizer." + key + ".exp_avg"], sb["optimizer." + key + ".exp_avg"]), 1e-6, key)
            c = GPT2_CONFIG["n_embd"]
            self.assertLess(rel(no_key_bias(key, sa[key] - before[key], c), no_key_bias(key, sb[key] - before[key], c)),
                            1e-5, key)

        # a second step with torch's defaults
        for srv in (self.A, self.B):
            srv.post("/forward_backward", {"data": d1 + d2, "weights": w1 + w2})
            self.assertEqual(srv.post("/optim_step", {})["step"], 2)
        sa2, sb2 = self.state(self.A), self.state(self.B)
        for key in grads:
            c = GPT2_CONFIG["n_embd"]
            self.assertLess(rel(no_key_bias(key, sa2[key] - sa[key], c), no_key_bias(key, sb2[key] - sb[key], c)), 1e-5,
                            key)
            self.assertLess(rel(sa2["optimizer." + key + ".exp_avg_sq"], sb2["optimizer." + key + ".exp_avg_sq"]),
                            1e-5, key)


class RestartFaultTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.set_num_threads(1)
        cls.tmp = tempfile.TemporaryDirectory()
        cls.folder = write_folder(os.path.join(cls.tmp.name, "llama"), LLAMA_CONFIG, llama_tensors(LLAMA_CONFIG))
        cls.servers = []

    @classmethod
    def tearDownClass(cls):
        for s in cls.servers:
            s.stop()
        cls.tmp.cleanup()

    def start(self):
        srv = TrainerProcess(self.folder, nproc=2, token="tok-L")
        self.servers.append(srv)
        return srv.wait_ready()

    def test_restart_resumes_and_a_dead_rank_is_reported(self):
        vocab = LLAMA_CONFIG["vocab_size"]
        d1, w1 = make_data(4, [6, 2, 9], vocab)
        d2, w2 = make_data(5, [3, 8, 5, 4], vocab)
        d3, _ = make_data(6, [7, 3], vocab)
        first = self.start()

        # Llama over HTTP: forward and the gradient of the custom sum against autograd
        model, names = reference_model(self.folder)
        out = first.post("/forward", {"data": d3})
        for got, want in zip(out["logprobs"], ref_logprobs(copy.deepcopy(model), d3)):
            self.assertLess(float((torch.tensor(got) - want).abs().max()), 2e-5)
        first.post("/forward_backward", {"data": d1, "weights": w1})
        first.post("/optim_step", {"betas": [0.0, 0.999]})
        ref_loss(model, d1, w1).backward()
        s1_blob = first.post("/save_state")
        s1 = safetensors_io.loads(s1_blob)[0]
        for pname, p in model.named_parameters():
            self.assertLess(rel(s1["optimizer." + names[pname] + ".exp_avg"], p.grad), 1e-5, pname)
        self.assertNotIn("lm_head.weight" if LLAMA_CONFIG["tie_word_embeddings"] else "x", s1)

        # continue on the first trainer, then restart from s1 and continue the same way
        first.post("/forward_backward", {"data": d2, "weights": w2})
        first.post("/optim_step", {"lr": 0.003})
        next_state = safetensors_io.loads(first.post("/save_state"))[0]
        next_lp = first.post("/forward", {"data": d3})
        first.stop()
        self.assertEqual(first.proc.returncode, 0)

        second = self.start()
        self.assertEqual(second.post("/load_state", raw=s1_blob), {"ok": True, "step": 1, "optimizerState": True})
        again = safetensors_io.loads(second.post("/save_state"))[0]
        self.assertEqual(sorted(again), sorted(s1))
        for k in s1:
            self.assertTrue(torch.equal(again[k], s1[k]), k)
        second.post("/forward_backward", {"data": d2, "weights": w2})
        second.post("/optim_step", {"lr": 0.003})
        resumed = safetensors_io.loads(second.post("/save_state"))[0]
        for k in next_state:
            self.assertTrue(torch.equal(resumed[k], next_state[k]), k)
        self.assertEqual(second.post("/forward", {"data": d3}), next_lp)

        # kill rank 1: the next call answers 503 naming it, quickly, and so do later ones
        pids = second.request("GET", "/health")[1]["pids"]
        os.kill(pids[1], signal.SIGKILL)
        t0 = time.monotonic()
        status, out = second.request("POST", "/forward_backward", {"data": d1, "weights": w1})
        self.assertLess(time.monotonic() - t0, 5.0)
        self.assertEqual(status, 503, out)
        self.assertIn("rank 1", out["error"])
        self.assertEqual(out["rank"], 1)
        for method, path, body in (("GET", "/health", None), ("POST", "/forward", {"data": d3}),
                                   ("POST", "/sample", {"promptIds": [1]})):
            status, out = second.request(method, path, body)
            self.assertEqual(status, 503, path)
            self.assertIn("rank 1", out["error"])
        second.stop()
        self.assertEqual(second.proc.returncode, 0)
        self.assertTrue(any("rank 1" in line for line in second.stderr_lines))


if __name__ == "__main__":
    unittest.main()
