// Creation, casts and shape/view ops, rearranging (flip, roll, repeat, tile) and selection
// (select, index): values worked out by hand, storage sharing of views, strides, error messages,
// and gradchecks of every differentiable op.
#include <doctest/doctest.h>

#include <cmath>

#include "autograd/node.h"
#include "core/copy.h"
#include "gradcheck.h"
#include "ops/ops.h"
#include "test_util.h"

using namespace sg;
using sgtest::expect_values;
using sgtest::from;
using sgtest::gradcheck;
using sgtest::iota;
using sgtest::leaf;
using sgtest::values;

namespace {

bool shares_storage(const Tensor& a, const Tensor& b) { return a.impl()->storage == b.impl()->storage; }

}  // namespace

// ---------------------------------------------------------------- creation

TEST_CASE("creation: scalar_tensor, zeros, ones, full") {
  Tensor s = scalar_tensor(2.5);
  CHECK(s.shape() == Shape{});
  CHECK(s.item() == 2.5);
  Tensor si = scalar_tensor(-3.9, DType::Int32);
  CHECK(si.dtype() == DType::Int32);
  CHECK(si.item() == -3);  // truncation toward zero
  expect_values(zeros({2, 3}), {2, 3}, {0, 0, 0, 0, 0, 0});
  expect_values(ones({2}, DType::Int32), {2}, {1, 1});
  expect_values(full({3}, 0.25), {3}, {0.25, 0.25, 0.25});
  Tensor b = full({2}, 7, DType::Bool);
  CHECK(b.dtype() == DType::Bool);
  expect_values(b, {2}, {1, 1});
  CHECK(zeros({0, 4}).numel() == 0);
  CHECK_ERROR(full({2}, 3e10, DType::Int32), "out of range for int32");
  CHECK_ERROR(zeros({2, -1}), "sizes must be non-negative");
}

TEST_CASE("creation: arange follows PyTorch's length rule and sign checks") {
  expect_values(arange(0, 5, 1, DType::Float32), {5}, {0, 1, 2, 3, 4});
  expect_values(arange(0, 1, 0.3, DType::Float32), {4}, {0, 0.3, 0.6, 0.9});  // ceil(1/0.3) = 4
  expect_values(arange(5, 0, -2, DType::Int32), {3}, {5, 3, 1});
  expect_values(arange(-1, 2, 1, DType::Int32), {3}, {-1, 0, 1});
  CHECK(arange(1, 1, 1, DType::Float32).shape() == Shape{0});
  CHECK(arange(0, 5, 1, DType::Int32).dtype() == DType::Int32);
  CHECK_ERROR(arange(0, 5, 0, DType::Float32), "step must be nonzero");
  CHECK_ERROR(arange(0, 5, -1, DType::Float32), "inconsistent with step sign");
  CHECK_ERROR(arange(5, 0, 1, DType::Float32), "inconsistent with step sign");
}

TEST_CASE("creation: linspace has exact endpoints and the symmetric formula") {
  expect_values(linspace(0, 1, 5), {5}, {0, 0.25, 0.5, 0.75, 1});
  expect_values(linspace(-1, 1, 1), {1}, {-1});
  CHECK(linspace(0, 1, 0).shape() == Shape{0});
  Tensor t = linspace(0.1, 0.7, 7);
  CHECK(t.f32()[0] == 0.1f);
  CHECK(t.f32()[6] == 0.7f);
  for (int i = 0; i < 7; ++i) CHECK(t.f32()[i] == doctest::Approx(0.1 + 0.1 * i).epsilon(1e-6));
  // Second half counts down from the end: element 5 is end − step.
  CHECK(t.f32()[5] == float(0.7 - (0.7 - 0.1) / 6));
  // The middle element (index steps / 2) is in the second half: end − step. In double, with 3
  // steps from 0.1 to 0.7, that differs from start + step (0.3999999999999999667 against
  // 0.4000000000000000222); torch 1.13's torch.linspace(0.1, 0.7, 3, dtype=torch.float64) gives
  // the first.
  const Tensor mid = linspace(0.1, 0.7, 3, Device::CPU, DType::Float64);
  const double step = (0.7 - 0.1) / 2;
  REQUIRE(0.7 - step != 0.1 + step);
  CHECK(mid.f64()[1] == 0.7 - step);
  CHECK_ERROR(linspace(0, 1, -1), "non-negative");
}

