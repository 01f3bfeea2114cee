// L-BFGS (torch.optim.LBFGS of PyTorch 1.13): closure-driven, one param group, the whole
// parameter set seen as one flat vector. The two-loop recursion and the line search are driven
// from here over tensor ops (dot products, axpys on the flat vector); the parameters are written
// in place. Scalars that PyTorch holds as 0-d tensors of the parameters' dtype (y·s, 1/(y·s), the
// initial Hessian scale, the two-loop coefficients) are rounded to that dtype likewise: float32 or
// float64 (PyTorch 1.13's LBFGS also runs in bfloat16; in float16 its CPU `dot` is missing, and
// here both 16-bit dtypes are refused by name).
import { noGrad, enableGrad } from '../autograd/backward.js';
import { zeros } from '../tensor/creation.js';
import { keep, tidy } from '../runtime/memory.js';
import { mod } from '../runtime/module.js';
import { handleDataPtr, shareHandle } from '../runtime/handles.js';
import { functionOps } from '../tensor/ops.js';
import { describe, isInteger, isOptionsObject } from '../runtime/options.js';
import { dtypeBytes } from '../runtime/dtypes.js';
import { Tensor } from '../tensor/tensor.js';
import { strongWolfe, type Probe } from './line_search.js';
import { checkNonNegative, Optimizer, type Algorithm, type OptimizerStateDict, type ParamsInput } from './optimizer.js';

export interface LBFGSOptions {
  /** Step size (default 1). */
  lr?: number;
  /** Iterations per step() (default 20). */
  maxIter?: number;
  /** Closure evaluations per step() (default ⌊maxIter·5/4⌋). */
  maxEval?: number;
  /** Stop when max |gradient| ≤ this (default 1e-7). */
  toleranceGrad?: number;
  /** Stop when the loss or the step changes less than this (default 1e-9). */
  toleranceChange?: number;
  /** Correction pairs kept (default 100). */
  historySize?: number;
  /** null (fixed step lr) or 'strong_wolfe'. */
  lineSearchFn?: 'strong_wolfe' | null;
}

/** PyTorch's state['...'] of the first parameter (LBFGS keeps only global state). */
interface LBFGSState {
  func_evals: number;
  n_iter: number;
  d?: Tensor;
  t?: number;
  old_dirs?: Tensor[];
  old_stps?: Tensor[];
  ro?: number[];
  H_diag?: number;
  prev_flat_grad?: Tensor;
  prev_loss?: number;
}

/**
 * The keys of LBFGSState, the one list of them: the Algorithm's stateKeys and what loadStateDict
 * accepts ('al' too: PyTorch's scratch list of the two-loop recursion, which its state_dict
 * carries; accepted and dropped, as every step rebuilds it).
 */
const STATE_KEYS = ['func_evals', 'n_iter', 'd', 't', 'old_dirs', 'old_stps', 'ro', 'H_diag', 'prev_flat_grad', 'prev_loss'] as const;
const LOADABLE_KEYS: readonly string[] = [...STATE_KEYS, 'al'];

/** The dtypes LBFGS runs in, with the rounding of a scalar held as a 0-d tensor of it. */
const ROUND: Record<string, (v: number) => number> = { float32: Math.fround, float64: (v) => v };

function algorithm(maxEvalDefault: number): Algorithm {
  return {
    name: 'LBFGS',
    spec: {
      lr: 'number',
      maxIter: 'positiveInteger',
      maxEval: 'positiveInteger',
      toleranceGrad: 'number',
      toleranceChange: 'number',
      historySize: 'positiveInteger',
      lineSearchFn: { check: (v) => v === null || v === 'strong_wolfe', expected: "null or 'strong_wolfe'" },
    },
    defaults: { lr: 1, maxIter: 20, maxEval: maxEvalDefault, toleranceGrad: 1e-7, toleranceChange: 1e-9, historySize: 100, lineSearchFn: null },
    stateKeys: STATE_KEYS,
    validate(h) {
      checkNonNegative('LBFGS', 'learning rate', h.lr);
      checkNonNegative('LBFGS', 'toleranceGrad value', h.toleranceGrad);
      checkNonNegative('LBFGS', 'toleranceChange value', h.toleranceChange);
    },
    toAttrs: () => ({}),
  };
}

function dot(a: Tensor, b: Tensor): number {
  return a.matmul(b).item();
}

function maxAbs(a: Tensor): number {
  return a.abs().max().item();
}

