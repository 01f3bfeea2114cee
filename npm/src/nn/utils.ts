// sg.nn.utils: gradient clipping over parameters' .grad (torch.nn.utils.clip_grad_norm_,
// clip_grad_value_; computed in C++ in one call, bindings/README.md) and the flat-vector
// conversions parametersToVector / vectorToParameters.
import type { TensorHandle } from '../runtime/embind.js';
import { tidy } from '../runtime/memory.js';
import { mod } from '../runtime/module.js';
import { functionOps } from '../tensor/ops.js';
import { checkOptions, describe, numberArg } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { copyTensorInto, refuseTracedWrite } from './tensor_data.js';
import { noGrad } from '../autograd/backward.js';
import { recordHostStep } from '../compile/trace_state.js';
import { rnnUtils } from './utils_rnn.js';

// The clipping functions of bindings/io_optim.cpp.
interface ClipBindings {
  clipGradNorm(params: TensorHandle[], maxNorm: number, normType: number, errorIfNonfinite: boolean): number;
  clipGradValue(params: TensorHandle[], clipValue: number): void;
}

function bindings(fn: string): ClipBindings {
  const m = mod() as unknown as Partial<ClipBindings>;
  if (typeof m.clipGradNorm !== 'function' || typeof m.clipGradValue !== 'function') {
    throw new Error(`${fn}: this build of the wasm module has no gradient clipping (rebuild with scripts/build.sh)`);
  }
  return m as ClipBindings;
}

/** A Tensor or an iterable of Tensors (model.parameters()) as an array. */
function tensorList(fn: string, parameters: unknown): Tensor[] {
  if (parameters instanceof Tensor) return [parameters];
  if (parameters === null || typeof parameters !== 'object' || typeof (parameters as Iterable<unknown>)[Symbol.iterator] !== 'function') {
    throw new Error(`${fn}: expected a Tensor or an array of Tensors (e.g. model.parameters()), got ${describe(parameters)}`);
  }
  return [...(parameters as Iterable<unknown>)].map((p, i) => {
    if (!(p instanceof Tensor)) throw new Error(`${fn}: expected parameters[${i}] to be a Tensor, got ${describe(p)}`);
    return p;
  });
}

/**
 * What clipGradNorm_ returns inside sg.compile: the norm of each compiled call is not available
 * to the traced code, so using this value as a number throws.
 */
function untracedNumber(fn: string): number {
  const refuse = (): never => {
    throw new Error(`${fn}: inside sg.compile the total norm is not available (it would be this trace's value); compute it outside the compiled function if you need it`);
  };
  return { valueOf: refuse, toString: refuse, [Symbol.toPrimitive]: refuse } as unknown as number;
}

export interface ClipGradNormOptions {
  /** Order of the norm (2 by default; Infinity or 'inf' for the max norm). */
  normType?: number | 'inf';
  errorIfNonfinite?: boolean;
}

/**
 * Scales the gradients in place so that their joint norm is at most maxNorm; returns the
 * total norm before clipping (a number). The third argument may be normType itself.
 */
export function clipGradNorm_(parameters: Tensor | Iterable<Tensor>, maxNorm: number, options?: number | 'inf' | ClipGradNormOptions): number {
  const fn = 'clipGradNorm_';
  const params = tensorList(fn, parameters);
  numberArg(fn, 'maxNorm', maxNorm);
  const o =
    typeof options === 'number' || options === 'inf'
      ? { normType: options }
      : checkOptions<ClipGradNormOptions>(fn, options, {
          normType: { check: (v) => v === 'inf' || (typeof v === 'number' && !Number.isNaN(v)), expected: "a number or 'inf'" },
          errorIfNonfinite: 'boolean',
        });
  const normType = o.normType === 'inf' ? Infinity : (o.normType ?? 2);
  if (typeof normType !== 'number' || Number.isNaN(normType)) throw new Error(`${fn}: expected 'normType' to be a number, got ${describe(o.normType)}`);
  const onDevice = params.some((p) => p.device !== 'cpu');
  if (onDevice && o.errorIfNonfinite) throw new Error(`${fn}: errorIfNonfinite needs the norm on the cpu, which a GPU cannot give synchronously (clip on the cpu, or leave it off)`);
  const clip = (): number => {
    if (onDevice) {
      clipOnDevice(params, maxNorm, normType);
      return NaN; // the norm stays on the GPU: reading it would stall the step
    }
    return bindings(fn).clipGradNorm(params.map((p) => p.handle), maxNorm, normType, 'errorIfNonfinite' in o ? !!o.errorIfNonfinite : false);
  };
  // Inside sg.compile: clipped in place on every compiled call; the norm of those calls is not
  // returned (a number the traced code would keep), so the value here refuses to be used.
  if (recordHostStep(fn, () => void clip())) return untracedNumber(fn);
  return clip();
}

