// The Optimizer base: PyTorch's param groups, lazily created per-parameter state, stateDict /
// loadStateDict, zeroGrad. The arithmetic is not here: step() hands each param group to the
// C++ optimizer (src/optim, through prepared_groups.ts → bindings/optim_call.cpp) in one call, which
// updates every parameter of the group in place (the same Tensor objects, so a model's
// parameters stay valid) and creates missing state entries. The subclasses (sgd.ts, adam.ts, ...) only declare their
// hyper-parameters: defaults, option types and PyTorch's constructor checks.
import type { Attrs, TensorHandle } from '../runtime/embind.js';
import { callOp1, detachHandle, isGradEnabled, releaseHandle, setGradEnabled, shareHandle } from '../runtime/handles.js';
import { keep } from '../runtime/memory.js';
import { mod } from '../runtime/module.js';
import { checkOptions, describe, isOptionsObject, type Spec } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { recordHostStep } from '../compile/trace_state.js';
import { isTracing } from '../runtime/trace_flag.js';
import { submitWork } from '../runtime/webgpu_device.js';
import { PreparedGroups } from './prepared_groups.js';
import { setToNoneArg, zeroGrads, type ZeroGradArgs } from '../autograd/zero_grad.js';

/** One optimizer state entry per name (PyTorch's optimizer.state[p]): 'step', 'exp_avg', ... */
export type ParamState = Record<string, Tensor>;

/** A parameter group: its parameters and its hyper-parameters (lr, betas, ...), as PyTorch's param_groups. */
export interface ParamGroup {
  params: Tensor[];
  lr: number;
  [hyper: string]: unknown;
}

/** What the constructor and addParamGroup accept for a group: params plus per-group hyper-parameters. */
export interface ParamGroupInput {
  params: Iterable<Tensor>;
  [hyper: string]: unknown;
}

export type ParamsInput = Iterable<Tensor> | Iterable<ParamGroupInput>;

/** PyTorch's optimizer.state_dict(): state by parameter index, groups with parameter indices. */
export interface OptimizerStateDict {
  state: Record<string, Record<string, Tensor>>;
  param_groups: Array<Record<string, unknown> & { params: number[] }>;
}

/**
 * Keys a scheduler may add to a group (PyTorch's initial_lr, max_lr, ...): allowed in groups
 * and kept in state dicts, never passed to the C++ step.
 */
/** The dtypes a parameter (and its floating state) may have, as torch.optim's floating tensors. */
const OPTIMIZABLE = new Set<string>(['float32', 'float64', 'float16', 'bfloat16']);

const SCHEDULER_KEYS: Spec = {
  initialLr: 'number',
  maxLr: 'number',
  minLr: 'number',
  maxMomentum: 'number',
  baseMomentum: 'number',
};

/** What a concrete optimizer declares. */
export interface Algorithm {
  /** The C++ algorithm name and the prefix of error messages: 'SGD', 'Adam', ... */
  name: string;
  /** Option types of the hyper-parameters (lr included). */
  spec: Spec;
  /** Defaults; `lr: undefined` marks a required lr (SGD). */
  defaults: Record<string, unknown>;
  /** The state-dict keys a parameter's state may hold. */
  stateKeys: readonly string[];
  /** The keys among stateKeys holding one number (default ['step']; NAdam adds 'mu_product'). */
  scalarStateKeys?: readonly string[];
  /** PyTorch's constructor checks on one group's complete hyper-parameters; throws. */
  validate(h: Record<string, unknown>): void;
  /** The group's hyper-parameters as the C++ side reads them (Adam's betas → beta1, beta2). */
  toAttrs(h: Record<string, unknown>): Attrs;
  /** Create state at construction (PyTorch's Adagrad does). */
  eagerState?: boolean;
}

/** `value >= 0` with PyTorch's wording ("Invalid learning rate: -1"), adapted. */
export function checkNonNegative(opt: string, what: string, value: unknown): void {
  if (!(typeof value === 'number' && value >= 0)) throw new Error(`${opt}: invalid ${what}: ${describe(value)} (expected a number >= 0)`);
}

