"""LoRA on tiny Llama and GPT-2 models, built by hand in PyTorch 1.13 with PEFT's semantics, for
tests/js/peft_lora.test.mjs (which runs this into a temporary folder when /usr/bin/python3 has torch).

PEFT itself is not installed; its LoRA is re-derived here from its source (huggingface/peft,
src/peft/tuners/lora/layer.py, model.py, config.py and src/peft/utils/save_and_load.py):
- lora.Linear wraps the targeted layer as `base_layer` and adds ModuleDicts keyed by the adapter
  name ('default'): lora_dropout (nn.Dropout(p), or nn.Identity when p == 0), lora_A =
  nn.Linear(in, r, bias=False), lora_B = nn.Linear(r, out, bias=False); forward is
  base_layer(x) + lora_B(lora_A(lora_dropout(x))) * (lora_alpha / r). GPT-2's Conv1D is the
  fan_in_fan_out case (weight [in, out]); merging adds (B @ A)^T there, B @ A for a Linear.
- Targets (check_target_module_exists with a list): a module whose full name equals an entry or
  ends with '.' + entry. Trainable (mark_only_lora_as_trainable): names containing 'lora_', plus
  for bias='lora_only' the wrapped layers' base_layer.bias.
- The saved adapter (get_peft_model_state_dict + _remove_adapter_name_from_state_dict_key +
  PeftModel's 'base_model.model.' prefix): 'base_model.model.<path>.lora_A.weight' /
  '.lora_B.weight' and, for 'lora_only', '<path>.base_layer.bias'; safetensors metadata
  {'format': 'pt'}. adapter_config.json: LoraConfig fields, json.dumps(indent=2, sort_keys=True),
  inference_mode True (PeftModel.save_pretrained sets it), target_modules a list.

For each case the folder holds the base model (config.json, model.safetensors), adapter/ (the two
PEFT files, with fixed non-zero A and B so that every gradient is exercised) and expected.json holds,
for fixed ids, the LoRA model's logits, next-token loss and every trainable gradient, the merged
model's logits, the adapter's keys and config, and the trainable/total parameter counts.

Run: /usr/bin/python3 tests/data/gen_lora.py OUT_DIR
"""
import json
import os
import sys

import torch
import torch.nn.functional as F
from torch import nn

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
from trainer import models  # noqa: E402
from trainer.safetensors_io import dumps  # noqa: E402

LLAMA = {
    "model_type": "llama", "architectures": ["LlamaForCausalLM"], "vocab_size": 64, "hidden_size": 32,
    "intermediate_size": 48, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
    "max_position_embeddings": 64, "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "tie_word_embeddings": False,
    "hidden_act": "silu", "torch_dtype": "float32",
}
GPT2 = {
    "model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "vocab_size": 64, "n_positions": 32, "n_embd": 32,
    "n_layer": 2, "n_head": 4, "activation_function": "gelu_new", "resid_pdrop": 0.0, "embd_pdrop": 0.0,
    "attn_pdrop": 0.0, "torch_dtype": "float32",
}
CASES = {
    "llama": {"config": LLAMA, "r": 4, "lora_alpha": 8, "target_modules": ["q_proj", "v_proj", "down_proj"], "bias": "none"},
    "gpt2": {"config": GPT2, "r": 4, "lora_alpha": 16, "target_modules": ["c_attn", "mlp.c_proj"], "bias": "lora_only"},
}
IDS = [[1, 5, 9, 33, 2, 17, 63], [4, 0, 12, 12, 40, 7, 3]]


class LoraLinear(nn.Module):
    """PEFT's lora.Linear, as its source reads (eval: dropout is identity either way)."""

    def __init__(self, base, r, alpha, dropout):
        super().__init__()
        self.fan_in_fan_out = isinstance(base, models.Conv1D)
        n_in, n_out = (base.weight.shape[0], base.weight.shape[1]) if self.fan_in_fan_out else (base.in_features, base.out_features)
        self.base_layer = base
        self.lora_dropout = nn.ModuleDict({"default": nn.Dropout(dropout) if dropout > 0 else nn.Identity()})
        self.lora_A = nn.ModuleDict({"default": nn.Linear(n_in, r, bias=False)})
        self.lora_B = nn.ModuleDict({"default": nn.Linear(r, n_out, bias=False)})
        self.scaling = alpha / r

    def forward(self, x):
        a, b, drop = self.lora_A["default"], self.lora_B["default"], self.lora_dropout["default"]
        # PEFT: the adapter's input is cast to the adapter's dtype (float32 over a bf16/f16 base, as get_peft_model's
        # autocast_adapter_dtype leaves it) and the sum back to the base result's dtype; both no-ops in float32.
        result = self.base_layer(x)
        return (result + b(a(drop(x.to(a.weight.dtype)))) * self.scaling).to(result.dtype)

    def delta(self):
        d = self.lora_B["default"].weight @ self.lora_A["default"].weight * self.scaling
        return d.t() if self.fan_in_fan_out else d


