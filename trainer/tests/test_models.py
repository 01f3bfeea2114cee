# trainer/tests/test_models.py: trainer.models against independent computations, in float64.
# GPT-2: a loop-per-head, per-position reimplementation of HF GPT2LMHeadModel's math (LayerNorm, Conv1D weights
# [in, out], tanh GELU, tied head). Llama: llama2.c's model.py semantics, i.e. Meta's layout, where rotary embeddings
# rotate interleaved pairs (2i, 2i+1) as complex numbers; HF checkpoints permute q_proj/k_proj rows so that
# rotate_half's pairs (i, i + d/2) match, and the reference undoes that permutation (llama2.c export.py's
# permute_reverse) before applying the complex rotation. Also name handling when loading folders.
import math
import os
import tempfile
import unittest

import torch

from trainer.models import load_pretrained
from trainer.tests.tiny import GPT2_CONFIG, LLAMA_CONFIG, gpt2_tensors, llama_tensors, write_folder


def ref_gpt2(t, cfg, ids):
    """HF GPT-2 by hand: float64, explicit loops over heads and positions. → logits [T, V]."""
    t = {k: v.double() for k, v in t.items()}
    n, c, nh = len(ids), cfg["n_embd"], cfg["n_head"]
    d, eps = c // nh, cfg["layer_norm_epsilon"]

    def ln(x, p):
        mu = x.mean(-1, keepdim=True)
        var = ((x - mu) ** 2).mean(-1, keepdim=True)
        return (x - mu) / torch.sqrt(var + eps) * t[p + ".weight"] + t[p + ".bias"]

    def gelu_new(x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))

    x = t["transformer.wte.weight"][ids] + t["transformer.wpe.weight"][:n]
    for layer in range(cfg["n_layer"]):
        p = f"transformer.h.{layer}."
        qkv = ln(x, p + "ln_1") @ t[p + "attn.c_attn.weight"] + t[p + "attn.c_attn.bias"]
        q, k, v = qkv[:, :c], qkv[:, c:2 * c], qkv[:, 2 * c:]
        out = torch.zeros(n, c, dtype=torch.float64)
        for h in range(nh):
            s = slice(h * d, (h + 1) * d)
            for i in range(n):
                scores = torch.stack([q[i, s] @ k[j, s] for j in range(i + 1)]) / math.sqrt(d)
                probs = torch.exp(scores - scores.max())
                probs = probs / probs.sum()
                out[i, s] = sum(probs[j] * v[j, s] for j in range(i + 1))
        x = x + out @ t[p + "attn.c_proj.weight"] + t[p + "attn.c_proj.bias"]
        m = gelu_new(ln(x, p + "ln_2") @ t[p + "mlp.c_fc.weight"] + t[p + "mlp.c_fc.bias"])
        x = x + m @ t[p + "mlp.c_proj.weight"] + t[p + "mlp.c_proj.bias"]
    return ln(x, "transformer.ln_f") @ t["transformer.wte.weight"].t()