/**
 * clip_grad_norm_ with the gradients on a GPU, computed there with ops (PyTorch's formula: the
 * norm of the per-grad norms, then every grad times min(1, maxNorm / (total + 1e-6))).
 */
function clipOnDevice(params: Tensor[], maxNorm: number, normType: number): void {
  const grads = params.map((p) => p.grad).filter((g): g is Tensor => g !== null);
  if (grads.length === 0) return;
  tidy(() =>
    noGrad(() => {
      const norms = functionOps.stack(grads.map((g) => g.norm(normType)), 0);
      const total = norms.norm(normType);
      const coef = total.add(1e-6).reciprocal().mul(maxNorm).clamp(null, 1);
      for (const g of grads) copyTensorInto(g, g.mul(coef));
    }),
  );
}

/** Clamps every gradient in place to [−clipValue, clipValue]. */
export function clipGradValue_(parameters: Tensor | Iterable<Tensor>, clipValue: number): void {
  const fn = 'clipGradValue_';
  const params = tensorList(fn, parameters);
  numberArg(fn, 'clipValue', clipValue);
  // PyTorch clamps to [-clipValue, clipValue] unchecked; a negative value would set every
  // gradient to -clipValue, which is never what was meant.
  if (clipValue < 0) throw new Error(`${fn}: expected 'clipValue' to be >= 0, got ${clipValue}`);
  const clip = (): void => {
    if (params.some((p) => p.device !== 'cpu')) {
      for (const g of params.map((p) => p.grad).filter((g): g is Tensor => g !== null)) {
        tidy(() => noGrad(() => copyTensorInto(g, g.clamp(-clipValue, clipValue))));
      }
      return;
    }
    bindings(fn).clipGradValue(params.map((p) => p.handle), clipValue);
  };
  if (recordHostStep(fn, clip)) return;
  clip();
}

/** The parameters flattened and concatenated into one 1-D tensor (differentiable). */
export function parametersToVector(parameters: Iterable<Tensor>): Tensor {
  const params = tensorList('parametersToVector', parameters);
  if (params.length === 0) throw new Error('parametersToVector: expected at least one parameter');
  return tidy(() => functionOps.cat(params.map((p) => p.reshape(-1)), 0));
}

/**
 * Copies consecutive slices of vec into the parameters, in place (torch.nn.utils.vector_to_parameters),
 * each slice cast to its parameter's dtype (a float64 vector into float32 GPU parameters, as
 * PyTorch's copy casts) and written in the parameter's own element order (a strided view too).
 * All or nothing: every parameter is checked and every slice made (cast, moved to its device,
 * copied off the vector, which may alias a parameter) before the first write.
 */
export function vectorToParameters(vec: Tensor, parameters: Iterable<Tensor>): void {
  const fn = 'vectorToParameters';
  if (!(vec instanceof Tensor) || vec.isDisposed || vec.ndim !== 1) throw new Error(`${fn}: expected a 1-D Tensor, got ${describe(vec)}`);
  const params = tensorList(fn, parameters);
  params.forEach((p, i) => {
    if (p.isDisposed) throw new Error(`${fn}: expected parameters[${i}] to be a live Tensor, got a disposed one`);
    refuseTracedWrite(fn, p);
    // A GPU tensor reaches the cpu only asynchronously, which this synchronous write cannot wait for.
    if (p.device === 'cpu' && vec.device !== 'cpu') {
      throw new Error(`${fn}: expected the vector on the cpu for parameters[${i}], which is on the cpu; got a vector on '${vec.device}' (move it first: vec.to('cpu'), then await sg.sync())`);
    }
  });
  const total = params.reduce((n, p) => n + p.numel, 0);
  if (total !== vec.numel) throw new Error(`${fn}: the vector has ${vec.numel} elements, the parameters ${total}`);
  tidy(() =>
    noGrad(() => {
      let at = 0;
      const slices = params.map((p) => {
        const s = vec.detach().narrow(0, at, p.numel).reshape(p.shape).to({ device: p.device, dtype: p.dtype });
        at += p.numel;
        return s.device === vec.device && s.dtype === vec.dtype ? s.clone() : s;
      });
      params.forEach((p, i) => copyTensorInto(p, slices[i]!));
    }),
  );
}

/** sg.nn.utils */
export const utils = { clipGradNorm_, clipGradValue_, parametersToVector, vectorToParameters, rnn: rnnUtils };