TEST_CASE("creation: eye") {
  expect_values(eye(3), {3, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1});
  expect_values(eye(2, 3), {2, 3}, {1, 0, 0, 0, 1, 0});
  expect_values(eye(3, 1), {3, 1}, {1, 0, 0});
  CHECK_ERROR(eye(-2), "must be non-negative");
  CHECK_ERROR(eye(2, -3), "must be non-negative");
}

TEST_CASE("creation: cast between dtypes") {
  Tensor f = from({5}, {-1.7f, 1.7f, 2.5f, -0.0f, 0.5f});
  expect_values(cast(f, DType::Int32), {5}, {-1, 1, 2, 0, 0});
  expect_values(cast(f, DType::Bool), {5}, {1, 1, 1, 0, 1});
  Tensor i = cast(f, DType::Int32);
  Tensor back = cast(i, DType::Float32);
  CHECK(back.dtype() == DType::Float32);
  expect_values(back, {5}, {-1, 1, 2, 0, 0});
  expect_values(cast(cast(i, DType::Bool), DType::Int32), {5}, {1, 1, 1, 0, 0});
  CHECK(cast(f, DType::Float32).same(f));
  // a cast of a strided view reads it in logical order
  Tensor t = transpose(iota({2, 3}), 0, 1);
  expect_values(cast(t, DType::Int32), {3, 2}, {0, 3, 1, 4, 2, 5});
  gradcheck("cast f32->f32", [](auto& in) { return cast(in[0], DType::Float32); }, {leaf({2, 3})});
  Tensor x = leaf({3});
  CHECK_FALSE(cast(x, DType::Int32).requires_grad());
}

TEST_CASE("creation: clone and contiguous") {
  Tensor x = iota({2, 3});
  Tensor c = clone(x);
  CHECK_FALSE(shares_storage(c, x));
  expect_values(c, {2, 3}, {0, 1, 2, 3, 4, 5});
  c.f32()[0] = 42;
  CHECK(x.f32()[0] == 0);
  CHECK(contiguous(x).same(x));
  Tensor t = transpose(x, 0, 1);
  Tensor tc = contiguous(t);
  CHECK(tc.is_contiguous());
  CHECK_FALSE(shares_storage(tc, x));
  expect_values(tc, {3, 2}, {0, 3, 1, 4, 2, 5});
  gradcheck("clone", [](auto& in) { return clone(in[0]); }, {leaf({2, 3})});
  gradcheck("contiguous(transpose)", [](auto& in) { return contiguous(transpose(in[0], 0, 1)); },
            {leaf({3, 4})});
}

// ---------------------------------------------------------------- views

TEST_CASE("shape: reshape of a contiguous tensor is a view") {
  Tensor x = iota({2, 3, 4});
  Tensor r = reshape(x, {4, -1});
  CHECK(r.shape() == Shape{4, 6});
  CHECK(r.strides() == Shape{6, 1});
  CHECK(shares_storage(r, x));
  r.f32()[7] = 100;  // element [1, 1] of r is flat element 7 of x
  CHECK(x.at(7) == 100);
  CHECK_ERROR(reshape(x, {5, 5}), "is invalid for input of size 24");
  CHECK_ERROR(reshape(x, {-1, -1}), "only one dimension can be -1");
  // to and from 0-d
  Tensor s = reshape(scalar_tensor(3), {1, 1});
  CHECK(s.shape() == Shape{1, 1});
  CHECK(reshape(s, {}).item() == 3);
}

TEST_CASE("shape: reshape of a non-contiguous tensor views when strides allow, copies otherwise") {
  Tensor x = iota({4, 6});
  Tensor t = transpose(x, 0, 1);  // [6, 4], strides [1, 6]
  // splitting a dim keeps a view: [6, 2, 2] with strides [1, 12, 6]
  Tensor v = reshape(t, {6, 2, 2});
  CHECK(shares_storage(v, x));
  CHECK(v.strides() == Shape{1, 12, 6});
  // merging the two transposed dims cannot be a view
  Tensor c = reshape(t, {24});
  CHECK_FALSE(shares_storage(c, x));
  std::vector<double> want;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 4; ++j) want.push_back(j * 6 + i);  // t[i][j] = x[j][i]
  expect_values(c, {24}, want);
  // a narrowed tensor's rows can still merge with size-1 dims as a view
  Tensor n = narrow(x, 1, 1, 3);  // [4, 3], strides [6, 1]
  Tensor n2 = reshape(n, {4, 1, 3});
  CHECK(shares_storage(n2, x));
  CHECK(n2.strides()[2] == 1);
  CHECK_FALSE(shares_storage(reshape(n, {12}), x));
}

