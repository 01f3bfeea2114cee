// The SIMD backend split over 2, 3 and 4 threads (kernels/parallel_kernels.h, simd/conv.cpp)
// against the same backend on one thread, on odd sizes above the split thresholds:
// elementwise ops, softmax, logsumexp, max pooling, the optimizer updates (one buffer, or many
// parameters' buffers as one pool job: par::segments, optim/update_batch.h) and the
// convolution's forward and data-gradient passes, and the GEMM must be bit-identical; reductions and the weight gradient equal
// within float tolerance (they sum in another order). Each case also checks
// that the pool really ran jobs, so a split that silently stayed serial fails here.
// Also built into simdgrad_tsan_tests (ThreadSanitizer).
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/parallel.h"
#include "kernels/backend.h"
#include "kernels/parallel_kernels.h"
#include "optim/optim_kernels.h"
#include "optim/update_batch.h"
#include "test_util.h"

namespace {

using sg::Binary;
using sg::BroadcastPlan;
using sg::Reduce;
using sg::Unary;

const sg::Backend& S() { return sg::simd_backend(); }

using sgtest::uniform;

// out = f() computed on one thread and on `threads` threads; the second run must have used
// the pool at least once.
std::vector<float> run_with(int threads, size_t out_size, const std::function<void(float*)>& f) {
  std::vector<float> out(out_size, -7.0f);
  sg::set_num_threads(threads);
  const uint64_t jobs0 = sg::parallel_jobs();
  f(out.data());
  const bool used_pool = sg::parallel_jobs() > jobs0;
  sg::set_num_threads(1);
  if (threads > 1) CHECK_MESSAGE(used_pool, "the threaded run never used the pool");
  return out;
}

// Bitwise equality (NaN payloads included).
int64_t bit_mismatches(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  int64_t bad = 0;
  for (size_t i = 0; i < a.size(); ++i) bad += std::memcmp(&a[i], &b[i], sizeof(float)) != 0;
  return bad;
}

// |a − b| ≤ tol[i] (NaN must match NaN, inf the same inf).
int64_t tol_mismatches(const std::vector<float>& a, const std::vector<float>& b,
                       const std::function<double(size_t)>& tol) {
  REQUIRE(a.size() == b.size());
  int64_t bad = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) || std::isnan(b[i])) {
      bad += !(std::isnan(a[i]) && std::isnan(b[i]));
    } else if (std::isinf(a[i]) || std::isinf(b[i])) {
      bad += a[i] != b[i];
    } else {
      bad += std::fabs(double(a[i]) - double(b[i])) > tol(i);
    }
  }
  return bad;
}

}  // namespace

TEST_CASE("parallel kernels: unary ops are bit-identical on 1..4 threads" * doctest::skip(!sg::threads_supported())) {
  for (int64_t n : {int64_t(65536), int64_t(65536 + 13), int64_t(200003)}) {
    std::vector<float> x = uniform(n, -30.0f, 30.0f, 1);
    x[5] = std::numeric_limits<float>::quiet_NaN();
    x[static_cast<size_t>(n - 1)] = std::numeric_limits<float>::infinity();
    for (Unary op : {Unary::Exp, Unary::Tanh, Unary::Sin, Unary::GeluErf, Unary::Relu}) {
      auto f = [&](float* y) { S().unary_f32(op, 0.0f, x.data(), y, n); };
      const std::vector<float> one = run_with(1, size_t(n), f);
      for (int t = 2; t <= 4; ++t) {
        INFO("n " << n << " op " << int(op) << " threads " << t);
        CHECK(bit_mismatches(run_with(t, size_t(n), f), one) == 0);
      }
    }
  }
}

TEST_CASE("parallel kernels: broadcast binary ops are bit-identical on 1..4 threads" * doctest::skip(!sg::threads_supported())) {
  struct Case {
    std::vector<int64_t> shape, sa, sb;
    int64_t na, nb;
  };
  const std::vector<Case> cases = {
      {{70001}, {1}, {1}, 70001, 70001},                         // one 1-d run
      {{1, 999, 77}, {0, 77, 1}, {0, 77, 1}, 999 * 77, 999 * 77},  // collapses to 1-d
      {{301, 1, 257}, {257, 0, 1}, {0, 0, 1}, 301 * 257, 257},     // row vector broadcast
      {{3, 229, 101}, {101, 0, 1}, {0, 101, 1}, 3 * 101, 229 * 101},
      {{2, 40000}, {1, 2}, {40000, 1}, 80000, 80000},  // a strided: the scalar path
  };
  for (const Case& c : cases) {
    const BroadcastPlan plan{c.shape, c.sa, c.sb};
    int64_t numel = 1;
    for (int64_t s : c.shape) numel *= s;
    const std::vector<float> a = uniform(c.na, -3.0f, 3.0f, 2);
    const std::vector<float> b = uniform(c.nb, 0.5f, 3.0f, 3);
    for (Binary op : {Binary::Add, Binary::Div, Binary::Pow, Binary::Maximum, Binary::GeluErfBackward}) {
      auto f = [&](float* out) { S().binary_f32(op, plan, a.data(), b.data(), out); };
      const std::vector<float> one = run_with(1, size_t(numel), f);
      for (int t = 2; t <= 4; ++t) {
        INFO("numel " << numel << " op " << int(op) << " threads " << t);
        CHECK(bit_mismatches(run_with(t, size_t(numel), f), one) == 0);
      }
    }
  }
}

