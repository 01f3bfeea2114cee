// An optimizer's param groups as C++ holds them between steps (bindings/optim_call.cpp): each
// group is prepared once — algorithm, state keys, parameter and state ids, hyper-parameters —
// and then stepped by its id, so a step of a small model costs its update kernels rather than
// rebuilding every parameter's state map and the attributes on each call (about half of an Adam
// step over six small tensors did that). A group is prepared again when one of its parameters or
// state entries is another tensor than when prepared (a state dict loaded, a parameter moved or
// disposed, state replaced by hand); changed hyper-parameters alone (a scheduler's lr) are sent
// as they are.
import type { Attrs } from '../runtime/embind.js';
import { freeOptimGroup, prepareOptimGroup, setOptimGroupAttrs, stepOptimGroup, type CreatedState } from '../runtime/handles.js';
import { moduleGeneration } from '../runtime/module.js';
import type { Tensor } from '../tensor/tensor.js';

/** What a group is prepared from: its parameters and the hyper-parameters the C++ step reads. */
export interface GroupLike {
  params: Tensor[];
  [hyper: string]: unknown;
}

interface Prepared {
  id: number;
  generation: number;  // of the module the group lives in
  handles: number[];   // the parameters' handles
  stateIds: number[];  // parameter i's entry for key k at i·nk + k, 0 for none
  hyper: unknown[];    // the group's value of each hyper-parameter key (arrays copied)
}

const sameValue = (a: unknown, b: unknown): boolean =>
  a === b || (Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => x === b[i]));
const snapshot = (v: unknown): unknown => (Array.isArray(v) ? v.slice() : v);

// Groups of optimizers dropped without dispose(): freed with them.
const finalizer =
  typeof FinalizationRegistry !== 'undefined'
    ? new FinalizationRegistry<Map<GroupLike, Prepared>>((groups) => {
        try {
          for (const p of groups.values()) if (p.generation === moduleGeneration()) freeOptimGroup(p.id);
        } catch {
          // The module may be gone.
        }
      })
    : null;

export class PreparedGroups {
  private readonly groups = new Map<GroupLike, Prepared>();

  /**
   * `owner` is the optimizer (its groups are freed when it is collected); `keys` its state keys;
   * `hyperKeys` the group keys the hyper-parameters come from; `attrsOf` the attributes of a group.
   */
  constructor(
    owner: object,
    private readonly algorithm: string,
    private readonly keys: readonly string[],
    private readonly hyperKeys: readonly string[],
    private readonly attrsOf: (group: GroupLike) => Attrs,
  ) {
    finalizer?.register(owner, this.groups, this);
  }

  /** One step of `group` with `stateOf(p)` its parameters' state; the entries the step created. */
  step(group: GroupLike, stateOf: (p: Tensor) => Record<string, Tensor> | undefined): CreatedState[] {
    let p = this.groups.get(group);
    if (p !== undefined && !this.sameTensors(p, group, stateOf)) {
      this.free(group, p);
      p = undefined;
    }
    if (p === undefined) {
      p = this.prepare(group, stateOf);
    } else if (!this.hyperKeys.every((k, i) => sameValue(group[k], p!.hyper[i]))) {
      setOptimGroupAttrs(p.id, this.algorithm, this.attrsOf(group));
      p.hyper = this.hyperKeys.map((k) => snapshot(group[k]));
    }
    const made = stepOptimGroup(p.id);
    for (const m of made) p.stateIds[m.param * this.keys.length + m.key] = m.id;
    return made;
  }

  /** Frees every prepared group (the optimizer is disposed). */
  dispose(): void {
    for (const [group, p] of [...this.groups]) this.free(group, p);
  }

  private prepare(group: GroupLike, stateOf: (p: Tensor) => Record<string, Tensor> | undefined): Prepared {
    const nk = this.keys.length;
    const handles = group.params.map((t) => t.handle);
    const stateIds = new Array<number>(handles.length * nk).fill(0);
    group.params.forEach((t, i) => {
      const st = stateOf(t);
      if (st) for (let k = 0; k < nk; k++) stateIds[i * nk + k] = st[this.keys[k]!]?.handle ?? 0;
    });
    const id = prepareOptimGroup(this.algorithm, this.keys, handles, stateIds, this.attrsOf(group));
    const p: Prepared = { id, generation: moduleGeneration(), handles, stateIds, hyper: this.hyperKeys.map((k) => snapshot(group[k])) };
    this.groups.set(group, p);
    return p;
  }

  private sameTensors(p: Prepared, group: GroupLike, stateOf: (p: Tensor) => Record<string, Tensor> | undefined): boolean {
    if (p.generation !== moduleGeneration() || p.handles.length !== group.params.length) return false;
    const nk = this.keys.length;
    for (let i = 0; i < p.handles.length; i++) {
      const t = group.params[i]!;
      if (t.handle !== p.handles[i]) return false;
      const st = stateOf(t);
      for (let k = 0; k < nk; k++) if ((st?.[this.keys[k]!]?.handle ?? 0) !== p.stateIds[i * nk + k]) return false;
    }
    return true;
  }

  private free(group: GroupLike, p: Prepared): void {
    this.groups.delete(group);
    if (p.generation === moduleGeneration()) freeOptimGroup(p.id);
  }
}