TEST_CASE("shape: view errors when the layout does not allow it") {
  Tensor t = transpose(iota({2, 3}), 0, 1);
  CHECK_ERROR(view(t, {6}), "view: size is not compatible with input tensor's size and stride");
  CHECK_ERROR(view(t, {6}), "use reshape instead");
  Tensor v = view(iota({2, 3}), {3, 2});
  CHECK(v.strides() == Shape{2, 1});
  CHECK_ERROR(view(iota({2, 3}), {4}), "is invalid for input of size 6");
}

TEST_CASE("shape: flatten") {
  Tensor x = iota({2, 3, 4});
  CHECK(flatten(x).shape() == Shape{24});
  CHECK(flatten(x, 1).shape() == Shape{2, 12});
  CHECK(flatten(x, 0, 1).shape() == Shape{6, 4});
  CHECK(flatten(x, -2, -1).shape() == Shape{2, 12});
  CHECK(flatten(x, 1, 1).shape() == Shape{2, 3, 4});
  CHECK(flatten(scalar_tensor(1)).shape() == Shape{1});
  CHECK(shares_storage(flatten(x), x));
  CHECK_ERROR(flatten(x, 2, 1), "cannot come after");
  CHECK_ERROR(flatten(x, 3), "out of range");
}

TEST_CASE("shape: squeeze and unsqueeze") {
  Tensor x = iota({1, 3, 1, 2});
  CHECK(squeeze(x).shape() == Shape{3, 2});
  CHECK(squeeze(x, 2).shape() == Shape{1, 3, 2});
  CHECK(squeeze(x, 1).shape() == Shape{1, 3, 1, 2});  // size 3: left as is
  CHECK(squeeze(x, -4).shape() == Shape{3, 1, 2});
  CHECK(squeeze(x).strides() == Shape{2, 1});
  CHECK(shares_storage(squeeze(x), x));
  CHECK(squeeze(scalar_tensor(1)).shape() == Shape{});
  CHECK_ERROR(squeeze(x, 4), "squeeze: dim 4 is out of range");

  Tensor y = iota({2, 3});
  CHECK(unsqueeze(y, 0).shape() == Shape{1, 2, 3});
  CHECK(unsqueeze(y, 2).shape() == Shape{2, 3, 1});
  CHECK(unsqueeze(y, -1).shape() == Shape{2, 3, 1});
  CHECK(unsqueeze(y, -3).shape() == Shape{1, 2, 3});
  CHECK(unsqueeze(y, 1).shape() == Shape{2, 1, 3});
  CHECK(unsqueeze(y, 1).strides() == Shape{3, 3, 1});
  CHECK(unsqueeze(scalar_tensor(1), 0).shape() == Shape{1});
  CHECK_ERROR(unsqueeze(y, 3), "unsqueeze: dim 3 is out of range");
  CHECK_ERROR(unsqueeze(y, -4), "expected a dim in [-3, 2]");
  Tensor u = unsqueeze(y, 0);
  u.f32()[4] = -1;
  CHECK(y.at(4) == -1);
}

TEST_CASE("shape: expand") {
  Tensor x = from({3, 1}, {1, 2, 3});
  Tensor e = expand(x, {2, 3, 4});
  CHECK(e.shape() == Shape{2, 3, 4});
  CHECK(e.strides() == Shape{0, 1, 0});
  CHECK(shares_storage(e, x));
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) CHECK(e.at(b * 12 + i * 4 + j) == i + 1);
  CHECK(expand(x, {-1, 5}).shape() == Shape{3, 5});
  CHECK(expand(x, {3, 1}).strides() == Shape{1, 1});
  CHECK_ERROR(expand(x, {4, 4}), "expand: cannot expand shape [3, 1] to [4, 4]");
  CHECK_ERROR(expand(x, {4}), "cannot expand shape [3, 1] to [4]");
  CHECK_ERROR(expand(x, {-1, 3, 1}), "not allowed in a new leading dim");
}

