// Helpers shared by the native op and layer tests: run a body on every CPU backend, build
// int32/bool tensors and op attributes from literals, read a tensor's values, and read or check
// the message of a thrown sg::Error (CHECK_ERROR for a part of it, check_error for all of it).
#pragma once
#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/tensor.h"
#include "kernels/backend.h"
#include "kernels/simd/simd_kernels.h"
#include "ops/registry.h"

#ifndef __EMSCRIPTEN__
#include "hwy/targets.h"
#endif

// expr must throw an sg::Error whose message contains `substring`.
#define CHECK_ERROR(expr, substring) CHECK_THROWS_WITH_AS(expr, doctest::Contains(substring), sg::Error)

namespace sgtest {

// n floats drawn uniformly from [lo, hi) with a fixed seed.
inline std::vector<float> uniform(int64_t n, float lo, float hi, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = dist(gen);
  return v;
}

// Runs fn once per CPU backend ('reference', then the SIMD one), restoring the backend that was
// active before, even when a REQUIRE inside fn throws.
template <class Fn>
void on_each_backend(Fn&& fn) {
  struct Restore {
    std::string name = sg::backend().name();
    ~Restore() { sg::set_backend(name); }
  } restore;
  for (const std::string& name : sg::backend_names()) {
    CAPTURE(name);
    sg::set_backend(name);
    fn();
  }
}

// Runs body once per Highway target compiled into this binary (natively: dispatch steered with
// SetSupportedTargetsForTest; the wasm build has its one static target).
inline void each_target(const std::function<void()>& body) {
#ifndef __EMSCRIPTEN__
  for (int64_t t : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(t);
    INFO("target " << sg::simd::target_name());
    body();
  }
  hwy::SetSupportedTargetsForTest(0);
#else
  body();
#endif
}

inline sg::Tensor ints(const sg::Shape& shape, const std::vector<int32_t>& v) {
  sg::Tensor t = sg::Tensor::empty(shape, sg::DType::Int32);
  REQUIRE(int64_t(v.size()) == t.numel());
  for (size_t i = 0; i < v.size(); ++i) t.i32()[i] = v[i];
  return t;
}

inline sg::Tensor bools(const sg::Shape& shape, const std::vector<int>& v) {
  sg::Tensor t = sg::Tensor::empty(shape, sg::DType::Bool);
  REQUIRE(int64_t(v.size()) == t.numel());
  for (size_t i = 0; i < v.size(); ++i) t.u8()[i] = v[i] != 0;
  return t;
}

// 0, 1, ..., n-1 as float32, contiguous, in `shape`.
inline sg::Tensor iota(const sg::Shape& shape, bool requires_grad = false) {
  sg::Tensor t = sg::Tensor::empty(shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.f32()[i] = float(i);
  if (requires_grad) t.set_requires_grad(true);
  return t;
}

// Every element of t in row-major order (through Tensor::at, which follows the strides).
inline std::vector<double> values(const sg::Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.at(i));
  return v;
}

// t has `shape` and its elements are `want` (to doctest::Approx's default precision).
inline void expect_values(const sg::Tensor& t, const sg::Shape& shape, const std::vector<double>& want) {
  REQUIRE(t.shape() == shape);
  REQUIRE(t.numel() == int64_t(want.size()));
  for (int64_t i = 0; i < t.numel(); ++i) CHECK_MESSAGE(t.at(i) == doctest::Approx(want[i]), "at " << i);
}

// An op's attributes from literals: attrs({{"dim", 1.0}, {"mode", std::string("reflect")}}).
inline sg::Attrs attrs(std::initializer_list<std::pair<std::string, sg::AttrValue>> kv) {
  sg::Attrs a;
  for (const auto& [k, v] : kv) a.set(k, v);
  return a;
}

// The message of the sg::Error that f throws, or "<no error>".
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const sg::Error& e) {
    return e.what();
  }
  return "<no error>";
}

// The message of the sg::Error that op `op` throws when called through the op table, or
// "<no error>".
inline std::string error_of(const std::string& op, const std::vector<sg::Tensor>& inputs, const sg::Attrs& a) {
  return error_of([&] { sg::call_op(op, inputs, a); });
}

// f must throw an sg::Error whose message is exactly `message`.
inline void check_error(const std::function<void()>& f, const std::string& message) {
  CHECK(error_of(f) == message);
}

}  // namespace sgtest
