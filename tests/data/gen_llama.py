"""Tiny random Llama-shaped checkpoints as Hugging Face model folders, and what PyTorch computes on them, for
tests/js/models_llama.test.mjs (which runs this into a temporary folder when /usr/bin/python3 has torch).

The oracle is trainer/models.py's LlamaForCausalLM (plain PyTorch, Hugging Face's names and math, validated by
trainer/tests/test_models.py), extended here where a case needs it: rope_scaling ('linear', 'llama3': HF's
_compute_linear_scaling_rope_parameters / _compute_llama3_parameters, re-derived below) and Qwen2's bias on
q/k/v only, Mistral's sliding window. For each case the folder holds config.json and model.safetensors (or shards and
model.safetensors.index.json) written by trainer/safetensors_io.py, and expected.json holds, for fixed input ids,
the logits, the next-token cross-entropy loss, and the gradients' norms (and first values) after loss.backward().
bfloat16 cases store bf16 weights; the oracle computes in float32 on those rounded weights (as simdgrad does).

Run: /usr/bin/python3 tests/data/gen_llama.py OUT_DIR
"""
import json
import math
import os
import sys

import torch
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
from trainer import models  # noqa: E402
from trainer.safetensors_io import dumps  # noqa: E402

BASE = {
    "model_type": "llama",
    "architectures": ["LlamaForCausalLM"],
    "vocab_size": 64,
    "hidden_size": 32,
    "intermediate_size": 48,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "max_position_embeddings": 128,
    "rms_norm_eps": 1e-5,
    "rope_theta": 10000.0,
    "tie_word_embeddings": False,
    "hidden_act": "silu",
    "attention_bias": False,
    "mlp_bias": False,
    "bos_token_id": 1,
    "eos_token_id": 2,
    "torch_dtype": "float32",
    "transformers_version": "4.44.0",
}

CASES = {
    "llama_f32": {},
    "llama_tied": {"tie_word_embeddings": True},
    "llama3_rope": {"rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                     "original_max_position_embeddings": 64}},
    "linear_rope": {"rope_scaling": {"type": "linear", "factor": 2.0}, "num_key_value_heads": 4},
    "llama_bf16": {"torch_dtype": "bfloat16"},
    "llama_sharded": {"_shards": 3},
    "mistral_window": {"model_type": "mistral", "architectures": ["MistralForCausalLM"], "sliding_window": 3},
    "qwen2": {"model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"], "rope_theta": 1000000.0, "rms_norm_eps": 1e-6,
              "use_sliding_window": False, "sliding_window": 4096, "max_window_layers": 2, "tie_word_embeddings": True},
}

IDS = [[1, 5, 9, 33, 2, 17, 63], [4, 0, 12, 12, 40, 7, 3]]
GRAD_KEYS = ["model.embed_tokens.weight", "model.layers.0.self_attn.q_proj.weight", "model.layers.0.self_attn.k_proj.weight",
             "model.layers.1.mlp.gate_proj.weight", "model.layers.1.input_layernorm.weight", "model.norm.weight"]