TEST_CASE("parallel kernels: reductions equal within tolerance (max/min exactly) on 1..4 threads" * doctest::skip(!sg::threads_supported())) {
  struct Case {
    int64_t outer, r, inner;
  };
  // Many outer rows (split by rows), one huge row, and few rows with a long reduced dim.
  for (Case c : {Case{1000, 3, 71}, Case{1, 300007, 1}, Case{1, 30011, 5}, Case{3, 40009, 1}}) {
    const int64_t n = c.outer * c.r * c.inner;
    std::vector<float> x = uniform(n, -1.0f, 1.0f, 4);
    std::vector<float> near_one(x);
    for (float& v : near_one) v = 1.0f + v * 1e-5f;
    for (Reduce op : {Reduce::Sum, Reduce::Prod, Reduce::Max, Reduce::Min}) {
      const std::vector<float>& in = op == Reduce::Prod ? near_one : x;
      auto f = [&](float* out) { S().reduce_f32(op, in.data(), c.outer, c.r, c.inner, out); };
      const size_t m = size_t(c.outer * c.inner);
      const std::vector<float> one = run_with(1, m, f);
      for (int t = 2; t <= 4; ++t) {
        INFO("shape " << c.outer << "x" << c.r << "x" << c.inner << " op " << int(op) << " threads " << t);
        const std::vector<float> got = run_with(t, m, f);
        if (op == Reduce::Max || op == Reduce::Min) {
          CHECK(bit_mismatches(got, one) == 0);
        } else if (op == Reduce::Sum) {  // |error| ≤ a few float roundings of Σ|x|
          CHECK(tol_mismatches(got, one, [&](size_t) { return 4e-7 * double(c.r) + 1e-6; }) == 0);
        } else {
          CHECK(tol_mismatches(got, one, [&](size_t i) { return 1e-4 * std::fabs(one[i]); }) == 0);
        }
      }
    }
  }
  // A NaN in one piece of a split reduced dim reaches the result.
  std::vector<float> x = uniform(300007, -1.0f, 1.0f, 5);
  x[250000] = std::numeric_limits<float>::quiet_NaN();
  for (Reduce op : {Reduce::Sum, Reduce::Max, Reduce::Min}) {
    auto f = [&](float* out) { S().reduce_f32(op, x.data(), 1, 300007, 1, out); };
    CHECK(std::isnan(run_with(3, 1, f)[0]));
  }
}

TEST_CASE("parallel kernels: softmax and logsumexp rows are bit-identical on 1..4 threads" * doctest::skip(!sg::threads_supported())) {
  for (int64_t cols : {int64_t(3), int64_t(1001)}) {
    const int64_t rows = 70001 / cols + 7;
    const std::vector<float> x = uniform(rows * cols, -20.0f, 20.0f, 6);
    for (bool log_ : {false, true}) {
      auto f = [&](float* y) { S().softmax_rows_f32(x.data(), y, rows, cols, log_); };
      const std::vector<float> one = run_with(1, size_t(rows * cols), f);
      for (int t = 2; t <= 4; ++t) CHECK(bit_mismatches(run_with(t, size_t(rows * cols), f), one) == 0);
    }
    auto g = [&](float* out) { S().logsumexp_rows_f32(x.data(), out, rows, cols); };
    const std::vector<float> one = run_with(1, size_t(rows), g);
    for (int t = 2; t <= 4; ++t) CHECK(bit_mismatches(run_with(t, size_t(rows), g), one) == 0);
  }
}

