// Helpers shared by the native op and layer tests: run a body on every CPU backend, build
// int32/bool tensors from literals, and read or check the message of a thrown sg::Error.
#pragma once
#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/tensor.h"
#include "kernels/backend.h"
#include "kernels/simd/simd_kernels.h"

#ifndef __EMSCRIPTEN__
#include "hwy/targets.h"
#endif

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

// The message of the sg::Error that f throws, or "<no error>".
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const sg::Error& e) {
    return e.what();
  }
  return "<no error>";
}

// f must throw an sg::Error whose message is exactly `message`.
inline void check_error(const std::function<void()>& f, const std::string& message) {
  CHECK(error_of(f) == message);
}

}  // namespace sgtest
