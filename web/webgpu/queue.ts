// Commands in batches ("segments"): kernels, clears and copies are encoded into the open
// segment; a segment is submitted whole, and a download ends its segment with a barrier: the
// segments after it are not submitted until the downloaded bytes are in the wasm heap and the
// download's continuation (a call back into wasm) has run, and whatever that continuation
// encodes goes in a segment of its own ahead of them (core/device.h's ordering contract).
//
// Per segment, the kernels' parameters live in one uniform buffer (256-byte slots, written
// with one writeBuffer just before the submit) and uploads in staging buffers written the same
// way and copied by commands in order: a queue write happens after every command submitted
// before it, so reusing these buffers for the next segment is safe once this one is submitted.
import type { BufferLike, DeviceLike, EncoderLike, PassLike } from './gpu_types.js';
import { Usage } from './gpu_types.js';
import { BufferPool } from './pool.js';

const UNIFORM_ARENA = 64 * 1024;
export const SLOT = 256;

export interface Readback {
  buffer: BufferLike; // MAP_READ, from the readback pool
  skip: number; // bytes before the wanted ones (copies start at a multiple of 4)
  dst: number; // heap address
  bytes: number;
}

export interface Barrier {
  thenId: number;
  readbacks: Readback[];
  /** A continuation in JavaScript instead of the wasm one (runtime.hostStep). */
  run?: () => void;
}

export class Segment {
  readonly encoder: EncoderLike;
  pass: PassLike | null = null;
  dispatches = 0;
  commands = 0;
  arenas: { buffer: BufferLike; data: Uint8Array; used: number }[] = [];
  staged: { buffer: BufferLike; data: Uint8Array }[] = [];
  afterSubmit: (() => void)[] = [];
  barrier: Barrier | null = null;
  checks: Promise<void>[] = [];

  constructor(device: DeviceLike) {
    this.encoder = device.createCommandEncoder();
  }

  computePass(): PassLike {
    this.pass ??= this.encoder.beginComputePass();
    return this.pass;
  }

  /** The encoder, with any open compute pass ended (copies and clears go between passes). */
  copyEncoder(): EncoderLike {
    if (this.pass) {
      this.pass.end();
      this.pass = null;
    }
    this.commands++;
    return this.encoder;
  }

  get empty(): boolean {
    return this.commands === 0 && this.dispatches === 0 && this.barrier === null && this.afterSubmit.length === 0;
  }
}

export class CommandQueue {
  readonly uniforms: BufferPool;
  readonly staging: BufferPool;
  submits = 0;
  private open: Segment;
  private closed: Segment[] = [];
  private pumping: Promise<void> | null = null;
  /** While a continuation runs, its work goes here (ahead of everything closed after it). */
  private inContinuation: Segment | null = null;
  /** Segments a running continuation ended with barriers of its own (its downloads), in order. */
  private continuationClosed: Segment[] = [];

  constructor(
    private device: DeviceLike,
    /** Lands a download's bytes, then gives its continuation (run synchronously here). */
    private onBarrier: (b: Barrier) => Promise<() => void>,
    private onError: (e: unknown) => void,
  ) {
    this.uniforms = new BufferPool(device, Usage.UNIFORM | Usage.COPY_DST, 'simdgrad uniforms');
    this.staging = new BufferPool(device, Usage.STORAGE | Usage.COPY_SRC | Usage.COPY_DST, 'simdgrad staging');
    this.open = new Segment(device);
  }

  /** The segment new work goes into. */
  get current(): Segment {
    return this.inContinuation ?? this.open;
  }

  /** Whether a download's continuation is outstanding (buffers freed now must wait: see runtime.free). */
  get blocked(): boolean {
    return this.closed.some((s) => s.barrier !== null) || this.pumping !== null;
  }