/** Writes src's values into dst's storage (both contiguous, of one size and dtype) in the wasm heap. */
function assign(dst: Tensor, src: Tensor): void {
  const s = src.contiguous();
  const bytes = dtypeBytes(dst.dtype) * dst.numel;
  const at = handleDataPtr(dst.handle);
  const from = handleDataPtr(s.handle);
  mod().HEAPU8.copyWithin(at, from, from + bytes);
}

export class LBFGS extends Optimizer {
  private lbfgs: LBFGSState = { func_evals: 0, n_iter: 0 };
  /** The state tensors this optimizer owns (kept out of every tidy; freed by dispose()). */
  private readonly owned = new Set<Tensor>();
  /** The parameters' dtype (one for all): the flat vectors' and the scalars' (ROUND). */
  private readonly dtype: 'float32' | 'float64';
  private readonly round: (v: number) => number;

  constructor(params: ParamsInput, options?: LBFGSOptions) {
    const o = isOptionsObject(options) ? (options as LBFGSOptions) : {};
    const maxIter = o.maxIter ?? 20;
    super(algorithm(isInteger(maxIter) && maxIter > 0 ? Math.floor((maxIter * 5) / 4) : 25), params, options);
    if (this.paramGroups.length !== 1) throw new Error("LBFGS: doesn't support per-parameter options (parameter groups)");
    const dtype = this.params[0]?.dtype ?? 'float32';
    if (!(dtype in ROUND)) throw new Error(`LBFGS: expected float32 or float64 parameters, got params[0] of dtype ${dtype}`);
    this.dtype = dtype as 'float32' | 'float64';
    this.round = ROUND[dtype]!;
    for (const [i, p] of this.params.entries()) {
      if (p.dtype !== dtype) throw new Error(`LBFGS: expected every parameter of one dtype (the flat vector's), got params[0] ${dtype} and params[${i}] ${p.dtype}`);
      if (!p.isContiguous()) throw new Error(`LBFGS: params[${i}] is a strided view; L-BFGS writes parameters in place and needs contiguous ones`);
      if (p.device !== 'cpu') {
        throw new Error(
          `LBFGS: params[${i}] is on ${p.device}: L-BFGS reads the loss and the gradients at every iteration, which a GPU ` +
            "answers only asynchronously; train it on the cpu (model.to('cpu')) or use another optimizer",
        );
      }
    }
  }

  private get params(): Tensor[] {
    return this.paramGroups[0]!.params;
  }

  /** The gradients as one flat vector (zeros for a parameter without one). */
  private flatGrad(): Tensor {
    return functionOps.cat(
      this.params.map((p) => {
        const g = p.grad;
        return g ? g.reshape([-1]) : zeros([p.numel], { dtype: this.dtype });
      }),
      0,
    );
  }

  /** p += t·d, parameter by parameter, in place. */
  private addGrad(t: number, d: Tensor): void {
    let offset = 0;
    for (const p of this.params) {
      const n = p.numel;
      assign(p, p.add(d.narrow(0, offset, n).view(p.shape).mul(t)));
      offset += n;
    }
  }

  private evaluate(closure: () => unknown): number {
    return tidy(() => {
      const r = enableGrad(closure);
      if (r instanceof Tensor) return r.item();
      if (typeof r === 'number') return r;
      throw new Error(`LBFGS.step: the closure must return the loss (a Tensor or a number), got ${describe(r)}`);
    });
  }

