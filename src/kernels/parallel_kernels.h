// Multi-threaded wrappers around single-threaded kernels: each splits one Backend call into
// independent pieces, runs the given kernel on every piece through parallel_for
// (core/parallel.h), and returns once all are done. With one thread, or below the size where
// threads pay off, the kernel is called once on the whole input, exactly as before.
//
// How each splits, and what that means for the results:
//   unary, binary        contiguous output ranges (outermost broadcast dim, or 64-element-aligned
//                        ranges of a 1-d run): every element computed by the same code as on one
//                        thread, so results are bit-identical.
//   softmax, logsumexp   row ranges: bit-identical.
// These split from kMinElementwise elements; the reduced-dim cut of `reduce` and the GEMM from
// their sizes alone.
//   reduce               outer ranges (bit-identical), or, when there are fewer outer rows than
//                        threads, ranges of the reduced dim into float partials that the kernel
//                        itself then combines (the same op, so NaN/inf propagate as on one
//                        thread; sums and products round differently: equal within float
//                        tolerance).
//   gemm                 row blocks of C against op(B) packed once for all threads (column
//                        blocks, each packing its own, when M is small): every entry of C is
//                        summed in the same order as on one thread, so results are bit-identical.
//   max pool, backward   plane ranges (every plane computed as on one thread): bit-identical.
//   copy_strided         ranges of the outermost dim of source and destination that do not
//                        overlap: every element moved or cast as on one thread.
//   segments             many 1-d runs laid end to end, one job for all (the optimizer step over
//                        every parameter): elementwise ranges of each run, bit-identical.
//   (The convolutions split themselves: kernels/simd/conv.cpp.)
// The kernels must be reentrant (no shared scratch; gemm's packing buffers are thread_local).
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/parallel.h"
#include "kernels/backend.h"

