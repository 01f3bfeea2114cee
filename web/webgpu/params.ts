// A kernel's scalar parameters as a flat array of 32-bit words (u32, i32 or f32 bits), which
// every WGSL kernel reads from one uniform block through pu()/pi()/pf() (kernels/prelude.ts).
// A flat word array needs no struct layout rules on either side.
export const PARAM_WORDS = 64; // one 256-byte uniform slot

export class Params {
  readonly words = new Uint32Array(PARAM_WORDS);
  private readonly f32 = new Float32Array(this.words.buffer);
  private readonly i32 = new Int32Array(this.words.buffer);
  length = 0;

  private next(): number {
    if (this.length >= PARAM_WORDS) throw new Error('webgpu: internal error: too many kernel parameters');
    return this.length++;
  }
  u(v: number): this {
    this.words[this.next()] = v >>> 0;
    return this;
  }
  i(v: number): this {
    this.i32[this.next()] = v | 0;
    return this;
  }
  f(v: number): this {
    this.f32[this.next()] = v;
    return this;
  }
  /** Several i32 words. */
  ints(vs: readonly number[]): this {
    for (const v of vs) this.i(v);
    return this;
  }
}