function isIterable(v: unknown): v is Iterable<unknown> {
  return v !== null && typeof v === 'object' && typeof (v as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function';
}

export abstract class Optimizer {
  /** The hyper-parameters every group starts from (the constructor's options over the algorithm's defaults). */
  readonly defaults: Record<string, unknown>;
  readonly paramGroups: ParamGroup[] = [];
  /** Per-parameter state (PyTorch's optimizer.state), owned by the optimizer: dispose() frees it. */
  readonly state = new Map<Tensor, ParamState>();
  /** Number of step() calls (schedulers read it to warn about order; informative). */
  stepCount = 0;
  private readonly algo: Algorithm;
  private constructed = false;
  /** The groups as prepared in C++ for stepping (made by the first step). */
  private prepared: PreparedGroups | undefined;

  protected constructor(algo: Algorithm, params: ParamsInput, options: unknown) {
    this.algo = algo;
    const o = checkOptions<Record<string, unknown>>(algo.name, options, algo.spec);
    const defaults: Record<string, unknown> = { ...algo.defaults };
    for (const [k, v] of Object.entries(o)) if (v !== undefined) defaults[k] = Array.isArray(v) ? v.slice() : v;
    // A required lr may come per group instead (PyTorch: lr=required): checked per group.
    if (defaults.lr !== undefined) algo.validate(defaults);
    this.defaults = defaults;

    if (params instanceof Tensor) {
      throw new Error(`${algo.name}: params argument given to the optimizer should be an iterable of Tensors or objects, but got a Tensor (wrap it in an array)`);
    }
    if (!isIterable(params)) throw new Error(`${algo.name}: expected params to be an array of Tensors or of parameter groups, got ${describe(params)}`);
    const list: unknown[] = Array.from(params as Iterable<unknown>);
    if (list.length === 0) throw new Error(`${algo.name}: optimizer got an empty parameter list`);
    // Groups are plain objects; anything else is a list of parameters (checked as such).
    const groups: unknown[] = list.every((p) => isOptionsObject(p)) ? list : [{ params: list }];
    for (const g of groups) this.addParamGroup(g as ParamGroupInput);
    // PyTorch's Adagrad fills the initial state of every group from the constructor's options
    // (a group's own initialAccumulatorValue is not used for it); groups added later by
    // addParamGroup, which PyTorch leaves without state, are filled from their own values.
    if (algo.eagerState) for (const g of this.paramGroups) this.initState(g, this.defaults);
    this.constructed = true;
  }

  get name(): string {
    return this.algo.name;
  }

  /** Adds a group of parameters with its own hyper-parameters (missing ones from the defaults). */
  addParamGroup(group: ParamGroupInput): void {
    const name = this.algo.name;
    if (!isOptionsObject(group)) throw new Error(`${name}: expected a parameter group object { params, ... }, got ${describe(group)}`);
    const { params, ...hyper } = group;
    const plist = this.checkParams(params);
    const h = this.completeHyper(hyper, `${name}: parameter group ${this.paramGroups.length}`);
    const fresh: ParamGroup = { params: plist, ...h } as ParamGroup;
    if (this.algo.eagerState && this.constructed) this.initState(fresh, fresh);
    this.paramGroups.push(fresh);
  }

  /** Checks a group's params: leaf floating Tensors, none repeated, none already in another group. */
  private checkParams(params: unknown): Tensor[] {
    const name = this.algo.name;
    if (params instanceof Tensor) return this.checkParams([params]);
    if (!isIterable(params)) throw new Error(`${name}: a parameter group's 'params' must be an array of Tensors, got ${describe(params)}`);
    const list = Array.from(params);
    const seen = new Set<Tensor>();
    for (const [i, p] of list.entries()) {
      if (!(p instanceof Tensor)) throw new Error(`${name}: optimizer can only optimize Tensors, but params[${i}] is ${describe(p)}`);
      if (p.isDisposed) throw new Error(`${name}: params[${i}] is a disposed Tensor`);
      if (!OPTIMIZABLE.has(p.dtype)) throw new Error(`${name}: params[${i}] is ${p.dtype}; only floating point tensors (float32, float64, float16, bfloat16) can be optimized`);
      if (!p.isLeaf) throw new Error(`${name}: can't optimize a non-leaf Tensor (params[${i}]; use detach().requiresGrad_() or a Parameter)`);
      if (seen.has(p)) throw new Error(`${name}: a parameter group contains the same parameter twice (params[${i}])`);
      seen.add(p);
    }
    for (const g of this.paramGroups) {
      for (const p of g.params) {
        if (seen.has(p)) throw new Error(`${name}: some parameters appear in more than one parameter group`);
      }
    }
    return list as Tensor[];
  }

  /** Hyper-parameters of a group: options checked, defaults filled in, PyTorch's checks run. */
  private completeHyper(hyper: Record<string, unknown>, where: string): Record<string, unknown> {
    const spec = { ...this.algo.spec, ...SCHEDULER_KEYS };
    checkOptions(where, hyper, spec);
    const h: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(this.defaults)) h[k] = Array.isArray(v) ? v.slice() : v;
    for (const [k, v] of Object.entries(hyper)) if (v !== undefined) h[k] = Array.isArray(v) ? v.slice() : v;
    if (h.lr === undefined) throw new Error(`${where} didn't specify a value of required optimization parameter lr`);
    this.algo.validate(h);
    return h;
  }

  /** The hyper-parameters of a group that the C++ step reads. */
  private attrsOf(group: ParamGroup): Attrs {
    const h: Record<string, unknown> = {};
    for (const k of Object.keys(this.algo.spec)) h[k] = group[k];
    return this.algo.toAttrs(h);
  }

  /** Makes id (a state entry C++ created) parameter p's entry `key`, a kept Tensor. */
  private adoptCreatedState(p: Tensor, key: string, id: TensorHandle): void {
    let entry = this.state.get(p);
    if (!entry) this.state.set(p, (entry = {}));
    entry[key]?.dispose();
    entry[key] = keep(new Tensor(id));
  }

  /** Steps one group in one call (prepared_groups.ts) and adopts the state entries it created. */
  private stepGroup(group: ParamGroup): void {
    this.prepared ??= new PreparedGroups(this, this.algo.name, this.algo.stateKeys, Object.keys(this.algo.spec), (g) =>
      this.attrsOf(g as ParamGroup),
    );
    const keys = this.algo.stateKeys;
    for (const made of this.prepared.step(group, (p) => this.state.get(p))) {
      this.adoptCreatedState(group.params[made.param]!, keys[made.key]!, made.id);
    }
  }

  /** Creates the group's missing state (without stepping) with the hyper-parameters of `from`. */
  private initState(group: ParamGroup, from: Record<string, unknown>): void {
    const hyper = { ...group, ...from, params: group.params } as ParamGroup;
    const states = group.params.map((p) => {
      const s: Record<string, TensorHandle> = {};
      for (const [k, t] of Object.entries(this.state.get(p) ?? {})) s[k] = t.handle;
      return s;
    });
    mod().optimInitState(this.algo.name, group.params.map((p) => p.handle), states, this.attrsOf(hyper));
    group.params.forEach((p, i) => {
      const had = this.state.get(p);
      for (const [k, id] of Object.entries(states[i]!)) if (had?.[k]?.handle !== id) this.adoptCreatedState(p, k, id);
    });
  }

  /**
   * One optimization step: every group's parameters that have a .grad are updated in place by
   * one C++ call per group (parameters without a grad are skipped, as in PyTorch). With a
   * closure, it is called first (gradients enabled) and its result returned.
   */
  step<T = undefined>(closure?: () => T): T | undefined {
    // Inside sg.compile: recorded, and run in place on every compiled call (with the lr and
    // other options the groups hold then).
    if (closure === undefined && recordHostStep(`${this.algo.name}.step`, () => this.step())) return undefined;
    if (closure !== undefined && isTracing()) {
      throw new Error(`${this.algo.name}.step: a closure cannot be compiled; call step() without one inside sg.compile`);
    }
    let result: T | undefined;
    if (closure !== undefined) {
      if (typeof closure !== 'function') throw new Error(`${this.algo.name}.step: expected a closure function or nothing, got ${describe(closure)}`);
      const was = isGradEnabled();
      setGradEnabled(true);
      try {
        result = closure();
      } finally {
        setGradEnabled(was);
      }
    }
    for (const group of this.paramGroups) this.stepGroup(group);
    // A training step's GPU work goes to the queue here, in one submit, without waiting.
    submitWork();
    this.stepCount++;
    return result;
  }

  /**
   * PyTorch's zero_grad(set_to_none): every parameter's .grad to null (setToNone, the default as
   * PyTorch ≥ 2.0), or with `{ setToNone: false }` (or `false`) its existing grads to zeros in place.
   */
  zeroGrad(...args: ZeroGradArgs): void {
    const setToNone = setToNoneArg(`${this.algo.name}.zeroGrad`, args);
    zeroGrads(`${this.algo.name}.zeroGrad`, this.paramGroups.flatMap((g) => g.params), setToNone);
  }

  /**
   * PyTorch's state_dict(): `{ state: { index: { step, exp_avg, ... } }, param_groups: [{ lr, ...,
   * params: [indices] }] }`, parameters numbered across groups in order. The state tensors are
   * new Tensor objects sharing the optimizer's data (as PyTorch's references do: a later step
   * changes them); the caller disposes them (sg.dispose(sd)).
   */
  stateDict(): OptimizerStateDict {
    const state: Record<string, Record<string, Tensor>> = {};
    const groups: OptimizerStateDict['param_groups'] = [];
    let index = 0;
    for (const g of this.paramGroups) {
      const ids: number[] = [];
      for (const p of g.params) {
        const st = this.state.get(p);
        if (st && Object.keys(st).length > 0) {
          const copy: Record<string, Tensor> = {};
          for (const [k, t] of Object.entries(st)) copy[k] = new Tensor(shareHandle(t.handle));
          state[String(index)] = copy;
        }
        ids.push(index++);
      }
      const { params: _p, ...hyper } = g;
      const h: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(hyper)) h[k] = Array.isArray(v) ? v.slice() : v;
      groups.push({ ...h, params: ids });
    }
    return { state, param_groups: groups };
  }

  /**
   * Loads a state dict from stateDict() (of an optimizer of the same kind over parameters of the
   * same shapes): group hyper-parameters are replaced, state tensors are copied. Everything is
   * validated first (group and parameter counts, state keys, dtypes and shapes, hyper-parameter
   * values), so a failed load changes nothing.
   */
  loadStateDict(sd: OptimizerStateDict): void {
    const name = `${this.algo.name}.loadStateDict`;
    if (!isOptionsObject(sd) || !isOptionsObject(sd.state) || !Array.isArray(sd.param_groups)) {
      throw new Error(`${name}: expected { state: {...}, param_groups: [...] } as returned by stateDict(), got ${describe(sd)}`);
    }
    const saved = sd.param_groups;
    if (saved.length !== this.paramGroups.length) {
      throw new Error(`${name}: loaded state dict has a different number of parameter groups (${saved.length}, the optimizer has ${this.paramGroups.length})`);
    }
    // index in the saved dict → parameter; and the new hyper-parameters of each group.
    const byIndex = new Map<number, Tensor>();
    const newHyper: Record<string, unknown>[] = [];
    saved.forEach((sg, gi) => {
      if (!isOptionsObject(sg) || !Array.isArray(sg.params)) throw new Error(`${name}: param_groups[${gi}] must be an object with a 'params' array of indices`);
      const mine = this.paramGroups[gi]!;
      if (sg.params.length !== mine.params.length) {
        throw new Error(
          `${name}: loaded state dict contains a parameter group that doesn't match the size of optimizer's group (group ${gi}: ${sg.params.length} parameters, expected ${mine.params.length})`,
        );
      }
      sg.params.forEach((id, k) => {
        if (!Number.isInteger(id) || byIndex.has(id)) throw new Error(`${name}: param_groups[${gi}].params[${k}] must be a distinct integer index, got ${describe(id)}`);
        byIndex.set(id, mine.params[k]!);
      });
      const { params: _p, ...hyper } = sg;
      try {
        newHyper.push(this.completeHyper(hyper, `param_groups[${gi}]`));
      } catch (e) {
        throw new Error(`${name}: ${(e as Error).message}`);
      }
    });
    // Check every state entry before copying anything.
    const entries: [Tensor, string, Tensor][] = [];
    for (const [key, st] of Object.entries(sd.state)) {
      const id = Number(key);
      const p = byIndex.get(id);
      if (p === undefined) throw new Error(`${name}: state for parameter index ${key}, which no param group lists`);
      if (!isOptionsObject(st)) throw new Error(`${name}: state[${key}] must be an object of Tensors, got ${describe(st)}`);
      for (const [k, t] of Object.entries(st)) {
        if (!this.algo.stateKeys.includes(k)) {
          throw new Error(`${name}: state[${key}] has an unknown entry '${k}' (${this.algo.name} keeps: ${this.algo.stateKeys.join(', ')})`);
        }
        if (!(t instanceof Tensor) || t.isDisposed) throw new Error(`${name}: state[${key}].${k} must be a Tensor, got ${describe(t)}`);
        if ((this.algo.scalarStateKeys ?? ['step']).includes(k)) {
          if (t.numel !== 1 || t.dtype === 'bool') throw new Error(`${name}: state[${key}].${k} must be a one-element number tensor, got ${describe(t)}`);
        } else {
          const ps = p.shape;
          const ts = t.shape;
          if (!OPTIMIZABLE.has(t.dtype) || ts.length !== ps.length || ts.some((s, i) => s !== ps[i])) {
            throw new Error(`${name}: state[${key}].${k} is ${describe(t)}, expected a floating tensor of the parameter's shape [${ps.join(', ')}]`);
          }
        }
        entries.push([p, k, t]);
      }
    }
    // Copy (a loaded dict never aliases the optimizer's state), then swap in.
    const copies: ParamState[] = [];
    const made: Tensor[] = [];
    const target = new Map<Tensor, ParamState>();
    try {
      for (const [p, k, t] of entries) {
        let st = target.get(p);
        if (!st) {
          target.set(p, (st = {}));
          copies.push(st);
        }
        // detach first so that a tensor requiring grad is copied outside the graph.
        const src = detachHandle(t.handle);
        let h: TensorHandle;
        try {
          // Floating state takes the parameter's dtype, as PyTorch's load_state_dict casts it ('step' stays).
          const cast = OPTIMIZABLE.has(t.dtype) && t.dtype !== p.dtype && !(this.algo.scalarStateKeys ?? ['step']).includes(k);
          h = cast ? callOp1('cast', [src], { dtype: p.dtype }) : callOp1('clone', [src]);
        } finally {
          releaseHandle(src);
        }
        const c = keep(new Tensor(h));
        made.push(c);
        st[k] = c;
      }
    } catch (e) {
      for (const t of made) t.dispose();
      throw e;
    }
    this.disposeState();
    for (const [p, st] of target) this.state.set(p, st);
    this.paramGroups.forEach((g, gi) => {
      for (const k of Object.keys(g)) if (k !== 'params') delete g[k];
      Object.assign(g, newHyper[gi]);
    });
  }

  private disposeState(): void {
    for (const st of this.state.values()) for (const t of Object.values(st)) t.dispose();
    this.state.clear();
  }

  /** Frees the optimizer's state tensors (the parameters belong to the model). */
  dispose(): void {
    this.prepared?.dispose();
    this.disposeState();
  }

  [Symbol.dispose](): void {
    this.dispose();
  }
}

/** Option check for Adam's betas: two numbers. */
export const betasSpec = {
  check: (v: unknown) => Array.isArray(v) && v.length === 2 && v.every((b) => typeof b === 'number' && !Number.isNaN(b)),
  expected: 'an array of two numbers [beta1, beta2]',
};
