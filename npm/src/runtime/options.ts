// Checks the options objects of the public API: unknown names and wrong types are errors
// that name the function, the option, what was expected and what was got. Also the shared
// checks of positional scalars (dims, sizes, shapes).

/** How one option is checked; the checker returns an error phrase ("a boolean") or null. */
export type OptionSpec =
  | 'boolean'
  | 'string'
  | 'number' // finite number
  | 'numberOrInfinity' // any number but NaN
  | 'integer'
  | 'positiveInteger'
  | 'integers' // number or array of integers
  | readonly string[] // one of these strings
  | { check: (v: unknown) => boolean; expected: string };

export type Spec = Record<string, OptionSpec>;

/** A short, readable rendering of any value for error messages. */
export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'undefined';
  if (typeof v === 'string') return `'${v}'`;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (typeof v === 'function') return 'a function';
  if (Array.isArray(v)) return v.length <= 8 ? `[${v.map(describe).join(', ')}]` : `an array of length ${v.length}`;
  if (ArrayBuffer.isView(v)) return `a ${v.constructor.name}`;
  const name = (v as object).constructor?.name;
  if (name === 'Tensor') {
    const t = v as { isDisposed?: boolean; shape?: number[]; dtype?: string };
    return t.isDisposed ? 'a disposed Tensor' : `a Tensor of shape [${t.shape?.join(', ')}] (${t.dtype})`;
  }
  return name && name !== 'Object' ? `a ${name}` : 'an object';
}

export function isInteger(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v);
}

function check(spec: OptionSpec, v: unknown): string | null {
  if (Array.isArray(spec)) {
    return typeof v === 'string' && spec.includes(v) ? null : `one of ${spec.map((s) => `'${s}'`).join(', ')}`;
  }
  switch (spec) {
    case 'boolean':
      return typeof v === 'boolean' ? null : 'a boolean';
    case 'string':
      return typeof v === 'string' ? null : 'a string';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v) ? null : 'a finite number';
    case 'numberOrInfinity':
      return typeof v === 'number' && !Number.isNaN(v) ? null : 'a number';
    case 'integer':
      return isInteger(v) ? null : 'an integer';
    case 'positiveInteger':
      return isInteger(v) && v > 0 ? null : 'a positive integer';
    case 'integers':
      return isInteger(v) || (Array.isArray(v) && v.every(isInteger)) ? null : 'an integer or an array of integers';
    default: {
      const c = spec as { check: (v: unknown) => boolean; expected: string };
      return c.check(v) ? null : c.expected;
    }
  }
}

/**
 * Validates `opts` against `spec` for function `fn`. undefined options are skipped (absent);
 * null is accepted only where the spec's checker accepts it. Returns opts (or {}).
 */
export function checkOptions<T extends object>(fn: string, opts: unknown, spec: Spec): Partial<T> {
  if (opts === undefined || opts === null) return {};
  // A plain object (or one without a prototype): a Tensor or another class instance in the options'
  // place (PyTorch's positional weight, say) is named as what it is, not read for its fields.
  const proto = typeof opts === 'object' ? Object.getPrototypeOf(opts) : undefined;
  if (proto !== Object.prototype && proto !== null) {
    throw new Error(`${fn}: expected an options object, got ${describe(opts)}`);
  }
  const names = Object.keys(spec);
  for (const [k, v] of Object.entries(opts)) {
    const s = spec[k];
    if (s === undefined) {
      const expected = names.length ? names.join(', ') : 'none';
      throw new Error(`${fn}: unknown option '${k}' (expected one of: ${expected})`);
    }
    if (v === undefined) continue;
    const want = check(s, v);
    if (want !== null) throw new Error(`${fn}: option '${k}' must be ${want}, got ${describe(v)}`);
  }
  return opts as Partial<T>;
}

/** True for a plain options object (not an array, tensor or typed array). */
export function isOptionsObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype;
}

/** A positional integer argument (dims, sizes). */
export function intArg(fn: string, name: string, v: unknown): number {
  if (!isInteger(v)) throw new Error(`${fn}: expected '${name}' to be an integer, got ${describe(v)}`);
  return v;
}

/** A dim argument that may name one dim or several: undefined/null → all dims. */
export function dimsArg(fn: string, v: unknown): number[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (isInteger(v)) return [v];
  if (Array.isArray(v) && v.every(isInteger)) return v.slice();
  throw new Error(`${fn}: expected 'dim' to be an integer or an array of integers, got ${describe(v)}`);
}

export function boolArg(fn: string, name: string, v: unknown, fallback: boolean): boolean {
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'boolean') throw new Error(`${fn}: expected '${name}' to be a boolean, got ${describe(v)}`);
  return v;
}

export function numberArg(fn: string, name: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isFinite(v))
    throw new Error(`${fn}: expected '${name}' to be a finite number, got ${describe(v)}`);
  return v;
}

/**
 * A shape given as one array or as spread numbers: reshape([2, 3]) / reshape(2, 3).
 * Sizes must be integers; -1 is left for the op to resolve.
 */
export function shapeArgs(fn: string, args: readonly unknown[]): number[] {
  const list = args.length === 1 && (Array.isArray(args[0]) || ArrayBuffer.isView(args[0]))
    ? Array.from(args[0] as ArrayLike<unknown>)
    : args;
  for (const s of list) {
    if (!isInteger(s)) throw new Error(`${fn}: expected a shape of integers, got ${describe(list.slice())}`);
  }
  return list as number[];
}

/** NumPy broadcasting of shapes, or an Error naming fn and the shapes. */
export function broadcastShapesOf(fn: string, shapes: readonly (readonly number[])[]): number[] {
  const show = (s: readonly number[]) => `[${s.join(', ')}]`;
  const n = Math.max(0, ...shapes.map((s) => s.length));
  return Array.from({ length: n }, (_, i) => {
    let size = 1;
    for (const s of shapes) {
      const v = s[s.length - n + i] ?? 1;
      if (v !== 1 && size !== 1 && v !== size) throw new Error(`${fn}: shapes ${shapes.map(show).join(', ')} do not broadcast (${size} vs ${v} in dim ${i})`);
      if (v !== 1) size = v;
    }
    return size;
  });
}
