// sg.func.jacrev / jacfwd / hessian. jacrev: one backward pass per output element (seeded with
// the element's one-hot, graph retained), as torch.autograd.functional.jacobian does without
// vectorize. jacfwd: forward mode over the basis (vmap of jvp, as torch.func's), or where forward
// mode cannot follow fn, the double-VJP once (g(u) = Jᵀu recorded) then one backward pass of g per
// input element (d g_j / du = column j of J). hessian = jacfwd(jacrev(fn)), as torch.func's.
// The Jacobian of output [m...] with respect to input [n...] has shape [m..., n...].
import type { TensorHandle } from '../runtime/embind.js';
import * as H from '../runtime/handles.js';
import { tidy } from '../runtime/memory.js';
import { checkOptions, describe } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { direct1, levelsOf, mark, physShape, toAllLevels } from './batching.js';
import { eye, zeros } from '../tensor/creation.js';
import { forwardModeActive, Unsupported } from './forward_mode.js';
import { checkFn, differentiable, fnName, jvpForward, makeLeaf, outerCreates, parseArgnums } from './grad.js';
import { vmap } from './vmap.js';

export interface JacOptions {
  argnums?: number | readonly number[];
  hasAux?: boolean;
}

function numelOf(s: readonly number[]): number {
  return s.reduce((a, b) => a * b, 1);
}

/** Element j of t's logical tensor (flattened), per sample: physical [batch...]. */
function element(t: Tensor, j: number): Tensor {
  const k = levelsOf(t.handle).length;
  const phys = physShape(t.handle);
  const flat = direct1('reshape', [t.handle], { shape: [...phys.slice(0, k), -1] });
  try {
    const e = direct1('select', [flat], { dim: k, index: j });
    mark(e, levelsOf(t.handle));
    return new Tensor(e);
  } finally {
    H.releaseHandle(flat);
  }
}

/** d root / d inputs for a root of one element per sample (zeros where it does not depend). */
function gradsPerSample(root: Tensor, inputs: readonly Tensor[], retain: boolean, create: boolean): Tensor[] {
  if (!root.requiresGrad) return inputs.map((t) => t.mul(0));
  const shape = physShape(root.handle);
  const seed: TensorHandle = shape.length === 0 ? 0 : direct1('ones', [], { shape, dtype: H.handleDType(root.handle), device: H.handleDevice(root.handle) });
  try {
    const hs = H.computeGradHandles(root.handle, seed, inputs.map((t) => t.handle), retain, create);
    return hs.map((h, i) => {
      mark(h, levelsOf(inputs[i]!.handle));
      return new Tensor(h);
    });
  } finally {
    if (seed !== 0) H.releaseHandle(seed);
  }
}

/** Rows (or columns) of a Jacobian stacked into [outer..., inner...] per sample. */
function assemble(parts: Tensor[], lead: readonly number[], trail: readonly number[], rowsFirst: boolean): Tensor {
  // parts[j]: one per element of `trail` (columns) or `lead` (rows), each shaped as the other
  const st = stackLogical(parts, rowsFirst ? 0 : parts[0]!.ndim);
  return st.reshape([...lead, ...trail]);
}

function stackLogical(parts: Tensor[], dim: number): Tensor {
  // sg.stack through the op (the batching rules handle batched parts)
  const ids = parts.map((p) => p.handle);
  return new Tensor(H.callOp1('stack', ids, { dim }));
}

function jacOptions(name: string, fn: unknown, options: unknown): { idx: number[]; single: boolean; hasAux: boolean; where: string } {
  checkFn(name, fn);
  const o = checkOptions<JacOptions>(name, options, {
    argnums: { check: (v) => v !== undefined, expected: 'an integer or an array of integers' },
    hasAux: 'boolean',
  });
  const where = `${name}(${fnName(fn)})`;
  const [idx, single] = parseArgnums(where, o.argnums);
  return { idx, single, hasAux: o.hasAux ?? false, where };
}

function outputOf(where: string, r: unknown, hasAux: boolean): [Tensor, unknown] {
  let out = r, aux: unknown;
  if (hasAux) {
    if (!Array.isArray(r) || r.length !== 2) throw new Error(`${where}: with hasAux, fn must return [output, aux], got ${describe(r)}`);
    [out, aux] = r;
  }
  if (!(out instanceof Tensor)) throw new Error(`${where}: fn must return a Tensor, got ${describe(out)}`);
  return [out, aux];
}

/**
 * What jacrev and jacfwd share: fn called on fresh leaves for the differentiated arguments, with
 * grad mode on and every temporary freed; `jacobians` gives one Jacobian per leaf from fn's output.
 */
function jacobianCall(
  fn: (...args: any[]) => any,
  o: ReturnType<typeof jacOptions>,
  args: unknown[],
  jacobians: (out: Tensor, leaves: Tensor[], create: boolean) => Tensor[],
): unknown {
  const inputs = differentiable(o.where, args, o.idx);
  const create = outerCreates(inputs);
  const prev = H.isGradEnabled();
  H.setGradEnabled(true);
  try {
    return tidy(() => {
      const leaves = inputs.map((t) => makeLeaf(t, create));
      const callArgs = args.slice();
      o.idx.forEach((i, k) => (callArgs[i] = leaves[k]));
      const [out, aux] = outputOf(o.where, fn(...callArgs), o.hasAux);
      const jac = jacobians(out, leaves, create);
      const result = o.single ? jac[0]! : jac;
      return o.hasAux ? [result, aux] : result;
    });
  } finally {
    H.setGradEnabled(prev);
  }
}

