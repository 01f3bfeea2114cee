// Argument checks on data that lives on the GPU (class indices in range, probabilities in
// [0, 1], int64 values an int32 computation can hold): the CPU checks them before a kernel reads through them and throws at once; here a
// kernel finds the first bad element, its position and value come back with the next submit,
// and sync() (await t.data(), sg.sync()) throws the same message the CPU would have.
import { MAP_READ, Usage, type BufferLike } from './gpu_types.js';
import { Params } from './params.js';
import type { ArgReader } from './arg_reader.js';
import type { BufferPool } from './pool.js';
import type { CommandQueue } from './queue.js';
import type { KernelContext } from './kernels/common.js';
import type { DeviceLike } from './gpu_types.js';

/** What the checks use of the runtime (runtime.ts passes itself). */
export interface ChecksHost {
  readonly context: KernelContext;
  readonly device: DeviceLike;
  readonly readbacks: BufferPool;
  readonly queue: CommandQueue;
}
import { operand, run } from './kernels/common.js';
import { CONVERT, DTYPE_NAMES, bytesOf, rawRead, widen } from './kernels/elements.js';

// Checks between two syncs share one buffer of slots (four words each: n − first bad index, its
// value's low and high words, one spare), read back once per sync: a training loop makes no
// buffer and no readback per check.
const SLOTS = 1024;
const SLOT_WORDS = 4;

interface Pending {
  before: string;
  after: string;
  /** how the value words print: an int32, a float32, or an unsigned 64-bit magnitude */
  value: 'i32' | 'f32' | 'u64';
}

/**
 * The checks: the element type, when an element is bad, and its parameters (words 2–5 of the
 * parameter block, read by `bad`) from the C++ arguments.
 */
const KINDS: Record<string, { type: 'i32' | 'f32'; bad: string; params: (a: ArgReader, p: Params) => void }> = {
  // Indices in [lo, hi) or equal to `allowed` (an ignore_index).
  check_indices: {
    type: 'i32',
    bad: '(v < pi(2u) || v > pi(3u)) && !(pu(5u) != 0u && v == pi(4u))',
    params(a, p) {
      // Bounds as int32 (the C++ side may pass int64 limits): lo, the largest valid index, allowed.
      const lo = a.num(), hi = a.num(), allowed = a.num();
      const clamp = (v: number) => Math.min(Math.max(v, -2147483648), 2147483647);
      const allowedFits = allowed >= -2147483648 && allowed <= 2147483647;
      p.i(clamp(lo)).i(clamp(hi - 1)).i(allowedFits ? allowed : 0).u(allowedFits ? 1 : 0);
    },
  },
  // Floats in [lo, hi], not NaN (probabilities).
  check_range_f32: { type: 'f32', bad: '!(v >= pf(2u) && v <= pf(3u)) || is_nan(v)', params: (a, p) => void p.f(a.num()).f(a.num()) },
  // Integer divisors (the modulo ops).
  check_nonzero_i32: { type: 'i32', bad: 'v == 0', params: () => {} },
};

export class Checks {
  private slots: BufferLike | null = null;
  private used: Pending[] = [];
  private reading: Promise<void>[] = [];
  private error = '';

  constructor(private rt: ChecksHost) {}

  /** Encodes check `name` (one of KINDS, or check_abs_bound) over the arguments in `a`. */
  encode(name: string, a: ArgReader, before: string, after: string): void {
    if (name === 'check_abs_bound') return this.encodeAbsBound(a, before, after);
    const ctx = this.rt.context;
    const x = operand(ctx, a);
    const n = a.num();
    const kind = KINDS[name];
    if (!kind) throw new Error(`webgpu: internal error: unknown check ${name}`);
    const slot = this.slot({ before, after, value: kind.type });
    const p = new Params().u(n).u(x.at);
    kind.params(a, p);
    while (p.length < 6) p.u(0);
    p.u(slot); // word 6
    const { type, bad } = kind;
    const binds = [
      { name: 'X', type, buffer: x.buffer },
      { name: 'SLOT', type: 'atomic<u32>', buffer: this.slots!, write: true },
    ];
    // Pass 1: the largest n − i over bad elements i marks the first one.
    run(ctx, `${name}_find`, binds, p, n, /* wgsl */ `
  if (id >= pu(0u)) { return; }
  let v = X[pu(1u) + id];
  if (${bad}) { atomicMax(&SLOT[pu(6u)], pu(0u) - id); }`);
    // Pass 2: its value.
    run(ctx, `${name}_value`, binds, p, 1, /* wgsl */ `
  if (id != 0u) { return; }
  let k = atomicLoad(&SLOT[pu(6u)]);
  if (k != 0u) { atomicStore(&SLOT[pu(6u) + 1u], bitcast<u32>(X[pu(1u) + pu(0u) - k])); }`);
  }

