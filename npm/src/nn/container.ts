// Containers (torch.nn.Sequential, ModuleList, ModuleDict). Children are registered under
// PyTorch's names ('0', '1', ... or the dict keys), so parameter names match
// ('0.weight'), and list children are also properties: seq[0], list[1].
import { F } from './functional.js';
import { tidy } from '../runtime/memory.js';
import { describe, intArg } from '../runtime/options.js';
import { GELU, ReLU } from './activation_modules.js';
import { Conv2d } from './conv.js';
import { MaxPool2d } from './pool.js';
import { Linear } from './linear.js';
import { Tensor } from '../tensor/tensor.js';
import { Module, Parameter } from './module.js';

const own = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key);

/**
 * The activation that child `act` applies after Linear `lin`, when the two can run as one
 * F.linear with that activation fused into the product's write-back: exactly nn.Linear then
 * exactly nn.ReLU or nn.GELU, neither subclassed nor given a forward of its own, so the
 * result and every gradient are what the two children compute one after the other.
 */
function fusedActivation(lin: Module, act: Module | undefined): 'relu' | 'gelu' | 'gelu_tanh' | null {
  if (!act || Object.getPrototypeOf(lin) !== Linear.prototype || own(lin, 'forward') || own(act, 'forward')) return null;
  if (Object.getPrototypeOf(act) === ReLU.prototype) return 'relu';
  if (Object.getPrototypeOf(act) === GELU.prototype) return (act as GELU).approximate === 'tanh' ? 'gelu_tanh' : 'gelu';
  return null;
}

/** Whether children `conv`, `act` are exactly nn.Conv2d then nn.ReLU (as fusedActivation's rule). */
function fusedConvRelu(conv: Module, act: Module | undefined): boolean {
  return !!act && Object.getPrototypeOf(conv) === Conv2d.prototype && Object.getPrototypeOf(act) === ReLU.prototype &&
    !own(conv, 'forward') && !own(conv, 'forwardRelu') && !own(act, 'forward');
}

/** Whether a fused Conv2d + ReLU is followed by exactly nn.MaxPool2d and the three run as one op. */
function fusedConvReluPool(conv: Module, pool: Module | undefined): pool is MaxPool2d {
  return !!pool && Object.getPrototypeOf(pool) === MaxPool2d.prototype && !own(pool, 'forward') &&
    (conv as Conv2d).paddingMode === 'zeros' && !own(conv, 'forwardReluMaxPool');
}

function moduleArg(fn: string, m: unknown, what: string): Module {
  if (!(m instanceof Module)) throw new Error(`${fn}: ${what} is not a sg.nn.Module, got ${describe(m)}`);
  return m;
}

/** Entries of a plain object or Map of name → Module. */
function namedEntries(fn: string, v: unknown): [string, Module][] {
  const entries = v instanceof Map ? [...v.entries()] : Array.isArray(v) ? v : Object.entries(v as object);
  return entries.map((e: unknown) => {
    if (!Array.isArray(e) || e.length !== 2 || typeof e[0] !== 'string') throw new Error(`${fn}: expected [name, module] pairs, got ${describe(e)}`);
    return [e[0], moduleArg(fn, e[1], `'${e[0]}'`)];
  });
}

function isPlainOrMap(v: unknown): boolean {
  return v instanceof Map || (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype);
}

/** An index in [-n, n) made non-negative. */
function indexArg(fn: string, i: unknown, n: number): number {
  const k = intArg(fn, 'index', i);
  const j = k < 0 ? k + n : k;
  if (j < 0 || j >= n) throw new Error(`${fn}: index ${k} is out of range for ${n} modules`);
  return j;
}

/** Children kept in order under the names '0', '1', ... */
abstract class IndexedModules extends Module {
  // ModuleList/Sequential children read as list[0], list[1], ...
  [index: number]: Module;

  get length(): number {
    return this._modules.size;
  }

  /** The child at index i (negative counts from the end). */
  get(i: number): Module {
    return this._modules.get(String(indexArg(`${this.constructor.name}.get`, i, this.length)))!;
  }