TEST_CASE("shape: transpose and permute") {
  Tensor x = iota({2, 3, 4});
  Tensor t = transpose(x, 0, 2);
  CHECK(t.shape() == Shape{4, 3, 2});
  CHECK(t.strides() == Shape{1, 4, 12});
  CHECK(shares_storage(t, x));
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k) CHECK(t.at(i * 6 + j * 2 + k) == k * 12 + j * 4 + i);
  CHECK(transpose(x, -1, -3).strides() == Shape{1, 4, 12});
  CHECK(transpose(scalar_tensor(1), 0, -1).shape() == Shape{});
  CHECK_ERROR(transpose(x, 0, 3), "transpose: dim 3 is out of range");

  Tensor p = permute(x, {2, 0, 1});
  CHECK(p.shape() == Shape{4, 2, 3});
  CHECK(p.strides() == Shape{1, 12, 4});
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 3; ++k) CHECK(p.at(i * 6 + j * 3 + k) == j * 12 + k * 4 + i);
  CHECK(permute(x, {-1, 0, -2}).shape() == Shape{4, 2, 3});
  CHECK_ERROR(permute(x, {0, 0, 1}), "is not a permutation");
  CHECK_ERROR(permute(x, {0, 1}), "must list each of the 3 dims");
  CHECK_ERROR(permute(x, {0, 1, 3}), "out of range");
}

TEST_CASE("shape: narrow") {
  Tensor x = iota({10});
  Tensor n = narrow(x, 0, 2, 3);
  expect_values(n, {3}, {2, 3, 4});
  CHECK(shares_storage(n, x));
  CHECK(n.offset() == 2);
  n.f32()[0] = -5;  // f32() points at the view's first element
  CHECK(x.at(2) == -5);
  expect_values(narrow(iota({10}), 0, -3, 2), {2}, {7, 8});
  expect_values(narrow(iota({10}), 0, 10, 0), {0}, {});
  Tensor m = iota({3, 4});
  expect_values(narrow(m, -1, 1, 2), {3, 2}, {1, 2, 5, 6, 9, 10});
  CHECK_ERROR(narrow(iota({4}), 0, 2, 3), "start (2) + length (3) exceeds dimension size (4)");
  CHECK_ERROR(narrow(iota({4}), 0, 5, 0), "start 5 is out of range");
  CHECK_ERROR(narrow(iota({4}), 0, 0, -1), "length must be non-negative");
  CHECK_ERROR(narrow(scalar_tensor(1), 0, 0, 1), "0-dim");
}

TEST_CASE("shape: slice with steps and Python clamping") {
  Tensor x = iota({10});
  expect_values(slice(x, 0, 1, 8, 3), {3}, {1, 4, 7});
  expect_values(slice(x, 0, -3, std::nullopt), {3}, {7, 8, 9});
  expect_values(slice(x, 0, std::nullopt, -7), {3}, {0, 1, 2});
  expect_values(slice(x, 0, -100, 100, 4), {3}, {0, 4, 8});
  expect_values(slice(x, 0, 8, 2), {0}, {});
  expect_values(slice(x, 0, std::nullopt, std::nullopt, 3), {4}, {0, 3, 6, 9});
  expect_values(slice(x, 0, 9, 10, 5), {1}, {9});
  Tensor s = slice(x, 0, 1, std::nullopt, 2);
  CHECK(s.strides() == Shape{2});
  CHECK(shares_storage(s, x));
  Tensor m = iota({2, 5});
  expect_values(slice(m, -1, 1, std::nullopt, 2), {2, 2}, {1, 3, 6, 8});
  CHECK_ERROR(slice(x, 0, 0, 5, 0), "slice: step must be positive");
  CHECK_ERROR(slice(x, 1, 0, 5), "out of range");
}

// ---------------------------------------------------------------- cat, stack, split