TEST_CASE("parallel kernels: gemm (with and without bias and activation) in row and column blocks is bit-identical to one thread and near the reference" * doctest::skip(!sg::threads_supported())) {
  struct Case {
    int64_t m, n, k;
  };
  // Row split (tall; op(B) packed once for all threads), column split (few rows: 1031 columns
  // are five column blocks and k = 601 two depth blocks, 301 + 300, under plain products' 512-deep
  // blocking), both transposes, padded leading dims, beta.
  for (Case c : {Case{257, 129, 65}, Case{5, 1031, 601}, Case{130, 67, 301}, Case{100, 530, 300}}) {
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb) {
        const int64_t lda = (ta ? c.m : c.k) + 3, ldb = (tb ? c.k : c.n) + 1, ldc = c.n + 2;
        const std::vector<float> a = uniform((ta ? c.k : c.m) * lda, -1.0f, 1.0f, 7);
        const std::vector<float> b = uniform((tb ? c.n : c.k) * ldb, -1.0f, 1.0f, 8);
        const std::vector<float> c0 = uniform(c.m * ldc, -1.0f, 1.0f, 9);
        const float alpha = 0.75f, beta = ta ? 0.0f : -1.5f;
        // Linear's fused bias on half the variants: column blocks must offset it.
        const std::vector<float> bias = uniform(c.n, -1.0f, 1.0f, 10);
        const float* bp = ta != tb ? bias.data() : nullptr;
        // And its fused activation on the others (applied after the whole sum in every block).
        const sg::GemmAct act = ta == tb ? (ta ? sg::GemmAct::GeluTanh : sg::GemmAct::Relu) : sg::GemmAct::None;
        auto f_on = [&](const sg::Backend& be) {
          return [&, &be = be](float* out) {
            std::memcpy(out, c0.data(), c0.size() * sizeof(float));
            be.gemm_f32_bias(ta, tb, c.m, c.n, c.k, alpha, a.data(), lda, b.data(), ldb, beta, bp, act, out, ldc);
          };
        };
        const std::vector<float> ref = run_with(1, c0.size(), f_on(sg::reference_backend()));
        const std::vector<float> one = run_with(1, c0.size(), f_on(S()));
        // The γ_k bound: (k + 2)·u·(|alpha| Σ|a||b| + |beta c|) with Σ|a||b| ≤ k (|a|, |b| ≤ 1).
        // (An activation passes it on with slope ≤ 1.13 and adds its own ≤ 6e-7 relative.)
        auto tol = [&](size_t i) {
          const double sum = double(c.k + 2) * 1.2e-7 * (alpha * c.k + std::fabs(beta) + 1.0);
          return act == sg::GemmAct::None ? sum : 1.13 * sum + 6e-7 * std::fabs(double(ref[i])) + 3e-7;
        };
        for (int t = 1; t <= 4; ++t) {
          INFO("gemm " << c.m << "x" << c.n << "x" << c.k << " ta " << ta << " tb " << tb << " threads " << t);
          const std::vector<float> got = run_with(t, c0.size(), f_on(S()));
          CHECK(bit_mismatches(got, one) == 0);
          CHECK(tol_mismatches(got, ref, tol) == 0);
          // Padding between rows of C (columns n..ldc) is never written.
          int64_t touched = 0;
          for (int64_t i = 0; i < c.m; ++i)
            for (int64_t j = c.n; j < ldc; ++j) touched += got[size_t(i * ldc + j)] != c0[size_t(i * ldc + j)];
          CHECK(touched == 0);
        }
      }
  }
}

