#!/usr/bin/python3
"""SentencePiece-BPE reference ids (Llama 2 / Mistral style) for tests/js/tokenizers_oracle.test.mjs, from Google's
sentencepiece library itself (Debian's python3-sentencepiece 0.1.97; only this generator needs it: the test reads
the committed sentencepiece_ref.json).

A small BPE model is trained on demos/web/transformer/rhymes.txt with Llama 2's normalizer settings (identity
normalization, no removal of extra whitespace, a dummy prefix, digits split, byte fallback), and its pieces are
written as a tokenizer.json the way transformers' LlamaConverter writes one (convert_slow_tokenizer.py: vocab
from the pieces, merges by SentencePieceExtractor — every split of a piece into two pieces, ordered by the piece's
score —, the Prepend('▁') + Replace(' ', '▁') normalizer, BPE with byte_fallback and fuse_unk, the Replace /
ByteFallback / Fuse / Strip decoder, <s> added by the post-processor). sentencepiece's own encode of varied and
seeded random texts gives the expected ids (and sentencepiece's decode of them the text); the test loads the tokenizer.json with sg.tokenizers and compares.

Run: /usr/bin/python3 tests/data/gen_sentencepiece.py   (writes tests/data/sentencepiece_ref.json)
"""
import io
import json
import os

import sentencepiece as spm

from gen_wordpiece import random_texts

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

VARIED = [
    "Hello world", "Mary had a little lamb", " leading space", "trailing space ", "two  spaces   and\ttab",
    "new\nlines\n\nhere", "digits 12345 and 3.14", "Café naïve Ångström", "日本語のテキスト", "Привет мир", "👍 emoji 🤖",
    "supercalifragilisticexpialidocious", "Humpty Dumpty sat on a wall", "a" * 60, "x-y_z (w) [v] {u}", "",
]


POOLS = ["abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJ", "0123456789", "   \n\t", ".,;:!?'\"()-", "éàüñç", "日本語", "👍🤖"]


def llama_tokenizer_json(sp):
    """transformers' LlamaConverter (legacy, as Llama 2's tokenizer.json) on a SentencePiece BPE model."""
    vocab = {sp.id_to_piece(i): i for i in range(sp.get_piece_size())}
    scores = {sp.id_to_piece(i): sp.get_score(i) for i in range(sp.get_piece_size())}
    merges = []
    for piece, score in scores.items():  # SentencePieceExtractor.extract with vocab_scores (reverse=True)
        local = [(piece[:i], piece[i:], score) for i in range(1, len(piece)) if piece[:i] in vocab and piece[i:] in vocab]
        merges.extend(sorted(local, key=lambda x: (vocab[x[0]], vocab[x[1]])))
    merges = sorted(merges, key=lambda m: m[2], reverse=True)
    special = lambda i: {"id": i, "content": sp.id_to_piece(i), "single_word": False, "lstrip": False, "rstrip": False,  # noqa: E731
                         "normalized": False, "special": True}
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [special(sp.unk_id()), special(sp.bos_id()), special(sp.eos_id())],
        "normalizer": {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"},
                                                           {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]},
        "pre_tokenizer": None,
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "<s>", "type_id": 1}}, {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {"<s>": {"id": "<s>", "ids": [sp.bos_id()], "tokens": ["<s>"]}},
        },
        "decoder": {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": "▁"}, "content": " "}, {"type": "ByteFallback"}, {"type": "Fuse"},
            {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                  "vocab": vocab, "merges": [f"{a} {b}" for a, b, _ in merges]},
    }


def main():
    model = io.BytesIO()
    with open(os.path.join(ROOT, "demos", "web", "transformer", "rhymes.txt"), encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f if line.strip()]
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_writer=model, model_type="bpe", vocab_size=400,
        normalization_rule_name="identity", remove_extra_whitespaces=False, add_dummy_prefix=True, split_digits=True,
        byte_fallback=True, allow_whitespace_only_pieces=True, character_coverage=1.0, unk_id=0, bos_id=1, eos_id=2,
        pad_id=-1, minloglevel=2)
    sp = spm.SentencePieceProcessor(model_proto=model.getvalue())
    texts = VARIED + random_texts(200, 20261129, POOLS, (1, 30))
    ref = {"tokenizer_json": llama_tokenizer_json(sp), "cases": [{"text": t, "ids": sp.encode(t), "decoded": sp.decode(sp.encode(t))} for t in texts]}
    with open(os.path.join(HERE, "sentencepiece_ref.json"), "w", encoding="utf-8") as f:
        json.dump(ref, f, ensure_ascii=False)
        f.write("\n")
    print("wrote sentencepiece_ref.json:", sp.get_piece_size(), "pieces,", len(texts), "texts")


if __name__ == "__main__":
    main()
