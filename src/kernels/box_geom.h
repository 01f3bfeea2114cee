// Average pooling's geometry ("box means"), as LayerKernels::box_mean_f32 takes it: P planes of
// H × W → P planes of oH × oW, output (i, j) the mean of the input rows rows.start(i) ≤ h <
// rows.end(i) and columns cols.start(j) ≤ w < cols.end(j), divided by rows.count(i)·cols.count(j).
// Each dim's windows are given by a closed form (not a table), so that a GPU kernel computes
// them from a few integers: avg_pool's sliding window or adaptive_avg_pool's split.
#pragma once
#include <algorithm>
#include <cstdint>

namespace sg {

struct BoxDim {
  int64_t in = 1, out = 1;
  bool adaptive = false;                // adaptive: [⌊o·in/out⌋, ⌈(o+1)·in/out⌉)
  int64_t k = 1, s = 1, p = 0;          // sliding: [o·s − p, o·s − p + k) clipped to the input
  bool count_include_pad = true;        // sliding: divide by the window clipped to the padded input

  int64_t start(int64_t o) const { return adaptive ? o * in / out : std::max<int64_t>(o * s - p, 0); }
  int64_t end(int64_t o) const {
    return adaptive ? ((o + 1) * in + out - 1) / out : std::min(std::min(o * s - p + k, in + p), in);
  }
  int64_t count(int64_t o) const {
    if (adaptive || !count_include_pad) return std::max<int64_t>(end(o) - start(o), 0);
    return std::min(o * s - p + k, in + p) - (o * s - p);
  }
  static BoxDim single() { return BoxDim{}; }  // a 1-d pool's H dim: one row, one output
};

struct BoxGeom {
  int64_t P = 1;
  BoxDim rows, cols;
};

}  // namespace sg
