// sg.func.grad / gradAndValue / vjp / jvp: torch.func's differentiating transforms over the
// reverse-mode engine (computeGrads). Inside vmap their inputs are first batched over every active
// level (batching.ts toAllLevels), so each sample's gradient stays its own; outside vmap that is
// a no-op. jvp is forward mode (forward_mode.ts, each op's tangent by its rule in jvp_rules.ts);
// where that cannot follow fn it is the double-VJP identity: g(u) = Jᵀu is recorded
// (createGraph), and d<g(u), v>/du = Jv; two backward passes (README.md).
import type { TensorHandle } from '../runtime/embind.js';
import * as H from '../runtime/handles.js';
import { tidy } from '../runtime/memory.js';
import { checkOptions, describe, isInteger } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { direct1, levelsOf, mark, physShape, toAllLevels, unionLevels } from './batching.js';
import { forwardModeActive, Unsupported, withTangents } from './forward_mode.js';
import { hasNonTensorLeaf, treeMap, treeTensors } from './tree.js';

export interface GradOptions {
  /** Which argument(s) to differentiate with respect to (default 0). */
  argnums?: number | readonly number[];
  /** fn returns [output, aux]; aux is passed through untouched. */
  hasAux?: boolean;
}

export function fnName(fn: unknown): string {
  const n = (fn as { name?: unknown }).name;
  return typeof n === 'string' && n !== '' ? n : 'anonymous';
}

export function checkFn(transform: string, fn: unknown): void {
  if (typeof fn !== 'function') throw new Error(`${transform}: expected fn to be a function, got ${describe(fn)}`);
}

/** argnums as a list, and whether the caller gave a single number. */
export function parseArgnums(where: string, argnums: unknown): [number[], boolean] {
  if (argnums === undefined) return [[0], true];
  if (isInteger(argnums) && argnums >= 0) return [[argnums], true];
  if (Array.isArray(argnums) && argnums.length > 0 && argnums.every((a) => isInteger(a) && a >= 0)) return [argnums.slice(), false];
  throw new Error(`${where}: expected argnums to be a non-negative integer or a non-empty array of them, got ${describe(argnums)}`);
}

/** The arguments at argnums, checked: in range, floating Tensors. */
export function differentiable(where: string, args: unknown[], idx: number[]): Tensor[] {
  return idx.map((i) => {
    if (i >= args.length) throw new Error(`${where}: argnums ${i} is out of range: the function got ${args.length} argument${args.length === 1 ? '' : 's'}`);
    const a = args[i];
    if (!(a instanceof Tensor)) throw new Error(`${where}: argument ${i} must be a Tensor to differentiate with respect to, got ${describe(a)}`);
    if (a.dtype !== 'float32' && a.dtype !== 'float64') throw new Error(`${where}: argument ${i} must be a floating Tensor (float32 or float64) to differentiate with respect to, got ${a.dtype}`);
    return a;
  });
}

/** The arguments at argnums as trees of floating Tensors (a Tensor, arrays or objects of them). */
export function treeArgs(where: string, args: unknown[], idx: number[]): unknown[] {
  return idx.map((i) => {
    if (i >= args.length) throw new Error(`${where}: argnums ${i} is out of range: the function got ${args.length} argument${args.length === 1 ? '' : 's'}`);
    const a = args[i];
    const ts = treeTensors(a);
    if (ts.length === 0 || hasNonTensorLeaf(a)) throw new Error(`${where}: argument ${i} must be a Tensor (or an array/object of Tensors) to differentiate with respect to, got ${describe(a)}`);
    differentiable(where, ts, ts.map((_, k) => k));
    return a;
  });
}

/** Whether the transform sits inside another differentiation that follows these inputs. */
export function outerCreates(inputs: readonly Tensor[]): boolean {
  return H.isGradEnabled() && inputs.some((t) => t.requiresGrad);
}

/**
 * A leaf to differentiate with respect to: batched over every active vmap level, then detached
 * (or a recorded view of it, when an outer differentiation follows it).
 */
