// Splitting of Backend calls over threads (see parallel_kernels.h for the rules and why).
#include "kernels/parallel_kernels.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/parallel.h"

namespace sg::par {
namespace {

// Cuts of a 1-d run land on multiples of 64 elements: every SIMD width (up to 16 lanes, and
// unrolled loops of 4 vectors) then sees the same full vectors as on one thread, and the one
// tail stays at the end of the array.
constexpr int64_t kAlign = 64;

bool threaded() { return num_threads() > 1 && !in_parallel_region(); }

// The fewest elements each piece of an n-element op gets, or 0 when the op stays on one thread
// (below kMinElementwise: see parallel_kernels.h for why not lower while the workers poll).
int64_t piece_min(int64_t n) {
  if (!threaded()) return 0;
  return n >= kMinElementwise ? kMinChunk : 0;
}

int64_t product(const std::vector<int64_t>& v, size_t from) {
  int64_t p = 1;
  for (size_t i = from; i < v.size(); ++i) p *= v[i];
  return p;
}

}  // namespace

void unary(UnaryFn f, Unary op, float param, const float* x, float* y, int64_t n) {
  const int64_t piece = piece_min(n);
  if (piece == 0) return f(op, param, x, y, n);
  const int64_t chunk = chunk_size(n, piece, kAlign, 2);
  parallel_for(0, n, chunk, [&](int64_t lo, int64_t hi) { f(op, param, x + lo, y + lo, hi - lo); });
}

void binary(BinaryFn f, Binary op, const BroadcastPlan& plan, const float* a, const float* b,
            float* out) {
  const int64_t piece = piece_min(product(plan.shape, 0));
  if (piece == 0) return f(op, plan, a, b, out);
  // Split the outermost dim longer than 1: the pieces are the same plan with that dim cut.
  size_t d = 0;
  while (d < plan.shape.size() && plan.shape[d] == 1) ++d;
  if (d == plan.shape.size()) return f(op, plan, a, b, out);
  const int64_t inner = product(plan.shape, d + 1);  // output elements per index of dim d
  const bool last = d + 1 == plan.shape.size();
  const int64_t grain = std::max<int64_t>(1, piece / inner);
  const int64_t chunk = chunk_size(plan.shape[d], grain, last ? kAlign : 1, 2);
  parallel_for(0, plan.shape[d], chunk, [&](int64_t lo, int64_t hi) {
    BroadcastPlan piece = plan;
    piece.shape[d] = hi - lo;
    f(op, piece, a + lo * plan.a_strides[d], b + lo * plan.b_strides[d], out + lo * inner);
  });
}

void reduce(ReduceFn f, Reduce op, const float* x, int64_t outer, int64_t r, int64_t inner,
            float* out) {
  const int64_t total = outer * r * inner;
  if (r <= 0 || inner <= 0) return f(op, x, outer, r, inner, out);
  const int64_t threads = num_threads();
  if (outer >= threads) {  // whole output rows per piece: each computed as on one thread
    const int64_t piece = piece_min(total);
    if (piece == 0) return f(op, x, outer, r, inner, out);
    const int64_t chunk = chunk_size(outer, std::max<int64_t>(1, piece / (r * inner)), 1, 2);
    parallel_for(0, outer, chunk, [&](int64_t lo, int64_t hi) {
      f(op, x + lo * r * inner, hi - lo, r, inner, out + lo * inner);
    });
    return;
  }
  // Few output rows: cut the reduced dim. Piece p of row o reduces rows [lo, hi) of r into
  // partial[p][inner]; the kernel then folds the partials ([1, pieces, inner] → [inner]). The
  // sums then depend on the cut, so it is made on size alone (never on workers_polling()).
  if (!threaded() || total < kMinElementwise) return f(op, x, outer, r, inner, out);
  const int64_t chunk = chunk_size(r, std::max<int64_t>(1, kMinChunk / inner), 1, 1);
  const int64_t pieces = (r + chunk - 1) / chunk;
  if (pieces < 2) return f(op, x, outer, r, inner, out);
  std::vector<float> partial(static_cast<size_t>(pieces * inner));
  for (int64_t o = 0; o < outer; ++o) {
    const float* xo = x + o * r * inner;
    parallel_for(0, r, chunk, [&](int64_t lo, int64_t hi) {
      f(op, xo + lo * inner, 1, hi - lo, inner, partial.data() + (lo / chunk) * inner);
    });
    f(op, partial.data(), 1, pieces, inner, out + o * inner);
  }
}

void softmax_rows(SoftmaxFn f, const float* x, float* y, int64_t rows, int64_t cols, bool log_) {
  const int64_t piece = rows < 2 ? 0 : piece_min(rows * cols);
  if (piece == 0) return f(x, y, rows, cols, log_);
  const int64_t chunk = chunk_size(rows, std::max<int64_t>(1, piece / cols), 1, 2);
  parallel_for(0, rows, chunk, [&](int64_t lo, int64_t hi) {
    f(x + lo * cols, y + lo * cols, hi - lo, cols, log_);
  });
}

void logsumexp_rows(LogsumexpFn f, const float* x, float* out, int64_t rows, int64_t cols) {
  const int64_t piece = rows < 2 ? 0 : piece_min(rows * cols);
  if (piece == 0) return f(x, out, rows, cols);
  const int64_t chunk = chunk_size(rows, std::max<int64_t>(1, piece / cols), 1, 2);
  parallel_for(0, rows, chunk, [&](int64_t lo, int64_t hi) {
    f(x + lo * cols, out + lo, hi - lo, cols);
  });
}

// Plane ranges of a pool: at least kMinChunk input elements per piece.
template <class F>
void over_planes(const PoolGeom& g, F&& run) {
  const int64_t plane = std::max<int64_t>(g.H * g.W, 1);
  if (!threaded() || g.P < 2 || g.P * plane < kMinElementwise) return run(g, 0);
  const int64_t chunk = chunk_size(g.P, std::max<int64_t>(1, kMinChunk / plane), 1, 2);
  parallel_for(0, g.P, chunk, [&](int64_t lo, int64_t hi) {
    PoolGeom piece = g;
    piece.P = hi - lo;
    run(piece, lo);
  });
}

void max_pool2d(PoolFn f, const PoolGeom& g, const float* x, float* y, int32_t* idx) {
  const int64_t in = g.H * g.W, out = g.oH * g.oW;
  // idx may be null (no gradient will be taken: the values alone).
  over_planes(g, [&](const PoolGeom& piece, int64_t p0) {
    f(piece, x + p0 * in, y + p0 * out, idx ? idx + p0 * out : nullptr);
  });
}

void max_pool2d_backward(PoolBackwardFn f, const PoolGeom& g, const float* dy, const int32_t* idx, float* dx) {
  const int64_t in = g.H * g.W, out = g.oH * g.oW;
  over_planes(g, [&](const PoolGeom& piece, int64_t p0) { f(piece, dy + p0 * out, idx + p0 * out, dx + p0 * in); });
}

void elementwise(int64_t n, FunctionRef fn) {
  const int64_t piece = piece_min(n);
  if (piece == 0) return fn(0, n);
  parallel_for(0, n, chunk_size(n, piece, kAlign, 2), fn);
}

void over_items(int64_t n, int64_t work, FunctionRef fn) {
  parallel_for(0, n, std::max<int64_t>(chunk_size(n, 1, 1, 2), kMinChunk / std::max<int64_t>(work, 1)), fn);
}

void segments(const int64_t* sizes, size_t count, int64_t min_elements, SegmentFn fn) {
  int64_t total = 0;
  for (size_t i = 0; i < count; ++i) total += sizes[i];
  if (!threaded() || total < min_elements) {
    for (size_t i = 0; i < count; ++i)
      if (sizes[i] > 0) fn(i, 0, sizes[i]);
    return;
  }
  // start[i]: where run i begins in the laid-out whole (start[count]: its length).
  std::vector<int64_t> start(count + 1, 0);
  for (size_t i = 0; i < count; ++i) start[i + 1] = start[i] + (std::max<int64_t>(sizes[i], 0) + kAlign - 1) / kAlign * kAlign;
  const int64_t span = start[count];
  parallel_for(0, span, chunk_size(span, kMinChunk, kAlign, 2), [&](int64_t lo, int64_t hi) {
    // The last run starting at or before lo (empty runs share their start with the next one).
    size_t i = static_cast<size_t>(std::upper_bound(start.begin(), start.end(), lo) - start.begin()) - 1;
    for (; i < count && start[i] < hi; ++i) {
      const int64_t a = std::max(lo, start[i]) - start[i], b = std::min(hi - start[i], sizes[i]);
      if (a < b) fn(i, a, b);
    }
  });
}

namespace {
// The bytes [first, last) a strided view of `shape` at `base` touches.
std::pair<uintptr_t, uintptr_t> extent(const void* base, const std::vector<int64_t>& shape,
                                       const std::vector<int64_t>& strides, size_t esize) {
  int64_t lo = 0, hi = 0;
  for (size_t d = 0; d < shape.size(); ++d) (strides[d] < 0 ? lo : hi) += (shape[d] - 1) * strides[d];
  const auto at = reinterpret_cast<uintptr_t>(base);
  return {at + uintptr_t(lo) * esize, at + uintptr_t(hi + 1) * esize};
}

// True when no two indices of the view address one element (dims taken by increasing stride, each
// stride steps past everything the smaller ones reach): an as_strided or expanded destination
// that writes an element twice keeps its serial order (the last write wins) by staying serial.
bool distinct_elements(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (|stride|, size) of the dims longer than 1
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] > 1) dims.emplace_back(strides[d] < 0 ? -strides[d] : strides[d], shape[d]);
  std::sort(dims.begin(), dims.end());
  int64_t reach = 0;  // the largest offset the dims so far reach
  for (const auto& [stride, size] : dims) {
    if (stride <= reach) return false;
    reach += (size - 1) * stride;
  }
  return true;
}
}  // namespace

