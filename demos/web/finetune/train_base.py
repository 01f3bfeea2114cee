"""Writes the fine-tuning demo's default model (demos/web/finetune/model/): a tiny Llama-shaped
causal LM (Hugging Face LlamaForCausalLM names and config.json, via trainer/models.py's plain-PyTorch
Llama) with a character-level tokenizer.json, pretrained here on the traditional nursery rhymes of
demos/web/transformer/rhymes.txt (public domain), so the page works offline.

The tokenizer is a BPE model with one token per printable ASCII character, '\\n', and no merges
(plus <unk>, <s>, </s>), decoded by 'Fuse': any text round-trips, characters outside that set become
<unk>. The model: hidden 96, 2 layers, 4 heads (2 key/value heads), SwiGLU 256, tied embeddings,
~210k parameters, float32 (~0.85 MB). Deterministic (seeded); a few minutes on one CPU core.

Run: /usr/bin/python3 demos/web/finetune/train_base.py
"""
import json
import os
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, ROOT)
from trainer import models  # noqa: E402
from trainer.safetensors_io import dumps  # noqa: E402

OUT = os.path.join(HERE, "model")
SPECIAL = ["<unk>", "<s>", "</s>"]
CHARS = ["\n"] + [chr(c) for c in range(32, 127)]
CONFIG = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": len(SPECIAL) + len(CHARS),
    "hidden_size": 96, "intermediate_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4,
    "num_key_value_heads": 2, "max_position_embeddings": 256, "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
    "tie_word_embeddings": True, "hidden_act": "silu", "bos_token_id": 1, "eos_token_id": 2, "torch_dtype": "float32",
}


def tokenizer_json():
    vocab = {t: i for i, t in enumerate(SPECIAL + CHARS)}
    added = [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}
             for i, t in enumerate(SPECIAL)]
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added, "normalizer": None,
        "pre_tokenizer": None, "post_processor": None, "decoder": {"type": "Fuse"},
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "vocab": vocab, "merges": []},
    }


def main():
    torch.manual_seed(0)
    text = open(os.path.join(ROOT, "demos", "web", "transformer", "rhymes.txt"), encoding="utf-8").read()
    index = {c: i + len(SPECIAL) for i, c in enumerate(CHARS)}
    data = torch.tensor([index.get(c, 0) for c in text])
    model = models.LlamaForCausalLM(CONFIG)
    with torch.no_grad():
        for n, p in model.named_parameters():
            if n.endswith("norm.weight"):
                p.fill_(1.0)
            else:
                p.normal_(0, 0.02)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    T, B, steps = 96, 16, int(os.environ.get("STEPS", "600"))
    for step in range(steps):
        starts = torch.randint(0, len(data) - T - 1, (B,))
        x = torch.stack([data[s:s + T] for s in starts])
        y = torch.stack([data[s + 1:s + T + 1] for s in starts])
        for g in opt.param_groups:
            g["lr"] = 3e-3 * min(1.0, (step + 1) / 50) * (0.1 + 0.9 * (1 - step / steps))
        loss = F.cross_entropy(model(x).reshape(-1, CONFIG["vocab_size"]), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 100 == 0 or step == steps - 1:
            print(f"step {step} loss {loss.item():.3f}", flush=True)
    os.makedirs(OUT, exist_ok=True)
    state = {n: p.detach().clone().contiguous() for n, p in model.named_parameters()}
    with open(os.path.join(OUT, "model.safetensors"), "wb") as f:
        f.write(dumps(state, {"format": "pt"}))
    with open(os.path.join(OUT, "config.json"), "w") as f:
        json.dump(CONFIG, f, indent=2)
    with open(os.path.join(OUT, "tokenizer.json"), "w") as f:
        json.dump(tokenizer_json(), f, indent=2)
    with open(os.path.join(OUT, "tokenizer_config.json"), "w") as f:
        json.dump({"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "tokenizer_class": "PreTrainedTokenizerFast",
                   "model_max_length": CONFIG["max_position_embeddings"]}, f, indent=2)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