TEST_CASE("parallel kernels: convolution forward, input and weight gradients split over the batch" * doctest::skip(!sg::threads_supported())) {
  sg::ConvGeom g;
  // 19 images of 899 positions, dealt out to the threads image by image.
  g.N = 19;
  g.C = 8;
  g.H = 31;
  g.W = 29;
  g.O = 16;
  g.groups = 2;
  g.kH = g.kW = 3;
  g.pH = g.pW = 1;
  g.oH = 31;
  g.oW = 29;
  const std::vector<float> x = uniform(g.N * g.C * g.H * g.W, -1.0f, 1.0f, 10);
  const std::vector<float> w = uniform(g.O * g.Cg() * g.kH * g.kW, -1.0f, 1.0f, 11);
  const std::vector<float> bias = uniform(g.O, -1.0f, 1.0f, 12);
  const std::vector<float> dy = uniform(g.N * g.O * g.L(), -1.0f, 1.0f, 13);
  const size_t ny = size_t(g.N * g.O * g.L()), nx = x.size(), nw = w.size();
  auto fwd = [&](float* y) { S().conv2d_f32(g, x.data(), w.data(), bias.data(), sg::GemmAct::Relu, y); };
  auto dx = [&](float* out) { S().conv2d_backward_data_f32(g, dy.data(), w.data(), nullptr, out); };
  auto dw = [&](float* out) { S().conv2d_backward_weight_f32(g, x.data(), dy.data(), out); };
  // Stride 2 takes the other data-gradient path (GEMM, then col2im).
  sg::ConvGeom s2 = g;
  s2.sH = s2.sW = 2;
  s2.oH = 16;
  s2.oW = 15;
  const std::vector<float> dy2 = uniform(s2.N * s2.O * s2.L(), -1.0f, 1.0f, 16);
  auto dx2 = [&](float* out) { S().conv2d_backward_data_f32(s2, dy2.data(), w.data(), bias.data(), out); };
  const std::vector<float> y1 = run_with(1, ny, fwd), dx1 = run_with(1, nx, dx), dw1 = run_with(1, nw, dw);
  const std::vector<float> dx21 = run_with(1, nx, dx2);
  // dw sums N·L = 17081 products: 1e-5 of Σ|a||b| ≤ 17081, about 200 float roundings of values
  // of size ~130 (a lost or doubled image moves it by ~10).
  for (int t = 2; t <= 4; ++t) {
    INFO("threads " << t);
    CHECK(run_with(t, ny, fwd) == y1);  // every output by the same GEMM code: bit-identical
    CHECK(run_with(t, nx, dx) == dx1);
    CHECK(run_with(t, nx, dx2) == dx21);
    CHECK(tol_mismatches(run_with(t, nw, dw), dw1, [](size_t) { return 1e-5 * 17081; }) == 0);
    // dw's pieces (about four a thread, claimed as each finishes) depend on the thread count
    // alone, never on which thread took which: the same sums on every run.
    CHECK(run_with(t, nw, dw) == run_with(t, nw, dw));
  }
  // One image: its columns are split instead (32 output channels, 899 positions).
  sg::ConvGeom h = g;
  h.N = 1;
  h.C = 64;
  h.O = 32;
  h.groups = 1;
  const std::vector<float> x1 = uniform(h.C * h.H * h.W, -1.0f, 1.0f, 14);
  const std::vector<float> w1 = uniform(h.O * h.C * 9, -1.0f, 1.0f, 15);
  auto fwd1 = [&](float* y) { S().conv2d_f32(h, x1.data(), w1.data(), nullptr, sg::GemmAct::None, y); };
  const std::vector<float> y_one = run_with(1, size_t(h.O * h.L()), fwd1);
  CHECK(run_with(2, size_t(h.O * h.L()), fwd1) == y_one);
}

TEST_CASE("parallel kernels: max pool and its backward split over planes are bit-identical on 1..4 threads" * doctest::skip(!sg::threads_supported())) {
  // 3·37 planes of 23 × 29: the 2×2/2 kernel (odd width: a border column) and a 3×3 window
  // with stride 2, padding 1 and dilation 1 (the general path).
  for (const sg::PoolGeom& g : {sg::PoolGeom{111, 23, 29, 11, 14, 2, 2, 2, 2, 0, 0, 1, 1},
                                sg::PoolGeom{111, 23, 29, 12, 15, 3, 3, 2, 2, 1, 1, 1, 1}}) {
    std::vector<float> x = uniform(g.P * g.H * g.W, -1.0f, 1.0f, 30);
    x[17] = std::numeric_limits<float>::quiet_NaN();
    const size_t ny = size_t(g.P * g.oH * g.oW), nx = x.size();
    const std::vector<float> dy = uniform(int64_t(ny), -1.0f, 1.0f, 31);
    std::vector<int32_t> idx(ny);
    auto fwd = [&](float* y) { S().max_pool2d_f32(g, x.data(), y, idx.data()); };
    const std::vector<float> y1 = run_with(1, ny, fwd);
    const std::vector<int32_t> idx1 = idx;
    auto bwd = [&](float* dx) { S().max_pool2d_backward_f32(g, dy.data(), idx1.data(), dx); };
    const std::vector<float> dx1 = run_with(1, nx, bwd);
    for (int t = 2; t <= 4; ++t) {
      INFO("threads " << t << " kernel " << g.kH);
      CHECK(bit_mismatches(run_with(t, ny, fwd), y1) == 0);
      CHECK(idx == idx1);
      CHECK(bit_mismatches(run_with(t, nx, bwd), dx1) == 0);
    }
  }
}

