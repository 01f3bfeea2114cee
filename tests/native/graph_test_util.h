// What the graph compiler's tests share: ops called by name through the registry (as JS does),
// tracing and compiling a function, replaying a program, and comparing results bit for bit or
// within the gradients' bound.
#pragma once
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/copy.h"
#include "graph/executor.h"
#include "graph/program.h"
#include "graph/tracer.h"
#include "ops/ops.h"
#include "ops/registry.h"

namespace graphtest {

using sg::Attrs;
using sg::AttrValue;
using sg::Tensor;
using sg::graph::CompileOptions;
using sg::graph::Graph;
using sg::graph::Program;

using Fn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

inline Attrs attrs(std::initializer_list<std::pair<std::string, AttrValue>> kv) {
  Attrs a;
  for (const auto& [k, v] : kv) a.set(k, v);
  return a;
}

inline Tensor op(const std::string& name, const std::vector<Tensor>& in, const Attrs& a = {}) {
  std::vector<Tensor> out = sg::call_op(name, in, a);
  return out.empty() ? Tensor() : out[0];
}

inline Tensor num(double v) { return sg::scalar_tensor(v); }

inline Graph trace_graph(const std::vector<Tensor>& args, const Fn& fn) {
  sg::graph::Tracer t(args);
  return t.finish(fn(args));
}

inline std::shared_ptr<const Program> compiled(const std::vector<Tensor>& args, const Fn& fn, CompileOptions o = {}) {
  return sg::graph::compile(trace_graph(args, fn), o);
}

inline std::vector<Tensor> replay(const std::shared_ptr<const Program>& p, const std::vector<Tensor>& args) {
  sg::graph::Run r(p, args);
  REQUIRE(r.resume() == -1);
  return r.outputs();
}

inline void check_bits(const Tensor& got, const Tensor& want) {
  REQUIRE(got.shape() == want.shape());
  REQUIRE(got.dtype() == want.dtype());
  const Tensor g = sg::contiguous_copy(got), w = sg::contiguous_copy(want);
  CHECK(std::memcmp(g.raw(), w.raw(), static_cast<size_t>(g.numel()) * sg::dtype_size(g.dtype())) == 0);
}

inline void check_close(const Tensor& got, const Tensor& want, double rtol = 1e-6, double atol = 1e-7) {
  REQUIRE(got.shape() == want.shape());
  for (int64_t i = 0; i < got.numel(); ++i) {
    const double a = got.at(i), b = want.at(i);
    CHECK_MESSAGE(std::fabs(a - b) <= atol + rtol * std::fabs(b), "element " << i << ": " << a << " vs " << b);
  }
}

}  // namespace graphtest
