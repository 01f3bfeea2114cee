// The next-token filters of Hugging Face transformers' generate (generation/logits_process.py), on
// scores [B, V]: RepetitionPenaltyLogitsProcessor (greedy and sampling), then, when sampling, the
// warpers in HF's order: TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper. A filtered
// token's score is −∞, as HF's filter_value. HF's GenerationConfig defaults top_k to 50; here a
// filter runs only when its option is given.
import { functionOps, ops } from '../tensor/ops.js';
import { scatterGatherOps } from '../tensor/scatter_gather.js';
import { sortingOps } from '../tensor/sorting.js';
import { reductionOps } from '../tensor/reductions.js';
import { zeros } from '../tensor/creation.js';
import type { Tensor } from '../tensor/tensor.js';

export interface LogitsFilters {
  repetitionPenalty: number | null;
  /** The warpers below apply only when sampling. */
  doSample: boolean;
  temperature: number;
  topK: number | null;
  topP: number | null;
}

/** scores [B, V] (float32) and the ids so far [B, T] (int32) → the filtered scores [B, V]. */
export function processLogits(scores: Tensor, ids: Tensor, f: LogitsFilters): Tensor {
  let s = scores;
  if (f.repetitionPenalty !== null && f.repetitionPenalty !== 1) {
    // score < 0 → score·penalty, else score/penalty, for every token already in ids.
    const seen = ops.gather(s, 1, ids);
    const penalized = functionOps.where(seen.lt(0), seen.mul(f.repetitionPenalty), seen.div(f.repetitionPenalty));
    s = scatterGatherOps.scatter(s, 1, ids, penalized);
  }
  if (!f.doSample) return s;
  if (f.temperature !== 1) s = s.div(f.temperature);
  const V = s.shape[s.ndim - 1]!;
  if (f.topK !== null && f.topK > 0 && f.topK < V) {
    const kth = sortingOps.topk(s, f.topK).values.narrow(-1, f.topK - 1, 1);
    s = ops.maskedFill(s, s.lt(kth), -Infinity);
  }
  if (f.topP !== null && f.topP < 1) {
    // Ascending sort; drop the tokens whose cumulative probability stays ≤ 1 − topP, always keeping the most likely.
    const sorted = sortingOps.sort(s, -1);
    const cum = reductionOps.cumsum(sorted.values.softmax(-1), -1);
    const B = s.shape[0]!;
    let remove = cum.le(1 - f.topP).to('float32');
    remove = functionOps.cat([remove.narrow(-1, 0, V - 1), zeros([B, 1], { device: s.device })], -1);
    const back = scatterGatherOps.scatter(zeros([B, V], { device: s.device }), 1, sorted.indices, remove);
    s = ops.maskedFill(s, back.gt(0.5), -Infinity);
  }
  return s;
}