TEST_CASE("parallel kernels: optimizer updates split over the buffer are bit-identical on 1..4 threads" * doctest::skip(!sg::threads_supported())) {
  const int64_t n = 100003;  // past the split threshold, not a multiple of any chunk
  const std::vector<float> p0 = uniform(n, -1.0f, 1.0f, 40), g = uniform(n, -1.0f, 1.0f, 41);
  const std::vector<float> m0 = uniform(n, -0.1f, 0.1f, 42), v0 = uniform(n, 0.0f, 0.1f, 43);
  sg::optim::AdamScalars a;
  a.beta1 = 0.9f, a.one_minus_beta1 = 0.1f, a.beta2 = 0.999f, a.one_minus_beta2 = 0.001f;
  a.bias_correction2_sqrt = 0.3f, a.eps = 1e-8f, a.neg_step_size = -1e-3f, a.amsgrad = true;
  a.decoupled = true, a.decay = 0.99f;
  sg::optim::SgdScalars s;
  s.has_momentum = true, s.momentum = 0.9f, s.neg_lr = -0.1f, s.has_weight_decay = true, s.weight_decay = 0.01f;
  // Every buffer the update writes, concatenated: p, m, v, vmax (Adam), then p, buf (SGD).
  auto run = [&](float* out) {
    std::vector<float> p = p0, m = m0, v = v0, vmax = v0, buf = m0, q = p0;
    sg::optim::simd::adam_f32(p.data(), g.data(), m.data(), v.data(), vmax.data(), n, a);
    sg::optim::simd::sgd_f32(q.data(), g.data(), buf.data(), n, s);
    for (const std::vector<float>* b : {&p, &m, &v, &vmax, &q, &buf}) out = std::copy(b->begin(), b->end(), out);
  };
  const std::vector<float> one = run_with(1, size_t(6 * n), run);
  for (int t = 2; t <= 4; ++t) {
    INFO("threads " << t);
    CHECK(bit_mismatches(run_with(t, size_t(6 * n), run), one) == 0);
  }
}

TEST_CASE("parallel kernels: segments cover every run once, cut at multiples of 64 of the run, in one pool job" * doctest::skip(!sg::threads_supported())) {
  // Empty runs, runs shorter than and equal to a vector block, and runs longer than a piece.
  const std::vector<int64_t> sizes = {0, 1, 63, 64, 65, 1000, 0, 70001, 3, 40000, 129};
  for (int t = 1; t <= 4; ++t) {
    INFO("threads " << t);
    sg::set_num_threads(t);
    std::vector<std::vector<int>> seen(sizes.size());
    for (size_t i = 0; i < sizes.size(); ++i) seen[i].assign(size_t(sizes[i]), 0);
    std::atomic<int> bad_cut{0}, bad_range{0};
    const uint64_t jobs0 = sg::parallel_jobs();
    sg::par::segments(sizes.data(), sizes.size(), 1, [&](size_t i, int64_t lo, int64_t hi) {
      if (i >= sizes.size() || lo < 0 || hi > sizes[i] || lo >= hi) {
        bad_range.fetch_add(1);
        return;
      }
      if (lo % 64 != 0) bad_cut.fetch_add(1);
      for (int64_t k = lo; k < hi; ++k) ++seen[i][size_t(k)];  // a race here is TSan's to see
    });
    CHECK(bad_range.load() == 0);
    CHECK(bad_cut.load() == 0);
    for (size_t i = 0; i < sizes.size(); ++i) {
      int64_t wrong = 0;
      for (int c : seen[i]) wrong += c != 1;
      CHECK_MESSAGE(wrong == 0, "run " << i << ": " << wrong << " elements not visited exactly once");
    }
    CHECK(sg::parallel_jobs() - jobs0 == (t > 1 ? 1u : 0u));
  }
  // One thread, or fewer elements than min_elements: each non-empty run whole, in order, no job.
  for (int t : {1, 2}) {
    sg::set_num_threads(t);
    std::vector<std::tuple<size_t, int64_t, int64_t>> order;
    const uint64_t jobs0 = sg::parallel_jobs();
    sg::par::segments(sizes.data(), sizes.size(), t == 1 ? 1 : 1 << 30, [&](size_t i, int64_t lo, int64_t hi) { order.emplace_back(i, lo, hi); });
    CHECK(sg::parallel_jobs() == jobs0);
    std::vector<std::tuple<size_t, int64_t, int64_t>> want;
    for (size_t i = 0; i < sizes.size(); ++i)
      if (sizes[i] > 0) want.emplace_back(i, 0, sizes[i]);
    CHECK(order == want);
  }
  sg::set_num_threads(1);
}

