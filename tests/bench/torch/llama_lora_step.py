"""PyTorch's time for the step tests/bench/lora.mjs measures: trainer/models.py's plain-PyTorch Llama
(HF names and math) with the same shapes, one thread; full fine-tuning (AdamW over every parameter)
and LoRA r 8 on q/k/v/o_proj written out by hand (PEFT's lora.Linear: base(x) + B(A(x))·alpha/r,
AdamW over the adapters only). Prints one JSON line: {"full_ms", "lora_ms"} (median ms per step).

Run: /usr/bin/python3 tests/bench/torch/llama_lora_step.py '{"config": {...}, "batch": 4, "seq": 128, "steps": 5}'
"""
import json
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F
from torch import nn

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, ROOT)
from trainer import models  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blas_info import blas_report  # noqa: E402


class Lora(nn.Module):
    def __init__(self, base, r=8, alpha=16):
        super().__init__()
        self.base_layer = base
        self.lora_A = nn.Linear(base.in_features, r, bias=False)
        self.lora_B = nn.Linear(r, base.out_features, bias=False)
        nn.init.zeros_(self.lora_B.weight)
        self.scaling = alpha / r

    def forward(self, x):
        return self.base_layer(x) + self.lora_B(self.lora_A(x)) * self.scaling


def run(kind, cfg, B, T, steps):
    torch.manual_seed(1)
    model = models.LlamaForCausalLM(cfg)
    if kind == "lora":
        for layer in model.model.layers:
            for name in ["q_proj", "k_proj", "v_proj", "o_proj"]:
                setattr(layer.self_attn, name, Lora(getattr(layer.self_attn, name)))
        for n, p in model.named_parameters():
            p.requires_grad = "lora_" in n
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
    ids = torch.randint(0, cfg["vocab_size"], (B, T))

    def step():
        logits = model(ids)
        F.cross_entropy(logits[:, :-1].reshape(-1, cfg["vocab_size"]), ids[:, 1:].reshape(-1)).backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    step()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        step()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main():
    torch.set_num_threads(1)
    a = json.loads(sys.argv[1])
    cfg = dict(a["config"], hidden_act="silu", tie_word_embeddings=False)
    print(json.dumps({**{k + "_ms": run(k, cfg, a["batch"], a["seq"], a["steps"]) for k in ["full", "lora"]}, **blas_report()}))


if __name__ == "__main__":
    main()
