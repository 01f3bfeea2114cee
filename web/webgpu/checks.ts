// Argument checks on data that lives on the GPU (class indices in range, probabilities in
// [0, 1]): the CPU checks them before a kernel reads through them and throws at once; here a
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

// Checks between two syncs share one buffer of slots (two words each: n − first bad index, its
// value), read back once per sync: a training loop makes no buffer and no readback per check.
const SLOTS = 1024;

interface Pending {
  before: string;
  after: string;
  isInt: boolean;  // the bad value is an int32 (else a float32)
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

  /** Encodes check `name` (one of KINDS) over the arguments in `a`. */
  encode(name: string, a: ArgReader, before: string, after: string): void {
    const ctx = this.rt.context;
    const x = operand(ctx, a);
    const n = a.num();
    const kind = KINDS[name];
    if (!kind) throw new Error(`webgpu: internal error: unknown check ${name}`);
    if (!this.slots) {
      this.slots = this.rt.device.createBuffer({ size: SLOTS * 8, usage: Usage.STORAGE | Usage.COPY_SRC | Usage.COPY_DST });
      ctx.clear(this.slots);
    }
    if (this.used.length === SLOTS) this.collect();
    const slot = this.used.length;
    const isInt = kind.type === 'i32';
    this.used.push({ before, after, isInt });
    const p = new Params().u(n).u(x.at);
    kind.params(a, p);
    while (p.length < 6) p.u(0);
    p.u(2 * slot); // word 6
    const { type, bad } = kind;
    const binds = [
      { name: 'X', type, buffer: x.buffer },
      { name: 'SLOT', type: 'atomic<u32>', buffer: this.slots, write: true },
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

  /** Encodes the read of every slot used so far (their results arrive after the next submit). */
  collect(): void {
    if (!this.slots || this.used.length === 0) return;
    const used = this.used;
    this.used = [];
    // The whole slot buffer, whatever number of slots was used: one readback size class.
    const bytes = SLOTS * 8;
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
            if (words[2 * k] === 0 || this.error) return;
            const bits = new Uint32Array([words[2 * k + 1]!]);
            const value = c.isInt ? String(new Int32Array(bits.buffer)[0]) : formatFloat(new Float32Array(bits.buffer)[0]!);
            this.error = c.before + value + c.after;
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

/** A float as C++'s ostream prints it (6 significant digits, nan, inf). */
function formatFloat(v: number): string {
  if (Number.isNaN(v)) return 'nan';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  return String(Number(v.toPrecision(6)));
}
