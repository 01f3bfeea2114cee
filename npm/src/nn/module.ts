// sg.nn.Parameter and the sg.nn.Module base, with PyTorch's registration rules: assigning a
// Parameter or a Module to an attribute (`this.fc = new Linear(4, 2)`) registers it under
// that name, in assignment order, as nn.Module.__setattr__ does; registerParameter,
// registerBuffer and addModule do it explicitly. Parameter names, stateDict keys and their
// order are therefore PyTorch's ('fc.weight', Sequential's '0.weight', ...), so weights move
// between the two.
//
// How: a Module object is a Proxy whose only traps are defineProperty (every assignment and
// class-field definition passes through it) and deleteProperty. Reads are untrapped, so
// `this.fc` is a plain property read. The proxy's target is a function, which makes modules
// callable as in PyTorch: `model(x)` is `model.forward(x)`.
//
// Ownership: a module owns the tensors registered in it. Parameters and buffers are exempt
// from sg.tidy (keep()), and module.dispose() frees them all.
import * as H from '../runtime/handles.js';
import { isFloatingDType, toTarget, type DType, type ToTarget } from '../runtime/dtypes.js';
import { keep } from '../runtime/memory.js';
import { checkOptions, describe } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { copyTensorInto, writeInto } from './tensor_data.js';
import { setToNoneArg, zeroGrads, type ZeroGradArgs } from '../autograd/zero_grad.js';
import { placeOn } from '../runtime/webgpu_device.js';

/**
 * A Tensor that is a module parameter: a leaf with requiresGrad true (by default), sharing
 * the data of the tensor it is made from (as torch.nn.Parameter). A strided view is copied
 * to a contiguous tensor first (in-place updates need one flat block).
 */
// The dtype Parameter.empty makes (every layer's parameters come from it): float32, except while
// withParameterDType runs a construction, as transformers' from_pretrained(torch_dtype=) sets torch's
// default dtype while it builds the model, so a bfloat16 checkpoint never has a float32 model beside it.
let parameterDType: DType = 'float32';

/** @internal Runs make() with layers' parameters made in `dtype` (uninitialized values when init is skipped), restored afterwards, also when make throws. */
export function withParameterDType<T>(dtype: DType, make: () => T): T {
  const before = parameterDType;
  parameterDType = dtype;
  try {
    return make();
  } finally {
    parameterDType = before;
  }
}

export class Parameter extends Tensor {
  constructor(data: Tensor, requiresGrad = true) {
    if (!(data instanceof Tensor)) throw new Error(`Parameter: expected a Tensor, got ${describe(data)}`);
    if (typeof requiresGrad !== 'boolean') throw new Error(`Parameter: expected 'requiresGrad' to be a boolean, got ${describe(requiresGrad)}`);
    const src = data.handle;
    let h;
    if (H.isContiguousHandle(src)) h = H.detachHandle(src);
    else {
      const c = H.callOp1('contiguous', [src]);
      try {
        h = H.detachHandle(c);
      } finally {
        H.releaseHandle(c);
      }
    }
    super(h);
    keep(this);
    if (requiresGrad) {
      try {
        H.setRequiresGradHandle(this.handle, true);
      } catch (e) {
        this.dispose();
        throw new Error(`Parameter: a ${data.dtype} tensor cannot require gradients (use a float32 tensor, or requiresGrad false)`);
      }
    }
  }

  /** @internal A new float32 parameter of `shape` on the default device, zero-filled (the init functions fill it). */
  static empty(shape: readonly number[]): Parameter {
    const t = new Tensor(placeOn(H.emptyHandle(shape, parameterDType), undefined), parameterDType);
    try {
      return new Parameter(t);
    } finally {
      t.dispose();
    }
  }
}

/** What loadStateDict reports (PyTorch's _IncompatibleKeys). */
export interface LoadResult {
  missingKeys: string[];
  unexpectedKeys: string[];
}

export interface StateDictOptions {
  /** Prepended to every key. */
  prefix?: string;
  /** Return the live parameters and buffers instead of detached tensors sharing their data. */
  keepVars?: boolean;
}

export type StateDict = Record<string, Tensor>;

