// sg.amp.GradScaler: PyTorch's torch.cuda.amp.GradScaler (1.13, grad_scaler.py), with the
// arithmetic of its two kernels (AmpKernels.cu): _amp_foreach_non_finite_check_and_unscale_
// (each gradient times inv_scale = float32(1 / double(scale)), found_inf set by any non-finite
// element) and _amp_update_scale_ (found_inf: scale = float32(scale · backoff), tracker 0; else
// tracker + 1, and at growthInterval scale = float32(scale · growth) when finite, tracker 0).
// The scale is a float32 number here (PyTorch keeps a one-element float32 tensor); stages and
// Errors per optimizer as there.
import { checkOptions, describe } from '../runtime/options.js';
import { noGrad } from '../autograd/backward.js';
import { Tensor } from '../tensor/tensor.js';
import { tensor } from '../tensor/creation.js';

/** What GradScaler needs of an optimizer: its param groups and step(). */
export interface ScalableOptimizer {
  readonly paramGroups: readonly { params: readonly Tensor[] }[];
  step(...args: unknown[]): unknown;
}

export interface GradScalerOptions {
  initScale?: number;
  growthFactor?: number;
  backoffFactor?: number;
  growthInterval?: number;
  enabled?: boolean;
}

type Stage = 'ready' | 'unscaled' | 'stepped';
interface OptState {
  stage: Stage;
  foundInf: number | undefined; // undefined: no inf check recorded yet
}

/** Outputs as scale() takes them: a tensor, or arrays / objects of them (nested). */
export type Scalable = Tensor | readonly Scalable[] | { readonly [key: string]: Scalable };

export class GradScaler {
  private scaleValue: number | undefined; // lazily set by the first scale(), as PyTorch's _scale
  private growthTracker = 0;
  private readonly initScale: number;
  private growthFactor: number;
  private backoffFactor: number;
  private growthInterval: number;
  private readonly enabled: boolean;
  private states = new Map<ScalableOptimizer, OptState>();

  constructor(options: GradScalerOptions = {}) {
    const o = checkOptions<GradScalerOptions>('GradScaler', options, {
      initScale: 'number', growthFactor: 'number', backoffFactor: 'number', growthInterval: 'integer', enabled: 'boolean',
    });
    this.initScale = o.initScale ?? 2 ** 16;
    this.growthFactor = o.growthFactor ?? 2;
    this.backoffFactor = o.backoffFactor ?? 0.5;
    this.growthInterval = o.growthInterval ?? 2000;
    this.enabled = o.enabled ?? true;
    // PyTorch's checks: "The growth factor must be > 1.0", "The backoff factor must be < 1.0",
    // and a positive interval (its kernel compares a counter with it).
    if (!(this.growthFactor > 1)) throw new Error(`GradScaler: the growth factor must be > 1.0, got ${this.growthFactor}`);
    if (!(this.backoffFactor < 1)) throw new Error(`GradScaler: the backoff factor must be < 1.0, got ${this.backoffFactor}`);
    if (!(this.growthInterval > 0)) throw new Error(`GradScaler: the growth interval must be > 0, got ${this.growthInterval}`);
    if (!(this.initScale > 0) || !Number.isFinite(this.initScale)) throw new Error(`GradScaler: initScale must be a positive finite number, got ${this.initScale}`);
  }

  private state(opt: ScalableOptimizer): OptState {
    let s = this.states.get(opt);
    if (s === undefined) {
      s = { stage: 'ready', foundInf: undefined };
      this.states.set(opt, s);
    }
    return s;
  }

  private requireScale(fn: string): number {
    if (this.scaleValue === undefined) {
      throw new Error(`GradScaler.${fn}: attempted ${fn} but the scale is not set yet: this may indicate that scale() was not called before ${fn}, as PyTorch's '_scale is None'`);
    }
    return this.scaleValue;
  }