  /** A 256-byte uniform slot of the current segment holding `words`; returns (buffer, offset). */
  uniform(words: Uint32Array): { buffer: BufferLike; offset: number } {
    const seg = this.current;
    let arena = seg.arenas[seg.arenas.length - 1];
    if (!arena || arena.used + SLOT > UNIFORM_ARENA) {
      arena = { buffer: this.uniforms.take(UNIFORM_ARENA), data: new Uint8Array(UNIFORM_ARENA), used: 0 };
      seg.arenas.push(arena);
      const b = arena.buffer;
      seg.afterSubmit.push(() => this.uniforms.give(b));
    }
    const offset = arena.used;
    arena.data.set(new Uint8Array(words.buffer, words.byteOffset, words.byteLength), offset);
    arena.used += SLOT;
    return { buffer: arena.buffer, offset };
  }

  /** A staging buffer of the current segment that holds a copy of `bytes` when the segment runs. */
  stage(bytes: Uint8Array): BufferLike {
    const seg = this.current;
    const padded = new Uint8Array(Math.ceil(bytes.length / 4) * 4);
    padded.set(bytes);
    const buffer = this.staging.take(padded.length);
    seg.staged.push({ buffer, data: padded });
    seg.afterSubmit.push(() => this.staging.give(buffer));
    return buffer;
  }

  /** Ends the open segment with a download barrier. */
  closeWithBarrier(barrier: Barrier): void {
    this.current.barrier = barrier;
    if (this.inContinuation) {
      // A download inside a continuation: its barrier ends the continuation's segment, and what
      // the continuation encodes next goes in a new one (a second barrier must not replace it).
      this.continuationClosed.push(this.inContinuation);
      this.inContinuation = new Segment(this.device);
      return;
    }
    this.close();
  }

  /** Closes the current segment (if it holds anything) and submits what may be submitted. */
  flush(): Promise<void> {
    this.close();
    return this.pump();
  }

  /**
   * Submits closed segments from the front, at once up to the first download barrier; past it
   * the rest waits (asynchronously) for the download's bytes and its continuation.
   */
  pump(): Promise<void> {
    // A landing in progress ends by pumping again.
    if (this.pumping) return this.pumping.then(() => this.pump());
    while (this.closed.length && !this.closed[0]!.barrier) this.trySubmit(this.closed.shift()!);
    if (this.closed.length === 0) return Promise.resolve();
    this.pumping = this.landFront();
    return this.pumping;
  }

  /** Drops every unsubmitted command (device lost). */
  discard(): void {
    this.closed = [];
    this.open = new Segment(this.device);
    this.inContinuation = null;
    this.continuationClosed = [];
  }

  private close(): void {
    if (this.inContinuation) return; // closed by the continuation's runner
    if (this.open.empty) return;
    this.closed.push(this.open);
    this.open = new Segment(this.device);
  }

  private submit(seg: Segment): void {
    if (seg.pass) seg.pass.end();
    const q = this.device.queue;
    for (const a of seg.arenas) q.writeBuffer(a.buffer, 0, a.data, 0, a.used);
    for (const s of seg.staged) q.writeBuffer(s.buffer, 0, s.data);
    q.submit([seg.encoder.finish()]);
    this.submits++;
    for (const f of seg.afterSubmit) f();
  }

  private trySubmit(seg: Segment): void {
    try {
      this.submit(seg);
    } catch (e) {
      this.onError(e);
    }
  }

  /** Submits the front segment (it ends with a barrier), lands the download, runs its continuation. */
  private async landFront(): Promise<void> {
    const seg = this.closed.shift()!;
    this.trySubmit(seg);
    let continuation: (() => void) | null = null;
    try {
      continuation = await this.onBarrier(seg.barrier!);
    } catch (e) {
      this.onError(e);
    }
    if (continuation) {
      // The continuation's own work runs before every segment closed after the download (work
      // the program encoded while the bytes were on their way included).
      this.inContinuation = new Segment(this.device);
      this.continuationClosed = [];
      try {
        continuation();
      } catch (e) {
        this.onError(e);
      }
      const mine = [...this.continuationClosed, this.inContinuation!].filter((seg) => !seg.empty);
      this.inContinuation = null;
      this.continuationClosed = [];
      this.closed.unshift(...mine);
    }
    this.pumping = null;
    await this.pump();
  }
}