// The registries live on the proxy's target as non-enumerable, non-writable properties, so
// Object.keys(module) shows only the user's attributes and no assignment can replace them.
interface Internals {
  readonly _parameters: Map<string, Parameter | null>;
  readonly _buffers: Map<string, Tensor | null>;
  readonly _modules: Map<string, Module | null>;
  readonly _nonPersistent: Set<string>;
  /** The proxy's target: registration methods define properties on it without the trap. */
  readonly _raw: object;
}

const INTERNAL_NAMES = new Set(['_parameters', '_buffers', '_modules', '_nonPersistent', '_raw', 'training']);

function defineRaw(raw: object, name: string, value: unknown): void {
  Reflect.defineProperty(raw, name, { value, writable: true, enumerable: true, configurable: true });
}

/** nn.Module.__setattr__: keeps the registries in step with attribute assignment. */
function onAssign(target: Internals, name: string, value: unknown): void {
  if (INTERNAL_NAMES.has(name)) return;
  if (value instanceof Parameter || value instanceof Module) {
    if (name.includes('.') || name === '') {
      throw new Error(`${value instanceof Parameter ? 'parameter' : 'module'} name can't contain "." or be empty, got '${name}'`);
    }
    target._buffers.delete(name);
    target._nonPersistent.delete(name);
    if (value instanceof Parameter) {
      target._modules.delete(name);
      target._parameters.set(name, value);
    } else {
      target._parameters.delete(name);
      target._modules.set(name, value);
    }
    return;
  }
  const cleared = value === null || value === undefined;
  if (target._parameters.has(name)) {
    if (!cleared) throw new Error(`cannot assign ${describe(value)} as parameter '${name}' (a sg.nn.Parameter or null expected)`);
    target._parameters.set(name, null);
  } else if (target._modules.has(name)) {
    if (!cleared) throw new Error(`cannot assign ${describe(value)} as child module '${name}' (a sg.nn.Module or null expected)`);
    target._modules.set(name, null);
  } else if (target._buffers.has(name)) {
    if (!cleared && !(value instanceof Tensor)) throw new Error(`cannot assign ${describe(value)} as buffer '${name}' (a Tensor or null expected)`);
    target._buffers.set(name, cleared ? null : keep(value as Tensor));
  }
}

const handler: ProxyHandler<Internals & object> = {
  defineProperty(target, key, desc) {
    if (typeof key === 'string' && 'value' in desc) onAssign(target, key, desc.value);
    return Reflect.defineProperty(target, key, desc);
  },
  deleteProperty(target, key) {
    if (typeof key === 'string' && !INTERNAL_NAMES.has(key)) {
      target._parameters.delete(key);
      target._buffers.delete(key);
      target._modules.delete(key);
      target._nonPersistent.delete(key);
    }
    return Reflect.deleteProperty(target, key);
  },
};

/** A fresh module object of prototype `proto`: a callable proxy with empty registries. */
function createModuleObject(proto: object): Module {
  let self: Module | undefined;
  const target = (...args: unknown[]): unknown => self!.forward(...args);
  // A function's own length/name would shadow getters of the prototype (ModuleList.length).
  delete (target as { length?: number }).length;
  delete (target as { name?: string }).name;
  Object.setPrototypeOf(target, proto);
  Object.defineProperties(target, {
    _parameters: { value: new Map() },
    _buffers: { value: new Map() },
    _modules: { value: new Map() },
    _nonPersistent: { value: new Set() },
    _raw: { value: target },
    training: { value: true, writable: true, configurable: true },
  });
  self = new Proxy(target as unknown as Internals & object, handler) as unknown as Module;
  return self;
}

function checkName(fn: string, kind: string, owner: Module, name: unknown, map: Map<string, unknown>): string {
  if (typeof name !== 'string') throw new Error(`${fn}: ${kind} name should be a string, got ${describe(name)}`);
  if (name.includes('.')) throw new Error(`${fn}: ${kind} name can't contain ".", got '${name}'`);
  if (name === '') throw new Error(`${fn}: ${kind} name can't be empty`);
  if ((name in owner || INTERNAL_NAMES.has(name)) && !map.has(name)) throw new Error(`${fn}: attribute '${name}' already exists`);
  return name;
}

function joinName(prefix: string, name: string): string {
  return prefix === '' ? name : `${prefix}.${name}`;
}