TEST_CASE("parallel kernels: independent() refuses batches whose written buffers share memory") {
  std::vector<float> mem(1000);
  float* f = mem.data();
  const auto upd = [](float* p, const float* g, float* m, int64_t n) {
    sg::optim::UpdateBuffers b;
    b.written[0] = p;
    b.written[1] = m;
    b.grad = g;
    b.n = n;
    return b;
  };
  using Batch = std::vector<sg::optim::UpdateBuffers>;
  CHECK(sg::optim::independent(Batch{upd(f, f + 100, f + 200, 100), upd(f + 300, f + 400, f + 500, 100)}));
  CHECK(sg::optim::independent(Batch{}));
  // Read-only grads may be shared; a parameter may be its own grad (same elements).
  CHECK(sg::optim::independent(Batch{upd(f, f + 400, f + 200, 100), upd(f + 300, f + 400, f + 500, 100)}));
  CHECK(sg::optim::independent(Batch{upd(f, f, f + 200, 100), upd(f + 300, f + 400, f + 500, 100)}));
  // Two parameters on one storage (also partly), a grad that is another parameter, state on a
  // parameter, an update whose own buffers overlap at another offset: dependent.
  CHECK_FALSE(sg::optim::independent(Batch{upd(f, f + 100, f + 200, 100), upd(f, f + 400, f + 500, 100)}));
  CHECK_FALSE(sg::optim::independent(Batch{upd(f, f + 100, f + 200, 100), upd(f + 99, f + 400, f + 500, 100)}));
  CHECK_FALSE(sg::optim::independent(Batch{upd(f, f + 100, f + 200, 100), upd(f + 300, f + 50, f + 500, 100)}));
  CHECK_FALSE(sg::optim::independent(Batch{upd(f, f + 100, f + 200, 100), upd(f + 300, f + 400, f + 250, 100)}));
  CHECK_FALSE(sg::optim::independent(Batch{upd(f, f + 100, f + 1, 100)}));
  // A range that ends where the next begins does not overlap it.
  CHECK(sg::optim::independent(Batch{upd(f, f + 100, f + 200, 100), upd(f + 300, f + 400, f + 500, 100), upd(f + 600, f + 700, f + 800, 100)}));
}

TEST_CASE("parallel kernels: an optimizer step over many parameters is one pool job, bit-identical to one thread" * doctest::skip(!sg::threads_supported())) {
  // A nanoGPT-shaped parameter list (2 layers of 64 wide, 4·64 MLP, vocabulary 65): no tensor
  // large enough to split alone, ~110K elements in all; odd sizes for the tails.
  const std::vector<int64_t> sizes = {65 * 64, 64 * 64, 64, 64, 192 * 64, 192, 64 * 64, 64, 64, 64, 256 * 64, 256,
                                      64 * 256, 64, 64, 64, 192 * 64, 192, 64 * 64, 64, 64, 64, 256 * 64, 256,
                                      64 * 256, 64, 64, 64, 1, 77, 1031};
  int64_t total = 0;
  for (int64_t n : sizes) total += n;
  REQUIRE(total >= sg::optim::kMinBatchElements);
  sg::optim::AdamScalars a;
  a.beta1 = 0.9f, a.one_minus_beta1 = 0.1f, a.beta2 = 0.95f, a.one_minus_beta2 = 0.05f;
  a.bias_correction2_sqrt = 0.3f, a.eps = 1e-8f, a.neg_step_size = -1e-3f, a.decoupled = true, a.decay = 0.999f;
  // p, g, m, v laid out per parameter; the batch's buffers point into them.
  auto run = [&](float* out) {
    std::vector<float> p = uniform(total, -1, 1, 50), g = uniform(total, -1, 1, 51), m = uniform(total, -0.1f, 0.1f, 52),
                       v = uniform(total, 0, 0.1f, 53);
    std::vector<sg::optim::UpdateBuffers> batch;
    std::vector<sg::optim::AdamScalars> scalars;
    int64_t off = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      sg::optim::UpdateBuffers b;
      b.written[0] = p.data() + off, b.written[1] = m.data() + off, b.written[2] = v.data() + off;
      b.grad = g.data() + off;
      b.n = sizes[i];
      batch.push_back(b);
      sg::optim::AdamScalars s = a;
      s.neg_step_size = -1e-3f * float(i + 1);  // per-parameter scalars must reach their own elements
      scalars.push_back(s);
      off += sizes[i];
    }
    const uint64_t jobs0 = sg::parallel_jobs();
    sg::optim::run_updates(batch, [&](size_t i, int64_t lo, int64_t hi) {
      const sg::optim::UpdateBuffers& b = batch[i];
      sg::optim::simd::adam_f32(b.written[0] + lo, b.grad + lo, b.written[1] + lo, b.written[2] + lo, nullptr, hi - lo, scalars[i]);
    });
    CHECK(sg::parallel_jobs() - jobs0 == (sg::num_threads() > 1 ? 1u : 0u));
    for (const std::vector<float>* b : {&p, &m, &v}) out = std::copy(b->begin(), b->end(), out);
  };
  // The oracle: every parameter updated whole on one thread by the scalar twin (ref::).
  std::vector<float> want(size_t(3 * total));
  {
    std::vector<float> p = uniform(total, -1, 1, 50), g = uniform(total, -1, 1, 51), m = uniform(total, -0.1f, 0.1f, 52),
                       v = uniform(total, 0, 0.1f, 53);
    int64_t off = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      sg::optim::AdamScalars s = a;
      s.neg_step_size = -1e-3f * float(i + 1);
      sg::optim::ref::adam_f32(p.data() + off, g.data() + off, m.data() + off, v.data() + off, nullptr, sizes[i], s);
      off += sizes[i];
    }
    float* out = want.data();
    for (const std::vector<float>* b : {&p, &m, &v}) out = std::copy(b->begin(), b->end(), out);
  }
  CHECK(bit_mismatches(run_with(1, want.size(), run), want) == 0);
  for (int t = 2; t <= 4; ++t) {
    INFO("threads " << t);
    CHECK(bit_mismatches(run_with(t, want.size(), run), want) == 0);
  }
}

