// Running an optimizer step's updates together (update_batch.h).
#include "optim/update_batch.h"

#include <algorithm>
#include <cstdint>

namespace sg::optim {

bool independent(const std::vector<UpdateBuffers>& batch) {
  struct Range {
    uintptr_t lo, hi;
    size_t update;
    bool written;
  };
  std::vector<Range> ranges;
  ranges.reserve(batch.size() * (UpdateBuffers::kMaxWritten + 1));
  for (size_t i = 0; i < batch.size(); ++i) {
    const UpdateBuffers& b = batch[i];
    if (b.n <= 0) continue;
    const uintptr_t bytes = static_cast<uintptr_t>(b.n) * sizeof(float);
    for (float* w : b.written)
      if (w) ranges.push_back({reinterpret_cast<uintptr_t>(w), reinterpret_cast<uintptr_t>(w) + bytes, i, true});
    if (b.grad) ranges.push_back({reinterpret_cast<uintptr_t>(b.grad), reinterpret_cast<uintptr_t>(b.grad) + bytes, i, false});
  }
  // In address order, identical ranges of one update merged (an update may read and write one
  // array elementwise: p aliasing its own grad): then any overlap that involves a written range
  // is a conflict, found in one sweep from the furthest end reached so far by any range and by
  // the written ones.
  std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) {
    return a.lo != b.lo ? a.lo < b.lo : a.hi != b.hi ? a.hi < b.hi : a.update < b.update;
  });
  uintptr_t reach_any = 0, reach_written = 0;
  for (size_t k = 0; k < ranges.size();) {
    Range r = ranges[k++];
    for (; k < ranges.size() && ranges[k].lo == r.lo && ranges[k].hi == r.hi && ranges[k].update == r.update; ++k)
      r.written = r.written || ranges[k].written;
    if ((r.written ? reach_any : reach_written) > r.lo) return false;
    reach_any = std::max(reach_any, r.hi);
    if (r.written) reach_written = std::max(reach_written, r.hi);
  }
  return true;
}

void run_updates(const std::vector<UpdateBuffers>& batch, par::SegmentFn update) {
  if (!independent(batch)) {
    for (size_t i = 0; i < batch.size(); ++i)
      if (batch[i].n > 0) update(i, 0, batch[i].n);
    return;
  }
  std::vector<int64_t> sizes(batch.size());
  for (size_t i = 0; i < batch.size(); ++i) sizes[i] = batch[i].n;
  par::segments(sizes.data(), sizes.size(), kMinBatchElements, update);
}

}  // namespace sg::optim
