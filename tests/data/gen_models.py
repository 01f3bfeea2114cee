#!/usr/bin/python3
"""Generates the reference data of tests/js/models.test.mjs (sg.models.GPT and the BERT models).
Run with Debian's PyTorch: /usr/bin/python3 tests/data/gen_models.py

GPT: the classes of Karpathy's nanoGPT model.py (github.com/karpathy/nanoGPT, model.py), copied
below with only the printing left out. PyTorch 1.13 has no scaled_dot_product_attention, so
nanoGPT takes its "slow attention" path and registers the causal-mask buffers 'h.N.attn.bias'.
BERT: Hugging Face's BertModel / BertForMaskedLM (transformers is not installed) written from the
same equations with the same module names and registration order: post-norm layers, GELU (erf),
the extended attention mask (1 − mask)·finfo.min, a tanh pooler on the first token, the MLM head
with its decoder tied to the word embeddings and to cls.predictions.bias.

Weights are random (not the models' own init, whose zero biases and unit LayerNorms would test
less) and go to safetensors files written as the official writer lays them out
(gen_safetensors.serialize), without the duplicates of tied tensors (as safetensors' save_model
drops them). models_ref.json holds the inputs, outputs, losses, gradients of every parameter,
the state-dict names and a few AdamW steps' losses.
"""
import math
import os
from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.nn import functional as F

from gen_safetensors import serialize
from ref_json import enc, write

HERE = os.path.dirname(os.path.abspath(__file__))


# ---------------------------------------------------------------- nanoGPT's model.py

class LayerNorm(nn.Module):
    """ LayerNorm but with an optional bias. PyTorch doesn't support simply bias=False """

    def __init__(self, ndim, bias):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(ndim))
        self.bias = nn.Parameter(torch.zeros(ndim)) if bias else None

    def forward(self, input):
        return F.layer_norm(input, self.weight.shape, self.weight, self.bias, 1e-5)


class CausalSelfAttention(nn.Module):

    def __init__(self, config):
        super().__init__()
        assert config.n_embd % config.n_head == 0
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
        self.attn_dropout = nn.Dropout(config.dropout)
        self.resid_dropout = nn.Dropout(config.dropout)
        self.n_head = config.n_head
        self.n_embd = config.n_embd
        self.dropout = config.dropout
        self.flash = hasattr(torch.nn.functional, 'scaled_dot_product_attention')
        if not self.flash:
            self.register_buffer("bias", torch.tril(torch.ones(config.block_size, config.block_size))
                                 .view(1, 1, config.block_size, config.block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        if self.flash:
            y = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=self.dropout if self.training else 0, is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float('-inf'))
            att = F.softmax(att, dim=-1)
            att = self.attn_dropout(att)
            y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        y = self.resid_dropout(self.c_proj(y))
        return y


class MLP(nn.Module):

    def __init__(self, config):
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x):
        x = self.c_fc(x)
        x = self.gelu(x)
        x = self.c_proj(x)
        x = self.dropout(x)
        return x


class Block(nn.Module):

    def __init__(self, config):
        super().__init__()
        self.ln_1 = LayerNorm(config.n_embd, bias=config.bias)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = LayerNorm(config.n_embd, bias=config.bias)
        self.mlp = MLP(config)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x


@dataclass
class GPTConfig:
    block_size: int = 1024
    vocab_size: int = 50304
    n_layer: int = 12
    n_head: int = 12
    n_embd: int = 768
    dropout: float = 0.0
    bias: bool = True


class GPT(nn.Module):

    def __init__(self, config):
        super().__init__()
        self.config = config
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(config.vocab_size, config.n_embd),
            wpe=nn.Embedding(config.block_size, config.n_embd),
            drop=nn.Dropout(config.dropout),
            h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
            ln_f=LayerNorm(config.n_embd, bias=config.bias),
        ))
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight
        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith('c_proj.weight'):
                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        device = idx.device
        b, t = idx.size()
        assert t <= self.config.block_size, f"Cannot forward sequence of length {t}, block size is only {self.config.block_size}"
        pos = torch.arange(0, t, dtype=torch.long, device=device)
        tok_emb = self.transformer.wte(idx)
        pos_emb = self.transformer.wpe(pos)
        x = self.transformer.drop(tok_emb + pos_emb)
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)
        if targets is not None:
            logits = self.lm_head(x)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        else:
            logits = self.lm_head(x[:, [-1], :])
            loss = None
        return logits, loss

    def configure_optimizers(self, weight_decay, learning_rate, betas, device_type):
        param_dict = {pn: p for pn, p in self.named_parameters()}
        param_dict = {pn: p for pn, p in param_dict.items() if p.requires_grad}
        decay_params = [p for n, p in param_dict.items() if p.dim() >= 2]
        nodecay_params = [p for n, p in param_dict.items() if p.dim() < 2]
        optim_groups = [
            {'params': decay_params, 'weight_decay': weight_decay},
            {'params': nodecay_params, 'weight_decay': 0.0}
        ]
        return torch.optim.AdamW(optim_groups, lr=learning_rate, betas=betas)