namespace {

// c run on `threads` threads into a fresh copy of `dst0` (bytes), with the pool jobs it took.
std::pair<std::vector<char>, uint64_t> copy_with(int threads, const sg::StridedCopy& c, const void* src,
                                                 const std::vector<char>& dst0) {
  std::vector<char> dst = dst0;
  sg::set_num_threads(threads);
  const uint64_t jobs0 = sg::parallel_jobs();
  S().copy_strided(c, src, dst.data());
  const uint64_t jobs = sg::parallel_jobs() - jobs0;
  sg::set_num_threads(1);
  return {std::move(dst), jobs};
}

}  // namespace

TEST_CASE("parallel kernels: strided copies split over the outermost dim equal the element-by-element copy; overlapping ones stay serial" *
          doctest::skip(!sg::threads_supported())) {
  using sg::DType;
  struct Case {
    const char* what;
    std::vector<int64_t> shape, dst_strides, src_strides;
    DType dst_dtype, src_dtype;
    bool split;  // large enough, and source and destination apart
  };
  // Shapes as core/copy.cpp's coalesce leaves them (size-1 dims dropped, runs merged).
  const std::vector<Case> cases = {
      {"contiguous 70001", {70001}, {1}, {1}, DType::Float32, DType::Float32, true},
      {"transposed [300, 257]", {257, 300}, {300, 1}, {1, 257}, DType::Float32, DType::Float32, true},
      {"heads [16, 64, 4, 16] <- [16, 4, 64, 16]", {16, 64, 4, 16}, {4096, 64, 16, 1}, {4096, 16, 1024, 1}, DType::Float32, DType::Float32, true},
      {"broadcast row [301, 257]", {301, 257}, {257, 1}, {0, 1}, DType::Float32, DType::Float32, true},
      {"float32 -> float16 [200, 401]", {200, 401}, {401, 1}, {401, 1}, DType::Float16, DType::Float32, true},
      {"float32 -> int32, reversed rows", {300, 250}, {250, 1}, {-250, 1}, DType::Int32, DType::Float32, true},
      {"a destination stride of 0 (writes one element 300 times)", {300, 250}, {0, 1}, {250, 1}, DType::Float32, DType::Float32, false},
  };
  std::vector<float> src = uniform(400 * 401, -1000.0f, 1000.0f, 70);
  for (const Case& c : cases) {
    INFO(std::string(c.what));
    sg::StridedCopy sc{c.shape, c.dst_strides, c.src_strides, c.dst_dtype, c.src_dtype};
    // A source offset that keeps the negative strides inside the buffer.
    int64_t src_at = 0;
    for (size_t d = 0; d < c.shape.size(); ++d) src_at += c.src_strides[d] < 0 ? -(c.shape[d] - 1) * c.src_strides[d] : 0;
    int64_t dst_elems = 1;
    for (size_t d = 0; d < c.shape.size(); ++d) dst_elems += (c.shape[d] - 1) * c.dst_strides[d];
    const std::vector<char> dst0(size_t(dst_elems) * sg::dtype_size(c.dst_dtype), char(0x5a));
    const std::pair<std::vector<char>, uint64_t> serial = copy_with(1, sc, src.data() + src_at, dst0);
    const std::vector<char>& one = serial.first;
    CHECK(serial.second == 0);
    if (c.dst_dtype == DType::Float32 && c.src_dtype == DType::Float32) {
      // The oracle: element by element, in order, through the strides (the last write wins).
      std::vector<float> want(static_cast<size_t>(dst_elems));
      std::memcpy(want.data(), dst0.data(), dst0.size());
      std::vector<int64_t> idx(c.shape.size(), 0);
      for (bool more = true; more;) {
        int64_t so = src_at, d_off = 0;
        for (size_t d = 0; d < idx.size(); ++d) so += idx[d] * c.src_strides[d], d_off += idx[d] * c.dst_strides[d];
        want[size_t(d_off)] = src[size_t(so)];
        more = false;
        for (size_t d = idx.size(); d-- > 0;) {
          if (++idx[d] < c.shape[d]) { more = true; break; }
          idx[d] = 0;
        }
      }
      CHECK(std::memcmp(one.data(), want.data(), one.size()) == 0);
    }
    for (int t = 2; t <= 4; ++t) {
      INFO("threads " << t);
      const std::pair<std::vector<char>, uint64_t> got = copy_with(t, sc, src.data() + src_at, dst0);
      CHECK(got.second == (c.split ? 1u : 0u));
      CHECK(got.first == one);
    }
  }
  // Source and destination in one buffer, one element apart (a shifted view of itself): the
  // serial memmove's result, no job.
  SUBCASE("overlapping views of one buffer") {
    const int64_t n = 70001;
    std::vector<char> buf(size_t(n + 1) * 4);
    std::memcpy(buf.data(), src.data(), buf.size());
    sg::StridedCopy sc{{n}, {1}, {1}, DType::Float32, DType::Float32};
    std::vector<char> want = buf;
    std::memmove(want.data() + 4, want.data(), size_t(n) * 4);
    for (int t = 1; t <= 3; ++t) {
      std::vector<char> b = buf;
      sg::set_num_threads(t);
      const uint64_t jobs0 = sg::parallel_jobs();
      S().copy_strided(sc, b.data(), b.data() + 4);
      CHECK(sg::parallel_jobs() == jobs0);
      sg::set_num_threads(1);
      CHECK(b == want);
    }
  }
}