export function makeLeaf(t: Tensor, create: boolean): Tensor {
  const all = new Tensor(toAllLevels(t.handle));
  if (create && t.requiresGrad) {
    // A recorded view (its own graph node, which the engine captures the gradient at), not a
    // clone: inside vmap `all` is an unmapped weight expanded to the batch, and a clone would
    // write B copies of it (nn.Module parameters require grad, so this is vmap(grad)'s usual path).
    const v = new Tensor(direct1('reshape', [all.handle], { shape: physShape(all.handle) }));
    mark(v.handle, levelsOf(all.handle));
    all.dispose();
    return v;
  }
  const leaf = all.detach();
  leaf.requiresGrad = true;
  return leaf;
}

/** A tensor of ones shaped as t physically (every sample's seed), or 0 for one element. */
function seedOf(t: Tensor): TensorHandle {
  const shape = physShape(t.handle);
  if (shape.length === 0) return 0;
  return direct1('ones', [], { shape, dtype: H.handleDType(t.handle), device: H.handleDevice(t.handle) });
}

/**
 * d root / d inputs (root logically one element per sample): new Tensors batched as the inputs.
 * An input root does not depend on gets zeros.
 */
export function gradsOf(root: Tensor, inputs: readonly Tensor[], retain: boolean, create: boolean, where: string): Tensor[] {
  const rl = levelsOf(root.handle);
  for (const [i, t] of inputs.entries()) {
    const il = levelsOf(t.handle);
    if (rl.some((l) => !il.includes(l))) {
      throw new Error(`${where}: the output is batched over a vmap level that input ${i} is not (a vjp/jvp function called inside a vmap that did not map its primals is not supported)`);
    }
  }
  if (!root.requiresGrad) return inputs.map((t) => t.mul(0));
  const seed = seedOf(root);
  let hs: TensorHandle[];
  try {
    hs = H.computeGradHandles(root.handle, seed, inputs.map((t) => t.handle), retain, create);
  } finally {
    if (seed !== 0) H.releaseHandle(seed);
  }
  return hs.map((h, i) => {
    mark(h, levelsOf(inputs[i]!.handle));
    return new Tensor(h);
  });
}

function splitAux(where: string, r: unknown, hasAux: boolean): [unknown, unknown] {
  if (!hasAux) return [r, undefined];
  if (!Array.isArray(r) || r.length !== 2) throw new Error(`${where}: with hasAux, fn must return [output, aux], got ${describe(r)}`);
  return [r[0], r[1]];
}

function scalarOut(where: string, out: unknown): Tensor {
  if (!(out instanceof Tensor) || out.numel !== 1) {
    throw new Error(`${where}: fn must return a Tensor with one element, got ${out instanceof Tensor ? `shape [${out.shape.join(', ')}]` : describe(out)}`);
  }
  return out;
}

function gradAndValueImpl(transform: string, fn: unknown, options: GradOptions | undefined) {
  checkFn(transform, fn);
  const o = checkOptions<GradOptions>(transform, options, {
    argnums: { check: (v) => v !== undefined, expected: 'an integer or an array of integers' },
    hasAux: 'boolean',
  });
  const where = `${transform}(${fnName(fn)})`;
  const [idx, single] = parseArgnums(where, o.argnums);
  const hasAux = o.hasAux ?? false;
  return (...args: unknown[]): [unknown, unknown, unknown] => {
    // Each differentiated argument is a Tensor or a tree of them (an object of parameters).
    const trees = treeArgs(where, args, idx);
    const inputs = trees.flatMap((t) => treeTensors(t));
    const create = outerCreates(inputs);
    const prev = H.isGradEnabled();
    H.setGradEnabled(true);
    try {
      return tidy(() => {
        const leafTrees = trees.map((t) => treeMap(t, (x) => makeLeaf(x, create)));
        const leaves = leafTrees.flatMap((t) => treeTensors(t));
        const callArgs = args.slice();
        idx.forEach((i, k) => (callArgs[i] = leafTrees[k]));
        const [rawOut, aux] = splitAux(where, (fn as (...a: unknown[]) => unknown)(...callArgs), hasAux);
        const out = scalarOut(where, rawOut);
        const flat = gradsOf(out, leaves, create, create, where);
        let at = 0;
        const grads = leafTrees.map((t) => treeMap(t, () => flat[at++]!));
        const value = create ? out : out.detach();
        return [single ? grads[0]! : grads, value, aux] as [unknown, unknown, unknown];
      });
    } finally {
      H.setGradEnabled(prev);
    }
  };
}