TEST_CASE("shape: cat values, promotion, skipped empty tensors") {
  Tensor a = iota({2, 2}), b = from({2, 1}, {10, 11});
  expect_values(cat({a, b}, 1), {2, 3}, {0, 1, 10, 2, 3, 11});
  expect_values(cat({a, a}, 0), {4, 2}, {0, 1, 2, 3, 0, 1, 2, 3});
  expect_values(cat({a, b}, -1), {2, 3}, {0, 1, 10, 2, 3, 11});
  Tensor ints = arange(0, 2, 1, DType::Int32);
  Tensor f = from({1}, {0.5f});
  Tensor c = cat({ints, f});
  CHECK(c.dtype() == DType::Float32);
  expect_values(c, {3}, {0, 1, 0.5});
  CHECK(cat({ints, ints}).dtype() == DType::Int32);
  // [0]-shaped tensors are skipped whatever the others' shapes
  Tensor empty = zeros({0});
  expect_values(cat({empty, a, empty}, 1), {2, 2}, {0, 1, 2, 3});
  CHECK(cat({empty, empty}).shape() == Shape{0});
  // all inputs skipped: still recorded, so backward reaches them with empty gradients (PyTorch's CatBackward0)
  Tensor e0 = zeros({0}), e1 = zeros({0});
  e0.set_requires_grad(true);
  e1.set_requires_grad(true);
  Tensor ce = cat({e0, e1});
  CHECK(ce.shape() == Shape{0});
  CHECK(ce.requires_grad());
  sum(ce).backward();
  REQUIRE(e0.grad().defined());
  CHECK(e0.grad().shape() == Shape{0});
  CHECK(e1.grad().shape() == Shape{0});
  // non-contiguous inputs
  expect_values(cat({transpose(a, 0, 1), b}, 1), {2, 3}, {0, 2, 10, 1, 3, 11});
  CHECK_FALSE(shares_storage(cat({a}), a));
  CHECK_ERROR(cat({a, b}, 0), "cat: sizes of tensors must match except in dim 0");
  CHECK_ERROR(cat({a, iota({2})}, 0), "same number of dims");
  CHECK_ERROR(cat({a, scalar_tensor(1)}), "zero-dimensional tensor (at position 1)");
  CHECK_ERROR(cat({}), "non-empty list");
  CHECK_ERROR(cat({a, b}, 2), "out of range");
}

TEST_CASE("shape: stack") {
  Tensor a = from({2}, {1, 2}), b = from({2}, {3, 4});
  expect_values(stack({a, b}), {2, 2}, {1, 2, 3, 4});
  expect_values(stack({a, b}, 1), {2, 2}, {1, 3, 2, 4});
  expect_values(stack({a, b}, -1), {2, 2}, {1, 3, 2, 4});
  expect_values(stack({scalar_tensor(5), scalar_tensor(6)}), {2}, {5, 6});
  CHECK(stack({a, arange(0, 2, 1, DType::Int32)}).dtype() == DType::Float32);
  CHECK_ERROR(stack({a, from({3}, {1, 2, 3})}), "stack: expects each tensor to be equal size");
  CHECK_ERROR(stack({a, b}, 2), "out of range");
  CHECK_ERROR(stack({}), "non-empty list");
}

TEST_CASE("shape: split, split_sections, chunk") {
  Tensor x = iota({10});
  auto parts = split(x, 3);
  REQUIRE(parts.size() == 4);
  expect_values(parts[0], {3}, {0, 1, 2});
  expect_values(parts[3], {1}, {9});
  CHECK(shares_storage(parts[2], x));
  auto secs = split_sections(x, {2, 5, 3});
  REQUIRE(secs.size() == 3);
  expect_values(secs[1], {5}, {2, 3, 4, 5, 6});
  expect_values(secs[2], {3}, {7, 8, 9});
  CHECK_ERROR(split_sections(x, {2, 5}), "must sum to the size of dim 0 (10)");
  CHECK_ERROR(split(x, 0), "split size 0");
  auto m = split(iota({2, 5}), 2, -1);
  REQUIRE(m.size() == 3);
  expect_values(m[2], {2, 1}, {4, 9});

  auto c = chunk(x, 4);  // ceil(10/4) = 3 → 3, 3, 3, 1
  REQUIRE(c.size() == 4);
  expect_values(c[3], {1}, {9});
  auto fewer = chunk(iota({6}), 4);  // ceil(6/4) = 2 → three chunks, not four
  REQUIRE(fewer.size() == 3);
  expect_values(fewer[2], {2}, {4, 5});
  CHECK(chunk(iota({3}), 5).size() == 3);
  auto empties = chunk(zeros({0, 2}), 3);
  CHECK(empties.size() == 3);
  CHECK_ERROR(chunk(x, 0), "chunk: expected chunks to be greater than 0");
}

