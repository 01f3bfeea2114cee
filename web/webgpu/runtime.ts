// The WebGPU runtime that the C++ device (bindings/webgpu_runtime.cpp) forwards to: buffers
// (by id, from a size-class pool), uploads and downloads ordered with the kernels, kernel calls
// by name (kernels/index.ts), the GPU-side argument checks, statistics, and device loss.
//
// Methods called from wasm return 0 (or an id) on success and 1 (or −1) on failure with the
// message in lastError(); they never throw into wasm (a JS exception would skip C++ destructors).
import type { AdapterLike, BufferLike, DeviceLike } from './gpu_types.js';
import { MAP_READ, Usage } from './gpu_types.js';
import { BufferPool } from './pool.js';
import { CommandQueue, type Barrier, type Readback } from './queue.js';
import { KernelCache, type KernelSpec } from './kernel_cache.js';
import { Params } from './params.js';
import { KERNELS, type KernelContext } from './kernels/index.js';
import { flushGemm, gemmHolds } from './kernels/gemm.js';
import { HELD_OPTIM, flushOptim, optimHolds } from './kernels/optim.js';
import { EXACT_GEOMETRIES, LAYER_CLASSES } from './kernels/conv.js';
import { Arenas, sliceLayout } from './arenas.js';
import type { KernelPrefs } from './kernels/common.js';
import { Checks } from './checks.js';
import { isSupported } from './coverage.js';
import { ArgReader } from './arg_reader.js';

/** What the runtime needs of the wasm module. */
export interface WasmSide {
  HEAPU8: Uint8Array;
  webgpuRunThen(id: number): void;
  webgpuTakeError(): string;
  webgpuForgetThens(): void;
}

export interface WebGpuStats {
  /** queue.submit calls */
  submits: number;
  /** compute dispatches encoded */
  dispatches: number;
  /** GPU buffers created (tensor storage, staging, uniforms, readback) */
  buffersCreated: number;
  /** bytes of every GPU buffer the runtime holds, in use or pooled */
  bytesResident: number;
  /** bytes of tensor buffers in use */
  bytesInUse: number;
  /** downloads to the host (reads, fallbacks) */
  reads: number;
  /** compute pipelines compiled */
  pipelines: number;
}

// Calls that do not encode held products first: the products, and the elementwise ops that may
// fuse into their write-back (kernels/gemm.ts attachUnary/attachBinary; they flush otherwise).
const GEMM_EPILOGUES = new Set(['gemm_f32', 'unary_f32', 'binary_f32']);

// Buffers in a segment beyond which it is submitted without waiting for a step's end.
const MAX_DISPATCHES_PER_SEGMENT = 512;

export class WebGpuRuntime {
  readonly queue: CommandQueue;
  readonly kernels: KernelCache;
  readonly maxBinding: number;
  private readonly tensors: BufferPool;
  readonly readbacks: BufferPool;
  private readonly buffers = new Map<number, BufferLike>();
  /** the bytes each id was allocated with */
  private readonly allocBytes = new Map<number, number>();
  /** ids moved into shared buffers for multi-tensor kernels (kernels/optim.ts) */
  private readonly arenas = new Arenas();
  private freeIds: number[] = [];
  private nextId = 1;
  private inUse = 0;
  private dispatchCount = 0;
  private readCount = 0;
  private error = '';
  private pendingErrors: string[] = [];
  private lostMessage: string | null = null;
  private readonly checks: Checks;
  private warned = new Set<string>();