def permute_reverse(w, n_heads):
    """HF q/k_proj rows → Meta/llama2.c rows (the inverse of transformers' convert_llama_weights_to_hf permute)."""
    dim1, dim2 = w.shape
    return w.view(n_heads, 2, dim1 // n_heads // 2, dim2).transpose(1, 2).reshape(dim1, dim2)


def ref_llama(t, cfg, ids):
    """llama2.c / Meta Llama semantics in float64 with complex rotary embeddings. → logits [T, V]."""
    t = {k: v.double() for k, v in t.items()}
    n, dim = len(ids), cfg["hidden_size"]
    nh, nkv = cfg["num_attention_heads"], cfg["num_key_value_heads"]
    hd, eps = dim // nh, cfg["rms_norm_eps"]

    def rms(x, w):
        return x / torch.sqrt((x * x).mean(-1, keepdim=True) + eps) * w

    freqs = 1.0 / (cfg["rope_theta"] ** (torch.arange(0, hd, 2, dtype=torch.float64) / hd))
    angles = torch.outer(torch.arange(n, dtype=torch.float64), freqs)
    cis = torch.polar(torch.ones_like(angles), angles)  # [T, hd/2] complex

    def rope(x):  # x [T, heads, hd], pairs (2i, 2i+1) as complex numbers
        xc = torch.view_as_complex(x.reshape(n, x.shape[1], hd // 2, 2).contiguous())
        return torch.view_as_real(xc * cis[:, None, :]).reshape(n, x.shape[1], hd)

    x = t["model.embed_tokens.weight"][ids]
    for layer in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{layer}."
        wq = permute_reverse(t[p + "self_attn.q_proj.weight"], nh)
        wk = permute_reverse(t[p + "self_attn.k_proj.weight"], nkv)
        h = rms(x, t[p + "input_layernorm.weight"])
        q = rope((h @ wq.t()).view(n, nh, hd))
        k = rope((h @ wk.t()).view(n, nkv, hd))
        v = (h @ t[p + "self_attn.v_proj.weight"].t()).view(n, nkv, hd)
        out = torch.zeros(n, nh, hd, dtype=torch.float64)
        for head in range(nh):
            kvh = head // (nh // nkv)  # llama2.c repeat_kv: each kv head serves nh/nkv consecutive query heads
            for i in range(n):
                scores = (k[:i + 1, kvh] @ q[i, head]) / math.sqrt(hd)
                probs = torch.softmax(scores, 0)
                out[i, head] = probs @ v[:i + 1, kvh]
        x = x + out.reshape(n, nh * hd) @ t[p + "self_attn.o_proj.weight"].t()
        h = rms(x, t[p + "post_attention_layernorm.weight"])
        w1, w3 = t[p + "mlp.gate_proj.weight"], t[p + "mlp.up_proj.weight"]
        a = h @ w1.t()
        x = x + ((a * torch.sigmoid(a)) * (h @ w3.t())) @ t[p + "mlp.down_proj.weight"].t()
    head = t["model.embed_tokens.weight"] if cfg.get("tie_word_embeddings") else t["lm_head.weight"]
    return rms(x, t["model.norm.weight"]) @ head.t()


class ModelsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.set_num_threads(1)
        cls.tmp = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def folder(self, name, config, tensors, **kw):
        return write_folder(os.path.join(self.tmp.name, name), config, tensors, **kw)

    def test_gpt2_forward(self):
        t = gpt2_tensors(GPT2_CONFIG)
        model, _, names = load_pretrained(self.folder("gpt2", GPT2_CONFIG, t))
        self.assertEqual(sorted(names), sorted(t))
        self.assertEqual(names, {k: k for k in t})
        # float64 model against the float64 reference, tightly
        m64 = model.double()
        for ids in ([3, 17, 5, 49, 0, 22, 8], [1]):
            with torch.no_grad():
                h = m64.transformer.wte.weight[ids] + m64.transformer.wpe.weight[:len(ids)]
                for block in m64.transformer.h:
                    h = block(h[None])[0]
                got = m64.transformer.ln_f(h) @ m64.transformer.wte.weight.t()
            want = ref_gpt2(t, GPT2_CONFIG, ids)
            self.assertLess(float((got - want).abs().max()), 1e-10)
        # float32 model (as served): batched, float32 logits
        model, _, _ = load_pretrained(self.folder("gpt2b", GPT2_CONFIG, t))
        with torch.no_grad():
            logits = model(torch.tensor([[3, 17, 5, 49], [0, 22, 8, 8]]))
        for row, ids in enumerate([[3, 17, 5, 49], [0, 22, 8, 8]]):
            want = ref_gpt2(t, GPT2_CONFIG, ids)
            self.assertLess(float((logits[row].double() - want).abs().max()), 1e-4)

    def test_gpt2_checkpoint_names(self):
        """A GPT2Model-style file (no 'transformer.' prefix), with causal-mask buffers and a saved lm_head."""
        t = gpt2_tensors(GPT2_CONFIG)
        bare = {k[len("transformer."):]: v for k, v in t.items()}
        bare["h.0.attn.bias"] = torch.ones(1, 1, 32, 32)
        bare["h.1.attn.masked_bias"] = torch.tensor(-1e4)
        bare["lm_head.weight"] = t["transformer.wte.weight"]
        model, _, names = load_pretrained(self.folder("gpt2bare", GPT2_CONFIG, bare))
        self.assertEqual(names["transformer.wte.weight"], "wte.weight")
        self.assertEqual(names["transformer.h.1.mlp.c_fc.bias"], "h.1.mlp.c_fc.bias")
        self.assertTrue(torch.equal(model.transformer.h[1].mlp.c_fc.bias, t["transformer.h.1.mlp.c_fc.bias"]))
        broken = dict(t)
        del broken["transformer.h.1.ln_2.bias"]
        with self.assertRaisesRegex(ValueError, "missing weights.*h.1.ln_2.bias"):
            load_pretrained(self.folder("gpt2broken", GPT2_CONFIG, broken))
        bad = dict(t, **{"transformer.ln_f.bias": torch.zeros(3)})
        with self.assertRaisesRegex(ValueError, "shape"):
            load_pretrained(self.folder("gpt2bad", GPT2_CONFIG, bad))

    def test_llama_forward_gqa(self):
        t = llama_tensors(LLAMA_CONFIG)
        model, _, names = load_pretrained(self.folder("llama", LLAMA_CONFIG, t))
        self.assertEqual(names, {k: k for k in t})
        m64 = model.double()
        for ids in ([5, 1, 47, 9, 9, 30, 2, 11, 0], [7]):
            with torch.no_grad():
                x = m64.model.embed_tokens.weight[ids][None]
                cos, sin = m64.rotary(len(ids), x.device, torch.float64)
                for layer in m64.model.layers:
                    x = layer(x, cos.double(), sin.double())
                got = m64.model.norm(x)[0] @ m64.lm_head.weight.t()
            want = ref_llama(t, LLAMA_CONFIG, ids)
            self.assertLess(float((got - want).abs().max()), 1e-9)

    def test_llama_tied_sharded_bf16(self):
        cfg = dict(LLAMA_CONFIG, tie_word_embeddings=True, num_key_value_heads=4, rope_theta=10000.0)
        t = llama_tensors(cfg, seed=5)
        self.assertNotIn("lm_head.weight", t)
        folder = self.folder("llama_tied", cfg, t, shards=2, dtype=torch.bfloat16)
        model, _, names = load_pretrained(folder)
        self.assertNotIn("lm_head.weight", names)
        self.assertEqual(next(model.parameters()).dtype, torch.float32)
        t_bf = {k: v.bfloat16().double() for k, v in t.items()}
        ids = [4, 8, 15, 16, 23, 42]
        with torch.no_grad():
            logits = model(torch.tensor([ids]))[0].double()
        want = ref_llama(t_bf, cfg, ids)
        self.assertLess(float((logits - want).abs().max()), 1e-4)


if __name__ == "__main__":
    unittest.main()
