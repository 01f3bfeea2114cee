#!/usr/bin/python3
"""WordPiece reference ids for tests/js/tokenizers_oracle.test.mjs, from BERT's own tokenizer: google-research/bert's
tokenization.py (tests/data/bert_tokenization.py, unchanged), FullTokenizer with do_lower_case True (uncased BERT)
and False (cased BERT), on a small vocabulary written here (special tokens, letters, digits, punctuation, their
'##' continuations, whole words and sub-words chosen so that greedy longest-match has choices to make, a few CJK
characters; Cyrillic, Greek and emoji left out, so words holding them become [UNK]).

The test builds a BERT tokenizer.json (BertNormalizer, BertPreTokenizer, WordPiece with max_input_chars_per_word
200, the original's default) from the same vocabulary and compares sg.tokenizers' ids (without [CLS]/[SEP], and
with them) on each text: varied text (accents, CJK, emoji, whitespace runs and control characters, digits, long
words, punctuation) and seeded random strings.

Run: /usr/bin/python3 tests/data/gen_wordpiece.py   (writes tests/data/wordpiece_ref.json)
"""
import json
import os
import random
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
# tokenization.py reads vocab.txt through tf.gfile.GFile and uses nothing else of tensorflow.
sys.modules["tensorflow"] = types.SimpleNamespace(gfile=types.SimpleNamespace(GFile=open))
sys.path.insert(0, HERE)
import bert_tokenization  # noqa: E402

SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
CHARS = list("abcdefghijklmnopqrstuvwxyz0123456789") + list(".,;:!?'\"()[]{}<>-_/\\@#$%^&*+=|~`")
WORDS = ["the", "hello", "world", "un", "##aff", "##able", "##ing", "##ed", "##s", "run", "##ning", "play", "##er",
         "##ers", "cafe", "naive", "token", "##izer", "##ization", "##ize", "super", "##cal", "##i", "##fr", "##ag",
         "new", "york", "don", "##t", "it", "is", "a", "an", "test", "##test", "12", "##34", "2024", "中", "文", "日", "本",
         "語", "字", "ok", "##ok", "ab", "##ab", "##abab"]
UPPER = list("ABCDEFGHIJKLMNOPQRSTUVWXYZ") + ["Hello", "World", "The", "New", "York", "##T", "##ING"]

VARIED = [
    "", "Hello world", "hello, world!", "Unaffable running players", "HELLO   WORLD\t\ttabs\n\nnewlines",
    "  leading and trailing  ", "Café naïve Ångström ÉCOLE", "日本語の文字と中文", "Привет мир Ελληνικά", "👍 emoji 🤖 mixed👍in",
    "don't it's new-york (test) [ok] {ab}", "3.14159 1,000,000 2024-11-29 12345678", "\u00a0no\u2003break\u3000ideographic",
    "zero\u200bwidth\ufeffbom\u0000nul\u0007bell", "e\u0301 a\u0308 combining", "supercalifragilisticexpialidocious",
    "a" * 199, "a" * 201, "ab" * 120, "abababab ababab", "TheNewYork THE new YORK", "##ing ##s",
]
# Not here: special tokens written in the text ('[CLS] text'). BERT's tokenizer splits them as any text ('[', 'cl',
# ...); Hugging Face's tokenizers match them as the special tokens (split_special_tokens=False), by design.


def vocab_for(cased):
    words = SPECIAL + CHARS + ["##" + c for c in CHARS] + WORDS
    if cased:
        words += UPPER + ["##" + c for c in UPPER if len(c) == 1]
    seen = []
    for w in words:
        if w not in seen:
            seen.append(w)
    return seen


POOLS = ["abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789", " \t\n\r\u00a0\u3000",
         ".,;:!?'\"()-_/@#", "éèêëàâäôöûüçñÉÀÇ", "абвгд", "日本語中文字", "\u0301\u200b", "👍🤖"]


def random_texts(n, seed, pools=POOLS, lengths=(0, 40)):
    """n seeded random strings, each of lengths[0] ≤ L < lengths[1] characters drawn from a random pool (gen_sentencepiece.py uses it too)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        s = ""
        for _ in range(rng.randrange(*lengths)):
            pool = pools[rng.randrange(len(pools))]
            s += pool[rng.randrange(len(pool))]
        out.append(s)
    return out


def main():
    texts = VARIED + random_texts(200, 20261129)
    ref = {}
    for name, cased in (("uncased", False), ("cased", True)):
        vocab = vocab_for(cased)
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8") as f:
            f.write("\n".join(vocab) + "\n")
        tok = bert_tokenization.FullTokenizer(f.name, do_lower_case=not cased)
        os.unlink(f.name)
        cases = [{"text": t, "ids": tok.convert_tokens_to_ids(tok.tokenize(t))} for t in texts]
        ref[name] = {"vocab": vocab, "do_lower_case": not cased, "cases": cases}
    with open(os.path.join(HERE, "wordpiece_ref.json"), "w", encoding="utf-8") as f:
        json.dump(ref, f, ensure_ascii=False, indent=0)
        f.write("\n")
    print("wrote wordpiece_ref.json:", {k: len(v["cases"]) for k, v in ref.items()})


if __name__ == "__main__":
    main()
