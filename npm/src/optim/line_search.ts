// The strong-Wolfe line search of PyTorch 1.13's LBFGS (torch/optim/lbfgs.py, ported there from
// torch/optim's lswolfe.lua), over plain numbers: the objective returns the loss and the flat
// gradient at x + t·d, and its directional derivative gtd = g·d.
import type { Tensor } from '../tensor/tensor.js';

/** f(x + t·d), its flat gradient and g·d. */
export interface Probe {
  f: number;
  g: Tensor;
  gtd: number;
}

/** Minimizer of the cubic through (x1, f1, g1) and (x2, f2, g2), clamped to bounds. */
export function cubicInterpolate(x1: number, f1: number, g1: number, x2: number, f2: number, g2: number, bounds?: [number, number]): number {
  const [lo, hi] = bounds ?? (x1 <= x2 ? [x1, x2] : [x2, x1]);
  const d1 = g1 + g2 - (3 * (f1 - f2)) / (x1 - x2);
  const d2Square = d1 * d1 - g1 * g2;
  if (d2Square >= 0) {
    const d2 = Math.sqrt(d2Square);
    const minPos = x1 <= x2 ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2)) : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
    return Math.min(Math.max(minPos, lo), hi);
  }
  return (lo + hi) / 2;
}

export interface WolfeResult {
  f: number;
  g: Tensor;
  t: number;
  evals: number;
}

/**
 * Finds a step t along d satisfying the strong Wolfe conditions from (f, g, gtd) at t = 0 and
 * a first guess t, as PyTorch's _strong_wolfe (c1 = 1e-4, c2 = 0.9, at most 25 evaluations).
 */
export function strongWolfe(
  probe: (t: number) => Probe,
  t: number,
  dNorm: number,
  f: number,
  g: Tensor,
  gtd: number,
  toleranceChange: number,
  c1 = 1e-4,
  c2 = 0.9,
  maxLs = 25,
): WolfeResult {
  let next = probe(t);
  let evals = 1;
  let tPrev = 0;
  let prev: Probe = { f, g, gtd };
  let done = false;
  let iter = 0;
  let bracket: number[] = [];
  let bf: Probe[] = [];
  // Bracket an interval containing a point satisfying the conditions.
  while (iter < maxLs) {
    if (next.f > f + c1 * t * gtd || (iter > 1 && next.f >= prev.f)) {
      bracket = [tPrev, t];
      bf = [prev, next];
      break;
    }
    if (Math.abs(next.gtd) <= -c2 * gtd) {
      bracket = [t];
      bf = [next];
      done = true;
      break;
    }
    if (next.gtd >= 0) {
      bracket = [tPrev, t];
      bf = [prev, next];
      break;
    }
    const minStep = t + 0.01 * (t - tPrev);
    const maxStep = t * 10;
    const tmp = t;
    t = cubicInterpolate(tPrev, prev.f, prev.gtd, t, next.f, next.gtd, [minStep, maxStep]);
    tPrev = tmp;
    prev = next;
    next = probe(t);
    evals++;
    iter++;
  }
  if (iter === maxLs) {
    bracket = [0, t];
    bf = [{ f, g, gtd }, next];
  }
  // Zoom: refine the bracket until a point satisfies the conditions.
  let insufficientProgress = false;
  let [low, high] = bf[0]!.f <= bf[bf.length - 1]!.f ? [0, 1] : [1, 0];
  while (!done && iter < maxLs) {
    if (Math.abs(bracket[1]! - bracket[0]!) * dNorm < toleranceChange) break;
    t = cubicInterpolate(bracket[0]!, bf[0]!.f, bf[0]!.gtd, bracket[1]!, bf[1]!.f, bf[1]!.gtd);
    // Too close to a boundary (or past it): move 10% of the bracket inside.
    const hi = Math.max(...bracket);
    const lo = Math.min(...bracket);
    const eps = 0.1 * (hi - lo);
    if (Math.min(hi - t, t - lo) < eps) {
      if (insufficientProgress || t >= hi || t <= lo) {
        t = Math.abs(t - hi) < Math.abs(t - lo) ? hi - eps : lo + eps;
        insufficientProgress = false;
      } else {
        insufficientProgress = true;
      }
    } else {
      insufficientProgress = false;
    }
    next = probe(t);
    evals++;
    iter++;
    if (next.f > f + c1 * t * gtd || next.f >= bf[low]!.f) {
      // Armijo not satisfied, or not lower than the lowest point: the new high.
      bracket[high] = t;
      bf[high] = next;
      [low, high] = bf[0]!.f <= bf[1]!.f ? [0, 1] : [1, 0];
    } else {
      if (Math.abs(next.gtd) <= -c2 * gtd) done = true;
      else if (next.gtd * (bracket[high]! - bracket[low]!) >= 0) {
        // The old high becomes the new low.
        bracket[high] = bracket[low]!;
        bf[high] = bf[low]!;
      }
      bracket[low] = t;
      bf[low] = next;
    }
  }
  return { f: bf[low]!.f, g: bf[low]!.g, t: bracket[low]!, evals };
}
