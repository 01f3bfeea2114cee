#!/usr/bin/env python3
"""One nanoGPT train step in PyTorch 1.13 (CPU), the yardstick of the bench's gpt_train.

    /usr/bin/python3 tests/bench/torch/gpt_step.py --data FILE --threads N [--budget-ms MS]

The model is nanoGPT's model.py (GPT, Block, CausalSelfAttention with the non-flash path,
MLP, LayerNorm with bias, tied LM head), at the shape of tests/bench/lib/gpt.mjs; FILE holds
its parameters in named_parameters() order, then the token ids and targets (written by
lib/torch.mjs from the same arrays simdgrad starts from). A step is zero_grad, forward,
cross-entropy, backward, AdamW step, as in the bench. Prints one JSON line: median wall and
process-CPU milliseconds per step, the first loss, the thread count and the BLAS library the
process loaded.
"""
import argparse
import json
import math
import statistics
import time

import numpy as np
import torch
import torch.nn as nn
from torch.nn import functional as F

LAYERS, HEADS, EMBD, BLOCK, BATCH, VOCAB = 2, 4, 64, 64, 8, 65
ADAMW = dict(lr=1e-3, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1)


class LayerNorm(nn.Module):
    def __init__(self, ndim):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(ndim))
        self.bias = nn.Parameter(torch.zeros(ndim))

    def forward(self, x):
        return F.layer_norm(x, self.weight.shape, self.weight, self.bias, 1e-5)


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(EMBD, 3 * EMBD)
        self.c_proj = nn.Linear(EMBD, EMBD)
        self.register_buffer("bias", torch.tril(torch.ones(BLOCK, BLOCK)).view(1, 1, BLOCK, BLOCK))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(EMBD, dim=2)
        k = k.view(B, T, HEADS, C // HEADS).transpose(1, 2)
        q = q.view(B, T, HEADS, C // HEADS).transpose(1, 2)
        v = v.view(B, T, HEADS, C // HEADS).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_fc = nn.Linear(EMBD, 4 * EMBD)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * EMBD, EMBD)

    def forward(self, x):
        return self.c_proj(self.gelu(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = LayerNorm(EMBD)
        self.attn = CausalSelfAttention()
        self.ln_2 = LayerNorm(EMBD)
        self.mlp = MLP()

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(VOCAB, EMBD),
            wpe=nn.Embedding(BLOCK, EMBD),
            h=nn.ModuleList([Block() for _ in range(LAYERS)]),
            ln_f=LayerNorm(EMBD),
        ))
        self.lm_head = nn.Linear(EMBD, VOCAB, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # weight tying

    def forward(self, idx, targets):
        pos = torch.arange(0, idx.size(1), dtype=torch.long)
        x = self.transformer.wte(idx) + self.transformer.wpe(pos)
        for block in self.transformer.h:
            x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


def blas_library():
    """The BLAS shared object this process loaded (which one PyTorch's matmuls call)."""
    try:
        with open("/proc/self/maps") as f:
            libs = {line.split()[-1] for line in f if "blas" in line.lower() and "/" in line}
        return ", ".join(sorted(libs)) or "none found"
    except OSError:
        return "unknown"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--budget-ms", type=float, default=4000)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)

    model = GPT()
    raw = open(args.data, "rb").read()
    offset = 0
    with torch.no_grad():
        for _, p in model.named_parameters():  # lm_head is tied: not listed twice
            n = p.numel()
            p.copy_(torch.from_numpy(np.frombuffer(raw, dtype=np.float32, count=n, offset=offset).copy()).view_as(p))
            offset += 4 * n
    ids = np.frombuffer(raw, dtype=np.int32, count=2 * BATCH * BLOCK, offset=offset).astype(np.int64)
    idx = torch.from_numpy(ids[: BATCH * BLOCK].copy()).view(BATCH, BLOCK)
    targets = torch.from_numpy(ids[BATCH * BLOCK:].copy()).view(BATCH, BLOCK)

    opt = torch.optim.AdamW(model.parameters(), **ADAMW)
    with torch.no_grad():
        loss0 = model(idx, targets).item()

    def step():
        opt.zero_grad(set_to_none=True)
        loss = model(idx, targets)
        loss.backward()
        opt.step()

    for _ in range(5):
        step()
    wall, cpu = [], []
    start = time.perf_counter()
    while len(wall) < 10 or (time.perf_counter() - start) * 1000 < args.budget_ms:
        w0, c0 = time.perf_counter(), time.process_time()
        step()
        wall.append((time.perf_counter() - w0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
        if len(wall) >= 200:
            break
    print(json.dumps({
        "threads": torch.get_num_threads(),
        "wall_ms": statistics.median(wall),
        "cpu_ms": statistics.median(cpu),
        "runs": len(wall),
        "loss0": loss0,
        "torch": torch.__version__,
        "blas": blas_library(),
    }))


if __name__ == "__main__":
    main()