  /** Replaces the child at index i. */
  set(i: number, module: Module): void {
    this.addModule(String(indexArg(`${this.constructor.name}.set`, i, this.length)), moduleArg(`${this.constructor.name}.set`, module, 'the value'));
  }

  append(module: Module): this {
    this.addModule(String(this.length), moduleArg('append', module, 'the value'));
    return this;
  }

  extend(modules: Iterable<Module>): this {
    for (const m of modules) this.append(m);
    return this;
  }

  /** Inserts before index (0..length; negative counts from the end). */
  insert(index: number, module: Module): void {
    const n = this.length;
    let k = intArg('insert', 'index', index);
    if (k < 0) k += n;
    k = Math.max(0, Math.min(n, k));
    const list = [...this._modules.values()] as Module[];
    list.splice(k, 0, moduleArg('insert', module, 'the value'));
    this.rebuild(list);
  }

  /** Removes and returns the child at index (default: the last). */
  pop(index = -1): Module {
    const list = [...this._modules.values()] as Module[];
    const k = indexArg(`${this.constructor.name}.pop`, index, list.length);
    const [m] = list.splice(k, 1);
    this.rebuild(list);
    return m!;
  }

  private rebuild(list: Module[]): void {
    for (const k of [...this._modules.keys()]) delete (this as unknown as Record<string, unknown>)[k];
    list.forEach((m, i) => this.addModule(String(i), m));
  }

  [Symbol.iterator](): Iterator<Module> {
    return ([...this._modules.values()] as Module[])[Symbol.iterator]();
  }
}

/**
 * Runs its children in order: new Sequential(m1, m2, ...) or new Sequential({ name: m, ... })
 * (named children, as an OrderedDict in PyTorch).
 */
export class Sequential extends IndexedModules {
  constructor(...modules: Module[] | [Record<string, Module> | Map<string, Module>]) {
    super();
    if (modules.length === 1 && isPlainOrMap(modules[0])) {
      for (const [k, m] of namedEntries('Sequential', modules[0])) this.addModule(k, m);
    } else {
      (modules as unknown[]).forEach((m, i) => this.addModule(String(i), moduleArg('Sequential', m, `argument ${i}`)));
    }
  }

  /** The child at index i (named children count in order). */
  get(i: number): Module {
    return ([...this._modules.values()] as Module[])[indexArg(`${this.constructor.name}.get`, i, this.length)]!;
  }

  /**
   * Feeds the input through every child; the intermediate results are freed. A Linear followed
   * by a ReLU or GELU runs as one fused F.linear (see fusedActivation), a Conv2d followed by a
   * ReLU as one F.conv2d with activation 'relu', and one followed by a ReLU and a MaxPool2d as
   * one op that pools the convolution's output as it is computed.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  forward(input: any): any {
    return tidy(() => {
      const mods = [...this._modules.values()].filter((m): m is Module => !!m);
      let x = input;
      for (let i = 0; i < mods.length; i++) {
        const activation = fusedActivation(mods[i]!, mods[i + 1]);
        if (activation) {
          const lin = mods[i++] as Linear;
          x = F.linear(x, lin.weight, lin.bias, { activation });
        } else if (fusedConvRelu(mods[i]!, mods[i + 1])) {
          const conv = mods[i] as Conv2d;
          const pool = mods[i + 2];
          if (fusedConvReluPool(conv, pool) && x.dtype !== 'float64') {  // the fused kernel is float32's
            x = conv.forwardReluMaxPool(x, pool.kernelSize, pool.options);
            i += 2;
          } else {
            x = conv.forwardRelu(x);
            i += 1;
          }
        } else {
          x = mods[i]!.forward(x);
        }
      }
      return x;
    });
  }
}

/** A list of modules (no forward of its own). */
export class ModuleList extends IndexedModules {
  constructor(modules?: Iterable<Module>) {
    super();
    if (modules !== undefined && modules !== null) {
      if (typeof (modules as { [Symbol.iterator]?: unknown })[Symbol.iterator] !== 'function') {
        throw new Error(`ModuleList: expected an array of modules, got ${describe(modules)}`);
      }
      let i = 0;
      for (const m of modules) this.addModule(String(i), moduleArg('ModuleList', m, `element ${i++}`));
    }
  }
}

/** Modules by name, in insertion order (no forward of its own). */
export class ModuleDict extends Module {
  constructor(modules?: Record<string, Module> | Map<string, Module> | [string, Module][]) {
    super();
    if (modules !== undefined && modules !== null) this.update(modules);
  }