  /**
   * Runs up to maxIter L-BFGS iterations; closure() must zero the gradients, compute the loss,
   * call backward() and return the loss. Returns the loss of the first closure call.
   */
  override step<T>(closure?: () => T): T | undefined {
    if (typeof closure !== 'function') throw new Error(`LBFGS.step: expected a closure that computes the loss (L-BFGS needs one), got ${describe(closure)}`);
    const group = this.paramGroups[0]!;
    const lr = group.lr;
    const maxIter = group.maxIter as number;
    const maxEval = group.maxEval as number;
    const toleranceGrad = group.toleranceGrad as number;
    const toleranceChange = group.toleranceChange as number;
    const historySize = group.historySize as number;
    const lineSearch = group.lineSearchFn as string | null;
    const state = this.lbfgs;
    const round = this.round;
    const before = new Set(this.owned);
    // tidy returns the first loss to the caller's scope; everything else made here is freed
    // except the tensors the state keeps.
    return tidy(() => {
      const first = enableGrad(closure);
      let loss: number;
      if (first instanceof Tensor) loss = first.item();
      else if (typeof first === 'number') loss = first;
      else throw new Error(`LBFGS.step: the closure must return the loss (a Tensor or a number), got ${describe(first)}`);
      let currentEvals = 1;
      state.func_evals += 1;
      noGrad(() => {
        let flatGrad = this.flatGrad();
        if (maxAbs(flatGrad) <= toleranceGrad) return;
        let { d, t, old_dirs: oldDirs = [], old_stps: oldStps = [], ro = [], H_diag: hDiag = 1, prev_flat_grad: prevFlatGrad, prev_loss: prevLoss } = state;
        let nIter = 0;
        while (nIter < maxIter) {
          nIter++;
          state.n_iter++;
          // ---- the descent direction
          if (state.n_iter === 1) {
            d = flatGrad.neg();
            oldDirs = [];
            oldStps = [];
            ro = [];
            hDiag = 1;
          } else {
            const y = flatGrad.sub(prevFlatGrad!);
            const s = d!.mul(t!);
            const ys = dot(y, s);
            if (ys > 1e-10) {
              if (oldDirs.length === historySize) {
                oldDirs.shift();
                oldStps.shift();
                ro.shift();
              }
              oldDirs.push(y);
              oldStps.push(s);
              ro.push(round(1 / ys));
              hDiag = round(ys / dot(y, y));
            }
            // The two-loop recursion: d = −H·g.
            const al: number[] = new Array<number>(oldDirs.length);
            let q = flatGrad.neg();
            for (let i = oldDirs.length - 1; i >= 0; i--) {
              al[i] = round(dot(oldStps[i]!, q) * ro[i]!);
              q = q.sub(oldDirs[i]!.mul(al[i]!));
            }
            let r = q.mul(hDiag);
            for (let i = 0; i < oldDirs.length; i++) {
              const be = round(dot(oldDirs[i]!, r) * ro[i]!);
              r = r.add(oldStps[i]!.mul(round(al[i]! - be)));
            }
            d = r;
          }
          prevFlatGrad = flatGrad;
          prevLoss = loss;
          // ---- the step length
          t = state.n_iter === 1 ? Math.min(1, round(1 / flatGrad.abs().sum().item())) * lr : lr;
          const gtd = dot(flatGrad, d);
          if (gtd > -toleranceChange) break;
          let lsEvals = 0;
          let optimal = false;
          if (lineSearch !== null) {
            const x0 = this.params.map((p) => p.clone());
            const dir = d;
            const probe = (step: number): Probe => {
              this.addGrad(step, dir);
              const f = this.evaluate(closure);
              const g = this.flatGrad();
              this.params.forEach((p, i) => assign(p, x0[i]!));
              return { f, g, gtd: dot(g, dir) };
            };
            const res = strongWolfe(probe, t, maxAbs(d), loss, flatGrad, gtd, toleranceChange);
            loss = res.f;
            flatGrad = res.g;
            t = res.t;
            lsEvals = res.evals;
            this.addGrad(t, d);
            optimal = maxAbs(flatGrad) <= toleranceGrad;
          } else {
            this.addGrad(t, d);
            if (nIter !== maxIter) {
              // Re-evaluated except on the last iteration (stochastic settings gain nothing from it).
              loss = this.evaluate(closure);
              flatGrad = this.flatGrad();
              optimal = maxAbs(flatGrad) <= toleranceGrad;
              lsEvals = 1;
            }
          }
          currentEvals += lsEvals;
          state.func_evals += lsEvals;
          // ---- stopping conditions
          if (nIter === maxIter || currentEvals >= maxEval || optimal) break;
          if (maxAbs(d.mul(t)) <= toleranceChange) break;
          if (Math.abs(loss - prevLoss) < toleranceChange) break;
        }
        Object.assign(state, { d, t, old_dirs: oldDirs, old_stps: oldStps, ro, H_diag: hDiag, prev_flat_grad: prevFlatGrad, prev_loss: prevLoss });
      });
      this.adoptState(before);
      return first;
    });
  }

  /** Keeps the tensors the state now holds and frees the ones it dropped. */
  private adoptState(before: Set<Tensor>): void {
    const now = new Set<Tensor>();
    const s = this.lbfgs;
    for (const t of [s.d, s.prev_flat_grad, ...(s.old_dirs ?? []), ...(s.old_stps ?? [])]) if (t) now.add(t);
    for (const t of now) if (!this.owned.has(t)) this.owned.add(keep(t));
    for (const t of before) {
      if (!now.has(t)) {
        this.owned.delete(t);
        t.dispose();
      }
    }
  }