// ---------------------------------------------------------------- autograd

TEST_CASE("shape: views of tensors that require grad get their own node") {
  Tensor x = leaf({2, 3});
  Tensor t = transpose(x, 0, 1);
  CHECK_FALSE(t.is_leaf());
  CHECK(t.grad_fn()->name == "transpose");
  CHECK(shares_storage(t, x));
  CHECK(narrow(x, 0, 0, 1).grad_fn()->name == "narrow");
  CHECK(expand(x, {4, 2, 3}).grad_fn()->name == "expand");
  CHECK(reshape(x, {6}).grad_fn()->name == "reshape");
  CHECK_FALSE(transpose(iota({2, 3}), 0, 1).requires_grad());
}

TEST_CASE("shape: gradchecks of the views") {
  gradcheck("reshape", [](auto& in) { return reshape(in[0], {3, -1}); }, {leaf({2, 3, 2})});
  gradcheck("reshape (copy)", [](auto& in) { return reshape(transpose(in[0], 0, 1), {-1}); }, {leaf({3, 4})});
  gradcheck("view", [](auto& in) { return view(in[0], {4, 3}); }, {leaf({2, 6})});
  gradcheck("flatten", [](auto& in) { return flatten(in[0], 1); }, {leaf({2, 3, 2})});
  gradcheck("squeeze", [](auto& in) { return squeeze(in[0]); }, {leaf({1, 3, 1})});
  gradcheck("squeeze(dim)", [](auto& in) { return squeeze(in[0], -1); }, {leaf({2, 1})});
  gradcheck("unsqueeze", [](auto& in) { return unsqueeze(in[0], -1); }, {leaf({3, 2})});
  gradcheck("expand", [](auto& in) { return expand(in[0], {2, 3, 4}); }, {leaf({3, 1})});
  gradcheck("expand -1", [](auto& in) { return expand(in[0], {5, -1}); }, {leaf({1, 3})});
  gradcheck("transpose", [](auto& in) { return transpose(in[0], -1, 0); }, {leaf({2, 3, 4})});
  gradcheck("permute", [](auto& in) { return permute(in[0], {1, -1, 0}); }, {leaf({2, 3, 4})});
  gradcheck("narrow", [](auto& in) { return narrow(in[0], 1, -3, 2); }, {leaf({3, 5})});
  gradcheck("slice step", [](auto& in) { return slice(in[0], -1, -6, std::nullopt, 2); }, {leaf({2, 7})});
  gradcheck("slice of transpose", [](auto& in) { return slice(transpose(in[0], 0, 1), 0, 1, 4, 2); },
            {leaf({3, 5})});
  gradcheck("views of views",
            [](auto& in) {
              return reshape(permute(narrow(in[0], 0, 1, 2), {2, 0, 1}), {-1, 3});
            },
            {leaf({3, 3, 4})});
}

TEST_CASE("shape: gradchecks of cat, stack, split, chunk") {
  gradcheck("cat dim -1",
            [](auto& in) {
              return cat({in[0], in[1], in[2]}, -1);
            },
            {leaf({2, 3}), leaf({2, 1}, -1, 1, 8), leaf({2, 2}, -1, 1, 9)});
  gradcheck("cat with int and empty",
            [](auto& in) {
              return cat({in[0], zeros({0}), arange(0, 3, 1, DType::Int32), in[1]});
            },
            {leaf({2}), leaf({3}, -1, 1, 8)});
  gradcheck("cat same input twice", [](auto& in) { return cat({in[0], in[0]}, 0); }, {leaf({2, 2})});
  gradcheck("stack dim 1",
            [](auto& in) {
              return stack({in[0], in[1]}, 1);
            },
            {leaf({2, 3}), leaf({2, 3}, -1, 1, 8)});
  gradcheck("stack dim -1",
            [](auto& in) {
              return stack({in[0], in[1], in[0]}, -1);
            },
            {leaf({3}), leaf({3}, -1, 1, 8)});
  gradcheck("split pieces",
            [](auto& in) {
              auto p = split(in[0], 2, 1);
              return cat({p[2], p[0]}, 1);
            },
            {leaf({2, 5})});
  gradcheck("split_sections piece",
            [](auto& in) {
              return split_sections(in[0], {1, 3}, 0)[1];
            },
            {leaf({4, 2})});
  gradcheck("chunk piece", [](auto& in) { return chunk(in[0], 3, -1)[1]; }, {leaf({2, 7})});
}