  get size(): number {
    return this._modules.size;
  }

  get length(): number {
    return this._modules.size;
  }

  get(key: string): Module | undefined {
    return this._modules.get(key) ?? undefined;
  }

  /** Adds or replaces the module under key. */
  set(key: string, module: Module): this {
    this.addModule(key, moduleArg('set', module, 'the value'));
    return this;
  }

  has(key: string): boolean {
    return this._modules.has(key);
  }

  /** Removes key and returns its module (PyTorch's pop). */
  delete(key: string): Module | undefined {
    const m = this._modules.get(key);
    if (this._modules.has(key)) delete (this as unknown as Record<string, unknown>)[key];
    return m ?? undefined;
  }

  pop(key: string): Module {
    if (!this._modules.has(key)) throw new Error(`pop: no module named '${key}'`);
    return this.delete(key)!;
  }

  clear(): void {
    for (const k of [...this._modules.keys()]) this.delete(k);
  }

  keys(): string[] {
    return [...this._modules.keys()];
  }

  values(): Module[] {
    return [...this._modules.values()] as Module[];
  }

  entries(): [string, Module][] {
    return [...this._modules.entries()] as [string, Module][];
  }

  /** Adds every [name, module] of a plain object, Map or pair array. */
  update(modules: Record<string, Module> | Map<string, Module> | [string, Module][]): void {
    if (!isPlainOrMap(modules) && !Array.isArray(modules)) throw new Error(`ModuleDict: expected an object or a Map of modules, got ${describe(modules)}`);
    for (const [k, m] of namedEntries('ModuleDict', modules)) this.addModule(k, m);
  }

  [Symbol.iterator](): Iterator<string> {
    return this.keys()[Symbol.iterator]();
  }
}

/** A Parameter as is; a Tensor wrapped as one (sharing its data), as PyTorch's containers do. */
function parameterArg(fn: string, v: unknown, what: string): Parameter {
  if (v instanceof Parameter) return v;
  if (v instanceof Tensor && !v.isDisposed) return new Parameter(v);
  throw new Error(`${fn}: ${what} is not a sg.nn.Parameter or a Tensor, got ${describe(v)}`);
}

/**
 * Parameters in a list, registered as '0', '1', ... (so they appear in parameters() and the
 * state dict, and read as plist[0]); a Tensor is wrapped into a Parameter sharing its data.
 */
export class ParameterList extends Module {
  [index: number]: Parameter;

  constructor(values?: Iterable<Parameter | Tensor>) {
    super();
    if (values !== undefined && values !== null) {
      if (typeof (values as { [Symbol.iterator]?: unknown })[Symbol.iterator] !== 'function') {
        throw new Error(`ParameterList: expected an array of Parameters or Tensors, got ${describe(values)}`);
      }
      let i = 0;
      for (const v of values) this.registerParameter(String(i), parameterArg('ParameterList', v, `element ${i++}`));
    }
  }

  get length(): number {
    return this._parameters.size;
  }

  /** The parameter at index i (negative counts from the end). */
  get(i: number): Parameter {
    return this._parameters.get(String(indexArg('ParameterList.get', i, this.length)))!;
  }

  /** Replaces the parameter at index i. */
  set(i: number, value: Parameter | Tensor): void {
    const k = String(indexArg('ParameterList.set', i, this.length));
    (this as unknown as Record<string, unknown>)[k] = parameterArg('ParameterList.set', value, 'the value');
  }