# ---------------------------------------------------------------- BERT (Hugging Face's names)

@dataclass
class BertConfig:
    vocab_size: int = 30522
    hidden_size: int = 768
    num_hidden_layers: int = 12
    num_attention_heads: int = 12
    intermediate_size: int = 3072
    hidden_dropout_prob: float = 0.1
    attention_probs_dropout_prob: float = 0.1
    max_position_embeddings: int = 512
    type_vocab_size: int = 2
    layer_norm_eps: float = 1e-12
    pad_token_id: int = 0


class BertEmbeddings(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.word_embeddings = nn.Embedding(c.vocab_size, c.hidden_size, padding_idx=c.pad_token_id)
        self.position_embeddings = nn.Embedding(c.max_position_embeddings, c.hidden_size)
        self.token_type_embeddings = nn.Embedding(c.type_vocab_size, c.hidden_size)
        self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)
        self.dropout = nn.Dropout(c.hidden_dropout_prob)
        self.register_buffer("position_ids", torch.arange(c.max_position_embeddings).expand((1, -1)), persistent=False)

    def forward(self, input_ids, token_type_ids):
        seq_length = input_ids.size(1)
        position_ids = self.position_ids[:, :seq_length]
        embeddings = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
        embeddings = embeddings + self.position_embeddings(position_ids)
        return self.dropout(self.LayerNorm(embeddings))


class BertSelfAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.num_attention_heads = c.num_attention_heads
        self.attention_head_size = c.hidden_size // c.num_attention_heads
        self.all_head_size = self.num_attention_heads * self.attention_head_size
        self.query = nn.Linear(c.hidden_size, self.all_head_size)
        self.key = nn.Linear(c.hidden_size, self.all_head_size)
        self.value = nn.Linear(c.hidden_size, self.all_head_size)
        self.dropout = nn.Dropout(c.attention_probs_dropout_prob)

    def transpose_for_scores(self, x):
        x = x.view(x.size()[:-1] + (self.num_attention_heads, self.attention_head_size))
        return x.permute(0, 2, 1, 3)

    def forward(self, hidden_states, attention_mask):
        query_layer = self.transpose_for_scores(self.query(hidden_states))
        key_layer = self.transpose_for_scores(self.key(hidden_states))
        value_layer = self.transpose_for_scores(self.value(hidden_states))
        attention_scores = torch.matmul(query_layer, key_layer.transpose(-1, -2))
        attention_scores = attention_scores / math.sqrt(self.attention_head_size)
        attention_scores = attention_scores + attention_mask
        attention_probs = self.dropout(nn.functional.softmax(attention_scores, dim=-1))
        context_layer = torch.matmul(attention_probs, value_layer).permute(0, 2, 1, 3).contiguous()
        return context_layer.view(context_layer.size()[:-2] + (self.all_head_size,))


class BertSelfOutput(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c.hidden_size, c.hidden_size)
        self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)
        self.dropout = nn.Dropout(c.hidden_dropout_prob)

    def forward(self, hidden_states, input_tensor):
        return self.LayerNorm(self.dropout(self.dense(hidden_states)) + input_tensor)


class BertAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self = BertSelfAttention(c)
        self.output = BertSelfOutput(c)

    def forward(self, hidden_states, attention_mask):
        return self.output(self.self(hidden_states, attention_mask), hidden_states)


class BertIntermediate(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c.hidden_size, c.intermediate_size)
        self.intermediate_act_fn = nn.GELU()

    def forward(self, hidden_states):
        return self.intermediate_act_fn(self.dense(hidden_states))


class BertOutput(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c.intermediate_size, c.hidden_size)
        self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)
        self.dropout = nn.Dropout(c.hidden_dropout_prob)

    def forward(self, hidden_states, input_tensor):
        return self.LayerNorm(self.dropout(self.dense(hidden_states)) + input_tensor)


class BertLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.attention = BertAttention(c)
        self.intermediate = BertIntermediate(c)
        self.output = BertOutput(c)

    def forward(self, hidden_states, attention_mask):
        attention_output = self.attention(hidden_states, attention_mask)
        return self.output(self.intermediate(attention_output), attention_output)


