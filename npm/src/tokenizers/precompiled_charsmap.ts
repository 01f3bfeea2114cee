// SentencePiece's normalizer as tokenizer.json's "Precompiled" normalizer holds it: the model's precompiled_charsmap
// (a darts-clone double-array trie over UTF-8 byte sequences, then the blob of NUL-terminated replacements) applied
// as sentencepiece's Normalizer::NormalizePrefix does: at each position the longest rule matching a prefix of the
// rest of the text replaces it; where none matches, one character is kept as is.
// @huggingface/tokenizers ignores the charsmap (it applies NFKC and a few fixed replacements, which is what nmt_nfkc
// does to most text but not what nmt_nfkc_cf's case folding or a custom rule set does), hence this file.

/** A compiled charsmap: normalize(text) gives sentencepiece's normalized text. */
export class PrecompiledCharsmap {
  private readonly units: Uint32Array;
  private readonly replacements: Uint8Array;
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder();

  /** bytes: the charsmap (tokenizer.json holds it base64-encoded); what names it in an Error. */
  constructor(bytes: Uint8Array, what: string) {
    if (bytes.length < 4) throw new Error(`${what}: expected a charsmap of at least 4 bytes (the trie's size), got ${bytes.length}`);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const trieBytes = view.getUint32(0, true);
    if (trieBytes % 4 !== 0 || trieBytes === 0 || 4 + trieBytes > bytes.length) {
      throw new Error(`${what}: the charsmap says its trie holds ${trieBytes} bytes, but it has ${bytes.length - 4} after the size (and a trie is whole 4-byte units)`);
    }
    this.units = new Uint32Array(trieBytes / 4);
    for (let i = 0; i < this.units.length; i++) this.units[i] = view.getUint32(4 + 4 * i, true);
    this.replacements = bytes.subarray(4 + trieBytes);
  }

  /** The longest rule matching bytes[pos..]: [matched length, offset of its replacement], or null (darts-clone's commonPrefixSearch). */
  private longestMatch(bytes: Uint8Array, pos: number): [number, number] | null {
    const u = this.units;
    const offset = (unit: number): number => (unit >>> 10) << ((unit & (1 << 9)) >>> 6);
    let node = offset(u[0]);
    let best: [number, number] | null = null;
    for (let i = pos; i < bytes.length; i++) {
      node ^= bytes[i];
      const unit = u[node];
      if (unit === undefined || (unit & 0x800000ff) >>> 0 !== bytes[i]) break; // label mismatch: no longer rule
      node ^= offset(unit);
      if ((unit >>> 8) & 1) best = [i + 1 - pos, u[node] & 0x7fffffff]; // has a leaf: a rule ends here
    }
    return best;
  }

  normalize(text: string): string {
    const bytes = this.encoder.encode(text);
    const out: number[] = [];
    let pos = 0;
    while (pos < bytes.length) {
      const match = this.longestMatch(bytes, pos);
      if (match !== null) {
        let end = match[1];
        while (end < this.replacements.length && this.replacements[end] !== 0) end++;
        for (let i = match[1]; i < end; i++) out.push(this.replacements[i]);
        pos += match[0];
      } else {
        const lead = bytes[pos];
        const n = lead < 0x80 ? 1 : lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : 4; // TextEncoder wrote valid UTF-8
        for (let i = 0; i < n; i++) out.push(bytes[pos + i]);
        pos += n;
      }
    }
    return this.decoder.decode(Uint8Array.from(out));
  }
}

/** The charsmap of a base64 string (as tokenizer.json stores it); what names it in an Error. */
export function charsmapFromBase64(b64: unknown, what: string): PrecompiledCharsmap {
  if (typeof b64 !== 'string') throw new Error(`${what}: expected a base64 string, got ${b64 === null ? 'null' : typeof b64}`);
  let bin: string;
  try {
    bin = atob(b64);
  } catch {
    throw new Error(`${what}: expected a base64 string, got one that does not decode`);
  }
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new PrecompiledCharsmap(bytes, what);
}
