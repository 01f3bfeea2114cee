#!/usr/bin/python3
"""SentencePiece-Unigram reference ids (T5 / ALBERT / XLM-R style) for tests/js/tokenizers_unigram.test.mjs, from
Google's sentencepiece library itself (Debian's python3-sentencepiece 0.1.97; only this generator needs it: the test
reads the committed unigram_ref.json).

Three small Unigram models are trained on demos/web/transformer/rhymes.txt and written as tokenizer.json files the way
transformers' convert_slow_tokenizer.py writes them (SpmConverter: the pieces and scores as the Unigram vocab, the
model's precompiled_charsmap as a Precompiled normalizer followed by Strip(right) and Replace(' {2,}', '▁'), a
Metaspace pre-tokenizer and decoder):
- "t5": nmt_nfkc normalization (sentencepiece's default), extra whitespace removed, no byte fallback; T5Converter's
  '$A </s>' post-processor.
- "nfkc_cf": nmt_nfkc_cf (NFKC with case folding, which only the charsmap knows) and a user-defined symbol, as an
  added token, with the non-legacy Metaspace (prepend_scheme 'first': no '▁' after the symbol, as sentencepiece).
  Whitespace next to the symbol is left out of its cases: the converted tokenizer normalizes each side of an added
  token apart (Strip), where sentencepiece keeps a '▁' before it — transformers' tokenizer.json and sentencepiece
  differ there by design.
- "byte_fallback": byte fallback (unknown characters become <0xNN> pieces; Unigram(byte_fallback=True) and the
  ByteFallback/Fuse decoder, as SpmConverter with handle_byte_fallback), identity normalization, whitespace kept
  (so LlamaConverter's Prepend('▁') + Replace(' ', '▁') normalizer in place of Metaspace).
sentencepiece's own encode of varied and seeded random texts gives the expected ids (and its decode of them the text).

Run: /usr/bin/python3 tests/data/gen_unigram.py   (writes tests/data/unigram_ref.json)
"""
import base64
import io
import json
import os

import sentencepiece as spm

from gen_sentencepiece import VARIED as SPM_VARIED
from gen_wordpiece import random_texts

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# The BPE generator's varied texts, then the ones that exercise a Unigram model's normalizers.
VARIED = SPM_VARIED + [
    "ＦＵＬＬ ｗｉｄｔｈ １２３", "ﬁne ligature ﬂ", "① ② ™ ㎏ ½", "no\u00a0break\u2003em\u3000ideographic", "ctrl\x01\x07\x1fchars",
    "soft\u00adhyphen zero\u200bwidth\ufeffbom", "e\u0301 combining a\u0308", "ÉCOLE STRASSE Straße İstanbul ΣΊΣΥΦΟΣ",
    "   ", "\t\n", "MARY HAD A LITTLE LAMB", "Little Bo-Peep has lost her sheep", "the the the the", "ĳ ǆ ẞ Ⅻ ℃",
]

POOLS = ["abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789", "   \n\t\u00a0\u3000",
         ".,;:!?'\"()-", "éàüñçÉÀÜ", "日本語", "👍🤖", "ＡＢｃ１ﬁ①™"]