  /**
   * PyTorch's layout: { state: { 0: { func_evals, n_iter, d, t, old_dirs, old_stps, ro, H_diag,
   * prev_flat_grad, prev_loss } }, param_groups: [...] }. The tensors are new Tensor objects
   * sharing the optimizer's data; dispose them (sg.dispose(sd.state)).
   */
  override stateDict(): OptimizerStateDict {
    const base = super.stateDict();
    const share = (t: Tensor) => new Tensor(shareHandle(t.handle));
    const s = this.lbfgs;
    const entry: Record<string, unknown> = { func_evals: s.func_evals, n_iter: s.n_iter };
    if (s.d) {
      Object.assign(entry, {
        d: share(s.d),
        t: s.t,
        old_dirs: s.old_dirs!.map(share),
        old_stps: s.old_stps!.map(share),
        ro: s.ro!.slice(),
        H_diag: s.H_diag,
        prev_flat_grad: share(s.prev_flat_grad!),
        prev_loss: s.prev_loss,
      });
    }
    return { state: { 0: entry as Record<string, Tensor> }, param_groups: base.param_groups };
  }

  /** Loads a state dict from stateDict() (copies its tensors after checking every entry). */
  override loadStateDict(sd: OptimizerStateDict): void {
    const fn = 'LBFGS.loadStateDict';
    if (!isOptionsObject(sd) || !isOptionsObject(sd.state) || !Array.isArray(sd.param_groups)) {
      throw new Error(`${fn}: expected { state: {...}, param_groups: [...] } as returned by stateDict(), got ${describe(sd)}`);
    }
    const entry = (sd.state as Record<string, unknown>)['0'] ?? { func_evals: 0, n_iter: 0 };
    if (!isOptionsObject(entry)) throw new Error(`${fn}: state[0] must be an object, got ${describe(entry)}`);
    const e = entry as Record<string, unknown>;
    const n = this.params.reduce((a, p) => a + p.numel, 0);
    const vector = (k: string, v: unknown): Tensor => {
      if (!(v instanceof Tensor) || v.isDisposed || v.dtype !== this.dtype || v.ndim !== 1 || v.numel !== n) {
        throw new Error(`${fn}: state[0].${k} must be a ${this.dtype} Tensor of shape [${n}] (the parameters as one vector), got ${describe(v)}`);
      }
      return v;
    };
    const count = (k: string): number => {
      if (!isInteger(e[k]) || (e[k] as number) < 0) throw new Error(`${fn}: state[0].${k} must be a non-negative integer, got ${describe(e[k])}`);
      return e[k] as number;
    };
    const number = (k: string): number => {
      if (typeof e[k] !== 'number') throw new Error(`${fn}: state[0].${k} must be a number, got ${describe(e[k])}`);
      return e[k] as number;
    };
    for (const k of Object.keys(e)) if (!LOADABLE_KEYS.includes(k)) throw new Error(`${fn}: state[0] has an unknown entry '${k}'`);
    const next: LBFGSState = { func_evals: count('func_evals'), n_iter: count('n_iter') };
    if (e.d !== undefined) {
      const d = vector('d', e.d);
      const list = (k: string): Tensor[] => {
        if (!Array.isArray(e[k])) throw new Error(`${fn}: state[0].${k} must be an array of Tensors, got ${describe(e[k])}`);
        return (e[k] as unknown[]).map((v, i) => vector(`${k}[${i}]`, v));
      };
      const dirs = list('old_dirs');
      const stps = list('old_stps');
      const ro = e.ro;
      if (!Array.isArray(ro) || !ro.every((v) => typeof v === 'number') || ro.length !== dirs.length || stps.length !== dirs.length) {
        throw new Error(`${fn}: state[0].old_dirs, old_stps and ro must have one entry per stored pair (got ${dirs.length}, ${stps.length} and ${describe(ro)})`);
      }
      Object.assign(next, {
        d,
        t: number('t'),
        old_dirs: dirs,
        old_stps: stps,
        ro: (ro as number[]).slice(),
        H_diag: number('H_diag'),
        prev_flat_grad: vector('prev_flat_grad', e.prev_flat_grad),
        prev_loss: number('prev_loss'),
      });
    }
    // Hyper-parameters through the base class (it checks them and the group layout); it finds no per-parameter state.
    super.loadStateDict({ state: {}, param_groups: sd.param_groups });
    const copy = (t: Tensor) => t.detach().clone();
    const before = new Set(this.owned);
    tidy(() => {
      if (next.d) {
        next.d = copy(next.d);
        next.prev_flat_grad = copy(next.prev_flat_grad!);
        next.old_dirs = next.old_dirs!.map(copy);
        next.old_stps = next.old_stps!.map(copy);
      }
      this.lbfgs = next;
      this.adoptState(before);
    });
  }

  override dispose(): void {
    for (const t of this.owned) t.dispose();
    this.owned.clear();
    this.lbfgs = { func_evals: 0, n_iter: 0 };
    super.dispose();
  }
}