  /**
   * DataKernels::check_abs_bound (args: x, n, dtype, bound, total): an integer |value| beyond
   * `bound` (at most 2^31 − 1), or with `total` a sum of |values| beyond it. The sum is added up
   * in 64 bits (two atomic words, the carry counted into the high one) from the elements within
   * the bound; an element beyond it fails at once and is the value reported.
   */
  private encodeAbsBound(a: ArgReader, before: string, after: string): void {
    const ctx = this.rt.context;
    const { id, offset } = a.buf();
    const n = a.num(), dtype = a.num(), bound = a.num(), total = a.flag();
    const eb = bytesOf(dtype);
    if (id < 0 || offset % eb !== 0) throw new Error('webgpu: internal error: misaligned check operand');
    if (bound < 0 || bound > 2147483647) throw new Error(`webgpu: internal error: bound ${bound} beyond int32`);
    const slot = this.slot({ before, after, value: 'u64' });
    const p = new Params().u(n).u(offset / eb).u(bound).u(total ? 1 : 0).u(0).u(0).u(slot);
    const binds = [
      { name: 'X', type: 'u32', buffer: ctx.buffer(id) },
      { name: 'SLOT', type: 'atomic<u32>', buffer: this.slots!, write: true },
    ];
    const extra = CONVERT + rawRead('X', eb) + /* wgsl */ `
fn magnitude(i: u32) -> vec2<u32> {
  let v = ${widen(dtype, 'X_get(pu(1u) + i)')};
  return select(v, l_neg(v), (v.y >> 31u) == 1u);
}
`;
    const key = `check_abs_bound_${DTYPE_NAMES[dtype]}`;
    run(ctx, `${key}_find`, binds, p, n, /* wgsl */ `
  if (id >= pu(0u)) { return; }
  let m = magnitude(id);
  let s = pu(6u);
  if (m.y != 0u || m.x > pu(2u)) { atomicMax(&SLOT[s], pu(0u) - id); }
  else if (pu(3u) != 0u) {
    let old = atomicAdd(&SLOT[s + 1u], m.x);
    if (old + m.x < old) { atomicAdd(&SLOT[s + 2u], 1u); }
  }`, extra);
    run(ctx, `${key}_value`, binds, p, 1, /* wgsl */ `
  if (id != 0u) { return; }
  let s = pu(6u);
  let k = atomicLoad(&SLOT[s]);
  if (k != 0u) {
    let m = magnitude(pu(0u) - k);
    atomicStore(&SLOT[s + 1u], m.x);
    atomicStore(&SLOT[s + 2u], m.y);
  } else if (pu(3u) != 0u && (atomicLoad(&SLOT[s + 2u]) != 0u || atomicLoad(&SLOT[s + 1u]) > pu(2u))) {
    atomicStore(&SLOT[s], 1u);
  }`, extra);
  }

  /** The first word of a fresh slot for `pending` (the slot buffer made on first use). */
  private slot(pending: Pending): number {
    if (!this.slots) {
      this.slots = this.rt.device.createBuffer({ size: SLOTS * SLOT_WORDS * 4, usage: Usage.STORAGE | Usage.COPY_SRC | Usage.COPY_DST });
      this.rt.context.clear(this.slots);
    }
    if (this.used.length === SLOTS) this.collect();
    this.used.push(pending);
    return SLOT_WORDS * (this.used.length - 1);
  }

  /** Encodes the read of every slot used so far (their results arrive after the next submit). */
  collect(): void {
    if (!this.slots || this.used.length === 0) return;
    const used = this.used;
    this.used = [];
    // The whole slot buffer, whatever number of slots was used: one readback size class.
    const bytes = SLOTS * SLOT_WORDS * 4;
    const rb = this.rt.readbacks.take(bytes);
    const enc = this.rt.queue.current.copyEncoder();
    enc.copyBufferToBuffer(this.slots, 0, rb, 0, bytes);
    enc.clearBuffer(this.slots);
    this.rt.queue.current.afterSubmit.push(() => {
      this.reading.push(
        rb.mapAsync(MAP_READ, 0, bytes).then(() => {
          const words = new Uint32Array(rb.getMappedRange(0, bytes).slice(0));
          rb.unmap();
          this.rt.readbacks.give(rb);
          used.forEach((c, k) => {
            const at = SLOT_WORDS * k;
            if (words[at] === 0 || this.error) return;
            this.error = c.before + formatValue(c.value, words[at + 1]!, words[at + 2]!) + c.after;
          });
        }),
      );
    });
  }

  /** Waits for every check read submitted so far. */
  async settle(): Promise<void> {
    const reading = this.reading;
    this.reading = [];
    await Promise.all(reading);
  }

  takeError(): string {
    const e = this.error;
    this.error = '';
    return e;
  }
}

/** A slot's value words as C++ prints the value (a 64-bit magnitude saturates at INT64_MAX, as the CPU's sum). */
function formatValue(kind: Pending['value'], lo: number, hi: number): string {
  const bits = new Uint32Array([lo]);
  if (kind === 'i32') return String(new Int32Array(bits.buffer)[0]);
  if (kind === 'f32') return formatFloat(new Float32Array(bits.buffer)[0]!);
  const m = (BigInt(hi) << 32n) | BigInt(lo);
  return String(m > 2n ** 63n - 1n ? 2n ** 63n - 1n : m);
}

/** A float as C++'s ostream prints it (6 significant digits, nan, inf). */
function formatFloat(v: number): string {
  if (Number.isNaN(v)) return 'nan';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  return String(Number(v.toPrecision(6)));
}
