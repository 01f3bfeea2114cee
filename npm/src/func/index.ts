// sg.func: torch.func's transforms (README.md says how each is built).
import { functionalCall } from './functional_call.js';
import { grad, gradAndValue, jvp, vjp } from './grad.js';
import { hessian, jacfwd, jacrev } from './jacobian.js';
import { vmap } from './vmap.js';

export { Function, FunctionCtx } from './custom_function.js';
export type { GradOptions } from './grad.js';
export type { JacOptions } from './jacobian.js';
export type { InDims, OutDims, VmapOptions } from './vmap.js';
export type { Randomness } from './batching.js';

export const func = { grad, gradAndValue, vjp, jvp, jacrev, jacfwd, hessian, vmap, functionalCall };
export type Func = typeof func;