def targeted(name, targets):
    return any(name == t or name.endswith("." + t) for t in targets)


def flat(x):
    return [float(v) for v in x.detach().float().reshape(-1).tolist()]


def make(name, case, out):
    torch.manual_seed(sum(map(ord, name)))
    cfg = case["config"]
    model = models.build_model(cfg)
    with torch.no_grad():
        for n, p in model.named_parameters():
            p.copy_(torch.randn_like(p) * 0.2)
            if n.endswith("norm.weight") or n.endswith("ln_1.weight") or n.endswith("ln_2.weight") or n.endswith("ln_f.weight"):
                p.copy_(1 + 0.1 * torch.randn_like(p))
    folder = os.path.join(out, name)
    os.makedirs(os.path.join(folder, "adapter"), exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    with open(os.path.join(folder, "model.safetensors"), "wb") as f:
        f.write(dumps({n: p.detach().clone() for n, p in model.named_parameters()}, {"format": "pt"}))
    ids = torch.tensor(IDS)
    base_logits = model(ids).detach()

    # get_peft_model: wrap the targets, then freeze all but lora_ (and the biases 'lora_only' names).
    r, alpha = case["r"], case["lora_alpha"]
    wrapped = [n for n, m in model.named_modules() if n and targeted(n, case["target_modules"])]
    for n in wrapped:
        parent_name, _, child = n.rpartition(".")
        parent = model.get_submodule(parent_name)
        setattr(parent, child, LoraLinear(getattr(parent, child), r, alpha, 0.0))
    for n, p in model.named_parameters():
        p.requires_grad = "lora_" in n or (case["bias"] == "lora_only" and n.endswith(".base_layer.bias"))
    with torch.no_grad():  # fixed non-zero adapters (a fresh B is zero), as after some training
        for n, p in model.named_parameters():
            if "lora_" in n:
                p.copy_(torch.randn_like(p) * 0.2)
            elif n.endswith(".base_layer.bias"):
                p.add_(0.05)

    # save_pretrained: the adapter's state dict with PEFT's key names.
    state = model.state_dict()
    saved = {}
    for k, t in state.items():
        if ".lora_A.default." in k or ".lora_B.default." in k:
            saved["base_model.model." + k.replace(".default.", ".")] = t.clone()
        elif case["bias"] == "lora_only" and k.endswith(".base_layer.bias"):
            saved["base_model.model." + k] = t.clone()
    config = {
        "peft_type": "LORA", "task_type": "CAUSAL_LM", "r": r, "lora_alpha": alpha, "lora_dropout": 0.0,
        "target_modules": sorted(case["target_modules"]), "bias": case["bias"],
        "fan_in_fan_out": cfg["model_type"] == "gpt2", "inference_mode": True, "init_lora_weights": True,
        "use_dora": False, "use_rslora": False, "modules_to_save": None, "base_model_name_or_path": None,
    }
    with open(os.path.join(folder, "adapter", "adapter_model.safetensors"), "wb") as f:
        f.write(dumps(saved, {"format": "pt"}))
    with open(os.path.join(folder, "adapter", "adapter_config.json"), "w") as f:
        f.write(json.dumps(config, indent=2, sort_keys=True))

    logits = model(ids)
    loss = F.cross_entropy(logits[:, :-1].reshape(-1, cfg["vocab_size"]), ids[:, 1:].reshape(-1))
    loss.backward()
    grads = {n: flat(p.grad) for n, p in model.named_parameters() if p.requires_grad}
    params = list(model.parameters())
    counts = {"trainable": sum(p.numel() for p in params if p.requires_grad), "total": sum(p.numel() for p in params)}

    # merge_and_unload: W += delta, the wrappers replaced by their base layers.
    with torch.no_grad():
        for n in wrapped:
            parent_name, _, child = n.rpartition(".")
            parent = model.get_submodule(parent_name)
            lora = getattr(parent, child)
            lora.base_layer.weight.add_(lora.delta())
            setattr(parent, child, lora.base_layer)
        merged = model(ids)
    return {
        "ids": IDS, "base_logits": flat(base_logits), "logits": {"shape": list(logits.shape), "data": flat(logits)},
        "loss": float(loss), "grads": grads, "merged_logits": flat(merged), "saved_keys": sorted(saved),
        "config": config, "counts": counts, "wrapped": wrapped,
    }


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.getcwd(), "lora_cases")
    os.makedirs(out, exist_ok=True)
    expected = {name: make(name, case, out) for name, case in CASES.items()}
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f)
    print("wrote", out)


if __name__ == "__main__":
    main()
