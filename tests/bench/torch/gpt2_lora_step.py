"""PyTorch's time for the LoRA step tests/bench/lora_gpt2.mjs measures: nanoGPT's model.py (nanogpt_model.py, copied
unchanged) at GPT-2-124M's shape (vocab 50257, 1024 positions, 768 wide, 12 heads; --layers as given) with random
weights, LoRA r 8, alpha 16 on attn.c_attn and attn.c_proj written out as PEFT's lora.Linear (base(x) +
B(A(x))·alpha/r, A Kaiming-uniform, B zero, every other parameter frozen), AdamW over the adapters; forward,
next-token cross-entropy, backward, step. One thread: lora_gpt2.mjs sets OMP/OPENBLAS/MKL_NUM_THREADS=1 and glibc
malloc's thresholds (lib/torch.mjs: TORCH_ALLOC_ENV) in the environment; torch.set_num_threads(1) here.
Prints one JSON line: median wall and process-CPU ms per step (after a warm-up step), peak RSS, trained count.

Run: /usr/bin/python3 tests/bench/torch/gpt2_lora_step.py '{"layers": 12, "batch": 4, "seq": 128, "steps": 2}'
"""
import contextlib
import io
import json
import os
import resource
import statistics
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nanogpt_model  # noqa: E402
from blas_info import blas_report  # noqa: E402
from llama_lora_step import Lora  # noqa: E402  (PEFT's lora.Linear written out: nn.Linear's init is A's Kaiming-uniform)


def main():
    torch.set_num_threads(1)
    a = json.loads(sys.argv[1])
    torch.manual_seed(1)
    cfg = nanogpt_model.GPTConfig(block_size=1024, vocab_size=50257, n_layer=a["layers"], n_head=12, n_embd=768, dropout=0.0, bias=True)
    with contextlib.redirect_stdout(io.StringIO()):  # nanoGPT prints its parameter count and a slow-attention warning
        model = nanogpt_model.GPT(cfg)
    for block in model.transformer.h:
        block.attn.c_attn = Lora(block.attn.c_attn)
        block.attn.c_proj = Lora(block.attn.c_proj)
    for n, p in model.named_parameters():
        p.requires_grad = "lora_" in n
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=1e-4)
    B, T = a["batch"], a["seq"]
    ids = torch.randint(0, 50257, (B, T))

    # "narrow": the logits of the first T - 1 positions; "labels": every position's logits against the labels
    # shifted left and padded with -100 (transformers' ForCausalLMLoss since 4.46), as lora_gpt2.mjs --loss.
    labels = torch.cat([ids[:, 1:], torch.full((B, 1), -100, dtype=ids.dtype)], 1).reshape(-1)

    def step():
        logits, _ = model(ids, ids)  # with targets nanoGPT returns every position's logits
        if a.get("loss", "narrow") == "narrow":
            F.cross_entropy(logits[:, :-1].reshape(-1, 50257), ids[:, 1:].reshape(-1)).backward()
        else:
            F.cross_entropy(logits.reshape(-1, 50257), labels).backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    step()
    wall, cpu = [], []
    for _ in range(a["steps"]):
        t0, c0 = time.perf_counter(), time.process_time()
        step()
        wall.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    print(json.dumps({"wall_ms": statistics.median(wall), "cpu_ms": statistics.median(cpu),
                      "max_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "trainable": sum(p.numel() for p in params),
                      **blas_report()}))


if __name__ == "__main__":
    main()
