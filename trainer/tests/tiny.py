# trainer/tests/tiny.py: tiny random model folders in Hugging Face layout for the tests (written at test time into
# a temporary folder; nothing large is committed), and a helper that starts a trainer process and talks HTTP to it.
# Also a command: /usr/bin/python3 -m trainer.tests.tiny DIR gpt2|llama (writes a folder to try the trainer on).
import http.client
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time

import torch

from trainer import safetensors_io

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

GPT2_CONFIG = {"model_type": "gpt2", "vocab_size": 50, "n_positions": 32, "n_embd": 16, "n_layer": 2, "n_head": 2,
               "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new"}
LLAMA_CONFIG = {"model_type": "llama", "vocab_size": 48, "hidden_size": 16, "intermediate_size": 40,
                "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "rms_norm_eps": 1e-5,
                "rope_theta": 500.0, "max_position_embeddings": 64, "tie_word_embeddings": False,
                "hidden_act": "silu"}


def gpt2_tensors(cfg, seed=1):
    g = torch.Generator().manual_seed(seed)
    r = lambda *s, std=0.3: torch.randn(*s, generator=g) * std
    c, inner, v = cfg["n_embd"], cfg.get("n_inner") or 4 * cfg["n_embd"], cfg["vocab_size"]
    t = {"transformer.wte.weight": r(v, c, std=0.5), "transformer.wpe.weight": r(cfg["n_positions"], c, std=0.2),
         "transformer.ln_f.weight": 1 + r(c, std=0.1), "transformer.ln_f.bias": r(c, std=0.1)}
    for i in range(cfg["n_layer"]):
        p = f"transformer.h.{i}."
        t.update({p + "ln_1.weight": 1 + r(c, std=0.1), p + "ln_1.bias": r(c, std=0.1),
                  p + "attn.c_attn.weight": r(c, 3 * c), p + "attn.c_attn.bias": r(3 * c, std=0.1),
                  p + "attn.c_proj.weight": r(c, c), p + "attn.c_proj.bias": r(c, std=0.1),
                  p + "ln_2.weight": 1 + r(c, std=0.1), p + "ln_2.bias": r(c, std=0.1),
                  p + "mlp.c_fc.weight": r(c, inner), p + "mlp.c_fc.bias": r(inner, std=0.1),
                  p + "mlp.c_proj.weight": r(inner, c, std=0.15), p + "mlp.c_proj.bias": r(c, std=0.1)})
    return t


def llama_tensors(cfg, seed=2):
    g = torch.Generator().manual_seed(seed)
    r = lambda *s, std=0.3: torch.randn(*s, generator=g) * std
    d, inter, v = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    hd = d // cfg["num_attention_heads"]
    kv = cfg.get("num_key_value_heads") or cfg["num_attention_heads"]
    t = {"model.embed_tokens.weight": r(v, d, std=0.5), "model.norm.weight": 1 + r(d, std=0.1)}
    if not cfg.get("tie_word_embeddings"):
        t["lm_head.weight"] = r(v, d)
    for i in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{i}."
        t.update({p + "self_attn.q_proj.weight": r(cfg["num_attention_heads"] * hd, d),
                  p + "self_attn.k_proj.weight": r(kv * hd, d), p + "self_attn.v_proj.weight": r(kv * hd, d),
                  p + "self_attn.o_proj.weight": r(d, cfg["num_attention_heads"] * hd),
                  p + "mlp.gate_proj.weight": r(inter, d), p + "mlp.up_proj.weight": r(inter, d),
                  p + "mlp.down_proj.weight": r(d, inter),
                  p + "input_layernorm.weight": 1 + r(d, std=0.1),
                  p + "post_attention_layernorm.weight": 1 + r(d, std=0.1)})
    return t


def write_folder(folder, config, tensors, shards=1, dtype=None):
    """config.json + model.safetensors (shards == 1) or model-0000k-of-0000n.safetensors + index."""
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=1)
    if dtype is not None:
        tensors = {k: v.to(dtype) for k, v in tensors.items()}
    if shards == 1:
        safetensors_io.save_file(tensors, os.path.join(folder, "model.safetensors"), {"format": "pt"})
        return folder
    names = sorted(tensors)
    weight_map = {}
    for s in range(shards):
        fname = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        part = {n: tensors[n] for n in names[s::shards]}
        weight_map.update({n: fname for n in part})
        safetensors_io.save_file(part, os.path.join(folder, fname), {"format": "pt"})
    with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": 0}, "weight_map": weight_map}, f)
    return folder


class TrainerProcess:
    """`python -m trainer` as a child process on 127.0.0.1 with an ephemeral port."""

    def __init__(self, model, nproc=1, token=None, extra=(), ready_timeout=60, device="cpu"):
        cmd = [sys.executable, "-m", "trainer", "--model", model, "--nproc", str(nproc), "--port", "0",
               "--threads", "1", "--timeout", "20", "--device", device] + list(extra)
        if token:
            cmd += ["--token", token]
        env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONDONTWRITEBYTECODE="1")
        env.pop("TRAINER_TOKEN", None)
        self.token = token
        self.proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        self.stderr_lines = []
        self.lines = queue.Queue()
        threading.Thread(target=self._pump, args=(self.proc.stdout, self.lines), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.proc.stderr, self.stderr_lines), daemon=True).start()
        self.ready_timeout = ready_timeout
        self.port = None
        self.first_line = None

    @staticmethod
    def _pump(stream, sink):
        for line in stream:
            if isinstance(sink, list):
                sink.append(line)
            else:
                sink.put(line)

    def wait_ready(self):
        deadline = time.monotonic() + self.ready_timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                raise RuntimeError("trainer did not start in time:\n" + "".join(self.stderr_lines))
            if line.startswith("trainer listening on http://127.0.0.1:"):
                self.first_line = line.rstrip("\n")
                self.port = int(line.split(":")[2].split(" ")[0])
                return self
            if self.proc.poll() is not None:
                raise RuntimeError("trainer exited:\n" + "".join(self.stderr_lines))

    def request(self, method, path, body=None, token="default", raw=None, headers=None, timeout=30):
        """→ (status, parsed JSON or bytes)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        h = dict(headers or {})
        tok = self.token if token == "default" else token
        if tok:
            h["Authorization"] = "Bearer " + tok
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        if data is not None and "Content-Type" not in h:
            h["Content-Type"] = "application/octet-stream" if raw is not None else "application/json"
        try:
            conn.request(method, path, body=data, headers=h)
            resp = conn.getresponse()
            payload = resp.read()
        finally:
            conn.close()
        if resp.getheader("Content-Type") == "application/json":
            return resp.status, json.loads(payload)
        return resp.status, payload

    def post(self, path, body=None, **kw):
        status, out = self.request("POST", path, body, **kw)
        if status != 200:
            raise AssertionError(f"{path}: HTTP {status}: {out}")
        return out

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for s in (self.proc.stdout, self.proc.stderr):
            s.close()


if __name__ == "__main__":
    folder, kind = sys.argv[1], sys.argv[2]
    if kind == "gpt2":
        write_folder(folder, GPT2_CONFIG, gpt2_tensors(GPT2_CONFIG))
    else:
        write_folder(folder, LLAMA_CONFIG, llama_tensors(LLAMA_CONFIG))
    print("wrote", folder)
