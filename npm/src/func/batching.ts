// vmap's state: the active vmap levels and which handle ids are batched over which of them, and
// the batch hook that runtime/handles.ts consults on every op call while a vmap runs.
//
// A batched id is an ordinary tensor (the "physical" one) whose leading dims are the sizes of the
// vmap levels it is batched over, outermost level first; the function being mapped sees the rest
// (the "logical" tensor): handleShape answers with the logical shape. An op call with a batched
// input is rewritten by its batching rule (batch_rules.ts) into ops on the physical tensors, so
// autograd records ordinary ops and reverse mode needs no rule of its own.
import type { Attrs, TensorHandle } from '../runtime/embind.js';
import * as H from '../runtime/handles.js';
import { Unsupported } from './jvp_rules.js';

export type Randomness = 'error' | 'different' | 'same';

export interface Level {
  /** Increasing with nesting: an inner vmap's level is larger. */
  readonly id: number;
  readonly size: number;
  readonly randomness: Randomness;
}

/** An operand as a rule sees it: an id (0 for an absent optional tensor) and its levels (ascending). */
export interface Arg {
  id: TensorHandle;
  lv: readonly number[];
}

/** A batching rule: the results (new ids, with the levels they are batched over). */
export type Rule = (op: string, args: Arg[], attrs: Attrs) => Arg[];

const active: Level[] = [];
const batched = new Map<TensorHandle, readonly number[]>();
let nextLevel = 1;
let busy = 0;
let rules: ((op: string) => Rule) | null = null;

/** The active levels, outermost first. */
export function activeLevels(): readonly Level[] {
  return active;
}

export function levelSize(id: number): number {
  for (const l of active) if (l.id === id) return l.size;
  throw new Error(`vmap: level ${id} is not active`);
}

/** The levels an id is batched over ([] when it is not). */
export function levelsOf(id: TensorHandle): readonly number[] {
  return batched.get(id) ?? NONE;
}
const NONE: readonly number[] = [];

/** Marks a new id as batched over lv (nothing for []). */
export function mark(id: TensorHandle, lv: readonly number[]): void {
  if (lv.length > 0) batched.set(id, lv);
  else batched.delete(id);
}

/** Runs an op on physical tensors, bypassing the rules. */
export function direct(op: string, inputs: ArrayLike<number>, attrs?: Attrs | null): TensorHandle[] {
  busy++;
  try {
    return H.callOp(op, inputs, attrs);
  } finally {
    busy--;
  }
}

export function direct1(op: string, inputs: ArrayLike<number>, attrs?: Attrs | null): TensorHandle {
  const out = direct(op, inputs, attrs);
  for (let i = 1; i < out.length; i++) if (out[i]) H.releaseHandle(out[i]!);
  if (!out[0]) throw new Error(`${op}: the op returned no tensor`);
  return out[0];
}

/** How deep the rules' physical op calls are nested (forward mode leaves those to vmap). */
export function directDepth(): number {
  return busy;
}

/** The physical shape of an id, whatever it is batched over. */
export function physShape(id: TensorHandle): number[] {
  busy++;
  try {
    return H.handleShape(id);
  } finally {
    busy--;
  }
}

/** Sorted union of level lists. */
export function unionLevels(lists: readonly (readonly number[])[]): number[] {
  const s = new Set<number>();
  for (const l of lists) for (const x of l) s.add(x);
  return [...s].sort((a, b) => a - b);
}

/** Runs an op on arguments that may be batched, through its rule (used by rules that decompose). */
export function batchedCall(op: string, args: Arg[], attrs: Attrs): Arg[] {
  if (!args.some((a) => a.lv.length > 0) && !RANDOM.has(op)) {
    return direct(op, args.map((a) => a.id), attrs).map((id) => ({ id, lv: NONE }));
  }
  return rules!(op)(op, args, attrs);
}

/** Ops that draw random numbers (randomness: 'error' refuses them inside vmap). */
export const RANDOM = new Set(['rand', 'randn', 'randint', 'bernoulli', 'multinomial', 'dropout', 'dropout2d', 'normal_', 'uniform_']);

const hook: H.BatchHook = {
  call(op, inputs, attrs) {
    if (busy > 0) return null;
    let any = false;
    for (let i = 0; i < inputs.length; i++) if (inputs[i] && batched.has(inputs[i]!)) any = true;
    if (!any && !RANDOM.has(op)) return null;
    const args: Arg[] = Array.from(inputs, (id) => ({ id, lv: id ? levelsOf(id) : NONE }));
    const out = rules!(op)(op, args, attrs ?? {});
    return out.map((a) => {
      mark(a.id, a.lv);
      return a.id;
    });
  },
  shape(id) {
    if (busy > 0) return null;
    const lv = batched.get(id);
    if (lv === undefined) return null;
    return physShape(id).slice(lv.length);
  },
  read(id) {
    if (busy === 0 && batched.has(id)) {
      throw new Error('vmap: the function read the values of a tensor batched by vmap (item, dataSync, toArray): a mapped function must compute with tensors only');
    }
  },
  release(id) {
    batched.delete(id);
  },
  derive(from, to) {
    const lv = batched.get(from);
    if (lv !== undefined) batched.set(to, lv);
  },
};

/** Installs the rule lookup (batch_rules.ts; kept apart so this file has no dependency on it). */
export function setRules(r: (op: string) => Rule): void {
  rules = r;
}

/** Enters a new vmap level for fn, with the hook installed while any level is active. */
export function withLevel<T>(size: number, randomness: Randomness, fn: (level: Level) => T): T {
  const level: Level = { id: nextLevel++, size, randomness };
  active.push(level);
  const prev = active.length === 1 ? H.setBatchHook(hook) : null;
  if (prev !== null) {
    // Forward mode's hook (a vmap inside a forward-mode jvp): its tangents would not follow the
    // batched ops, so jvp takes the double-VJP instead.
    H.setBatchHook(prev);
    active.pop();
    throw new Unsupported('sg.func.jvp: a vmap inside the function');
  }
  try {
    return fn(level);
  } finally {
    active.pop();
    if (active.length === 0) {
      H.setBatchHook(prev);
      // Anything still marked belongs to no active level now (tensors the function kept).
      batched.clear();
    }
  }
}

/**
 * A new id on t batched over every active level (the sizes of the levels it lacks inserted by
 * expand, a view): what the differentiating transforms make of their inputs inside vmap, so that
 * a gradient comes out per sample instead of summed over the batch.
 */
export function toAllLevels(id: TensorHandle): TensorHandle {
  const lv = levelsOf(id);
  const L = active.map((l) => l.id);
  if (lv.length === L.length) {
    const s = H.shareHandle(id);
    mark(s, lv);
    return s;
  }
  const shape = physShape(id);
  const k = lv.length;
  const target: number[] = [];
  let j = 0;
  for (const l of L) target.push(j < k && lv[j] === l ? shape[j++]! : 1);
  target.push(...shape.slice(k));
  const r = direct1('reshape', [id], { shape: target });
  try {
    const e = direct1('expand', [r], { shape: [...L.map(levelSize), ...shape.slice(k).map(() => -1)] });
    mark(e, L);
    return e;
  } finally {
    H.releaseHandle(r);
  }
}