class BertEncoder(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.layer = nn.ModuleList([BertLayer(c) for _ in range(c.num_hidden_layers)])

    def forward(self, hidden_states, attention_mask):
        for layer in self.layer:
            hidden_states = layer(hidden_states, attention_mask)
        return hidden_states


class BertPooler(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c.hidden_size, c.hidden_size)
        self.activation = nn.Tanh()

    def forward(self, hidden_states):
        return self.activation(self.dense(hidden_states[:, 0]))


class BertModel(nn.Module):
    def __init__(self, c, add_pooling_layer=True):
        super().__init__()
        self.embeddings = BertEmbeddings(c)
        self.encoder = BertEncoder(c)
        self.pooler = BertPooler(c) if add_pooling_layer else None

    def forward(self, input_ids, attention_mask=None, token_type_ids=None):
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)
        # get_extended_attention_mask: [B, 1, 1, S], 0 where attended, finfo.min where not.
        extended = attention_mask[:, None, None, :].to(torch.float32)
        extended = (1.0 - extended) * torch.finfo(torch.float32).min
        sequence_output = self.encoder(self.embeddings(input_ids, token_type_ids), extended)
        pooled_output = self.pooler(sequence_output) if self.pooler is not None else None
        return sequence_output, pooled_output


class BertPredictionHeadTransform(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c.hidden_size, c.hidden_size)
        self.transform_act_fn = nn.GELU()
        self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)

    def forward(self, hidden_states):
        return self.LayerNorm(self.transform_act_fn(self.dense(hidden_states)))