def spm_tokenizer_json(sp, proto, byte_fallback, post, prepend_scheme):
    """transformers' SpmConverter on a Unigram model (normalizer, Metaspace, Unigram vocab with scores)."""
    charsmap = proto.normalizer_spec.precompiled_charsmap
    normalizers = [{"type": "Strip", "strip_left": False, "strip_right": True},
                   {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": "▁"}]
    metaspace = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": prepend_scheme, "split": True}
    pre_tokenizer = metaspace
    if not proto.normalizer_spec.remove_extra_whitespaces:
        # whitespace kept: LlamaConverter's legacy form (Metaspace would not prepend '▁' to a text that starts with a
        # space, where sentencepiece's dummy prefix does)
        normalizers = [{"type": "Prepend", "prepend": "▁"}, {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]
        pre_tokenizer = None
    if charsmap:
        normalizers.insert(0, {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(charsmap).decode()})
    added = [{"id": i, "content": sp.id_to_piece(i), "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": sp.is_control(i) or sp.is_unknown(i)}
             for i in range(sp.get_piece_size()) if sp.is_control(i) or sp.is_unknown(i) or proto.pieces[i].type == 4]
    decoder = metaspace if not byte_fallback else {"type": "Sequence", "decoders": [
        {"type": "Replace", "pattern": {"String": "▁"}, "content": " "}, {"type": "ByteFallback"}, {"type": "Fuse"},
        {"type": "Strip", "content": " ", "start": 1, "stop": 0}]}
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
        "normalizer": {"type": "Sequence", "normalizers": normalizers} if normalizers else None,
        "pre_tokenizer": pre_tokenizer, "post_processor": post, "decoder": decoder,
        "model": {"type": "Unigram", "unk_id": sp.unk_id(), "byte_fallback": byte_fallback,
                  "vocab": [[sp.id_to_piece(i), sp.get_score(i)] for i in range(sp.get_piece_size())]},
    }


def t5_post(sp):
    """T5Converter.post_processor: '$A </s>'."""
    eos = sp.id_to_piece(sp.eos_id())
    return {"type": "TemplateProcessing",
            "single": [{"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": eos, "type_id": 0}}],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": eos, "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 0}}, {"SpecialToken": {"id": eos, "type_id": 0}}],
            "special_tokens": {eos: {"id": eos, "ids": [sp.eos_id()], "tokens": [eos]}}}


MODELS = {
    "t5": dict(normalization_rule_name="nmt_nfkc", remove_extra_whitespaces=True, byte_fallback=False, post=True),
    "nfkc_cf": dict(normalization_rule_name="nmt_nfkc_cf", remove_extra_whitespaces=True, byte_fallback=False,
                    user_defined_symbols=["<sep>"], post=False, prepend_scheme="first"),
    "byte_fallback": dict(normalization_rule_name="identity", remove_extra_whitespaces=False, byte_fallback=True,
                          vocab_size=500, post=False),
}


def train(lines, options):
    from sentencepiece import sentencepiece_model_pb2 as pb  # shipped with the python module
    opts = dict(options)
    post = opts.pop("post")
    opts.pop("prepend_scheme", None)
    opts.setdefault("vocab_size", 300)  # the 256 byte pieces come on top of that with byte fallback
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_writer=model, model_type="unigram",
        hard_vocab_limit=False, add_dummy_prefix=True, character_coverage=1.0, unk_id=0, bos_id=1, eos_id=2,
        pad_id=-1, minloglevel=2, **opts)
    proto = pb.ModelProto()
    proto.ParseFromString(model.getvalue())
    sp = spm.SentencePieceProcessor(model_proto=model.getvalue())
    return sp, proto, t5_post(sp) if post else None


def main():
    with open(os.path.join(ROOT, "demos", "web", "transformer", "rhymes.txt"), encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f if line.strip()]
    texts = VARIED + random_texts(200, 20261130, POOLS, (1, 30))
    ref = {}
    for name, options in MODELS.items():
        sp, proto, post = train(lines, options)
        tj = spm_tokenizer_json(sp, proto, options["byte_fallback"], post, options.get("prepend_scheme", "always"))
        cases = [{"text": t, "ids": sp.encode(t), "decoded": sp.decode(sp.encode(t))} for t in texts]
        if name == "nfkc_cf":
            cases += [{"text": t, "ids": sp.encode(t), "decoded": sp.decode(sp.encode(t))}
                      for t in ["a<sep>b", "Mary<sep>had a lamb", "x<sep>y<sep>z"]]
        ref[name] = {"tokenizer_json": tj, "eos_id": sp.eos_id(), "cases": cases}
        print(name, sp.get_piece_size(), "pieces,", len(cases), "texts")
    with open(os.path.join(HERE, "unigram_ref.json"), "w", encoding="utf-8") as f:
        json.dump(ref, f, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