TEST_CASE("shape: flip, roll, repeat, tile: values, gradients, fresh tensors") {
  using Ins = std::vector<Tensor>;
  const Tensor x = from({2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(values(flip(x, {0, 1})) == std::vector<double>{6, 5, 4, 3, 2, 1});
  CHECK(values(roll(x, {1})) == std::vector<double>{6, 1, 2, 3, 4, 5});
  CHECK(values(roll(x, {-1, 4}, {0, 1})) == std::vector<double>{6, 4, 5, 3, 1, 2});
  CHECK(values(repeat(from({2}, {1, 2}), {2, 2})) == std::vector<double>{1, 2, 1, 2, 1, 2, 1, 2});
  CHECK(repeat(x, {2, 0}).shape() == Shape{4, 0});
  CHECK(tile(x, {2}).shape() == Shape{2, 6});
  for (const Tensor& t : {flip(x, {}), roll(x, {0}), repeat(x, {1, 1}), roll(x, {3}, {1})})
    CHECK(t.impl()->storage != x.impl()->storage);
  sgtest::on_each_backend([] {
    gradcheck("flip", [](Ins& in) { return flip(in[0], {0, -1}); }, {leaf({2, 3, 2}, -1, 1, 40)});
    gradcheck("roll", [](Ins& in) { return roll(in[0], {2, -1}, {1, 0}); }, {leaf({3, 4}, -1, 1, 41)});
    gradcheck("roll flat", [](Ins& in) { return roll(in[0], {-4}); }, {leaf({3, 2}, -1, 1, 42)});
    gradcheck("repeat", [](Ins& in) { return repeat(in[0], {2, 1, 3}); }, {leaf({2, 2}, -1, 1, 43)});
    gradcheck("tile", [](Ins& in) { return tile(in[0], {3}); }, {leaf({2, 2}, -1, 1, 44)});
  });
}

TEST_CASE("shape: select and index are views with slice semantics") {
  using Ins = std::vector<Tensor>;
  using K = IndexItem::Kind;
  const Tensor x = leaf({2, 3, 4}, -1, 1, 50, false);
  const Tensor s = select(x, 1, -1);
  CHECK(s.shape() == Shape{2, 4});
  CHECK(s.impl()->storage == x.impl()->storage);
  // x[:, -1, :3]
  const Tensor v = index(x, {{K::All}, {K::At, -1}, {K::Range, 0, std::nullopt, 3}});
  CHECK(v.shape() == Shape{2, 3});
  CHECK(v.at(4) == x.at(1 * 12 + 2 * 4 + 1));
  // x[..., ::2], x[1], x[-9:99] (clamped), x[...]
  CHECK(index(x, {{K::Ellipsis}, {K::Range, 0, std::nullopt, std::nullopt, 2}}).shape() == Shape{2, 3, 2});
  CHECK(index(x, {{K::At, 1}}).shape() == Shape{3, 4});
  CHECK(index(x, {{K::Range, 0, -9, 99}}).shape() == Shape{2, 3, 4});
  CHECK(index(x, {{K::Ellipsis}}).shape() == Shape{2, 3, 4});
  CHECK_FALSE(index(x, {}).same(x));  // a view of x, not x itself
  CHECK(index(x, {}).impl()->storage == x.impl()->storage);
  CHECK(index(x, {{K::Range, 0, 0, 1}, {K::Ellipsis}, {K::At, 0}}).shape() == Shape{1, 3});
  sgtest::on_each_backend([] {
    gradcheck("select", [](Ins& in) { return select(in[0], 0, 1); }, {leaf({2, 3}, -1, 1, 51)});
    gradcheck("index", [](Ins& in) {
      return index(in[0], {{K::Range, 0, 1, std::nullopt, 1}, {K::At, -1}, {K::Range, 0, std::nullopt, std::nullopt, 2}});
    }, {leaf({2, 3, 4}, -1, 1, 52)});
  });
}