  constructor(
    readonly device: DeviceLike,
    readonly adapter: AdapterLike,
    private wasm: WasmSide,
    private warnFn: (message: string) => void,
  ) {
    this.maxBinding = Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize);
    this.tensors = new BufferPool(device, Usage.STORAGE | Usage.COPY_SRC | Usage.COPY_DST, 'simdgrad tensor');
    this.readbacks = new BufferPool(device, MAP_READ | Usage.COPY_DST, 'simdgrad readback');
    this.kernels = new KernelCache(device);
    this.queue = new CommandQueue(
      device,
      (b) => this.land(b),
      (e) => this.pendingErrors.push(messageOf(e)),
    );
    this.prefs = { gemm: isCpuAdapter(adapter) ? 'direct' : 'tiled', gemmEpilogue: true, convExact: EXACT_GEOMETRIES, convLayers: LAYER_CLASSES };
    this.context = this.makeContext();
    this.checks = new Checks(this);
    // Validation and out-of-memory errors arrive later and untied to a call: sync() reports them.
    device.addEventListener?.('uncapturederror', (e: { error?: { message?: string } }) => {
      this.pendingErrors.push(`webgpu: ${e.error?.message ?? 'GPU error'}`);
    });
    device.lost.then((info) => {
      this.lostMessage = `webgpu: the device was lost (${info.reason || 'unknown reason'}${info.message ? `: ${info.message}` : ''}); ` +
        "call init({ backend: 'webgpu' }) again for a new one (CPU tensors are unaffected)";
      this.queue.discard();
      this.wasm.webgpuForgetThens();
    });
  }

  get lost(): boolean {
    return this.lostMessage !== null;
  }

  // ------------------------------------------------------------------ called from wasm
  lastError(): string {
    return this.error;
  }

  alloc(bytes: number, zero: boolean): number {
    return this.guard(-1, () => {
      this.checkAlive();
      if (bytes > this.maxBinding) {
        throw new Error(
          `webgpu: a tensor of ${bytes} bytes is larger than this GPU allows in one buffer ` +
            `(maxStorageBufferBindingSize/maxBufferSize: ${this.maxBinding} bytes); keep it on the cpu or split it`,
        );
      }
      // Held work (products, optimizer updates) is not encoded first: a new tensor's buffer is
      // none that held work binds, as free() encodes that work before giving its buffer back.
      const buffer = this.tensors.take(Math.max(bytes, 4));
      if (zero) this.queue.current.copyEncoder().clearBuffer(buffer);
      const id = this.freeIds.pop() ?? this.nextId++;
      this.buffers.set(id, buffer);
      this.allocBytes.set(id, bytes);
      this.inUse += buffer.size;
      return id;
    });
  }

  free(id: number): void {
    const buffer = this.buffers.get(id);
    if (!buffer) return;
    if (!this.lost && (gemmHolds(this.context, buffer) || optimHolds(this.context, buffer))) {
      // Called from C++ destructors, which must not see an exception: an error encoding the held
      // work is reported by the next sync().
      try {
        this.encodeHeld();
      } catch (e) {
        this.pendingErrors.push(messageOf(e));
      }
    }
    const freed = this.detach(id);
    this.buffers.delete(id);
    this.allocBytes.delete(id);
    if (this.lost) return;
    this.giveBack(freed, () => this.freeIds.push(id));
  }

  upload(id: number, offset: number, data: Uint8Array): number {
    return this.guard(1, () => {
      this.checkAlive();
      this.encodeHeld();
      const staged = this.queue.stage(data);
      this.copyBytes(staged, 0, this.buffer(id), this.arenas.base(id) + offset, data.length);
      this.afterWork();
      return 0;
    });
  }

  download(thenId: number, flat: number[]): number {
    return this.guard(1, () => {
      this.checkAlive();
      this.encodeHeld();
      const readbacks: Readback[] = [];
      const enc = this.queue.current.copyEncoder();
      for (let i = 0; i < flat.length; i += 4) {
        const [id, at, dst, bytes] = flat.slice(i, i + 4);
        const offset = this.arenas.base(id) + at;
        const start = offset - (offset % 4);
        const span = Math.ceil((offset + bytes - start) / 4) * 4;
        const rb = this.readbacks.take(span);
        enc.copyBufferToBuffer(this.buffer(id), start, rb, 0, span);
        readbacks.push({ buffer: rb, skip: offset - start, dst, bytes });
      }
      this.readCount++;
      this.queue.closeWithBarrier({ thenId, readbacks });
      void this.queue.pump();
      return 0;
    });
  }

  call(name: string, args: Float64Array): number {
    return this.guard(1, () => {
      this.checkAlive();
      const kernel = KERNELS[name];
      if (!kernel) throw new Error(`webgpu: internal error: no WGSL kernel '${name}' (the op should have run on wasm)`);
      // A run of products, or of optimizer updates, stays held to be batched; anything else
      // (the other kind included) encodes what is held first, keeping the calls' order.
      if (!GEMM_EPILOGUES.has(name)) flushGemm(this.context);
      if (!HELD_OPTIM.has(name)) flushOptim(this.context);
      kernel(this.context, this.args(args));
      this.afterWork();
      return 0;
    });
  }

  check(name: string, args: Float64Array, before: string, after: string): number {
    return this.guard(1, () => {
      this.checkAlive();
      this.encodeHeld();
      this.checks.encode(name, this.args(args), before, after);
      return 0;
    });
  }

  supports(op: string): boolean {
    return isSupported(op);
  }

  warn(message: string): void {
    if (this.warned.has(message)) return;
    this.warned.add(message);
    this.warnFn(message);
  }

  // ------------------------------------------------------------------ for the JS API
  /** Submits everything, waits for every download, and throws the first error the GPU side reported. */
  async sync(): Promise<void> {
    if (this.lostMessage) throw new Error(this.lostMessage);
    this.encodeHeld();
    this.checks.collect();
    await this.queue.flush();
    await this.checks.settle();
    await this.device.queue.onSubmittedWorkDone(); // every kernel done, its errors in
    if (this.lostMessage) throw new Error(this.lostMessage);
    const thenError = this.wasm.webgpuTakeError();
    const first = this.pendingErrors.shift() ?? (thenError || this.checks.takeError());
    this.pendingErrors = [];
    if (first) throw new Error(first);
  }

  /**
   * Runs `run` on the host once the work enqueued so far is done (downloads landed, their
   * continuations run) and before any work enqueued after this call, like a download's
   * continuation without a download; device work it encodes runs ahead of that later work. An
   * exception from it is reported by the next sync(). sg.compile's stages after a copy from
   * the GPU run so (npm/src/compile/compile.ts).
   */
  hostStep(run: () => void): void {
    this.checkAlive();
    this.encodeHeld();
    this.queue.closeWithBarrier({ thenId: 0, readbacks: [], run });
    void this.queue.pump();
  }

  /** Submits the work encoded so far (at the end of an optimizer step), without waiting. */
  submit(): void {
    if (this.lost) return;
    this.encodeHeld();
    void this.queue.flush();
  }

  stats(): WebGpuStats {
    return {
      submits: this.queue.submits,
      dispatches: this.dispatchCount,
      buffersCreated: this.tensors.created + this.readbacks.created + this.queue.uniforms.created + this.queue.staging.created,
      bytesResident:
        this.tensors.residentBytes + this.readbacks.residentBytes + this.queue.uniforms.residentBytes + this.queue.staging.residentBytes,
      bytesInUse: this.inUse,
      reads: this.readCount,
      pipelines: this.kernels.pipelines,
    };
  }

  /** Destroys pooled buffers no tensor uses. */
  trim(): void {
    this.tensors.trim();
    this.readbacks.trim();
  }

  // ------------------------------------------------------------------ for the kernels
  readonly context: KernelContext;
  /** Kernel variants: SwiftShader and other CPU-emulated adapters get the barrier-free GEMM. */
  readonly prefs: KernelPrefs;


  private makeContext(): KernelContext {
    return {
      buffer: (id) => this.buffer(id),
      dispatch: (spec, buffers, params, groups) => this.dispatch(spec, buffers, params, groups),
      dispatch2d: (spec, buffers, params, gx, gy) => this.dispatch2d(spec, buffers, params, gx, gy),
      dispatch3d: (spec, buffers, params, gx, gy, gz) => this.dispatch2d(spec, buffers, params, gx, gy, gz),
      temp: (bytes) => {
        const b = this.tensors.take(bytes);
        this.queue.current.afterSubmit.push(() => this.tensors.give(b));
        return b;
      },
      copy: (src, srcOffset, dst, dstOffset, bytes) => this.copyBytes(src, srcOffset, dst, dstOffset, bytes),
      clear: (b) => this.queue.current.copyEncoder().clearBuffer(b),
      base: (id) => this.arenas.base(id),
      allocated: (id) => this.allocBytes.get(id) ?? -1,
      slotOf: (id) => {
        const buffer = this.buffers.get(id);
        return buffer ? { buffer, base: this.arenas.base(id) } : null;
      },
      colocate: (roles, spans) => this.colocate(roles, spans),
      stage: (bytes) => this.queue.stage(bytes),
      limits: this.device.limits,
      prefs: this.prefs,
    };
  }

  buffer(id: number): BufferLike {
    const b = this.buffers.get(id);
    if (!b) throw new Error(`webgpu: internal error: no GPU buffer ${id}`);
    return b;
  }

  /** Encodes one dispatch of `groups` workgroups (spread over two dimensions when needed). */
  dispatch(spec: KernelSpec, buffers: BufferLike[], params: Params, groups: number): void {
    if (groups <= 0) return;
    const maxDim = this.device.limits.maxComputeWorkgroupsPerDimension;
    if (groups <= maxDim) this.dispatch2d(spec, buffers, params, groups, 1);
    else this.dispatch2d(spec, buffers, params, maxDim, Math.ceil(groups / maxDim));
  }

  /** Encodes one dispatch of gx × gy (× gz) workgroups. */
  dispatch2d(spec: KernelSpec, buffers: BufferLike[], params: Params, gx: number, gy: number, gz = 1): void {
    if (gx <= 0 || gy <= 0 || gz <= 0) return;
    const seg = this.queue.current;
    // A buffer bound for writing may not be bound again in the same dispatch: the other
    // bindings read a copy (an in-place op over views of one storage).
    const bound = buffers.slice();
    spec.access.forEach((a, i) => {
      if (a !== 'write') return;
      for (let j = 0; j < bound.length; j++) {
        if (j === i || bound[j] !== buffers[i]) continue;
        if (spec.access[j] === 'write') throw new Error(`webgpu: internal error: ${spec.key} writes one buffer twice`);
        const copy = this.context.temp(buffers[i].size);
        seg.copyEncoder().copyBufferToBuffer(buffers[i], 0, copy, 0, buffers[i].size);
        bound[j] = copy;
      }
    });
    const pipeline = this.kernels.pipeline(spec);
    const u = this.queue.uniform(params.words);
    const entries = bound.map((buffer, binding) => ({ binding, resource: { buffer } }));
    entries.push({ binding: bound.length, resource: { buffer: u.buffer, offset: u.offset, size: 256 } as never });
    const group = this.device.createBindGroup({ layout: pipeline.layout, entries });
    const pass = seg.computePass();
    pass.setPipeline(pipeline.pipeline);
    pass.setBindGroup(0, group);
    pass.dispatchWorkgroups(gx, gy, gz);
    seg.dispatches++;
    this.dispatchCount++;
  }

  /** Copies bytes between buffers, by command when 4-byte aligned, else by a byte kernel. */
  copyBytes(src: BufferLike, srcOffset: number, dst: BufferLike, dstOffset: number, bytes: number): void {
    if (bytes === 0) return;
    if (srcOffset % 4 === 0 && dstOffset % 4 === 0 && bytes % 4 === 0) {
      this.queue.current.copyEncoder().copyBufferToBuffer(src, srcOffset, dst, dstOffset, bytes);
      return;
    }
    KERNELS.copy_bytes_raw(this.context, new ArgReader(new Float64Array([srcOffset, dstOffset, bytes])), [src, dst]);
  }

  // ------------------------------------------------------------------ internals
  private afterWork(): void {
    if (this.queue.current.dispatches >= MAX_DISPATCHES_PER_SEGMENT) {
      this.encodeHeld();
      void this.queue.flush();
    }
  }

  /** Encodes the products and optimizer updates held back to batch (kernels/gemm.ts, kernels/optim.ts). */
  private encodeHeld(): void {
    flushGemm(this.context);
    flushOptim(this.context);
  }

  /** A call's arguments, buffer offsets read from where each id's data are (arenas.ts). */
  private args(values: Float64Array): ArgReader {
    return new ArgReader(values, (id) => this.arenas.base(id));
  }

  /** KernelContext.colocate: one arena per role, each id's storage copied in unless already there. */
  private colocate(roles: number[][], spans: number[]): BufferLike[] {
    const { at, total } = sliceLayout(spans);
    return roles.map((ids) => {
      const there = this.arenas.holding(ids, at);
      if (there) return there.buffer;
      const arena = { buffer: this.tensors.take(total), live: 0 };
      this.inUse += arena.buffer.size;
      ids.forEach((id, i) => {
        this.copyBytes(this.buffer(id), this.arenas.base(id), arena.buffer, at[i]!, this.allocBytes.get(id)!);
        this.giveBack(this.detach(id));
        this.buffers.set(id, arena.buffer);
        this.arenas.place(id, arena, at[i]!);
      });
      return arena.buffer;
    });
  }

  /**
   * Takes id's storage off its buffer: the buffer to give back to the pool (its own, or its
   * arena's when id was the last tensor there), or null (others still in the arena).
   */
  private detach(id: number): BufferLike | null {
    const buffer = this.buffer(id);
    if (this.arenas.arenaOf(id)) {
      const emptied = this.arenas.remove(id);
      if (!emptied) return null;
      this.inUse -= emptied.buffer.size;
      return emptied.buffer;
    }
    this.inUse -= buffer.size;
    return buffer;
  }

  /**
   * Returns a buffer to the pool, then runs `then`. Work encoded later but run after a pending
   * download's continuation may still read the buffer: the continuation must not get it, so it
   * comes back once that work is submitted.
   */
  private giveBack(buffer: BufferLike | null, then?: () => void): void {
    const give = () => {
      if (buffer) this.tensors.give(buffer);
      then?.();
    };
    if (this.queue.blocked) this.queue.current.afterSubmit.push(give);
    else give();
  }

  private checkAlive(): void {
    if (this.lostMessage) throw new Error(this.lostMessage);
  }

  private guard<T>(failed: T, f: () => T): T {
    try {
      return f();
    } catch (e) {
      this.error = messageOf(e);
      return failed;
    }
  }

  /** A download's bytes into the heap, then its continuation in wasm. */
  private async land(b: Barrier): Promise<() => void> {
    await Promise.all(b.readbacks.map((r) => r.buffer.mapAsync(MAP_READ, 0, Math.ceil((r.skip + r.bytes) / 4) * 4)));
    if (this.lostMessage) return () => {};
    for (const r of b.readbacks) {
      const bytes = new Uint8Array(r.buffer.getMappedRange(0, Math.ceil((r.skip + r.bytes) / 4) * 4), r.skip, r.bytes);
      this.wasm.HEAPU8.set(bytes, r.dst); // a fresh view: the heap may have grown
      r.buffer.unmap();
      this.readbacks.give(r.buffer);
    }
    return b.run ?? (() => this.wasm.webgpuRunThen(b.thenId));
  }
}

/** Whether the adapter is a GPU emulated on the CPU (SwiftShader, lavapipe, a fallback adapter). */
function isCpuAdapter(adapter: AdapterLike): boolean {
  const info = adapter.info ?? {};
  const text = `${info.vendor ?? ''} ${info.architecture ?? ''} ${info.device ?? ''} ${info.description ?? ''}`.toLowerCase();
  return (adapter as { isFallbackAdapter?: boolean }).isFallbackAdapter === true || /swiftshader|llvmpipe|lavapipe|cpu/.test(text);
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
