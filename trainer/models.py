# trainer/models.py: GPT-2 and Llama causal language models in plain PyTorch, with parameter names equal to
# Hugging Face transformers' GPT2LMHeadModel and LlamaForCausalLM (so a model folder's weights load by name), and
# load_pretrained(folder), which builds the model for a folder's config.json and loads its safetensors weights.
# Both models take input ids [B, T] and return float32 logits [B, T, vocab]; neither has dropout or buffers.
import math

import torch
import torch.nn.functional as F
from torch import nn

from .safetensors_io import load_model_folder


class Conv1D(nn.Module):
    """GPT-2's linear layer: weight stored [in, out], y = x @ weight + bias."""

    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(n_in, n_out))
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        return x @ self.weight + self.bias


def _at_least_f32(dtype):
    """Normalisations and softmax run in float32 for half-precision inputs (as HF does), else in the input's dtype."""
    return torch.promote_types(dtype, torch.float32)


def causal_attention(q, k, v, scale):
    """q [B, H, T, D], k and v [B, H, T, D] → softmax(q k^T · scale, causal) v."""
    t = q.shape[-2]
    scores = (q @ k.transpose(-1, -2)) * scale
    mask = torch.ones(t, t, dtype=torch.bool, device=q.device).tril()
    scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores.to(_at_least_f32(scores.dtype)), dim=-1).to(q.dtype) @ v


