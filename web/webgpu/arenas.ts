// Shared buffers ("arenas") for tensors that one multi-tensor kernel updates together: an
// optimizer's parameters and their moments. WebGPU binds whole buffers, at most
// maxStorageBuffersPerShaderStage of them (8 by default), and WGSL has no pointers, so one
// dispatch cannot reach dozens of separate tensor buffers. Moved into one arena per role
// (parameters, first moments, ...), each tensor a slice at the same byte offset in every role's
// arena, the arenas are flat vectors that one elementwise dispatch updates in one pass.
//
// A tensor keeps its id when it moves: the runtime resolves an id to (arena, base) for every
// kernel argument, upload and download, so nothing above the runtime sees the move.
import type { BufferLike } from './gpu_types.js';

/** Byte alignment of a slice (minStorageBufferOffsetAlignment's usual value; vec4 loads stay aligned). */
export const SLICE_ALIGN = 256;

export interface Arena {
  buffer: BufferLike;
  /** ids still placed in it; the buffer goes back to the pool at 0 */
  live: number;
}

/** Byte offsets of slices of `bytes` one after another, each aligned; `total` covers them all. */
export function sliceLayout(bytes: readonly number[]): { at: number[]; total: number } {
  const at: number[] = [];
  let end = 0;
  for (const b of bytes) {
    at.push(end);
    end += Math.ceil(Math.max(b, 4) / SLICE_ALIGN) * SLICE_ALIGN;
  }
  return { at, total: end };
}

export class Arenas {
  private placed = new Map<number, { arena: Arena; base: number }>();

  /** The byte offset of id's data in its buffer (0 outside an arena). */
  base(id: number): number {
    return this.placed.get(id)?.base ?? 0;
  }

  arenaOf(id: number): Arena | undefined {
    return this.placed.get(id)?.arena;
  }

  /** The arena holding every one of `ids` at the offsets `at`, if there is one. */
  holding(ids: readonly number[], at: readonly number[]): Arena | null {
    const first = this.placed.get(ids[0]!);
    if (!first) return null;
    for (let i = 0; i < ids.length; i++) {
      const p = this.placed.get(ids[i]!);
      if (!p || p.arena !== first.arena || p.base !== at[i]) return null;
    }
    return first.arena;
  }

  place(id: number, arena: Arena, base: number): void {
    this.placed.set(id, { arena, base });
    arena.live++;
  }

  /** Takes id out of its arena; returns the arena when that emptied it (its buffer is free). */
  remove(id: number): Arena | null {
    const p = this.placed.get(id);
    if (!p) return null;
    this.placed.delete(id);
    return --p.arena.live === 0 ? p.arena : null;
  }
}
