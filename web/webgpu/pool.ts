// GPU buffers by size class, reused instead of created: a training loop asks for the same
// sizes every step, so after the first steps every request is served from the free lists and
// createBuffer is no longer called (webgpuStats().buffersCreated stays flat).
import type { BufferLike, DeviceLike } from './gpu_types.js';

// Size classes: 256 bytes, then four steps per power of two (at most 25 % unused).
export function sizeClass(bytes: number): number {
  if (bytes <= 256) return 256;
  const p = 2 ** Math.floor(Math.log2(bytes - 1));
  const step = p / 4;
  return Math.ceil(bytes / step) * step;
}

export class BufferPool {
  private free = new Map<number, BufferLike[]>();
  created = 0;
  residentBytes = 0;

  constructor(
    private device: DeviceLike,
    private usage: number,
    private label: string,
  ) {}

  take(bytes: number): BufferLike {
    const size = sizeClass(bytes);
    const list = this.free.get(size);
    if (list && list.length) return list.pop()!;
    this.created++;
    this.residentBytes += size;
    return this.device.createBuffer({ size, usage: this.usage, label: `${this.label} ${size}` });
  }

  give(buffer: BufferLike): void {
    const list = this.free.get(buffer.size);
    if (list) list.push(buffer);
    else this.free.set(buffer.size, [buffer]);
  }

  /** Destroys every free buffer (sg.emptyCache); buffers in use are untouched. */
  trim(): void {
    for (const list of this.free.values())
      for (const b of list) {
        this.residentBytes -= b.size;
        b.destroy();
      }
    this.free.clear();
  }
}