/** PyTorch's _addindent: indents every line but the first. */
function indent(s: string, n: number): string {
  const pad = ' '.repeat(n);
  return s.split('\n').join(`\n${pad}`);
}

/** Every name of a state dict with its live tensor, in PyTorch's order (module by module, parameters then buffers). */
function stateEntries(m: Module, prefix: string, out: [string, Tensor][]): [string, Tensor][] {
  for (const [k, p] of m._parameters) if (p) out.push([prefix + k, p]);
  for (const [k, b] of m._buffers) if (b && !m._nonPersistent.has(k)) out.push([prefix + k, b]);
  for (const [k, c] of m._modules) if (c) stateEntries(c, `${prefix}${k}.`, out);
  return out;
}

function shapeStr(s: readonly number[]): string {
  return `[${s.join(', ')}]`;
}

/** A tensor copy outside any graph: a clone, detached (shares nothing with t). */
function cloneDetached(t: Tensor): Tensor {
  const c = H.callOp1('clone', [t.handle]);
  try {
    return new Tensor(H.detachHandle(c));
  } finally {
    H.releaseHandle(c);
  }
}

/** copy.deepcopy(module): parameters and buffers are cloned, sharing within the tree is kept. */
function deepCopyModule(m: Module, memo: Map<unknown, unknown>): Module {
  const seen = memo.get(m);
  if (seen) return seen as Module;
  const copy = createModuleObject(Object.getPrototypeOf(m) as object);
  memo.set(m, copy);
  const raw = copy._raw;
  const tensorCopy = (t: Tensor, make: (t: Tensor) => Tensor): Tensor => {
    if (!memo.has(t)) memo.set(t, make(t));
    return memo.get(t) as Tensor;
  };
  for (const [k, p] of m._parameters) {
    const v = p === null ? null : (tensorCopy(p, (t) => {
      const c = cloneDetached(t);
      try {
        return new Parameter(c, t.requiresGrad);
      } finally {
        c.dispose();
      }
    }) as Parameter);
    copy._parameters.set(k, v);
    defineRaw(raw, k, v);
  }
  for (const [k, b] of m._buffers) {
    const v = b === null ? null : keep(tensorCopy(b, cloneDetached));
    copy._buffers.set(k, v);
    if (m._nonPersistent.has(k)) copy._nonPersistent.add(k);
    defineRaw(raw, k, v);
  }
  for (const [k, c] of m._modules) {
    const v = c === null ? null : deepCopyModule(c, memo);
    copy._modules.set(k, v);
    defineRaw(raw, k, v);
  }
  // Plain attributes (configuration): arrays and plain objects are copied one level deep.
  for (const k of Object.keys(m)) {
    if (m._parameters.has(k) || m._buffers.has(k) || m._modules.has(k)) continue;
    const v = (m as unknown as Record<string, unknown>)[k];
    const plain = Array.isArray(v) ? v.slice() : v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype ? { ...v } : v;
    defineRaw(raw, k, plain);
  }
  copy.training = m.training;
  return copy;
}

/** nn.Module._named_members: members of every module (or only m), each object once. */
function namedMembers<T extends Tensor>(m: Module, pick: (m: Module) => Iterable<[string, T | null]>, prefix: string, recurse: boolean): [string, T][] {
  const out: [string, T][] = [];
  const seen = new Set<T>();
  const mods: [string, Module][] = recurse ? m.namedModules(prefix) : [[prefix, m]];
  for (const [mp, sub] of mods) {
    for (const [k, v] of pick(sub)) {
      if (v === null || seen.has(v)) continue;
      seen.add(v);
      out.push([joinName(mp, k), v]);
    }
  }
  return out;
}

// Modules are callable: module(x) runs module.forward(x).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface Module {
  (...args: any[]): any;
}

/**
 * Base class of every layer and of user models (torch.nn.Module). Subclasses set attributes
 * in the constructor after super() and define forward().
 */
export class Module implements Internals {
  /** Train mode (true) or eval mode (false); set by train() / eval(). */
  declare training: boolean;
  /** @internal */ declare readonly _parameters: Map<string, Parameter | null>;
  /** @internal */ declare readonly _buffers: Map<string, Tensor | null>;
  /** @internal */ declare readonly _modules: Map<string, Module | null>;
  /** @internal */ declare readonly _nonPersistent: Set<string>;
  /** @internal */ declare readonly _raw: object;

