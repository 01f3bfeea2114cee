"""bfloat16 and float16 checkpoints of tiny random Llama and GPT-2 models, and what PyTorch 1.13 computes on them, for
tests/js/models_16bit.test.mjs (which runs this into a temporary folder when /usr/bin/python3 has torch).

The models are code nobody here wrote: Karpathy's llama2.c model.py (tests/data/llama2c_model.py, written out with
Hugging Face's names and the q/k row permutation of llama2.c's export.py hf_export) and nanoGPT's model.py
(tests/bench/torch/nanogpt_model.py, written out as nanoGPT's from_pretrained maps it: Conv1D weights transposed,
lm_head tied to wte, so config.json says activation_function 'gelu', the erf GELU nanoGPT uses).

Two oracles per case, since PyTorch 1.13 on CPU computes in bfloat16 but not in float16 (addmm, silu, softmax and
layer_norm have no 'Half' CPU kernel there):
- 'float32': the model in float32 on the checkpoint's rounded weights — what the weights mean, exactly.
- 'bfloat16' (bf16 cases): the model run in bfloat16 by PyTorch itself (its matmuls accumulate in float32 and round
  once; llama2.c's RMSNorm, rotary and softmax go through float32 as it wrote them). Its distance to 'float32' is
  PyTorch's own bf16 error on this model: the test's tolerances are set against it.
Each holds the logits [B, T, V] (float), the next-token cross-entropy on logits.float() (as transformers computes
the loss), and every parameter's gradient under Hugging Face's name (q/k gradients permuted as the weights).

Cases: llama_bf16 (written as two shards with model.safetensors.index.json), llama_f16, gpt2_bf16, gpt2_f16, and
gpt2_bf16_lora: the gpt2_bf16 base with a PEFT LoRA adapter (float32 A and B, non-zero, on attn.c_attn and
attn.c_proj) in PEFT's files; its oracle is gen_lora.py's LoraLinear (PEFT's forward: the adapter's input cast to
float32, the sum cast back to bf16) over nanoGPT in bf16, and the adapter's float32 gradients.

Run: /usr/bin/python3 tests/data/gen_models_16bit.py OUT_DIR
"""
import contextlib
import copy
import io
import json
import os
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "bench", "torch"))
import llama2c_model as l2c  # noqa: E402
import nanogpt_model as nano  # noqa: E402
from gen_llama import write_folder  # noqa: E402
from gen_lora import LoraLinear  # noqa: E402
from trainer.safetensors_io import dumps  # noqa: E402

IDS = [[1, 5, 9, 33, 2, 17, 63, 8, 21, 40], [4, 0, 12, 12, 40, 7, 3, 60, 59, 11]]
V = 64
DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16}


def quiet(f, *args):
    """Both model files print (slow-attention warning, parameter count); the test reads nothing from stdout."""
    with contextlib.redirect_stdout(io.StringIO()):
        return f(*args)


def randomize(model, norm_names):
    """Weights away from the models' own init (zero biases, unit norms test less)."""
    with torch.no_grad():
        for n, p in model.named_parameters():
            p.copy_(torch.randn_like(p) * 0.2)
            if any(n.endswith(s) for s in norm_names):
                p.copy_(1 + 0.1 * torch.randn_like(p))


def llama2c():
    args = l2c.ModelArgs(dim=32, n_layers=2, n_heads=4, n_kv_heads=2, vocab_size=V, hidden_dim=48, max_seq_len=32, norm_eps=1e-5)
    m = quiet(l2c.Transformer, args)
    randomize(m, ["norm.weight"])
    config = {
        "model_type": "llama", "architectures": ["LlamaForCausalLM"], "vocab_size": V, "hidden_size": 32,
        "intermediate_size": 48, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "max_position_embeddings": 32, "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "tie_word_embeddings": True,
        "hidden_act": "silu",
    }
    return m, config