/** torch.func.jacrev(fn, { argnums = 0, hasAux }): reverse-mode Jacobian. */
export function jacrev(fn: (...args: any[]) => any, options?: JacOptions): (...args: any[]) => any {
  const o = jacOptions('jacrev', fn, options);
  return (...args: unknown[]) =>
    jacobianCall(fn, o, args, (out, leaves, create) => {
      const m = out.numel;
      const rows: Tensor[][] = leaves.map(() => []);
      for (let j = 0; j < m; j++) {
        const gs = gradsPerSample(element(out, j), leaves, create || j < m - 1, create);
        gs.forEach((g, a) => rows[a]!.push(g));
      }
      // An empty output: an empty Jacobian [...out.shape, ...l.shape] (l itself has elements to spare).
      return leaves.map((l, a) => (m === 0 ? zeros([...out.shape, ...l.shape], { dtype: out.dtype, device: out.device }) : assemble(rows[a]!, out.shape, l.shape, true)));
    });
}

/**
 * jacfwd by forward mode, as torch.func's: for each differentiated argument, the jvp with every
 * basis tangent at once (vmap over the identity), columns moved last. Throws Unsupported where
 * forward mode cannot follow fn (then jacfwd takes the double-VJP).
 */
function jacfwdForward(fn: (...args: any[]) => any, o: ReturnType<typeof jacOptions>, args: unknown[]): unknown {
  const inputs = differentiable(o.where, args, o.idx);
  const create = outerCreates(inputs);
  return tidy(() => {
    const jac = inputs.map((x, a) => {
      const n = x.numel;
      if (n === 0) throw new Unsupported(`${o.where}: an argument with no elements`);
      const basis = eye(n, { dtype: x.dtype, device: x.device }).reshape([n, ...x.shape]);
      const column = (v: Tensor): Tensor => {
        const only = (leaf: Tensor): unknown => {
          const callArgs = args.slice();
          callArgs[o.idx[a]!] = leaf;
          const r = fn(...callArgs);
          if (!(r instanceof Tensor)) throw new Error(`${o.where}: fn must return a Tensor, got ${describe(r)}`);
          return r;
        };
        return jvpForward(o.where, only, [x], [v], create)[1] as Tensor;
      };
      const cols = vmap(column)(basis) as Tensor; // [n, ...out]
      const r = cols.ndim;
      const outShape = cols.shape.slice(1);
      return cols.permute([...Array.from({ length: r - 1 }, (_, i) => i + 1), 0]).reshape([...outShape, ...x.shape]);
    });
    return o.single ? jac[0]! : jac;
  });
}

/** torch.func.jacfwd(fn, { argnums = 0, hasAux }): forward-mode Jacobian (README.md). */
export function jacfwd(fn: (...args: any[]) => any, options?: JacOptions): (...args: any[]) => any {
  const o = jacOptions('jacfwd', fn, options);
  return (...args: unknown[]) => {
    if (!o.hasAux && !forwardModeActive()) {
      try {
        return jacfwdForward(fn, o, args);
      } catch (e) {
        if (!(e instanceof Unsupported)) throw e;
      }
    }
    // The double-VJP once (g(u) = Jᵀu recorded), then one backward of g per input element.
    return jacobianCall(fn, o, args, (out, leaves, create) => {
      const u = new Tensor(toAllLevels(out.handle)).detach().mul(0);
      u.requiresGrad = true;
      const g = gradsPerSample(out.mul(u).sum(), leaves, true, true);
      return leaves.map((l, a) => {
        const n = l.numel;
        if (n === 0) return zeros([...out.shape, ...l.shape], { dtype: out.dtype, device: out.device }); // an empty Jacobian
        const cols: Tensor[] = [];
        for (let j = 0; j < n; j++) {
          const last = a === leaves.length - 1 && j === n - 1;
          cols.push(gradsPerSample(element(g[a]!, j), [u], create || !last, create)[0]!);
        }
        return assemble(cols, out.shape, l.shape, false);
      });
    });
  };
}

/** torch.func.hessian(fn, { argnums = 0 }) = jacfwd(jacrev(fn, { argnums }), { argnums }). */
export function hessian(fn: (...args: any[]) => any, options?: { argnums?: number | readonly number[] }): (...args: any[]) => any {
  checkFn('hessian', fn);
  const o = checkOptions<{ argnums?: number | readonly number[] }>('hessian', options, {
    argnums: { check: (v) => v !== undefined, expected: 'an integer or an array of integers' },
  });
  const [, single] = parseArgnums(`hessian(${fnName(fn)})`, o.argnums);
  if (!single) throw new Error(`hessian(${fnName(fn)}): argnums must be one integer here (one Hessian block per call), got ${describe(o.argnums)}`);
  const inner = jacrev(fn, o.argnums === undefined ? undefined : { argnums: o.argnums });
  Object.defineProperty(inner, 'name', { value: fnName(fn) });
  return jacfwd(inner, o.argnums === undefined ? undefined : { argnums: o.argnums });
}