def inv_freq(cfg, head_dim):
    """HF's rope init functions ('default', 'linear', 'llama3'), in float32 as HF computes them."""
    base = float(cfg.get("rope_theta", 10000.0))
    inv = 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.int64).float() / head_dim))
    s = cfg.get("rope_scaling")
    if not s:
        return inv
    kind = s.get("rope_type", s.get("type"))
    if kind == "linear":
        return inv / s["factor"]
    assert kind == "llama3"
    factor, low, high, old = s["factor"], s["low_freq_factor"], s["high_freq_factor"], s["original_max_position_embeddings"]
    low_wavelen, high_wavelen = old / low, old / high
    wavelen = 2 * math.pi / inv
    inv_l = torch.where(wavelen > low_wavelen, inv / factor, inv)
    smooth = (old / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * inv_l / factor + smooth * inv_l
    medium = ~(wavelen < high_wavelen) * ~(wavelen > low_wavelen)
    return torch.where(medium, smoothed, inv_l)


class Oracle(models.LlamaForCausalLM):
    def __init__(self, cfg):
        plain = {k: v for k, v in cfg.items() if k != "rope_scaling"}
        if cfg["model_type"] == "qwen2":
            plain["attention_bias"] = True
        super().__init__(plain)
        self.cfg = cfg
        if cfg["model_type"] == "qwen2":  # Qwen2: bias on q/k/v, none on o
            for layer in self.model.layers:
                layer.self_attn.o_proj.register_parameter("bias", None)

    def rotary(self, t, device, dtype=torch.float32):
        inv = inv_freq(self.cfg, self.head_dim)
        freqs = torch.outer(torch.arange(t, dtype=torch.float32), inv)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos(), emb.sin()


def window_attention(window):
    """models.causal_attention with Mistral's sliding window: query i sees keys j with i - window < j <= i."""
    def attend(q, k, v, scale):
        t = q.shape[-2]
        i = torch.arange(t)[:, None]
        j = torch.arange(t)[None, :]
        keep = (j <= i) & (j > i - window)
        scores = ((q @ k.transpose(-1, -2)) * scale).masked_fill(~keep, float("-inf"))
        return torch.softmax(scores, dim=-1) @ v
    return attend


def tensor_json(x):
    return [float(v) for v in x.detach().float().reshape(-1).tolist()]


def write_folder(folder, config, state, shards=1):
    """A Hugging Face model folder: config.json and model.safetensors, or `shards` files and model.safetensors.index.json
    (as transformers' save_pretrained names them). gen_models_16bit.py writes its folders with it too."""
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    if shards == 1:
        with open(os.path.join(folder, "model.safetensors"), "wb") as f:
            f.write(dumps(state, {"format": "pt"}))
        return
    names = sorted(state)
    weight_map, total = {}, 0
    for i in range(shards):
        part = names[i::shards]
        fname = f"model-{i + 1:05d}-of-{shards:05d}.safetensors"
        with open(os.path.join(folder, fname), "wb") as f:
            f.write(dumps({n: state[n] for n in part}, {"format": "pt"}))
        for n in part:
            weight_map[n] = fname
            total += state[n].numel() * state[n].element_size()
    with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=2)


def make(name, overrides, out):
    torch.manual_seed(sum(map(ord, name)))
    shards = overrides.pop("_shards", 1)
    cfg = dict(BASE, **overrides)
    model = Oracle(cfg)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn_like(p) * 0.2)
        for n, p in model.named_parameters():
            if n.endswith("layernorm.weight") or n == "model.norm.weight":
                p.copy_(1 + 0.1 * torch.randn_like(p))
    state = {n: p.detach().clone() for n, p in model.named_parameters()}
    if cfg.get("tie_word_embeddings"):
        state.pop("lm_head.weight", None)  # as HF saves a tied head: absent
    bf16 = cfg["torch_dtype"] == "bfloat16"
    if bf16:
        state = {n: t.to(torch.bfloat16) for n, t in state.items()}
        with torch.no_grad():
            for n, p in model.named_parameters():
                if n in state:
                    p.copy_(state[n].float())
    write_folder(os.path.join(out, name), cfg, state, shards)
    ids = torch.tensor(IDS)
    plain_attention = models.causal_attention
    if cfg["model_type"] == "mistral" and cfg.get("sliding_window"):
        models.causal_attention = window_attention(cfg["sliding_window"])
    try:
        logits = model(ids)
    finally:
        models.causal_attention = plain_attention
    loss = F.cross_entropy(logits[:, :-1].reshape(-1, cfg["vocab_size"]), ids[:, 1:].reshape(-1))
    loss.backward()
    params = dict(model.named_parameters())
    grads = {k: {"norm": float(params[k].grad.norm()), "first": tensor_json(params[k].grad.reshape(-1)[:6])} for k in GRAD_KEYS}
    return {"ids": IDS, "logits": {"shape": list(logits.shape), "data": tensor_json(logits)}, "loss": float(loss), "grads": grads}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.getcwd(), "llama_cases")
    os.makedirs(out, exist_ok=True)
    expected = {name: make(name, dict(over), out) for name, over in CASES.items()}
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f)
    print("wrote", out)


if __name__ == "__main__":
    main()
