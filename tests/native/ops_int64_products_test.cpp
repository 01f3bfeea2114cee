// int64 operands of mul, mul_ and square compute in int32 (src/ops/dtype_widening.cpp), which is
// exact while every |value| <= 46340 (46340² < 2^31): below that bound the products are the
// integers themselves, above it the op refuses by name before computing anything.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/copy.h"
#include "ops/ops.h"
#include "test_util.h"

using namespace sg;
using sgtest::error_of;
using sgtest::ints;
using sgtest::values;

TEST_CASE("int64 mul, mul_ and square: exact products within the int32 bound, refused past it") {
  const Tensor a = contiguous_copy(ints({4}, {3, -5, 46340, 0}), DType::Int64);
  const Tensor b = contiguous_copy(ints({4}, {4, 7, -46340, 9}), DType::Int64);
  const Tensor p = call_op("mul", {a, b}, {})[0];
  CHECK(p.dtype() == DType::Int64);
  CHECK(values(p) == std::vector<double>{12, -35, -2147395600.0, 0});
  const Tensor s = call_op("square", {a}, {})[0];
  CHECK(s.dtype() == DType::Int64);
  CHECK(values(s) == std::vector<double>{9, 25, 2147395600.0, 0});
  const Tensor c = contiguous_copy(a);
  call_op("mul_", {c, b}, {});
  CHECK(values(c) == std::vector<double>{12, -35, -2147395600.0, 0});

  const Tensor big = contiguous_copy(ints({2}, {2, 46341}), DType::Int64);
  for (const char* op : {"mul", "square"}) {
    INFO(op);
    const std::vector<Tensor> in = std::string(op) == "mul" ? std::vector<Tensor>{big, big} : std::vector<Tensor>{big};
    const std::string e = error_of(op, in, {});
    CHECK(e.find(std::string(op) + ": int64 values are computed in int32 by this op, exactly only while |value| <= 46340") == 0);
    CHECK(e.find("46341") != std::string::npos);
  }
}
