#!/usr/bin/env python3
"""One nanoGPT train step in PyTorch 1.13 (CPU), the yardstick of the bench's gpt_train.

    /usr/bin/python3 tests/bench/torch/gpt_step.py --data FILE --threads N [--budget-ms MS]
                                                   [--model bench|nanogpt]

--model bench (the default): nanoGPT's model.py classes restated below (CausalSelfAttention
with the non-flash path, MLP, LayerNorm with bias, tied LM head), at the shape of
tests/bench/lib/gpt.mjs, AdamW with weight decay on every parameter as the bench's simdgrad
side. --model nanogpt: nanoGPT's own model.py (nanogpt_model.py, copied unchanged) with its
configure_optimizers (decay on 2-D parameters only): the cross-check that the restatement is
not slower or faster than the original. FILE holds the parameters in named_parameters() order
(the same order in both), then the token ids and targets (written by lib/torch.mjs from the
same arrays simdgrad starts from). A step is zero_grad, forward, cross-entropy, backward,
AdamW step, as in the bench.

PyTorch at its best on one core: the thread count goes into OMP_NUM_THREADS,
OPENBLAS_NUM_THREADS and MKL_NUM_THREADS before torch is imported (OpenBLAS reads them when
it loads; without OPENBLAS_NUM_THREADS=1 it runs its own threads, CPU time twice wall time),
torch.set_num_threads(N), and the report gives CPU time ÷ wall time and OpenBLAS's own thread
count so that a run where either is off can be seen. The allocator matters as much: glibc
gives blocks above its mmap threshold back to the kernel on free and maps them again on the
next step, and on a virtual machine those page faults cost more than this model's arithmetic.
lib/torch.mjs therefore runs this script with MALLOC_MMAP_THRESHOLD_ and MALLOC_TRIM_THRESHOLD_
set (see there); the report gives the allocator and the minor page faults per step (near zero
when freed memory is kept).

Prints one JSON line: median wall and process-CPU milliseconds per step, CPU/wall, page
faults per step, the first loss, the thread counts, the BLAS library the process loaded and
the allocator.
"""
import argparse
import contextlib
import json
import math
import os
import resource
import statistics
import sys
import time


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--budget-ms", type=float, default=4000)
    ap.add_argument("--model", choices=["bench", "nanogpt"], default="bench")
    return ap.parse_args()


ARGS = parse_args() if __name__ == "__main__" else None
if ARGS is not None:
    # Before torch (and the BLAS it links) is loaded: OpenBLAS sizes its thread pool when the
    # library is loaded, from these variables.
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(ARGS.threads)

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blas_info import blas_library, mapped_libraries, openblas_core, openblas_threads  # noqa: E402

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


def allocator():
    """Which malloc serves PyTorch's CPU tensors: a preloaded jemalloc/tcmalloc, or glibc with
    the thresholds from the environment."""
    for word in ("jemalloc", "tcmalloc"):
        libs = mapped_libraries(word)
        if libs:
            return f"{word} ({libs[0]})"
    knobs = [f"{k}={os.environ[k]}" for k in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_") if k in os.environ]
    return "glibc malloc" + (f" ({', '.join(knobs)})" if knobs else " (default thresholds: freed large blocks go back to the kernel)")


def nanogpt_model():
    """nanoGPT's own GPT at the bench's shape (its constructor prints to stdout: sent to stderr)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import nanogpt_model as ng
    config = ng.GPTConfig(block_size=BLOCK, vocab_size=VOCAB, n_layer=LAYERS, n_head=HEADS, n_embd=EMBD, dropout=0.0, bias=True)
    with contextlib.redirect_stdout(sys.stderr):
        model = ng.GPT(config)
        opt = model.configure_optimizers(ADAMW["weight_decay"], ADAMW["lr"], ADAMW["betas"], "cpu")

    class Loss(nn.Module):  # model.py's forward returns (logits, loss)
        def __init__(self):
            super().__init__()
            self.gpt = model

        def forward(self, idx, targets):
            return self.gpt(idx, targets)[1]

    return Loss(), opt


def main():
    args = ARGS
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)

    if args.model == "nanogpt":
        model, opt = nanogpt_model()
    else:
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

    if args.model == "bench":
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
    faults0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    start = time.perf_counter()
    while len(wall) < 10 or (time.perf_counter() - start) * 1000 < args.budget_ms:
        w0, c0 = time.perf_counter(), time.process_time()
        step()
        wall.append((time.perf_counter() - w0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
        if len(wall) >= 200:
            break
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults0
    wall_ms, cpu_ms = statistics.median(wall), statistics.median(cpu)
    print(json.dumps({
        "model": args.model,
        "threads": torch.get_num_threads(),
        "openblas_threads": openblas_threads(),
        "openblas_core": openblas_core(),
        "wall_ms": wall_ms,
        "cpu_ms": cpu_ms,
        # One thread really: CPU time ≈ wall time (above ~1.1, some library ran threads).
        "cpu_per_wall": cpu_ms / wall_ms,
        "faults_per_step": faults / len(wall),
        "runs": len(wall),
        "loss0": loss0,
        "torch": torch.__version__,
        "blas": blas_library(),
        "allocator": allocator(),
    }))


if __name__ == "__main__":
    main()
