// zeroGrad of optimizers and modules (PyTorch's zero_grad(set_to_none)): with setToNone (the
// default, as PyTorch ≥ 2.0) every .grad becomes null; with setToNone: false every existing
// .grad is set to zeros in place (the same storage; a grad that carries a graph, from
// backward({ createGraph }), is detached first, as PyTorch's detach_()). Both the positional
// flag and the options object are accepted: zeroGrad(false), zeroGrad({ setToNone: false }).
import { isTracing } from '../runtime/trace_flag.js';
import { keywordArgs } from '../tensor/keywords.js';
import type { Tensor } from '../tensor/tensor.js';
import { describe } from '../runtime/options.js';
import { noGrad } from './backward.js';

/** zeroGrad's arguments: a flag, or `{ setToNone }`. */
export type ZeroGradArgs = [setToNone?: boolean] | [options: { setToNone?: boolean }];

/** setToNone from zeroGrad's arguments (default true), or an Error naming fn. */
export function setToNoneArg(fn: string, args: readonly unknown[]): boolean {
  const [setToNone, extra] = keywordArgs(fn, ['setToNone'], args);
  if (extra !== undefined) throw new Error(`${fn}: takes one argument (setToNone, or { setToNone }), got also ${describe(extra)}`);
  if (setToNone === undefined) return true;
  if (typeof setToNone !== 'boolean') throw new Error(`${fn}: expected 'setToNone' to be a boolean, got ${describe(setToNone)}`);
  return setToNone;
}

/** Sets the gradients of `params` to null, or to zeros in place. */
export function zeroGrads(fn: string, params: Iterable<Tensor>, setToNone: boolean): void {
  if (!setToNone && isTracing()) {
    throw new Error(`${fn}: setToNone: false cannot be compiled (sg.compile records no in-place zeroing of gradients); use zeroGrad() (setToNone: true) inside a compiled function`);
  }
  for (const p of params) {
    if (p.isDisposed) continue;
    if (setToNone) {
      p.grad = null;
      continue;
    }
    const g = p.grad;
    if (g === null) continue;
    if (g.gradFn !== null || g.requiresGrad) {
      // Out of its graph first (PyTorch: grad.detach_() / requires_grad_(False)): the same storage.
      const d = g.detach();
      p.grad = d;
      noGrad(() => d.zero_());
    } else {
      noGrad(() => g.zero_());
    }
  }
}