/**
 * torch.func.grad(fn, { argnums = 0, hasAux = false }): the gradient of a one-element output
 * (one Tensor for a number argnums, an array for an array); with hasAux, [gradient, aux].
 */
export function grad(fn: (...args: any[]) => any, options?: GradOptions): (...args: any[]) => any {
  const f = gradAndValueImpl('grad', fn, options);
  const hasAux = options?.hasAux ?? false;
  return (...args: unknown[]) => {
    const [g, value, aux] = f(...args);
    (value as Tensor).dispose();
    return hasAux ? [g, aux] : g;
  };
}

/** torch.func.grad_and_value: [gradient, value] (with hasAux: [gradient, [value, aux]]). */
export function gradAndValue(fn: (...args: any[]) => any, options?: GradOptions): (...args: any[]) => any {
  const f = gradAndValueImpl('gradAndValue', fn, options);
  const hasAux = options?.hasAux ?? false;
  return (...args: unknown[]) => {
    const [g, value, aux] = f(...args);
    return hasAux ? [g, [value, aux]] : [g, value];
  };
}

/** Σ_i sum(outs_i · cots_i): one root whose gradient is the vjp with those cotangents. */
function contract(outs: readonly Tensor[], cots: readonly Tensor[]): Tensor {
  let s: Tensor | null = null;
  for (let i = 0; i < outs.length; i++) {
    const term = outs[i]!.mul(cots[i]!).sum();
    s = s === null ? term : s.add(term);
  }
  return s!;
}

function checkSameShapes(where: string, what: string, got: readonly Tensor[], want: readonly Tensor[]): void {
  if (got.length !== want.length) throw new Error(`${where}: expected ${want.length} ${what}, got ${got.length}`);
  got.forEach((t, i) => {
    const a = t.shape, b = want[i]!.shape;
    if (a.length !== b.length || a.some((s, j) => s !== b[j])) {
      throw new Error(`${where}: ${what} ${i} has shape [${a.join(', ')}], expected [${b.join(', ')}]`);
    }
  });
}

/**
 * torch.func.vjp(fn, ...primals) -> [output, vjpFn]: vjpFn(cotangents) (shaped as the output: a
 * Tensor, or the same array) returns the gradients, an array with one per primal.
 */
export function vjp(fn: (...args: any[]) => any, ...primals: Tensor[]): [any, (cotangents: any) => Tensor[]] {
  checkFn('vjp', fn);
  const where = `vjp(${fnName(fn)})`;
  const inputs = differentiable(where, primals, primals.map((_, i) => i));
  const create = outerCreates(inputs);
  const prev = H.isGradEnabled();
  H.setGradEnabled(true);
  let leaves: Tensor[];
  let out: unknown;
  try {
    [leaves, out] = tidy(() => {
      const ls = inputs.map((t) => makeLeaf(t, create));
      return [ls, fn(...ls)] as [Tensor[], unknown];
    });
  } finally {
    H.setGradEnabled(prev);
  }
  const outs = treeTensors(out);
  if (outs.length === 0 || hasNonTensorLeaf(out)) throw new Error(`${where}: fn must return a Tensor or an array/object of Tensors, got ${describe(out)}`);
  const vjpFn = (cotangents: unknown): Tensor[] => {
    const cots = treeTensors(cotangents);
    checkSameShapes(`${where}: vjpFn`, 'cotangents', cots, outs);
    const innerCreate = create || outerCreates(cots);
    const p = H.isGradEnabled();
    H.setGradEnabled(true);
    try {
      return tidy(() => gradsOf(contract(outs, cots), leaves, true, innerCreate, `${where}: vjpFn`));
    } finally {
      H.setGradEnabled(p);
    }
  };
  const shown = create ? out : treeMap(out, (t) => t.detach());
  return [shown, vjpFn];
}

/**
 * torch.func.jvp(fn, primals, tangents) -> [output, tangentOutput] (the output's structure), by
 * forward mode, or the double-VJP identity where forward mode cannot follow fn.
 */
