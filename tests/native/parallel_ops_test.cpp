// Ops that split work over threads themselves (not through a Backend call): a batch of small
// matrix products (ops/matmul.cpp) runs whole products per thread and must equal one thread
// bit for bit, broadcast batch dims and transposed views included; the reference backend never
// uses the pool.
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "core/parallel.h"
#include "gradcheck.h"
#include "kernels/backend.h"
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
