// Argument checks on data that lives on the GPU (class indices in range, probabilities in
// [0, 1]): the CPU checks them before a kernel reads through them and throws at once; here a
// kernel finds the first bad element, its position and value come back with the next submit,
// and sync() (await t.data(), sg.sync()) throws the same message the CPU would have.
import { MAP_READ } from './gpu_types.js';
import { Params } from './params.js';
import type { ArgReader, WebGpuRuntime } from './runtime.js';
import { operand, run } from './kernels/common.js';

export class Checks {
  private pending: Promise<void>[] = [];
  private error = '';

  constructor(private rt: WebGpuRuntime) {}

  /** Encodes check `name` ('check_indices' | 'check_range_f32') over the arguments in `a`. */
  encode(name: string, a: ArgReader, before: string, after: string): void {
    const ctx = this.rt.context;
    const x = operand(ctx, a);
    const n = a.num();
    const isIndex = name === 'check_indices';
    const p = new Params().u(n).u(x.at);
    if (isIndex) p.i(a.num()).i(a.num()).i(a.num()); // lo, hi, allowed
    else p.f(a.num()).f(a.num()).u(0); // lo, hi
    const slot = ctx.temp(256);
    ctx.clear(slot);
    const type = isIndex ? 'i32' : 'f32';
    const bad = isIndex ? '(v < pi(2u) || v >= pi(3u)) && v != pi(4u)' : '!(v >= pf(2u) && v <= pf(3u)) || is_nan(v)';
    const binds = [
      { name: 'X', type, buffer: x.buffer },
      { name: 'SLOT', type: 'atomic<u32>', buffer: slot, write: true },
    ];
    // Pass 1: the largest n − i over bad elements i marks the first one.
    run(ctx, `${name}_find`, binds, p, n, /* wgsl */ `
  if (id >= pu(0u)) { return; }
  let v = X[pu(1u) + id];
  if (${bad}) { atomicMax(&SLOT[0], pu(0u) - id); }`);
    // Pass 2: its value.
    run(ctx, `${name}_value`, binds, p, 1, /* wgsl */ `
  if (id != 0u) { return; }
  let k = atomicLoad(&SLOT[0]);
  if (k != 0u) { atomicStore(&SLOT[1], bitcast<u32>(X[pu(1u) + pu(0u) - k])); }`);
    const rb = this.rt.readbacks.take(8);
    ctx.copy(slot, 0, rb, 0, 8);
    this.rt.queue.current.afterSubmit.push(() => {
      this.pending.push(
        rb.mapAsync(MAP_READ, 0, 8).then(() => {
          const words = new Uint32Array(rb.getMappedRange(0, 8).slice(0));
          rb.unmap();
          this.rt.readbacks.give(rb);
          if (words[0] === 0 || this.error) return;
          const value = isIndex ? String(new Int32Array(words.buffer)[1]) : formatFloat(new Float32Array(words.buffer)[1]);
          this.error = before + value + after;
        }),
      );
    });
  }

  /** Waits for every check submitted so far. */
  async settle(): Promise<void> {
    const pending = this.pending;
    this.pending = [];
    await Promise.all(pending);
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