  append(value: Parameter | Tensor): this {
    this.registerParameter(String(this.length), parameterArg('ParameterList.append', value, 'the value'));
    return this;
  }

  extend(values: Iterable<Parameter | Tensor>): this {
    for (const v of values) this.append(v);
    return this;
  }

  [Symbol.iterator](): Iterator<Parameter> {
    return ([...this._parameters.values()] as Parameter[])[Symbol.iterator]();
  }

  extraRepr(): string {
    return [...this._parameters.entries()].map(([k, p]) => `(${k}): Parameter containing: [Tensor of shape [${p!.shape.join(', ')}]]`).join('\n');
  }
}

/** Parameters by name, in insertion order; a Tensor is wrapped into a Parameter sharing its data. */
export class ParameterDict extends Module {
  constructor(parameters?: Record<string, Parameter | Tensor> | Map<string, Parameter | Tensor> | [string, Parameter | Tensor][]) {
    super();
    if (parameters !== undefined && parameters !== null) this.update(parameters);
  }

  get length(): number {
    return this._parameters.size;
  }

  get size(): number {
    return this._parameters.size;
  }

  get(key: string): Parameter | undefined {
    return this._parameters.get(key) ?? undefined;
  }

  /** Adds or replaces the parameter under key. */
  set(key: string, value: Parameter | Tensor): this {
    if (typeof key !== 'string') throw new Error(`ParameterDict.set: expected a string key, got ${describe(key)}`);
    const p = parameterArg('ParameterDict.set', value, `'${key}'`);
    try {
      if (this._parameters.has(key)) (this as unknown as Record<string, unknown>)[key] = p;
      else this.registerParameter(key, p);
    } catch (e) {
      if (p !== value) p.dispose(); // the wrapper made for a plain Tensor
      throw e;
    }
    return this;
  }

  has(key: string): boolean {
    return this._parameters.has(key);
  }

  /** Removes key and returns its parameter (PyTorch's pop). */
  delete(key: string): Parameter | undefined {
    const p = this._parameters.get(key);
    if (this._parameters.has(key)) delete (this as unknown as Record<string, unknown>)[key];
    return p ?? undefined;
  }

  pop(key: string): Parameter {
    if (!this._parameters.has(key)) throw new Error(`ParameterDict.pop: no parameter named '${key}'`);
    return this.delete(key)!;
  }

  clear(): void {
    for (const k of [...this._parameters.keys()]) this.delete(k);
  }

  keys(): string[] {
    return [...this._parameters.keys()];
  }

  values(): Parameter[] {
    return [...this._parameters.values()] as Parameter[];
  }

  entries(): [string, Parameter][] {
    return [...this._parameters.entries()] as [string, Parameter][];
  }

  /** Adds every [name, parameter] of a plain object, Map or pair array. */
  update(parameters: Record<string, Parameter | Tensor> | Map<string, Parameter | Tensor> | [string, Parameter | Tensor][]): void {
    if (!isPlainOrMap(parameters) && !Array.isArray(parameters)) {
      throw new Error(`ParameterDict: expected an object, a Map or [name, parameter] pairs, got ${describe(parameters)}`);
    }
    const entries = parameters instanceof Map ? [...parameters.entries()] : Array.isArray(parameters) ? parameters : Object.entries(parameters);
    for (const e of entries as unknown[]) {
      if (!Array.isArray(e) || e.length !== 2 || typeof e[0] !== 'string') throw new Error(`ParameterDict: expected [name, parameter] pairs, got ${describe(e)}`);
      this.set(e[0], e[1] as Parameter | Tensor);
    }
  }

  [Symbol.iterator](): Iterator<string> {
    return this.keys()[Symbol.iterator]();
  }

  extraRepr(): string {
    return this.entries().map(([k, p]) => `(${k}): Parameter containing: [Tensor of shape [${p.shape.join(', ')}]]`).join('\n');
  }
}
