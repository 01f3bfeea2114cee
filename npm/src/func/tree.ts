// Argument and result trees of the function transforms (torch.func's pytrees): a Tensor, or
// arrays and plain objects of them; anything else is a leaf that is not a tensor.
import { Tensor } from '../tensor/tensor.js';

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype;
}

/** The tensors of a tree, in order (arrays by index, objects by key order). */
export function treeTensors(v: unknown, out: Tensor[] = []): Tensor[] {
  if (v instanceof Tensor) out.push(v);
  else if (Array.isArray(v)) for (const x of v) treeTensors(x, out);
  else if (isPlainObject(v)) for (const k of Object.keys(v)) treeTensors(v[k], out);
  return out;
}

/** The same tree with each tensor replaced by f(tensor, its index in treeTensors order). */
export function treeMap(v: unknown, f: (t: Tensor, i: number) => unknown): unknown {
  let i = 0;
  const go = (x: unknown): unknown => {
    if (x instanceof Tensor) return f(x, i++);
    if (Array.isArray(x)) return x.map(go);
    if (isPlainObject(x)) {
      const o: Record<string, unknown> = {};
      for (const k of Object.keys(x)) o[k] = go(x[k]);
      return o;
    }
    return x;
  };
  return go(v);
}

/** Whether a tree holds a leaf that is neither a tensor nor null/undefined. */
export function hasNonTensorLeaf(v: unknown): boolean {
  if (v instanceof Tensor || v === null || v === undefined) return false;
  if (Array.isArray(v)) return v.some(hasNonTensorLeaf);
  if (isPlainObject(v)) return Object.values(v).some(hasNonTensorLeaf);
  return true;
}