  /** outputs × scale (a one-element float32 tensor, so a float16 loss is scaled in float32, as PyTorch's). */
  scale<T extends Scalable>(outputs: T): T {
    if (!this.enabled) return outputs;
    this.scaleValue ??= Math.fround(this.initScale);
    const s = this.scaleValue;
    const apply = (v: Scalable): Scalable => {
      if (v instanceof Tensor) return noScaleTemp(v, s);
      if (Array.isArray(v)) return v.map(apply);
      if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, apply(x as Scalable)]));
      throw new Error(`GradScaler.scale: expected a Tensor or arrays / objects of Tensors, got ${describe(v)}`);
    };
    return apply(outputs) as T;
  }

  /** Divides the optimizer's gradients by the scale in place, recording whether any is inf/NaN. */
  unscale_(optimizer: ScalableOptimizer): void {
    if (!this.enabled) return;
    const scale = this.requireScale('unscale_');
    const st = this.state(optimizer);
    if (st.stage === 'unscaled') throw new Error('GradScaler.unscale_: unscale_() has already been called on this optimizer since the last update()');
    if (st.stage === 'stepped') throw new Error('GradScaler.unscale_: unscale_() is being called after step()');
    const inv = Math.fround(1 / scale);
    let found = 0;
    noGrad(() => {
      for (const group of optimizer.paramGroups) {
        for (const p of group.params) {
          const g = p.grad;
          if (g === null || g === undefined) continue;
          if (g.dtype === 'float16') throw new Error('GradScaler.unscale_: attempting to unscale float16 gradients (as PyTorch: keep the parameters in float32 and use sg.autocast)');
          // x − x is NaN exactly where x is inf or NaN.
          const bad = g.sub(g).ne(0).any();
          if (bad.item()) found = 1;
          bad.dispose();
          g.mul_(inv);
        }
      }
    });
    st.foundInf = found;
    st.stage = 'unscaled';
  }

  /** unscale_ (unless done), then optimizer.step(...args) unless a gradient was inf/NaN; returns step's result. */
  step(optimizer: ScalableOptimizer, ...args: unknown[]): unknown {
    if (!this.enabled) return optimizer.step(...args);
    if (args.length > 0 && typeof args[0] === 'function') throw new Error('GradScaler.step: closure use is not currently supported if GradScaler is enabled (as in PyTorch)');
    this.requireScale('step');
    const st = this.state(optimizer);
    if (st.stage === 'stepped') throw new Error('GradScaler.step: step() has already been called since the last update()');
    if (st.stage === 'ready') this.unscale_(optimizer);
    let result: unknown;
    if (!st.foundInf) result = optimizer.step(...args);
    st.stage = 'stepped';
    return result;
  }

  /** Backs the scale off after a skipped step, grows it after growthInterval good ones (or sets newScale). */
  update(newScale?: number): void {
    if (!this.enabled) return;
    const scale = this.requireScale('update');
    if (newScale !== undefined) {
      if (typeof newScale !== 'number') throw new Error(`GradScaler.update: expected newScale to be a number, got ${describe(newScale)}`);
      this.scaleValue = Math.fround(newScale);
    } else {
      const found = [...this.states.values()].filter((s) => s.foundInf !== undefined);
      if (found.length === 0) throw new Error('GradScaler.update: no inf checks were recorded prior to update()');
      const foundInf = found.reduce((a, s) => a + s.foundInf!, 0);
      if (foundInf) {
        this.scaleValue = Math.fround(scale * this.backoffFactor);
        this.growthTracker = 0;
      } else {
        const successful = this.growthTracker + 1;
        if (successful === this.growthInterval) {
          const grown = Math.fround(scale * this.growthFactor);
          if (Number.isFinite(grown)) this.scaleValue = grown;
          this.growthTracker = 0;
        } else {
          this.growthTracker = successful;
        }
      }
    }
    this.states = new Map();
  }

  /** The scale (initScale before the first scale()), or 1 when disabled. */
  getScale(): number {
    if (!this.enabled) return 1;
    return this.scaleValue ?? this.initScale;
  }

  getGrowthFactor(): number { return this.growthFactor; }
  setGrowthFactor(v: number): void { this.growthFactor = v; }
  getBackoffFactor(): number { return this.backoffFactor; }
  setBackoffFactor(v: number): void { this.backoffFactor = v; }
  getGrowthInterval(): number { return this.growthInterval; }
  setGrowthInterval(v: number): void { this.growthInterval = v; }
  isEnabled(): boolean { return this.enabled; }

  /** PyTorch's state_dict keys (scale, growth_factor, backoff_factor, growth_interval, _growth_tracker). */
  stateDict(): Record<string, number> {
    if (!this.enabled) return {};
    return { scale: this.getScale(), growth_factor: this.growthFactor, backoff_factor: this.backoffFactor,
      growth_interval: this.growthInterval, _growth_tracker: this.growthTracker };
  }

  loadStateDict(sd: Record<string, number>): void {
    if (!this.enabled) throw new Error('GradScaler.loadStateDict: attempted to load state for a disabled instance');
    if (Object.keys(sd).length === 0) throw new Error('GradScaler.loadStateDict: the source state dict is empty, possibly because it was saved from a disabled instance');
    this.scaleValue = Math.fround(sd.scale!);
    this.growthFactor = sd.growth_factor!;
    this.backoffFactor = sd.backoff_factor!;
    this.growthInterval = sd.growth_interval!;
    this.growthTracker = sd._growth_tracker!;
  }
}

/** v × [scale] (a one-element float32 tensor, released at once). */
function noScaleTemp(v: Tensor, scale: number): Tensor {
  const s = tensor([scale], { dtype: 'float32', device: v.device });
  try {
    return v.mul(s);
  } finally {
    s.dispose();
  }
}
