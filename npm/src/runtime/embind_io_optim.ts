// Types of the optimizer-step, gradient-clipping and safetensors bindings (bindings/io_optim.cpp,
// documented in bindings/README.md), merged into SimdgradModule of embind.ts.
import type { Attrs, TensorHandle } from './embind.js';

/** What loadSafetensors returns: names in file order, parallel handle ids (owned by the caller), metadata. */
export interface LoadedSafetensors {
  names: string[];
  tensors: TensorHandle[];
  metadata: Record<string, string>;
}

declare module './embind.js' {
  interface SimdgradModule {
    /** Creates missing state entries without stepping (Adagrad's eager state). */
    optimInitState(algorithm: string, params: TensorHandle[], states: Record<string, TensorHandle>[], hyper: Attrs): void;
    clipGradNorm(params: TensorHandle[], maxNorm: number, normType: number, errorIfNonfinite: boolean): number;
    clipGradValue(params: TensorHandle[], clipValue: number): void;
    saveSafetensors(names: string[], tensors: TensorHandle[], metadata: Record<string, string> | null): Uint8Array;
    loadSafetensors(bytes: Uint8Array): LoadedSafetensors;
  }
}