  constructor() {
    // The object returned here becomes `this` of every subclass constructor.
    // eslint-disable-next-line no-constructor-return
    return createModuleObject(new.target.prototype) as this;
  }

  /** The computation; every subclass defines it. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  forward(...args: any[]): any {
    throw new Error(`${this.constructor.name}: forward() is not implemented (subclasses of sg.nn.Module define it)`);
  }

  /** Same as forward(...args) (and as calling the module). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  call(...args: any[]): any {
    return this.forward(...args);
  }

  // ---- registration ----

  /** Registers a parameter (or a null placeholder) under `name`. */
  registerParameter(name: string, param: Parameter | null): void {
    checkName('registerParameter', 'parameter', this, name, this._parameters);
    if (param !== null && !(param instanceof Parameter)) {
      throw new Error(
        `registerParameter: cannot register ${describe(param)} as parameter '${name}' (a sg.nn.Parameter or null expected; wrap a tensor with new sg.nn.Parameter(t))`,
      );
    }
    this._parameters.set(name, param);
    defineRaw(this._raw, name, param);
  }

  /**
   * Registers a buffer: state that is not a parameter (BatchNorm's running_mean). Persistent
   * buffers (the default) are part of stateDict(). The module takes ownership of the tensor.
   */
  registerBuffer(name: string, tensor: Tensor | null, options?: { persistent?: boolean }): void {
    checkName('registerBuffer', 'buffer', this, name, this._buffers);
    const o = checkOptions<{ persistent: boolean }>('registerBuffer', options, { persistent: 'boolean' });
    if (tensor !== null && !(tensor instanceof Tensor)) {
      throw new Error(`registerBuffer: cannot register ${describe(tensor)} as buffer '${name}' (a Tensor or null expected)`);
    }
    this._buffers.set(name, tensor === null ? null : keep(tensor));
    if (o.persistent === false) this._nonPersistent.add(name);
    else this._nonPersistent.delete(name);
    defineRaw(this._raw, name, tensor);
  }

  /** Registers a child module (or a null placeholder) under `name`. */
  addModule(name: string, module: Module | null): void {
    checkName('addModule', 'module', this, name, this._modules);
    if (module !== null && !(module instanceof Module)) {
      throw new Error(`addModule: ${describe(module)} is not a sg.nn.Module`);
    }
    this._modules.set(name, module);
    defineRaw(this._raw, name, module);
  }

  /** Alias of addModule. */
  registerModule(name: string, module: Module | null): void {
    this.addModule(name, module);
  }

  /** The submodule at a dotted path ('encoder.layers.0'); '' is this module. */
  getSubmodule(target: string): Module {
    if (target === '') return this;
    let m: Module = this;
    for (const part of target.split('.')) {
      const next = m._modules.get(part);
      if (!next) throw new Error(`getSubmodule: ${m.constructor.name} has no submodule '${part}' (in '${target}')`);
      m = next;
    }
    return m;
  }

  // ---- traversal (PyTorch's order; duplicates by identity are left out) ----

  /** [name, module] for this module and every descendant, pre-order; this one is ''. */
  namedModules(prefix = '', memo: Set<Module> = new Set()): [string, Module][] {
    const out: [string, Module][] = [];
    if (memo.has(this)) return out;
    memo.add(this);
    out.push([prefix, this]);
    for (const [k, c] of this._modules) if (c) out.push(...c.namedModules(joinName(prefix, k), memo));
    return out;
  }

  modules(): Module[] {
    return this.namedModules().map(([, m]) => m);
  }

  namedChildren(): [string, Module][] {
    const seen = new Set<Module>();
    const out: [string, Module][] = [];
    for (const [k, c] of this._modules) {
      if (c && !seen.has(c)) {
        seen.add(c);
        out.push([k, c]);
      }
    }
    return out;
  }

  children(): Module[] {
    return this.namedChildren().map(([, m]) => m);
  }

  /** [name, parameter] pairs with PyTorch's dotted names ('fc.weight'). */
  namedParameters(prefix = '', recurse = true): [string, Parameter][] {
    return namedMembers(this, (m) => m._parameters, prefix, recurse);
  }

