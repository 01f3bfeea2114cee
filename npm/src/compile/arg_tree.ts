// The arguments and results of a compiled function as trees: arrays (named tuples such as
// topk's come back named), plain objects and tensor holders (memory.ts tensorHolder: a
// PackedSequence) nest, Tensors are the leaves the graph
// sees, everything else is a static value. The arguments' tree
// gives the cache key (a tensor's shape, dtype, device and requiresGrad; a static value by
// value, or by identity for functions and class instances); the results' tree is rebuilt
// around the graph's output tensors on every call.
import { heldTensorsOf } from '../runtime/memory.js';
import { Tensor } from '../tensor/tensor.js';
import { namedTuple, namedTupleFields } from '../tensor/named_tuple.js';

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

// Functions and class instances (a Module, an optimizer) are keyed by identity.
const identities = new WeakMap<object, number>();
let nextIdentity = 0;
function identity(v: object): number {
  let id = identities.get(v);
  if (id === undefined) identities.set(v, (id = ++nextIdentity));
  return id;
}

// Symbols by identity too: two symbols with one description (Symbol('mode') twice) are different
// values. A Map, as a registered symbol (Symbol.for) cannot be a WeakMap key; symbols passed as static
// arguments are few.
const symbolIds = new Map<symbol, number>();

/** A static value's part of a key (typed, so that 1 and '1' differ). */
function staticKey(v: unknown): string {
  switch (typeof v) {
    case 'number':
      return Object.is(v, -0) ? 'n-0' : `n${v}`;
    case 'string':
      return `s${JSON.stringify(v)}`;
    case 'boolean':
      return v ? 'T' : 'F';
    case 'undefined':
      return 'u';
    case 'bigint':
      return `b${v}`;
    case 'symbol': {
      let id = symbolIds.get(v);
      if (id === undefined) symbolIds.set(v, (id = symbolIds.size + 1));
      return `y${id}`;
    }
    default:
      return v === null ? 'z' : `o${identity(v as object)}`;
  }
}

export interface Flat {
  tensors: Tensor[];
  key: string;
}

/**
 * The tensors of `value` in order and the signature key. A tensor met twice is
 * one leaf (the key records the repetition: the graph would read one value for both).
 */
export function flattenArgs(value: readonly unknown[], withRequiresGrad = true): Flat {
  const tensors: Tensor[] = [];
  const seen = new Map<Tensor, number>();
  const parts: string[] = [];
  const walk = (v: unknown, path: string): void => {
    if (v instanceof Tensor) {
      const at = seen.get(v);
      if (at !== undefined) {
        parts.push(`=${at}`);
        return;
      }
      if (v.isDisposed) throw new Error(`compiled function: argument ${path} is a disposed Tensor`);
      seen.set(v, tensors.length);
      tensors.push(v);
      parts.push(`t${v.dtype}[${v.shape.join(',')}]${v.device}${withRequiresGrad && v.requiresGrad ? 'g' : ''}`);
    } else if (Array.isArray(v)) {
      parts.push(`[${v.length}`);
      v.forEach((e, i) => walk(e, `${path}[${i}]`));
      parts.push(']');
    } else if (heldTensorsOf(v) !== null) {
      // A tensor holder (a PackedSequence): its static part, then its tensors as graph inputs.
      const held = heldTensorsOf(v)!;
      parts.push(`<${held.key}`);
      held.tensors.forEach((t, i) => walk(t, `${path}<${i}>`));
      parts.push('>');
    } else if (isPlainObject(v)) {
      parts.push('{');
      for (const k of Object.keys(v)) {
        parts.push(JSON.stringify(k));
        walk(v[k], `${path}.${k}`);
      }
      parts.push('}');
    } else {
      parts.push(staticKey(v));
    }
  };
  value.forEach((v, i) => walk(v, String(i)));
  return { tensors, key: parts.join(' ') };
}

/** A result tree with its tensors taken out: rebuild() puts new tensors back in their places. */
export interface ResultShape {
  tensors: Tensor[];
  rebuild(tensors: readonly Tensor[]): unknown;
}

export function flattenResult(value: unknown): ResultShape {
  const tensors: Tensor[] = [];
  const build = (v: unknown): ((ts: readonly Tensor[]) => unknown) => {
    if (v instanceof Tensor) {
      const at = tensors.length;
      tensors.push(v);
      return (ts) => ts[at];
    }
    if (Array.isArray(v)) {
      const parts = v.map(build);
      // A named tuple (topk's [values, indices], ...) comes back with its field names.
      const names = namedTupleFields(v);
      if (names !== null) return (ts) => namedTuple(names, parts.map((p) => p(ts)));
      return (ts) => parts.map((p) => p(ts));
    }
    const held = heldTensorsOf(v);
    if (held !== null) {
      const parts = held.tensors.map(build);
      return (ts) => held.rebuild(parts.map((p) => p(ts)));
    }
    if (isPlainObject(v)) {
      const parts = Object.entries(v).map(([k, e]) => [k, build(e)] as const);
      return (ts) => {
        const out: Record<string, unknown> = {};
        for (const [k, p] of parts) out[k] = p(ts);
        return out;
      };
    }
    return () => v;  // a static result: the value the trace returned, on every call
  };
  const rebuild = build(value);
  return { tensors, rebuild };
}