namespace sg::par {

// Below these sizes a call stays on one thread: waking a worker costs microseconds (15–35 µs in
// wasm), so small ops would only get slower.
constexpr int64_t kMinElementwise = 1 << 16;  // elements written by unary/binary/softmax
constexpr int64_t kMinChunk = 1 << 14;        // elements per piece at least
constexpr int64_t kMinGemmWork = 1 << 21;     // m·n·k (= a 128³ product)
// Not lower while the workers are spinning either (workers_polling(): a job then costs about a
// microsecond): splitting 16K-64K-element ops then was measured on 2026-11-30 (Intel Xeon, load
// 1.1-1.5, tests/bench/thread_phases.mjs, the same tree built with and without it) at no gain:
// gpt_train's 2-thread step 11.49 ms with it and 11.29 without (187 pool jobs a step against 79),
// mlp_train 2.70 / 2.71 ms, cnn_train 7.51 / 7.51 ms; and on a loaded AMD EPYC Zen 5 GPT 11.84 /
// 11.42 ms. So it was dropped.

using UnaryFn = void (*)(Unary, float, const float*, float*, int64_t);
using BinaryFn = void (*)(Binary, const BroadcastPlan&, const float*, const float*, float*);
using ReduceFn = void (*)(Reduce, const float*, int64_t, int64_t, int64_t, float*);
using SoftmaxFn = void (*)(const float*, float*, int64_t, int64_t, bool);
using LogsumexpFn = void (*)(const float*, float*, int64_t, int64_t);
// The signature of gemm_f32_bias (bias[j] added to every row of C, nullptr: none; then act).
using GemmFn = void (*)(bool, bool, int64_t, int64_t, int64_t, float, const float*, int64_t,
                        const float*, int64_t, float, const float*, GemmAct, float*, int64_t);
// A GEMM kernel and the pieces of it the row split runs (simd_kernels.h describes them).
struct GemmKernels {
  GemmFn gemm;
  int64_t (*panel_width)();
  int (*tile_rows)();
  void (*pack_b)(bool trans_b, int64_t n, int64_t k, const float* b, int64_t ldb, int64_t q0, int64_t q1,
                 float* packed);
  void (*gemm_packed)(bool trans_a, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                      const float* packed_b, float beta, const float* bias, GemmAct act, float* c, int64_t ldc);
};

using CopyFn = void (*)(const DataKernels&, const StridedCopy&, const void*, void*);
using PoolFn = void (*)(const PoolGeom&, const float*, float*, int32_t*);
using PoolBackwardFn = void (*)(const PoolGeom&, const float*, const int32_t*, float*);

void unary(UnaryFn f, Unary op, float param, const float* x, float* y, int64_t n);
void binary(BinaryFn f, Binary op, const BroadcastPlan& plan, const float* a, const float* b,
            float* out);
void reduce(ReduceFn f, Reduce op, const float* x, int64_t outer, int64_t r, int64_t inner,
            float* out);
void softmax_rows(SoftmaxFn f, const float* x, float* y, int64_t rows, int64_t cols, bool log_);
void logsumexp_rows(LogsumexpFn f, const float* x, float* out, int64_t rows, int64_t cols);
// A copy (coalesced by core/copy.cpp) in ranges of its outermost dim, f(k, piece, ...) each; on
// one call when small, or when the source and destination bytes overlap (views of one buffer).
void copy_strided(CopyFn f, const DataKernels& k, const StridedCopy& c, const void* src, void* dst);
void max_pool2d(PoolFn f, const PoolGeom& g, const float* x, float* y, int32_t* idx);
void max_pool2d_backward(PoolBackwardFn f, const PoolGeom& g, const float* dy, const int32_t* idx, float* dx);
// Runs fn(lo, hi) over ranges of [0, n) (one call of [0, n) when n < min_elements total or on
// one thread), cut at multiples of 64 elements: for kernels that are elementwise over n
// (the optimizers' updates), whose every element is computed alike wherever the cut falls.
void elementwise(int64_t n, FunctionRef fn);
// Runs fn(lo, hi) over ranges of n independent items (channels, planes) of `work` elements each,
// about two ranges per thread with at least kMinChunk elements in each. Every item is computed
// whole by one call, so the results do not depend on the thread count.
void over_items(int64_t n, int64_t work, FunctionRef fn);
// A non-owning reference to a callable void(size_t i, int64_t lo, int64_t hi), as FunctionRef.
class SegmentFn {
 public:
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, SegmentFn>>>
  SegmentFn(F&& f)  // NOLINT: implicit on purpose, so lambdas pass straight through
      : obj_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* o, size_t i, int64_t lo, int64_t hi) {
          (*static_cast<std::remove_reference_t<F>*>(o))(i, lo, hi);
        }) {}
  void operator()(size_t i, int64_t lo, int64_t hi) const { call_(obj_, i, lo, hi); }

 private:
  void* obj_;
  void (*call_)(void*, size_t, int64_t, int64_t);
};
// Runs fn(i, lo, hi) over ranges of `count` independent 1-d runs (run i has sizes[i] elements,
// fn updates its elements [lo, hi)) as ONE parallel_for: the runs are laid end to end, each
// starting at a multiple of 64, and the whole is cut at multiples of 64, so every piece of a run
// starts at a multiple of 64 of that run, as elementwise() cuts a single one. For an update of
// many tensors at once (an optimizer step over every parameter): one pool job a call instead of
// one per tensor large enough to split, and tensors too small to split alone still share the
// threads. Serially — fn(i, 0, sizes[i]) for every non-empty run, in order — on one thread, inside
// a parallel region, or when the runs hold fewer than min_elements in all. A piece never spans
// runs: fn is called once per (run, piece) overlap.
void segments(const int64_t* sizes, size_t count, int64_t min_elements, SegmentFn fn);
void gemm(const GemmKernels& f, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
          const float* a, int64_t lda, const float* b, int64_t ldb, float beta, const float* bias,
          GemmAct act, float* c, int64_t ldc);

}  // namespace sg::par
