// forwardBlocks: the loop over a model's stack of blocks (a ModuleList of transformer layers),
// each block run in a tidy of its own. The models' forwards (models/gpt.ts, gpt2_hf.ts, llama.ts,
// bert.ts) share it, so that they free memory alike.
//
// Why: a block makes tensors that its backward never reads (attention scores before the softmax,
// a projection's output before the residual add, ...). Autograd holds what it saved on the C++
// side, whatever happens to the JS handles, so those others can be disposed as soon as the block
// returns. In one tidy around the whole stack they live until the last block returns: the peak of
// a training forward holds every block's unsaved intermediates at once, with this loop one
// block's. The output of block i is disposed once block i + 1 has run (only that block reads it;
// autograd keeps it if it saved it), so without gradients (inference, the prompt of generate)
// only about one block's tensors are alive at a time.
import { tidy } from '../runtime/memory.js';
import type { Tensor } from '../tensor/tensor.js';
import type { ModuleList } from './container.js';
import type { Module } from './module.js';

/**
 * x ← run(block, x, i) for the blocks of `blocks` in order, each call in a tidy of its own;
 * returns the last x. `run` calls the block (plainly, under sg.utils.checkpoint, with a cache):
 * tensors it reads other than x (masks, rotary tables, a cache) must outlive the loop.
 */
export function forwardBlocks(blocks: ModuleList, x: Tensor, run: (block: Module, x: Tensor, i: number) => Tensor): Tensor {
  let h = x;
  blocks.children().forEach((block, i) => {
    const next = tidy(() => run(block, h, i));
    // The previous block's output (never the caller's x): no later block reads it.
    if (h !== x && next !== h) h.dispose();
    h = next;
  });
  return h;
}