  /** Every parameter (recursive, each once). */
  parameters(recurse = true): Parameter[] {
    return this.namedParameters('', recurse).map(([, p]) => p);
  }

  namedBuffers(prefix = '', recurse = true): [string, Tensor][] {
    return namedMembers(this, (m) => m._buffers, prefix, recurse);
  }

  buffers(recurse = true): Tensor[] {
    return this.namedBuffers('', recurse).map(([, b]) => b);
  }

  // ---- modes and gradients ----

  /** Sets train mode (recursively); returns this. */
  train(mode = true): this {
    if (typeof mode !== 'boolean') throw new Error(`train: expected 'mode' to be a boolean, got ${describe(mode)}`);
    this.training = mode;
    for (const c of this.children()) c.train(mode);
    return this;
  }

  /** Sets eval mode (recursively): train(false). */
  eval(): this {
    return this.train(false);
  }

  /**
   * PyTorch's zero_grad(set_to_none): every parameter's grad to null (the default, as PyTorch ≥ 2.0),
   * or with `false` / `{ setToNone: false }` its existing grads to zeros in place.
   */
  zeroGrad(...args: ZeroGradArgs): void {
    const fn = `${this.constructor.name}.zeroGrad`;
    zeroGrads(fn, this.parameters(), setToNoneArg(fn, args));
  }

  /** Sets requiresGrad on every parameter; returns this. */
  requiresGrad_(requiresGrad = true): this {
    for (const p of this.parameters()) p.requiresGrad = requiresGrad;
    return this;
  }

  /** Calls fn on every descendant and then on this module (nn.Module.apply); returns this. */
  apply(fn: (m: Module) => void): this {
    if (typeof fn !== 'function') throw new Error(`apply: expected a function, got ${describe(fn)}`);
    for (const c of this.children()) c.apply(fn);
    fn(this);
    return this;
  }

  // ---- state ----

  /**
   * { name: tensor } in registration order: each module's parameters, then its persistent
   * buffers, then its children's. The values are detached tensors sharing the module's data
   * (the caller owns them: dispose them or use sg.tidy), or the live ones with keepVars.
   */
  stateDict(options?: StateDictOptions): StateDict {
    const o = checkOptions<StateDictOptions>('stateDict', options, { prefix: 'string', keepVars: 'boolean' });
    const out: StateDict = {};
    for (const [k, t] of stateEntries(this, o.prefix ?? '', [])) out[k] = o.keepVars ? t : t.detach();
    return out;
  }

  /**
   * Copies the values of `stateDict` (a plain object or a Map of name → Tensor) into this
   * module's parameters and buffers, in place. Shape mismatches are always errors; missing
   * and unexpected keys are errors when strict (the default). Everything is checked before
   * anything is copied, so a failed load leaves the module unchanged.
   */
  loadStateDict(stateDict: StateDict | Map<string, Tensor>, options?: { strict?: boolean }): LoadResult {
    const o = checkOptions<{ strict: boolean }>('loadStateDict', options, { strict: 'boolean' });
    const strict = o.strict ?? true;
    let given: Map<string, unknown>;
    if (stateDict instanceof Map) given = new Map(stateDict);
    else if (stateDict !== null && typeof stateDict === 'object' && !Array.isArray(stateDict) && !(stateDict instanceof Tensor)) {
      given = new Map(Object.entries(stateDict));
    } else {
      throw new Error(`loadStateDict: expected a state dict (an object or a Map of name → Tensor), got ${describe(stateDict)}`);
    }
    const missing: string[] = [];
    const errors: string[] = [];
    const copies: [Tensor, Tensor][] = [];
    const expected = new Set<string>();
    for (const [name, dst] of stateEntries(this, '', [])) {
      expected.add(name);
      if (!given.has(name)) {
        missing.push(name);
        continue;
      }
      const src = given.get(name);
      if (!(src instanceof Tensor) || src.isDisposed) errors.push(`expected a Tensor for '${name}', got ${describe(src)}.`);
      else if (shapeStr(src.shape) !== shapeStr(dst.shape)) {
        errors.push(
          `size mismatch for ${name}: copying a param with shape ${shapeStr(src.shape)} from checkpoint, the shape in current model is ${shapeStr(dst.shape)}.`,
        );
      } else if (!H.isContiguousHandle(dst.handle)) errors.push(`'${name}' is a strided view and cannot be written in place.`);
      else copies.push([dst, src]);
    }
    const unexpected = [...given.keys()].filter((k) => !expected.has(k));
    const problems: string[] = [];
    const quoted = (ks: string[]) => ks.map((k) => `"${k}"`).join(', ');
    if (strict && unexpected.length) problems.push(`Unexpected key(s) in state_dict: ${quoted(unexpected)}.`);
    if (strict && missing.length) problems.push(`Missing key(s) in state_dict: ${quoted(missing)}.`);
    problems.push(...errors);
    if (problems.length) {
      throw new Error(`loadStateDict: Error(s) in loading state_dict for ${this.constructor.name}:\n\t${problems.join('\n\t')}`);
    }
    // Read every source before writing any destination: entries may alias each other.
    if (copies.some(([dst, src]) => dst.device !== 'cpu' || src.device !== 'cpu' || dst.dtype !== src.dtype)) {
      // On a device, or casting into the module's dtypes (a bfloat16 file into float32
      // parameters, as PyTorch's copy_ does): clones first (sources may alias destinations), then copies.
      const clones = copies.map(([, src]) => src.clone());
      copies.forEach(([dst], i) => copyTensorInto(dst, clones[i]!));
      for (const c of clones) c.dispose();
    } else {
      const data = copies.map(([, src]) => src.dataSync());
      copies.forEach(([dst], i) => writeInto('loadStateDict', dst, data[i]!));
    }
    return { missingKeys: missing, unexpectedKeys: unexpected };
  }

