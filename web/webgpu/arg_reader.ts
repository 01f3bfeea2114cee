// A kernel call's arguments as C++ flattened them (bindings/webgpu_glue.h: numbers, flags,
// buffers as id + byte offset, lists as length + items), read in order by the kernels.
/** Reads a kernel call's flattened arguments (bindings/webgpu_glue.h) in order. */
export class ArgReader {
  private i = 0;
  /** `base` gives the byte offset of a buffer id's data in its GPU buffer (arenas.ts; 0 by default). */
  constructor(
    private v: Float64Array,
    private base: (id: number) => number = () => 0,
  ) {}
  num(): number {
    return this.v[this.i++];
  }
  flag(): boolean {
    return this.v[this.i++] !== 0;
  }
  /** A buffer argument: id (−1: none) and byte offset in the id's GPU buffer. */
  buf(): { id: number; offset: number } {
    const id = this.v[this.i++];
    const offset = this.v[this.i++];
    return { id, offset: id < 0 ? offset : offset + this.base(id) };
  }
  list(): number[] {
    const n = this.v[this.i++];
    const out = Array.from(this.v.subarray(this.i, this.i + n));
    this.i += n;
    return out;
  }
}