void copy_strided(CopyFn f, const DataKernels& k, const StridedCopy& c, const void* src, void* dst) {
  if (c.shape.empty()) return f(k, c, src, dst);
  int64_t numel = 1;
  for (int64_t s : c.shape) numel *= s;
  const int64_t piece = numel > 0 ? piece_min(numel) : 0;
  if (piece == 0) return f(k, c, src, dst);
  const size_t ses = dtype_size(c.src_dtype), des = dtype_size(c.dst_dtype);
  // Views of one buffer may overlap (the serial copy moves runs with memmove, in order): split
  // only copies whose source and destination bytes are apart.
  const auto [s0, s1] = extent(src, c.shape, c.src_strides, ses);
  const auto [d0, d1] = extent(dst, c.shape, c.dst_strides, des);
  if ((s0 < d1 && d0 < s1) || !distinct_elements(c.shape, c.dst_strides)) return f(k, c, src, dst);
  // Ranges of the outermost dim (a contiguous copy is one dim: cut at multiples of 64).
  const int64_t inner = numel / c.shape[0];
  const int64_t chunk = chunk_size(c.shape[0], std::max<int64_t>(1, piece / inner), c.shape.size() == 1 ? kAlign : 1, 2);
  parallel_for(0, c.shape[0], chunk, [&](int64_t lo, int64_t hi) {
    StridedCopy part = c;
    part.shape[0] = hi - lo;
    f(k, part, static_cast<const char*>(src) + lo * c.src_strides[0] * int64_t(ses),
      static_cast<char*>(dst) + lo * c.dst_strides[0] * int64_t(des));
  });
}