  /**
   * Moves every parameter and buffer (and any .grad) to `device` ('cpu' | 'webgpu') in place:
   * the Tensor objects stay the same, so optimizers made before keep working. Returns this.
   */
  /**
   * Moves (`'cpu'`, `'webgpu'`) or casts (a dtype), or both (`{ device, dtype }`), in place, as
   * PyTorch's module.to: a dtype applies to the floating parameters and buffers only (integer
   * buffers such as BatchNorm's numBatchesTracked keep theirs).
   */
  to(target: ToTarget): this {
    const { device, dtype } = toTarget('to', target);
    if (dtype !== undefined && !isFloatingDType(dtype)) {
      throw new Error(`to: nn.Module.to only accepts floating point dtypes (as PyTorch), got ${dtype}`);
    }
    const tensors = [...this.parameters(), ...this.buffers()];
    // Casting on the cpu before moving, so a dtype the device lacks is refused before any move.
    const cast = (): void => {
      if (dtype !== undefined) for (const t of tensors) if (isFloatingDType(t.dtype)) t._castTo(dtype);
    };
    if (device === 'cpu') for (const t of tensors) t._moveTo(device);
    cast();
    if (device === 'webgpu') for (const t of tensors) t._moveTo(device);
    return this;
  }

  float(): this {
    return this.to('float32');
  }

  double(): this {
    return this.to('float64');
  }

  half(): this {
    return this.to('float16');
  }

  bfloat16(): this {
    return this.to('bfloat16');
  }

  /** copy.deepcopy(module): a new module of the same class with cloned parameters and buffers. */
  deepCopy(): this {
    return deepCopyModule(this, new Map()) as this;
  }

  /** Frees every parameter and buffer of this module and its descendants. */
  dispose(): void {
    for (const t of [...this.parameters(), ...this.buffers()]) t.dispose();
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  // ---- printing ----

  /** The part inside the parentheses of toString() (nn.Module.extra_repr). */
  extraRepr(): string {
    return '';
  }

  toString(): string {
    const lines: string[] = [];
    const extra = this.extraRepr();
    if (extra) lines.push(...extra.split('\n'));
    for (const [k, c] of this._modules) lines.push(`(${k}): ${indent(c ? c.toString() : 'null', 2)}`);
    const name = this.constructor.name;
    if (lines.length === 0) return `${name}()`;
    if (this._modules.size === 0 && lines.length === 1) return `${name}(${lines[0]})`;
    return `${name}(\n  ${lines.join('\n  ')}\n)`;
  }
}

// console.log(module) in Node prints the PyTorch-style summary.
Object.defineProperty(Module.prototype, Symbol.for('nodejs.util.inspect.custom'), {
  value: function (this: Module) {
    return this.toString();
  },
});