class BertLMPredictionHead(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.transform = BertPredictionHeadTransform(c)
        self.decoder = nn.Linear(c.hidden_size, c.vocab_size, bias=False)
        self.bias = nn.Parameter(torch.zeros(c.vocab_size))
        self.decoder.bias = self.bias

    def forward(self, hidden_states):
        return self.decoder(self.transform(hidden_states))


class BertOnlyMLMHead(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.predictions = BertLMPredictionHead(c)

    def forward(self, sequence_output):
        return self.predictions(sequence_output)


class BertForMaskedLM(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.bert = BertModel(c, add_pooling_layer=False)
        self.cls = BertOnlyMLMHead(c)
        self.cls.predictions.decoder.weight = self.bert.embeddings.word_embeddings.weight  # tie_weights

    def forward(self, input_ids, attention_mask=None, token_type_ids=None, labels=None):
        sequence_output, _ = self.bert(input_ids, attention_mask, token_type_ids)
        prediction_scores = self.cls(sequence_output)
        loss = None
        if labels is not None:
            loss = F.cross_entropy(prediction_scores.view(-1, prediction_scores.size(-1)), labels.view(-1))  # ignore_index -100
        return prediction_scores, loss


# ---------------------------------------------------------------- helpers

def randomize(model, gen):
    """Random values in every parameter (each tied tensor once): N(0, 0.3), LayerNorm weights 1 + N(0, 0.1)."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "LayerNorm.weight" in name or "ln_" in name and name.endswith("weight"):
                p.copy_(1 + 0.1 * torch.randn(p.shape, generator=gen))
            else:
                p.copy_(0.3 * torch.randn(p.shape, generator=gen))


def unique_state(model, drop):
    """The state dict without the keys in `drop` (tied duplicates, the causal-mask buffers), as safetensors keeps it."""
    return {k: v.detach().clone().contiguous() for k, v in model.state_dict().items() if not any(d(k) for d in drop)}


def save_safetensors(name, tensors, metadata):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(serialize(tensors, metadata))
    print("wrote", name, os.path.getsize(os.path.join(HERE, name)), "bytes")


def grads(model):
    return {k: enc(p.grad) for k, p in model.named_parameters()}


# ---------------------------------------------------------------- cases

def gpt_case(name, file, config, gen):
    model = GPT(config)
    randomize(model, gen)
    model.train()
    B, T, V = 2, config.block_size, config.vocab_size
    idx = torch.randint(0, V, (B, T), generator=gen)
    targets = torch.randint(0, V, (B, T), generator=gen)
    targets[0, 1] = -1
    targets[1, 4] = -1
    logits, loss = model(idx, targets)
    loss.backward()
    short = idx[:, :5]
    last_logits, none = model(short)
    assert none is None and last_logits.shape == (B, 1, V)
    is_attn_bias = lambda k: k.endswith(".attn.bias")
    save_safetensors(file, unique_state(model, [is_attn_bias, lambda k: k == "lm_head.weight"]),
                     {"format": "pt", "source": "tests/data/gen_models.py (nanoGPT model.py)"})
    out = {"name": name, "file": file,
           "config": {"blockSize": config.block_size, "vocabSize": V, "nLayer": config.n_layer, "nHead": config.n_head,
                      "nEmbd": config.n_embd, "dropout": config.dropout, "bias": config.bias},
           "stateDictKeys": list(model.state_dict().keys()),
           "parameterNames": [k for k, _ in model.named_parameters()],
           "idx": enc(idx), "targets": enc(targets), "logits": enc(logits), "loss": loss.item(),
           "shortIdx": enc(short), "lastLogits": enc(last_logits), "grads": grads(model)}
    # A few steps of nanoGPT's AdamW (configure_optimizers' two groups) on the same batch.
    opt = model.configure_optimizers(0.1, 1e-2, (0.9, 0.95), "cpu")
    losses = []
    for _ in range(5):
        opt.zero_grad(set_to_none=True)
        _, l = model(idx, targets)
        l.backward()
        opt.step()
        losses.append(l.item())
    out["adamw"] = {"weightDecay": 0.1, "lr": 1e-2, "betas": [0.9, 0.95], "losses": losses}
    return out


def bert_case(gen):
    c = BertConfig(vocab_size=13, hidden_size=8, num_hidden_layers=2, num_attention_heads=2, intermediate_size=16,
                   hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, max_position_embeddings=10, type_vocab_size=2)
    config = {"vocabSize": 13, "hiddenSize": 8, "numHiddenLayers": 2, "numAttentionHeads": 2, "intermediateSize": 16,
              "hiddenDropoutProb": 0.0, "attentionProbsDropoutProb": 0.0, "maxPositionEmbeddings": 10, "typeVocabSize": 2}
    B, S = 2, 7
    input_ids = torch.randint(1, c.vocab_size, (B, S), generator=gen)
    input_ids[1, 4:] = c.pad_token_id
    attention_mask = torch.ones(B, S, dtype=torch.long)
    attention_mask[1, 4:] = 0
    token_type_ids = torch.zeros(B, S, dtype=torch.long)
    token_type_ids[:, 3:] = 1

    enc_model = BertModel(c)
    randomize(enc_model, gen)
    seq, pooled = enc_model(input_ids, attention_mask, token_type_ids)
    r = torch.randn(seq.shape, generator=gen)
    ((seq * r).sum() + pooled.sum()).backward()
    seq_nomask, pooled_nomask = enc_model(input_ids)
    save_safetensors("bert_tiny.safetensors", unique_state(enc_model, []), {"format": "pt", "source": "tests/data/gen_models.py"})
    encoder = {"file": "bert_tiny.safetensors", "stateDictKeys": list(enc_model.state_dict().keys()),
               "lastHiddenState": enc(seq), "poolerOutput": enc(pooled), "r": enc(r), "grads": grads(enc_model),
               "lastHiddenStateNoMask": enc(seq_nomask), "poolerOutputNoMask": enc(pooled_nomask)}

    mlm = BertForMaskedLM(c)
    randomize(mlm, gen)
    labels = torch.full((B, S), -100, dtype=torch.long)
    labels[0, 2] = 5
    labels[0, 5] = 11
    labels[1, 1] = 3
    scores, loss = mlm(input_ids, attention_mask, token_type_ids, labels)
    loss.backward()
    tied = lambda k: k in ("cls.predictions.decoder.weight", "cls.predictions.decoder.bias")
    save_safetensors("bert_mlm_tiny.safetensors", unique_state(mlm, [tied]), {"format": "pt", "source": "tests/data/gen_models.py"})
    masked_lm = {"file": "bert_mlm_tiny.safetensors", "stateDictKeys": list(mlm.state_dict().keys()),
                 "parameterNames": [k for k, _ in mlm.named_parameters()],
                 "labels": enc(labels), "logits": enc(scores), "loss": loss.item(), "grads": grads(mlm)}
    return {"config": config, "inputIds": enc(input_ids), "attentionMask": enc(attention_mask),
            "tokenTypeIds": enc(token_type_ids), "encoder": encoder, "maskedLM": masked_lm}


def main():
    gen = torch.Generator().manual_seed(1313)
    gpt = [
        gpt_case("biases, hs 6", "gpt_tiny.safetensors",
                 GPTConfig(block_size=8, vocab_size=11, n_layer=2, n_head=2, n_embd=12, dropout=0.0, bias=True), gen),
        gpt_case("no biases, one layer, hs 4", "gpt_tiny_nobias.safetensors",
                 GPTConfig(block_size=6, vocab_size=7, n_layer=1, n_head=2, n_embd=8, dropout=0.0, bias=False), gen),
    ]
    write("gen_models.py", "models_ref.json", {"gpt": gpt, "bert": bert_case(gen)})


if __name__ == "__main__":
    main()