class GPT2Block(nn.Module):
    def __init__(self, cfg, layer_idx):
        super().__init__()
        c, inner = cfg["n_embd"], cfg.get("n_inner") or 4 * cfg["n_embd"]
        eps = cfg.get("layer_norm_epsilon", 1e-5)
        self.n_head = cfg["n_head"]
        self.scale = 1.0 / math.sqrt(c // self.n_head) if cfg.get("scale_attn_weights", True) else 1.0
        if cfg.get("scale_attn_by_inverse_layer_idx", False):
            self.scale /= layer_idx + 1
        act = cfg.get("activation_function", "gelu_new")
        if act in ("gelu_new", "gelu_pytorch_tanh", "gelu_fast"):
            self.act = lambda x: F.gelu(x, approximate="tanh")
        elif act == "gelu":
            self.act = F.gelu
        elif act == "relu":
            self.act = F.relu
        else:
            raise ValueError(f"gpt2: unsupported activation_function '{act}'")
        self.ln_1 = nn.LayerNorm(c, eps=eps)
        self.attn = nn.Module()
        self.attn.c_attn = Conv1D(c, 3 * c)
        self.attn.c_proj = Conv1D(c, c)
        self.ln_2 = nn.LayerNorm(c, eps=eps)
        self.mlp = nn.Module()
        self.mlp.c_fc = Conv1D(c, inner)
        self.mlp.c_proj = Conv1D(inner, c)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.attn.c_attn(self.ln_1(x)).split(c, dim=2)
        heads = lambda y: y.view(b, t, self.n_head, c // self.n_head).transpose(1, 2)
        y = causal_attention(heads(q), heads(k), heads(v), self.scale)
        x = x + self.attn.c_proj(y.transpose(1, 2).reshape(b, t, c))
        return x + self.mlp.c_proj(self.act(self.mlp.c_fc(self.ln_2(x))))


class GPT2LMHeadModel(nn.Module):
    """HF GPT2LMHeadModel's math and names; lm_head is tied to transformer.wte (no parameter of its own)."""

    def __init__(self, cfg):
        super().__init__()
        self.max_positions = cfg["n_positions"]
        self.vocab_size = cfg["vocab_size"]
        self.transformer = nn.Module()
        self.transformer.wte = nn.Embedding(cfg["vocab_size"], cfg["n_embd"])
        self.transformer.wpe = nn.Embedding(cfg["n_positions"], cfg["n_embd"])
        self.transformer.h = nn.ModuleList(GPT2Block(cfg, i) for i in range(cfg["n_layer"]))
        self.transformer.ln_f = nn.LayerNorm(cfg["n_embd"], eps=cfg.get("layer_norm_epsilon", 1e-5))

    def forward(self, ids):
        pos = torch.arange(ids.shape[1], device=ids.device)
        x = self.transformer.wte(ids) + self.transformer.wpe(pos)
        for block in self.transformer.h:
            x = block(x)
        return (self.transformer.ln_f(x) @ self.transformer.wte.weight.t()).float()


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        h = x.to(_at_least_f32(x.dtype))
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * h.to(x.dtype)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class LlamaLayer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d = cfg["hidden_size"]
        self.n_heads = cfg["num_attention_heads"]
        self.n_kv = cfg.get("num_key_value_heads") or self.n_heads
        self.head_dim = cfg.get("head_dim") or d // self.n_heads
        if self.n_heads % self.n_kv:
            raise ValueError("llama: num_attention_heads must be a multiple of num_key_value_heads")
        bias = bool(cfg.get("attention_bias", False))
        mlp_bias = bool(cfg.get("mlp_bias", False))
        inter = cfg["intermediate_size"]
        self.self_attn = nn.Module()
        self.self_attn.q_proj = nn.Linear(d, self.n_heads * self.head_dim, bias=bias)
        self.self_attn.k_proj = nn.Linear(d, self.n_kv * self.head_dim, bias=bias)
        self.self_attn.v_proj = nn.Linear(d, self.n_kv * self.head_dim, bias=bias)
        self.self_attn.o_proj = nn.Linear(self.n_heads * self.head_dim, d, bias=bias)
        self.mlp = nn.Module()
        self.mlp.gate_proj = nn.Linear(d, inter, bias=mlp_bias)
        self.mlp.up_proj = nn.Linear(d, inter, bias=mlp_bias)
        self.mlp.down_proj = nn.Linear(inter, d, bias=mlp_bias)
        eps = cfg.get("rms_norm_eps", 1e-6)
        self.input_layernorm = RMSNorm(d, eps)
        self.post_attention_layernorm = RMSNorm(d, eps)

    def forward(self, x, cos, sin):
        b, t, _ = x.shape
        a = self.self_attn
        h = self.input_layernorm(x)
        q = a.q_proj(h).view(b, t, self.n_heads, self.head_dim).transpose(1, 2)
        k = a.k_proj(h).view(b, t, self.n_kv, self.head_dim).transpose(1, 2)
        v = a.v_proj(h).view(b, t, self.n_kv, self.head_dim).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin  # HF layout: rotation pairs (i, i + head_dim/2)
        k = k * cos + rotate_half(k) * sin
        rep = self.n_heads // self.n_kv  # grouped-query attention: query head j reads kv head j // rep
        k, v = k.repeat_interleave(rep, dim=1), v.repeat_interleave(rep, dim=1)
        y = causal_attention(q, k, v, 1.0 / math.sqrt(self.head_dim))
        x = x + a.o_proj(y.transpose(1, 2).reshape(b, t, self.n_heads * self.head_dim))
        h = self.post_attention_layernorm(x)
        return x + self.mlp.down_proj(F.silu(self.mlp.gate_proj(h)) * self.mlp.up_proj(h))


class LlamaForCausalLM(nn.Module):
    """HF LlamaForCausalLM's math and names (RMSNorm, rotary embeddings with rotate_half, SwiGLU, GQA)."""

    def __init__(self, cfg):
        super().__init__()
        if cfg.get("rope_scaling"):
            raise ValueError(f"llama: rope_scaling {cfg['rope_scaling']!r} is not supported")
        if cfg.get("hidden_act", "silu") != "silu":
            raise ValueError(f"llama: unsupported hidden_act '{cfg['hidden_act']}'")
        self.max_positions = cfg.get("max_position_embeddings", 2048)
        self.vocab_size = cfg["vocab_size"]
        self.tied = bool(cfg.get("tie_word_embeddings", False))
        self.rope_theta = float(cfg.get("rope_theta", 10000.0))
        self.model = nn.Module()
        self.model.embed_tokens = nn.Embedding(cfg["vocab_size"], cfg["hidden_size"])
        self.model.layers = nn.ModuleList(LlamaLayer(cfg) for _ in range(cfg["num_hidden_layers"]))
        self.model.norm = RMSNorm(cfg["hidden_size"], cfg.get("rms_norm_eps", 1e-6))
        self.head_dim = self.model.layers[0].head_dim if len(self.model.layers) else 0
        if not self.tied:
            self.lm_head = nn.Linear(cfg["hidden_size"], cfg["vocab_size"], bias=False)

    def rotary(self, t, device, dtype=torch.float32):
        """cos, sin [T, head_dim] (computed in float32, as HF does, or in float64 for a float64 model)."""
        ft = _at_least_f32(dtype)
        inv_freq = 1.0 / (self.rope_theta ** (torch.arange(0, self.head_dim, 2, device=device, dtype=ft) / self.head_dim))
        freqs = torch.outer(torch.arange(t, device=device, dtype=ft), inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos(), emb.sin()

    def forward(self, ids):
        x = self.model.embed_tokens(ids)
        cos, sin = self.rotary(ids.shape[1], ids.device, x.dtype)
        cos, sin = cos.to(x.dtype), sin.to(x.dtype)
        for layer in self.model.layers:
            x = layer(x, cos, sin)
        x = self.model.norm(x)
        head = self.model.embed_tokens.weight if self.tied else self.lm_head.weight
        return (x @ head.t()).float()


def build_model(config):
    kind = config.get("model_type")
    if kind == "gpt2":
        return GPT2LMHeadModel(config)
    if kind == "llama":
        return LlamaForCausalLM(config)
    raise ValueError(f"model_type '{kind}' is not supported (gpt2, llama)")


def _file_to_param_name(kind, name):
    """A checkpoint key → this module's parameter name, or None for keys that hold no parameter here."""
    if kind == "gpt2":
        if not name.startswith("transformer.") and name != "lm_head.weight":
            name = "transformer." + name  # checkpoints saved from GPT2Model have no 'transformer.' prefix
        if name.endswith((".attn.bias", ".attn.masked_bias")) and ".h." in name:
            return None  # causal-mask buffers older transformers saved
    if kind == "llama" and name.endswith(".rotary_emb.inv_freq"):
        return None
    return name


def load_pretrained(folder):
    """Builds the model for folder/config.json and loads its weights (as float32).
    Returns (model, config, names): names maps each parameter name to the key it has in the folder's files."""
    config, tensors = load_model_folder(folder)
    model = build_model(config)
    kind = config["model_type"]
    params = dict(model.named_parameters())
    tied = "transformer.wte.weight" if kind == "gpt2" else "model.embed_tokens.weight" if model.tied else None
    names, unexpected = {}, []
    for key, t in tensors.items():
        pname = _file_to_param_name(kind, key)
        if tied and key == "lm_head.weight":
            continue  # the tied head, when saved beside the embedding
        if pname is None:
            continue
        if pname not in params:
            unexpected.append(key)
            continue
        if tuple(t.shape) != tuple(params[pname].shape):
            raise ValueError(f"{folder}: '{key}' has shape {list(t.shape)}, the model expects "
                             f"{list(params[pname].shape)}")
        with torch.no_grad():
            params[pname].copy_(t.float())
        names[pname] = key
    if tied and tied not in names and "lm_head.weight" in tensors:
        head = tensors["lm_head.weight"]  # a tied checkpoint that kept only the head
        if tuple(head.shape) != tuple(params[tied].shape):
            raise ValueError(f"{folder}: 'lm_head.weight' has shape {list(head.shape)}")
        with torch.no_grad():
            params[tied].copy_(head.float())
        names[tied] = "lm_head.weight"
    missing = [p for p in params if p not in names]
    if missing or unexpected:
        raise ValueError(f"{folder}: missing weights {missing[:5]}{'…' if len(missing) > 5 else ''}, "
                         f"unexpected weights {unexpected[:5]}{'…' if len(unexpected) > 5 else ''}")
    return model, config, names
