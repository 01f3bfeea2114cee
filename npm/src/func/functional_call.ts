// sg.func.functionalCall(module, params, args): torch.func.functional_call. The module's
// parameters and buffers named in params are replaced by the given tensors for one call (on the
// module objects themselves, bypassing registration, so parameters(), stateDict() and the
// optimizer see nothing), then restored, also when the call throws.
import { describe } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';

/** What functionalCall needs of a module (nn.Module has it; func/ does not import nn/). */
interface ModuleLike {
  (...args: unknown[]): unknown;
  readonly _parameters: Map<string, unknown>;
  readonly _buffers: Map<string, unknown>;
  readonly _modules: Map<string, ModuleLike | null>;
  readonly _raw: object;
}

function isModule(m: unknown): m is ModuleLike {
  return typeof m === 'function' && (m as Partial<ModuleLike>)._parameters instanceof Map && (m as Partial<ModuleLike>)._modules instanceof Map;
}

/** The module holding dotted `name`, and the last part. */
function owner(root: ModuleLike, name: string): [ModuleLike, string] {
  const parts = name.split('.');
  let m = root;
  for (let i = 0; i < parts.length - 1; i++) {
    const c = m._modules.get(parts[i]!);
    if (c === undefined || c === null) throw new Error(`functionalCall: params has '${name}', but the module has no submodule '${parts.slice(0, i + 1).join('.')}'`);
    m = c;
  }
  const leaf = parts[parts.length - 1]!;
  if (!m._parameters.has(leaf) && !m._buffers.has(leaf)) {
    throw new Error(`functionalCall: params has '${name}', which is neither a parameter nor a buffer of the module`);
  }
  return [m, leaf];
}

/** Calls module(...args) with the named parameters and buffers replaced by params' tensors. */
export function functionalCall(module: unknown, params: Record<string, Tensor> | Map<string, Tensor>, args?: unknown): unknown {
  if (!isModule(module)) throw new Error(`functionalCall: expected module to be an sg.nn.Module, got ${describe(module)}`);
  const entries = params instanceof Map ? [...params.entries()] : params !== null && typeof params === 'object' ? Object.entries(params) : null;
  if (entries === null) throw new Error(`functionalCall: expected params to be an object (or Map) of name -> Tensor, got ${describe(params)}`);
  const list = args === undefined ? [] : Array.isArray(args) ? args : [args];
  const swaps: { raw: object; key: string; had: PropertyDescriptor | undefined }[] = [];
  try {
    for (const [name, t] of entries) {
      if (!(t instanceof Tensor)) throw new Error(`functionalCall: params['${name}'] must be a Tensor, got ${describe(t)}`);
      const [m, key] = owner(module, name);
      const raw = m._raw;
      swaps.push({ raw, key, had: Reflect.getOwnPropertyDescriptor(raw, key) });
      Reflect.defineProperty(raw, key, { value: t, writable: true, enumerable: true, configurable: true });
    }
    return module(...list);
  } finally {
    for (let i = swaps.length - 1; i >= 0; i--) {
      const { raw, key, had } = swaps[i]!;
      if (had === undefined) Reflect.deleteProperty(raw, key);
      else Reflect.defineProperty(raw, key, had);
    }
  }
}