def llama_hf(m, t):
    """llama2.c's export.py hf_export on a {llama2.c name: tensor} dict (weights or gradients); lm_head is tied
    (llama2.c ties it), so left out as transformers' save_pretrained leaves it out."""
    p = m.params
    kv_dim = p.dim // (p.n_heads // p.n_kv_heads)

    def permute(w, n_heads, dim1, dim2):
        return w.reshape(dim1, dim2).reshape(n_heads, dim1 // n_heads // 2, 2, dim2).transpose(1, 2).reshape(dim1, dim2)

    out = {"model.embed_tokens.weight": t["tok_embeddings.weight"], "model.norm.weight": t["norm.weight"]}
    for i in range(p.n_layers):
        a, h = f"layers.{i}.", f"model.layers.{i}."
        out[h + "input_layernorm.weight"] = t[a + "attention_norm.weight"]
        out[h + "self_attn.q_proj.weight"] = permute(t[a + "attention.wq.weight"], p.n_heads, p.dim, p.dim)
        out[h + "self_attn.k_proj.weight"] = permute(t[a + "attention.wk.weight"], p.n_kv_heads, kv_dim, p.dim)
        out[h + "self_attn.v_proj.weight"] = t[a + "attention.wv.weight"]
        out[h + "self_attn.o_proj.weight"] = t[a + "attention.wo.weight"]
        out[h + "post_attention_layernorm.weight"] = t[a + "ffn_norm.weight"]
        out[h + "mlp.gate_proj.weight"] = t[a + "feed_forward.w1.weight"]
        out[h + "mlp.down_proj.weight"] = t[a + "feed_forward.w2.weight"]
        out[h + "mlp.up_proj.weight"] = t[a + "feed_forward.w3.weight"]
    return out


def gpt2():
    cfg = nano.GPTConfig(block_size=32, vocab_size=V, n_layer=2, n_head=4, n_embd=32, dropout=0.0, bias=True)
    m = quiet(nano.GPT, cfg)
    randomize(m, ["ln_1.weight", "ln_2.weight", "ln_f.weight"])
    config = {
        "model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "vocab_size": V, "n_positions": 32, "n_embd": 32,
        "n_layer": 2, "n_head": 4, "activation_function": "gelu", "layer_norm_epsilon": 1e-5, "resid_pdrop": 0.0,
        "embd_pdrop": 0.0, "attn_pdrop": 0.0,
    }
    return m, config


def gpt2_hf(m, t):
    """nanoGPT's from_pretrained mapping, backwards: Conv1D weights [in, out]; the tied lm_head left out. LoRA's
    A and B keep their shapes (PEFT's fan_in_fan_out only changes how the delta is merged)."""
    conv = (".attn.c_attn.weight", ".attn.c_proj.weight", ".mlp.c_fc.weight", ".mlp.c_proj.weight")
    out = {}
    for k, v in t.items():
        if k == "lm_head.weight":
            continue
        hf = k.replace(".base_layer.", ".")
        out[hf] = v.t() if hf.endswith(conv) and "lora_" not in k else v
    return out


def run(model, to_hf, dtype, ids):
    """Logits, the next-token loss on logits.float() and every trainable parameter's gradient (Hugging Face names)."""
    m = copy.deepcopy(model)
    # The base weights in the dtype; a LoRA adapter stays float32 (PEFT); buffers (llama2.c's rotary tables and
    # mask, nanoGPT's mask) stay as the models' code keeps them.
    for n, p in m.named_parameters():
        if "lora_" not in n:
            p.data = p.data.to(dtype)
    out = m(ids, ids)  # with targets both models give the logits of every position
    logits = (out[0] if isinstance(out, tuple) else out).float()
    loss = F.cross_entropy(logits[:, :-1].reshape(-1, V), ids[:, 1:].reshape(-1))
    loss.backward()
    grads = to_hf(m, {n: p.grad for n, p in m.named_parameters() if p.requires_grad})
    flat = lambda x: [float(v) for v in x.detach().float().reshape(-1).tolist()]  # noqa: E731
    return {"logits": {"shape": list(logits.shape), "data": flat(logits)}, "loss": float(loss),
            "grads": {k: flat(g) for k, g in grads.items()}}


def make(name, build, to_hf, dt, out, shards=1):
    torch.manual_seed(sum(map(ord, name)))
    model, config = build()
    dtype = DTYPES[dt]
    with torch.no_grad():  # the checkpoint's rounded weights are what every oracle computes on
        for p in model.parameters():
            p.copy_(p.to(dtype).float())
    state = {k: v.detach().to(dtype).contiguous() for k, v in to_hf(model, dict(model.named_parameters())).items()}
    write_folder(os.path.join(out, name), dict(config, torch_dtype=str(dtype).replace("torch.", "")), state, shards)
    ids = torch.tensor(IDS)
    oracles = {"float32": run(model, to_hf, torch.float32, ids)}
    if dtype == torch.bfloat16:
        oracles["bfloat16"] = run(model, to_hf, torch.bfloat16, ids)
    return {"ids": IDS, "dtype": str(dtype).replace("torch.", ""), "oracles": oracles}, model


def make_lora(name, base, out, targets=("attn.c_attn", "attn.c_proj"), r=4, alpha=8):
    """PEFT's get_peft_model over the bf16 base (autocast_adapter_dtype: float32 A and B), fixed non-zero adapters."""
    torch.manual_seed(sum(map(ord, name)))
    model = copy.deepcopy(base)
    wrapped = [n for n, _ in model.named_modules() if n and any(n == t or n.endswith("." + t) for t in targets)]
    for n in wrapped:
        parent_name, _, child = n.rpartition(".")
        parent = model.get_submodule(parent_name)
        setattr(parent, child, LoraLinear(getattr(parent, child), r, alpha, 0.0))
    for n, p in model.named_parameters():
        p.requires_grad = "lora_" in n
        if "lora_" in n:
            with torch.no_grad():
                p.copy_(torch.randn_like(p) * 0.2)
    adapter = {"base_model.model." + k.replace(".default.", "."): v.detach().clone()
               for k, v in gpt2_hf(model, dict(model.named_parameters())).items() if "lora_" in k}
    folder = os.path.join(out, name)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "adapter_model.safetensors"), "wb") as f:
        f.write(dumps(adapter, {"format": "pt"}))
    config = {"peft_type": "LORA", "task_type": "CAUSAL_LM", "r": r, "lora_alpha": alpha, "lora_dropout": 0.0,
              "target_modules": sorted(targets), "bias": "none", "fan_in_fan_out": True, "inference_mode": True}
    with open(os.path.join(folder, "adapter_config.json"), "w") as f:
        f.write(json.dumps(config, indent=2, sort_keys=True))
    ids = torch.tensor(IDS)
    return {"ids": IDS, "dtype": "bfloat16", "wrapped": wrapped,
            "oracles": {"float32": run(model, gpt2_hf, torch.float32, ids), "bfloat16": run(model, gpt2_hf, torch.bfloat16, ids)}}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.getcwd(), "models_16bit_cases")
    os.makedirs(out, exist_ok=True)
    expected = {}
    expected["llama_bf16"], _ = make("llama_bf16", llama2c, llama_hf, "bf16", out, shards=2)
    expected["llama_f16"], _ = make("llama_f16", llama2c, llama_hf, "f16", out)
    expected["gpt2_bf16"], base = make("gpt2_bf16", gpt2, gpt2_hf, "bf16", out)
    expected["gpt2_f16"], _ = make("gpt2_f16", gpt2, gpt2_hf, "f16", out)
    expected["gpt2_bf16_lora"] = make_lora("gpt2_bf16_lora", base, out)
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f)
    print("wrote", out)


if __name__ == "__main__":
    main()
