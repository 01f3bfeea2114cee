// copy_into over every layout the dim merging and the byte-run fast path meet (core/copy.cpp,
// kernels/reference/data_copy.cpp): each result is checked element by element against the
// source read through its strides (Tensor::at) or the index arithmetic written out here, for
// contiguous, transposed, sliced, broadcast and size-1 layouts, in 1-, 2-, 4- and 8-byte dtypes,
// and for casts, which take the element-wise path.
#include <doctest/doctest.h>

#include <vector>

#include "core/copy.h"
#include "ops/ops.h"
#include "test_util.h"

using namespace sg;
using sgtest::iota;
using sgtest::values;

namespace {

// got holds src's elements in row-major order: both read element by element through
// Tensor::at, which follows each tensor's own strides and offset (no copy involved).
void expect_same(const Tensor& got, const Tensor& src) {
  REQUIRE(got.shape() == src.shape());
  CHECK(got.is_contiguous());
  CHECK(values(got) == values(src));
}

}  // namespace

TEST_CASE("copy: contiguous, transposed, sliced and size-1 layouts in every element width") {
  for (DType dt : {DType::Float32, DType::Float64, DType::Int8, DType::Float16, DType::Int64, DType::Bool}) {
    INFO(dtype_name(dt));
    const Tensor base = contiguous_copy(iota({3, 1, 5, 4}), dt);  // a dim of size 1
    const Tensor x = reshape(base, {3, 5, 4});
    expect_same(contiguous_copy(x), x);                               // one run
    expect_same(contiguous_copy(transpose(x, 0, 2)), transpose(x, 0, 2));  // no run
    expect_same(contiguous_copy(transpose(x, 0, 1)), transpose(x, 0, 1));  // runs of 4
    expect_same(contiguous_copy(narrow(x, 2, 1, 2)), narrow(x, 2, 1, 2));  // rows of 2 apart
    expect_same(contiguous_copy(narrow(x, 1, 1, 3)), narrow(x, 1, 1, 3));  // merged rows, offset
  }
}

TEST_CASE("copy: a broadcast source (0 strides) into a dense and into a strided destination") {
  const Tensor row = iota({1, 1, 4});
  const Tensor dense = zeros({3, 2, 4});
  copy_into(dense, row);
  for (size_t k = 0; k < 24; ++k) CHECK(values(dense)[k] == double(k % 4));
  const Tensor col = iota({3, 1, 1});
  const Tensor big = zeros({4, 3, 2});
  const Tensor view = transpose(big, 0, 1);  // [3, 4, 2], not contiguous
  copy_into(view, col);
  const std::vector<double> b = values(big);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t l = 0; l < 2; ++l) CHECK(b[size_t((i * 3 + j) * 2 + l)] == double(j));
}

TEST_CASE("copy: casts, run by run where the inner dim is contiguous on both sides, one element too") {
  const Tensor x = iota({2, 3, 4});
  const Tensor h = contiguous_copy(transpose(x, 1, 2), DType::BFloat16);   // no contiguous run
  expect_same(h, transpose(x, 1, 2));
  expect_same(contiguous_copy(x, DType::Float16), x);                        // one run
  expect_same(contiguous_copy(narrow(x, 2, 1, 2), DType::Int8), narrow(x, 2, 1, 2));  // runs of 2
  expect_same(contiguous_copy(narrow(contiguous_copy(x, DType::BFloat16), 1, 1, 2), DType::Float64),
              narrow(x, 1, 1, 2));                                           // merged runs, offset
  const Tensor one = zeros({1, 1}, DType::Int32);
  copy_into(one, full({1}, 7.9));
  CHECK(values(one)[0] == 7.0);
}