// op(B) packed for a row split: one buffer per calling thread (a thread splits one GEMM at a
// time), aligned for the widest vectors; one larger than kKeepPackedB floats is freed after
// its call instead of being held until the thread ends.
class PackedB {
 public:
  float* get(int64_t n) {
    if (n > cap_) {
      mem_.reset(new float[static_cast<size_t>(n) + kAlignFloats]);
      cap_ = n;
    }
    const uintptr_t at = reinterpret_cast<uintptr_t>(mem_.get());
    return reinterpret_cast<float*>((at + kAlignFloats * 4 - 1) & ~uintptr_t(kAlignFloats * 4 - 1));
  }
  void trim() {
    if (cap_ > kKeepPackedB) {
      mem_.reset();
      cap_ = 0;
    }
  }

 private:
  static constexpr int64_t kAlignFloats = 16;       // 64 bytes
  static constexpr int64_t kKeepPackedB = 1 << 20;  // 4 MiB: a 1024 × 1024 op(B)
  std::unique_ptr<float[]> mem_;
  int64_t cap_ = 0;
};

void gemm(const GemmKernels& f, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
          const float* a, int64_t lda, const float* b, int64_t ldb, float beta, const float* bias,
          GemmAct act, float* c, int64_t ldc) {
  const int64_t threads = num_threads();
  if (!threaded() || m <= 0 || n <= 0 || k <= 0 || m * n * k < kMinGemmWork) {
    return f.gemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, bias, act, c, ldc);
  }
  const int64_t mr = f.tile_rows();
  if (m >= 2 * mr * threads) {
    // Row blocks of C, cut at whole tiles, all against one packed op(B): packed once (its
    // panels split over the threads) instead of once per block, so the blocks can be as many
    // as balancing the threads needs.
    thread_local PackedB packed_b;
    const int64_t nr = f.panel_width(), panels = (n + nr - 1) / nr;
    float* packed = packed_b.get(panels * nr * k);
    parallel_for(0, panels, chunk_size(panels, std::max<int64_t>(1, kMinChunk / (nr * k))), [&](int64_t lo, int64_t hi) {
      f.pack_b(trans_b, n, k, b, ldb, lo, hi, packed);
    });
    // About two row blocks per thread, claimed as each finishes: with one block each, a worker
    // that starts late (woken from sleep, 15–35 µs in wasm, or preempted) left the caller idle
    // for all of its delay at the end of the job; with two, for about half of it. Each block
    // streams the shared packed op(B) once more, a few % of a block's arithmetic at these sizes.
    // One block per thread while every worker is spinning for work (it starts at once): whole
    // tiles cut into blocks one tile apart, where two a thread left one thread a whole block
    // more (a weight gradient's 64 rows in tiles of 5: blocks of 20, 20, 20 and 4 rows, one
    // thread doing 40 of them; one a thread: 35 and 29). Same sums either way.
    const int per_thread = workers_polling() ? 1 : 2;
    parallel_for(0, m, chunk_size(m, mr, mr, per_thread), [&](int64_t lo, int64_t hi) {
      const float* ap = trans_a ? a + lo : a + lo * lda;  // rows lo.. of op(A)
      f.gemm_packed(trans_a, hi - lo, n, k, alpha, ap, lda, packed, beta, bias, act, c + lo * ldc, ldc);
    });
    packed_b.trim();
  } else if (n >= 64 * threads) {
    // Few rows: column blocks, each packing its own columns of op(B) (and all of the small op(A)).
    // Multiples of 32 columns: whole 2-vector panels up to 16 lanes.
    const int64_t chunk = chunk_size(n, 64, 32, 1);
    parallel_for(0, n, chunk, [&](int64_t lo, int64_t hi) {
      const float* bp = trans_b ? b + lo * ldb : b + lo;  // columns lo.. of op(B)
      f.gemm(trans_a, trans_b, m, hi - lo, k, alpha, a, lda, bp, ldb, beta, bias ? bias + lo : nullptr, act, c + lo, ldc);
    });
  } else {
    f.gemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, bias, act, c, ldc);
  }
}

}  // namespace sg::par
