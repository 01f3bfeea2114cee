// Ops that split work over threads themselves (not through a Backend call): a batch of small
// matrix products (ops/matmul.cpp) runs whole products per thread and must equal one thread
// bit for bit, broadcast batch dims and transposed views included; the reference backend never
// uses the pool. Likewise the training batch norm (channel ranges) and the average pools
// (plane ranges).
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "core/parallel.h"
#include "gradcheck.h"
#include "kernels/backend.h"
#include "nn/norm.h"
#include "nn/pool.h"
#include "ops/ops.h"

namespace {

std::vector<float> values(const sg::Tensor& t) {
  sg::Tensor c = t.is_contiguous() ? t : sg::contiguous(t);
  return std::vector<float>(c.f32(), c.f32() + c.numel());
}

}  // namespace

TEST_CASE("parallel ops: batched small matmuls, whole products per thread, bit-identical" *
          doctest::skip(!sg::threads_supported())) {
  using sgtest::leaf;
  // [7, 3, 64, 33] · [3, 33, 50] (batch broadcast), and a transposed view on the right.
  const sg::Tensor a = leaf({7, 3, 64, 33}, -1, 1, 1, false);
  const sg::Tensor b = leaf({3, 33, 50}, -1, 1, 2, false);
  const sg::Tensor bt = sg::transpose(leaf({3, 50, 33}, -1, 1, 3, false), -1, -2);
  for (const sg::Tensor* rhs : {&b, &bt}) {
    sg::set_num_threads(1);
    const std::vector<float> one = values(sg::matmul(a, *rhs));
    for (int t = 2; t <= 4; ++t) {
      sg::set_num_threads(t);
      const uint64_t jobs0 = sg::parallel_jobs();
      const std::vector<float> got = values(sg::matmul(a, *rhs));
      CHECK(sg::parallel_jobs() > jobs0);
      REQUIRE(got.size() == one.size());
      CHECK(std::memcmp(got.data(), one.data(), one.size() * sizeof(float)) == 0);
    }
  }
  // The reference backend stays on one thread.
  sg::set_backend("reference");
  const uint64_t jobs0 = sg::parallel_jobs();
  (void)sg::matmul(a, b);
  CHECK(sg::parallel_jobs() == jobs0);
  sg::set_backend("wasm");
  sg::set_num_threads(1);
}

TEST_CASE("parallel ops: training batch norm and average pools split over channels/planes, bit-identical" *
          doctest::skip(!sg::threads_supported())) {
  using sgtest::leaf;
  // [13, 37, 11, 9]: 37 channels of 1287 values (batch norm), 481 planes (pools).
  const sg::Tensor x0 = leaf({13, 37, 11, 9}, -2, 2, 50, false);
  const sg::Tensor w0 = leaf({37}, 0.5, 1.5, 51, false), b0 = leaf({37}, -1, 1, 52, false);
  auto run = [&] {
    sg::Tensor x = x0.detach(), w = w0.detach(), b = b0.detach();
    for (sg::Tensor* t : {&x, &w, &b}) t->set_requires_grad(true);
    sg::Tensor rm = sg::Tensor::empty({37}), rv = sg::ones({37});
    sg::Tensor y = sg::batch_norm(x, rm, rv, w, b, true, 0.1, 1e-5);
    sg::Tensor a = sg::avg_pool2d(y, {3, 2}, {2, 2}, {1, 0}, true, false);
    sg::Tensor c = sg::adaptive_avg_pool2d(y, {4, 3});
    sg::add(sg::sum(sg::mul(a, a)), sg::sum(sg::mul(c, c))).backward();
    std::vector<float> out;
    for (const sg::Tensor& t : {y, a, c, x.grad(), w.grad(), b.grad(), rm, rv}) {
      const std::vector<float> v = values(t);
      out.insert(out.end(), v.begin(), v.end());
    }
    return out;
  };
  sg::set_num_threads(1);
  const std::vector<float> one = run();
  for (int t = 2; t <= 4; ++t) {
    sg::set_num_threads(t);
    const uint64_t jobs0 = sg::parallel_jobs();
    const std::vector<float> got = run();
    CHECK(sg::parallel_jobs() > jobs0);
    REQUIRE(got.size() == one.size());
    CHECK(std::memcmp(got.data(), one.data(), one.size() * sizeof(float)) == 0);
  }
  sg::set_num_threads(1);
}