export function jvp(fn: (...args: any[]) => any, primals: readonly Tensor[], tangents: readonly Tensor[]): [any, any] {
  checkFn('jvp', fn);
  const where = `jvp(${fnName(fn)})`;
  if (!Array.isArray(primals)) throw new Error(`${where}: expected primals to be an array of Tensors, got ${describe(primals)}`);
  if (!Array.isArray(tangents)) throw new Error(`${where}: expected tangents to be an array of Tensors, got ${describe(tangents)}`);
  const inputs = differentiable(where, primals as unknown[], primals.map((_, i) => i));
  tangents.forEach((t, i) => {
    if (!(t instanceof Tensor)) throw new Error(`${where}: tangents[${i}] must be a Tensor, got ${describe(t)}`);
  });
  checkSameShapes(where, 'tangents', tangents, inputs);
  const create = outerCreates([...inputs, ...tangents]);
  if (!forwardModeActive()) {
    try {
      return jvpForward(where, fn, inputs, tangents as Tensor[], create);
    } catch (e) {
      if (!(e instanceof Unsupported)) throw e;
    }
  }
  return jvpDoubleVjp(where, fn, inputs, tangents as Tensor[], create);
}

/**
 * jvp by forward mode (forward_mode.ts): fn once, each op's tangent by its rule. Throws Unsupported
 * where forward mode cannot follow fn (jacfwd calls it directly, inside a vmap over the basis).
 */
export function jvpForward(where: string, fn: (...args: any[]) => any, inputs: Tensor[], tangents: Tensor[], create: boolean): [any, any] {
  const prev = H.isGradEnabled();
  H.setGradEnabled(create); // a graph only when an outer differentiation follows
  try {
    return tidy(() =>
      withTangents(
        inputs.map((t) => t.handle),
        tangents.map((t) => t.handle),
        (ids) => fn(...ids.map((id) => new Tensor(id))) as unknown,
        (out, tangentOf) => {
          const outs = treeTensors(out);
          if (outs.length === 0 || hasNonTensorLeaf(out)) throw new Error(`${where}: fn must return a Tensor or an array/object of Tensors, got ${describe(out)}`);
          const touts = outs.map((o) => {
            const t = tangentOf(o.handle);
            return t === 0 ? o.mul(0) : new Tensor(t);
          });
          const valueOut = create ? out : treeMap(out, (x) => x.detach());
          return [valueOut, treeMap(out, (_, i) => touts[i]!)] as unknown;
        },
      ),
    ) as [any, any];
  } finally {
    H.setGradEnabled(prev);
  }
}

/**
 * jvp by the double-VJP identity: g(u) = Jᵀu recorded (createGraph), then Jv = d<g(u), v>/du.
 * For the functions forward mode cannot follow (an op without a rule, a gradient inside fn).
 */
function jvpDoubleVjp(where: string, fn: (...args: any[]) => any, inputs: Tensor[], tangents: Tensor[], create: boolean): [any, any] {
  const prev = H.isGradEnabled();
  H.setGradEnabled(true);
  try {
    return tidy(() => {
      const leaves = inputs.map((t) => makeLeaf(t, create));
      const out: unknown = fn(...leaves);
      const outs = treeTensors(out);
      if (outs.length === 0 || hasNonTensorLeaf(out)) throw new Error(`${where}: fn must return a Tensor or an array/object of Tensors, got ${describe(out)}`);
      // u: a dummy cotangent per output, batched over every active level (each sample its own).
      const us = outs.map((t) => {
        const z = new Tensor(toAllLevels(t.handle)).detach().mul(0);
        z.requiresGrad = true;
        return z;
      });
      const g = gradsOf(contract(outs, us), leaves, true, true, where);
      const t = contract(g, tangents);
      const tangentOuts = gradsOf(t, us, create, create, where);
      const valueOut = create ? out : treeMap(out, (x) => x.detach());
      return [valueOut, treeMap(out, (_, i) => tangentOuts[i]!)] as [unknown, unknown];
    });
  } finally {
    H.setGradEnabled(prev);
  }
}

/** The levels every active vmap has given these tensors (for results built from several). */
export function levelsUnion(ts: readonly Tensor[]): number[] {
  return unionLevels(ts.map((t) => levelsOf(t.handle)));
}
