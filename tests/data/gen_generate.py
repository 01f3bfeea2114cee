"""Generation oracles for tests/js/generate.test.mjs (which runs this into a temporary folder when
/usr/bin/python3 has torch).

1. Hugging Face's next-token filters (transformers/generation/logits_process.py), re-written here in
   torch 1.13 from their source: RepetitionPenaltyLogitsProcessor (gather the scores of the tokens
   in input_ids; < 0 → ·penalty, else /penalty; scatter back), TemperatureLogitsWarper (scores /
   t), TopKLogitsWarper (scores < the k-th largest → -inf), TopPLogitsWarper (ascending sort,
   cumulative softmax <= 1 - top_p removed, the last (most likely) always kept, scattered back),
   applied in generate's order: the penalty, then (sampling only) temperature, top-k, top-p.
   Written out for fixed scores and ids; -inf is written as null.
2. Greedy generation by full recompute (no cache) with trainer/models.py's plain-PyTorch Llama and
   GPT-2 on tiny random folders: each step runs the whole sequence, takes the last position's
   logits, applies the repetition penalty when asked, and appends the argmax.

Run: /usr/bin/python3 tests/data/gen_generate.py OUT_DIR
"""
import json
import os
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
from trainer import models  # noqa: E402
from trainer.safetensors_io import dumps  # noqa: E402


def repetition_penalty(ids, scores, penalty):
    score = torch.gather(scores, 1, ids)
    score = torch.where(score < 0, score * penalty, score / penalty)
    return scores.scatter(1, ids, score)


def top_k(scores, k):
    k = min(max(k, 1), scores.size(-1))
    remove = scores < torch.topk(scores, k)[0][..., -1, None]
    return scores.masked_fill(remove, -float("inf"))


def top_p(scores, p):
    sorted_logits, sorted_indices = torch.sort(scores, descending=False)
    cumulative = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
    remove_sorted = cumulative <= (1 - p)
    remove_sorted[..., -1:] = 0
    remove = remove_sorted.scatter(1, sorted_indices, remove_sorted)
    return scores.masked_fill(remove, -float("inf"))


def process(ids, scores, o):
    if o.get("repetitionPenalty") is not None:
        scores = repetition_penalty(ids, scores, o["repetitionPenalty"])
    if not o.get("doSample"):
        return scores
    if o.get("temperature", 1.0) != 1.0:
        scores = scores / o["temperature"]
    if o.get("topK") is not None:
        scores = top_k(scores, o["topK"])
    if o.get("topP") is not None and o["topP"] < 1.0:
        scores = top_p(scores, o["topP"])
    return scores


FILTER_CASES = [
    {"repetitionPenalty": 1.3},
    {"repetitionPenalty": 0.7, "doSample": True},
    {"doSample": True, "temperature": 0.6},
    {"doSample": True, "topK": 5},
    {"doSample": True, "topP": 0.8},
    {"doSample": True, "topP": 0.05},
    {"doSample": True, "repetitionPenalty": 1.2, "temperature": 0.8, "topK": 12, "topP": 0.9},
    {"repetitionPenalty": 1.5, "temperature": 0.5, "topK": 3},  # greedy: only the penalty applies
]


def nullable(x):
    return [None if v == -float("inf") else float(v) for v in x.reshape(-1).tolist()]


def filters():
    g = torch.Generator().manual_seed(7)
    scores = torch.randn(3, 40, generator=g) * 2
    ids = torch.randint(0, 40, (3, 9), generator=g)
    out = []
    for o in FILTER_CASES:
        s = process(ids, scores.clone(), o)
        out.append({"options": o, "scores": nullable(s), "probs": [float(v) for v in torch.softmax(s, -1).reshape(-1).tolist()]})
    return {"scores": [float(v) for v in scores.reshape(-1).tolist()], "ids": ids.tolist(), "cases": out}


LLAMA = {
    "model_type": "llama", "vocab_size": 64, "hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 2,
    "num_attention_heads": 4, "num_key_value_heads": 2, "max_position_embeddings": 32, "rms_norm_eps": 1e-5,
    "rope_theta": 10000.0, "tie_word_embeddings": False, "hidden_act": "silu",
}
GPT2 = {"model_type": "gpt2", "vocab_size": 64, "n_positions": 24, "n_embd": 32, "n_layer": 2, "n_head": 4,
        "resid_pdrop": 0.0, "embd_pdrop": 0.0, "attn_pdrop": 0.0}
PROMPT = [[1, 5, 9, 33], [4, 0, 12, 12]]


def greedy(model, ids, new, penalty=None):
    seq = torch.tensor(ids)
    with torch.no_grad():
        for _ in range(new):
            scores = model(seq)[:, -1, :]
            if penalty is not None:
                scores = repetition_penalty(seq, scores, penalty)
            seq = torch.cat([seq, scores.argmax(-1, keepdim=True)], 1)
    return seq.tolist()


def model_case(name, cfg, out):
    torch.manual_seed(sum(map(ord, name)))
    model = models.build_model(cfg)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn_like(p) * 0.3)
    folder = os.path.join(out, name)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    with open(os.path.join(folder, "model.safetensors"), "wb") as f:
        f.write(dumps({n: p.detach().clone() for n, p in model.named_parameters()}, {"format": "pt"}))
    return {"prompt": PROMPT, "greedy": greedy(model, PROMPT, 12), "greedy_penalty": greedy(model, PROMPT, 12, 1.3)}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.getcwd(), "generate_cases")
    os.makedirs(out, exist_ok=True)
    expected = {"filters": filters(), "llama": model_case("llama", LLAMA, out), "gpt2": model_case("gpt2", GPT2, out)}
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f)
    print("wrote", out)


if __name__ == "__main__":
    main()
