// One optimizer step's float32 updates on the CPU, gathered over the parameters of a group and
// run as one pool job (par::segments) instead of one job per large parameter and none for the
// small ones: a nanoGPT-sized model's ~30 parameters are each below the size where a lone update
// is split, so before this its whole AdamW update ran on one thread; the MLP bench's ran as two
// jobs and four serial calls.
//
// Every element of a parameter is updated by the same kernel code whatever piece it lands in (the
// updates are elementwise, vector tails padded), so the result is bit-identical to updating each
// parameter whole, one after the other — provided the updates are independent: no buffer that one
// update writes may share memory with another buffer of the batch (two parameters sharing storage,
// a grad that is another parameter's storage). independent() checks that; a batch that fails it
// runs one parameter after the other, as before.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/parallel_kernels.h"

namespace sg::optim {

// The float32 buffers of one parameter's update, n elements each: the parameter and its state
// entries (written; unused slots null) and its grad (read).
struct UpdateBuffers {
  static constexpr int kMaxWritten = 4;  // Adam with amsgrad: p, exp_avg, exp_avg_sq, max_exp_avg_sq
  float* written[kMaxWritten] = {};
  const float* grad = nullptr;
  int64_t n = 0;
};

// True when no written buffer of the batch overlaps another of its buffers, except a buffer of
// the same update at the same address (an update may read and write one array elementwise).
bool independent(const std::vector<UpdateBuffers>& batch);

// Below this many elements in all, a batch runs on one thread: waking the other thread costs more
// than it saves. (The optimizer updates read and write 4-6 floats an element, about twice the
// memory traffic of a unary op, so they pay from half of par::kMinElementwise.)
constexpr int64_t kMinBatchElements = par::kMinElementwise / 2;

// Runs update(i, lo, hi) on elements [lo, hi) of every update i of the batch: as one pool job when
// the batch is independent(), else each update whole (update(i, 0, n)) in order, outside any
// parallel region, so that a large one may still split itself.
void run_updates(const std::vector<UpdateBuffers>& batch, par::SegmentFn update);

}  // namespace sg::optim