TEST_CASE("parallel kernels: ops below kMinElementwise stay on one thread, even while the workers poll" *
          doctest::skip(!sg::threads_supported())) {
  // [512, 64]: a small transformer's activations. Splitting them while the workers spin was
  // measured at no gain (parallel_kernels.h), so none of these may post a job, however often the
  // workers are polling when the op comes.
  const int64_t rows = 512, cols = 64, n = rows * cols;
  REQUIRE(n < sg::par::kMinElementwise);
  const std::vector<float> a = uniform(n, -3.0f, 3.0f, 80), b = uniform(n, 0.5f, 3.0f, 81), bias = uniform(cols, -1, 1, 82);
  const BroadcastPlan same{{n}, {1}, {1}}, row{{rows, cols}, {cols, 1}, {0, 1}};
  const std::vector<std::function<void(float*)>> ops = {
      [&](float* y) { S().unary_f32(Unary::GeluErf, 0.0f, a.data(), y, n); },
      [&](float* y) { S().binary_f32(Binary::Mul, same, a.data(), b.data(), y); },
      [&](float* y) { S().binary_f32(Binary::Add, row, a.data(), bias.data(), y); },
      [&](float* y) { S().softmax_rows_f32(a.data(), y, rows, cols, false); },
      [&](float* y) { S().reduce_f32(Reduce::Sum, a.data(), rows, cols, 1, y); },
  };
  sg::set_num_threads(2);
  uint64_t posted = 0;
  for (int tries = 0; tries < 50; ++tries) {
    sg::parallel_for(0, 2, 1, [](int64_t, int64_t) {});  // a job: its worker then polls for the next one
    for (const auto& op : ops) {
      std::vector<float> y(size_t(n), -7.0f);
      const uint64_t jobs0 = sg::parallel_jobs();
      op(y.data());
      posted += sg::parallel_jobs() - jobs0;
    }
  }
  CHECK(posted == 0);
  // From kMinElementwise the same op does split.
  std::vector<float> big_in(size_t(sg::par::kMinElementwise), 0.5f), big_out(big_in.size());
  const uint64_t jobs0 = sg::parallel_jobs();
  S().unary_f32(Unary::Exp, 0.0f, big_in.data(), big_out.data(), int64_t(big_in.size()));
  CHECK(sg::parallel_jobs() > jobs0);
  sg::set_num_threads(1);
}
