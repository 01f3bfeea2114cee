// Where @huggingface/tokenizers (0.2) departs from sentencepiece and from Hugging Face's Rust tokenizers on
// SentencePiece models, mended on a constructed Tokenizer (its normalizer and model objects are plain JS objects):
// - "Precompiled" normalizers: the library ignores the charsmap and applies NFKC; here the charsmap itself
//   (precompiled_charsmap.ts), so nmt_nfkc_cf's case folding and custom rules hold.
// - Unigram with byte_fallback: the library gives <unk>; Rust tokenizers and sentencepiece spell an unknown piece as
//   its UTF-8 bytes <0xNN> (<unk> still when a byte piece is missing).
// - The ByteFallback decoder: the library's TextDecoder drops a U+FEFF that starts a run of byte pieces (a BOM to
//   it); sentencepiece and Rust keep it.
import { charsmapFromBase64 } from './precompiled_charsmap.js';

interface LibNormalizer {
  config?: { type?: string; precompiled_charsmap?: unknown };
  normalizers?: (LibNormalizer | null)[];
  normalize(text: string): string;
}

interface LibModel {
  config: { type?: string; byte_fallback?: boolean };
  tokens_to_ids: Map<string, number>;
  encode(tokens: string[]): string[];
}

function mendNormalizer(n: LibNormalizer | null | undefined): void {
  if (!n) return;
  if (n.config?.type === 'Precompiled') {
    const b64 = n.config.precompiled_charsmap;
    if (b64 === null || b64 === undefined || b64 === '') {
      n.normalize = (text) => text; // an empty charsmap is the identity (Rust tokenizers)
    } else {
      const map = charsmapFromBase64(b64, "normalizer Precompiled's precompiled_charsmap");
      n.normalize = (text) => map.normalize(text);
    }
  }
  for (const inner of n.normalizers ?? []) mendNormalizer(inner);
}

interface LibDecoder {
  config?: { type?: string };
  decoders?: (LibDecoder | null)[];
  text_decoder?: TextDecoder;
}

function mendDecoder(d: LibDecoder | null | undefined): void {
  if (!d) return;
  if (d.config?.type === 'ByteFallback' && d.text_decoder) d.text_decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  for (const inner of d.decoders ?? []) mendDecoder(inner);
}

function mendUnigramByteFallback(model: LibModel): void {
  if (model.config.type !== 'Unigram' || model.config.byte_fallback !== true) return;
  const encode = model.encode.bind(model);
  const utf8 = new TextEncoder();
  const hex = (b: number): string => `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`;
  model.encode = (tokens) =>
    encode(tokens).flatMap((t) => {
      if (model.tokens_to_ids.has(t)) return [t];
      const bytes = Array.from(utf8.encode(t), hex);
      // not a piece: its bytes, or the unknown piece as it was when the vocabulary lacks one of them
      return bytes.every((b) => model.tokens_to_ids.has(b)) ? bytes : [t];
    });
}

/** Mends a constructed @huggingface/tokenizers Tokenizer in place (see the top of this file); a bad charsmap throws. */
export function mendSentencePieceParts(tok: object): void {
  const t = tok as { normalizer?: LibNormalizer | null; model?: LibModel; decoder?: LibDecoder | null };
  mendNormalizer(t.normalizer);
  mendDecoder(t.decoder);
  if (t.model) mendUnigramByteFallback(t.model);
}
