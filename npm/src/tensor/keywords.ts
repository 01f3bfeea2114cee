// PyTorch's keyword arguments for the parameters that are positional in JavaScript: wherever
// PyTorch accepts `dim=` (and keepdim, k, largest, numSamples, ...) as a keyword, the trailing
// options object accepts it too (API.md "Indexing, assignment and keyword arguments"):
// `F.softmax(x, { dim: -1 })`, `sg.cat(list, { dim: 1 })`, `x.topk(5, { dim: -1, largest: false })`.
// `keywords` wraps an op's positional implementation once: it moves the named entries of the
// options object into their positional slots (an Error when one was given both ways, or when a
// name is unknown) and hands the rest, the op's own options, on as its last argument. The op
// tables (ops.ts, sorting.ts, ...) wrap their entries, so the function and the method forms
// (installMethods) share it.
import { describe, isOptionsObject } from '../runtime/options.js';

/** The prefixes of a tuple: [], [A], [A, B], ... */
export type Prefixes<P extends readonly unknown[]> = P extends readonly [...infer Init, unknown] ? P | Prefixes<Init> : [];

/**
 * The argument lists of an op whose positional parameters (after the first) are `Req` (required)
 * then `Opt` (optional), and whose options object `O` may name them too: the positionals alone,
 * or any prefix of them followed by the options object.
 */
export type KwArgs<Req extends unknown[], Opt extends unknown[], O> = [...Req, ...Partial<Opt>] | [...Prefixes<[...Req, ...Opt]>, O];

/** How `keywords` maps an options object onto an op's parameters. */
export interface KeywordSpec {
  /** The parameters after the first, in PyTorch's order, by their camelCase keyword names. */
  positional: readonly string[];
  /**
   * The names that exist only in the options object (descending, interpolation, ...): the op
   * receives them as one object after its positionals. Absent: the op takes no options.
   */
  options?: readonly string[];
  /**
   * The last positional is a rest parameter (flip(x, ...dims), permute, reshape): given by
   * keyword, its value is passed as the single array argument. Not combined with `options`.
   */
  rest?: boolean;
}

/** Any function whose first parameter is the input (or the tensor list of cat/stack). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Impl = (first: any, ...rest: any[]) => any;

/**
 * The arguments `args` (those after the first) with a trailing options object moved into the
 * positional slots it names (see {@link keywords}); `args` itself when there is none.
 */
export function keywordArgs(fn: string, spec: KeywordSpec | readonly string[], args: readonly unknown[]): unknown[] {
  return merge(fn, specOf(spec), args);
}

function specOf(spec: KeywordSpec | readonly string[]): KeywordSpec {
  return Array.isArray(spec) ? { positional: spec as readonly string[] } : (spec as KeywordSpec);
}

function merge(fn: string, s: KeywordSpec, args: readonly unknown[]): unknown[] {
  const names = s.positional;
  const n = names.length;
  // The options object ends the positionals: it may come right after any of them (rest: after
  // any number of spread values).
  const limit = s.rest ? args.length : Math.min(args.length, n + 1);
  let at = -1;
  for (let i = 0; i < limit; i++) {
    if (isOptionsObject(args[i])) {
      at = i;
      break;
    }
  }
  if (at < 0) return args as unknown[];
  const opts = args[at] as Record<string, unknown>;
  for (let i = at + 1; i < args.length; i++) {
    if (args[i] !== undefined) throw new Error(`${fn}: unexpected argument ${describe(args[i])} after the options object`);
  }
  let positional: unknown[];
  let restGiven = false;
  if (s.rest) {
    // The first n − 1 positionals, then the spread values (as given) of the rest parameter.
    positional = args.slice(0, Math.min(at, n - 1));
    const spread = args.slice(n - 1, at);
    restGiven = spread.length > 0;
    while (positional.length < n - 1) positional.push(undefined);
    positional.push(spread.length === 1 ? spread[0] : restGiven ? spread : undefined);
  } else {
    positional = args.slice(0, at);
    while (positional.length < n) positional.push(undefined);
  }
  const optionNames = s.options;
  let rest: Record<string, unknown> | undefined;
  for (const key of Object.keys(opts)) {
    const value = opts[key];
    const i = names.indexOf(key);
    if (i >= 0) {
      const given = s.rest && i === n - 1 ? restGiven : i < at && args[i] !== undefined;
      if (given) throw new Error(`${fn}: got multiple values for argument '${key}' (positionally and in the options object)`);
      if (value !== undefined) positional[i] = value;
    } else if (optionNames !== undefined && optionNames.includes(key)) {
      (rest ??= {})[key] = value;
    } else {
      const known = [...names, ...(optionNames ?? [])];
      throw new Error(`${fn}: unknown option '${key}' (expected one of: ${known.join(', ') || 'none'})`);
    }
  }
  if (s.rest) {
    // The rest parameter's values as one array argument (shapeArgs takes either form).
    const last = positional.pop();
    if (last !== undefined) positional.push(last);
    return positional;
  }
  if (optionNames !== undefined) positional.push(rest);
  return positional;
}

/**
 * Wraps `impl(first, ...positional, options?)` so that a trailing options object may give any
 * of `spec.positional` by name. Without an options object the call goes straight through, unless
 * it has more arguments than the op takes: PyTorch's TypeError for too many arguments, here an
 * Error naming the op (`x.argmin(0, true, 5)` would otherwise drop the 5 unread).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function keywords<F extends Impl>(fn: string, spec: KeywordSpec | readonly string[], impl: F): (first: Parameters<F>[0], ...args: any[]) => ReturnType<F> {
  const s = specOf(spec);
  // The positionals, then the options object where the op has one; a rest parameter takes any number.
  const most = s.rest ? Infinity : s.positional.length + (s.options ? 1 : 0);
  const wrapped = function (first: unknown, ...args: unknown[]): ReturnType<F> {
    const merged = merge(fn, s, args);
    if (merged.length > most) tooMany(fn, s, merged, most);
    return impl(first, ...merged);
  };
  Object.defineProperty(wrapped, 'name', { value: impl.name || fn.split('.').pop() });
  return wrapped;
}

/**
 * The Error for arguments past the op's last parameter (`merged` holds no options object there:
 * merge reads one given within the positionals as the options). Trailing undefineds are as if
 * left out, as JavaScript's own defaults treat them.
 */
function tooMany(fn: string, s: KeywordSpec, merged: readonly unknown[], most: number): void {
  let got = merged.length;
  while (got > 0 && merged[got - 1] === undefined) got--;
  if (got <= most) return;
  const names = s.positional.join(', ');
  const takes = s.options ? `${names}${names ? ', then ' : ''}an options object` : names;
  throw new Error(`${fn}: expected at most ${most} argument${most === 1 ? '' : 's'} after the input (${takes}), got ${got}`);
}

/**
 * A copy of an op table whose named entries take keyword arguments (`keywords` around each):
 * `withKeywords(table, { scatter: ['dim', 'index', 'src'], ... })`. The table's own functions
 * stay as they are; the entries not named pass through.
 */
export function withKeywords<T extends object>(table: T, specs: { readonly [K in keyof T]?: KeywordSpec | readonly string[] }): T {
  const out: Record<string, unknown> = { ...(table as Record<string, unknown>) };
  for (const [name, spec] of Object.entries(specs) as [string, KeywordSpec | readonly string[]][]) {
    const f = out[name];
    if (typeof f !== 'function') throw new Error(`withKeywords: no op '${name}' in the table`);
    out[name] = keywords(name, spec, f as Impl);
  }
  return out as T;
}
