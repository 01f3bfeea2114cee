// The graph compiler (src/graph): tracing through the op registry, the passes (CSE, dead code,
// elementwise fusion), the executor (replay, liveness, buffer donation, stages at callbacks) and
// autograd through compiled code. Every compiled result is compared with the same ops run one
// by one (eagerly): bit for bit for values, and for gradients where nothing is reassociated.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "core/copy.h"
#include "core/rng.h"
#include "gradcheck.h"
#include "graph/callbacks.h"
#include "graph/executor.h"
#include "graph/fused_program.h"
#include "graph/passes.h"
#include "graph/program.h"
#include "graph/session.h"
#include "graph/tracer.h"
#include "ops/ops.h"
#include "ops/registry.h"
#include "graph_test_util.h"
#include "test_util.h"

using namespace sg;
using namespace sg::graph;
using sgtest::error_of;
using sgtest::leaf;
using namespace graphtest;

namespace {

int count(const Graph& g, NodeKind kind) {
  int n = 0;
  for (const graph::Node& node : g.nodes) n += node.kind == kind;
  return n;
}

int count_op(const Graph& g, const std::string& name) {
  int n = 0;
  for (const graph::Node& node : g.nodes) n += node.op == name;
  return n;
}

// A C++ stand-in for the JS side of callbacks: names, and a vjp computed by a function.
struct TestHost : CallbackHost {
  std::function<std::vector<Tensor>(const std::vector<Tensor>&, const std::vector<Tensor>&,
                                    const std::vector<Tensor>&)>
      fn;
  int vjp_calls = 0;
  CallbackHost* previous = set_callback_host(this);
  ~TestHost() override { set_callback_host(previous); }
  std::string describe(int id) override { return "'cube' (#" + std::to_string(id) + ")"; }
  bool has_vjp(int) override { return static_cast<bool>(fn); }
  std::vector<Tensor> vjp(int, const std::vector<Tensor>& in, const std::vector<Tensor>& out,
                          const std::vector<Tensor>& g) override {
    ++vjp_calls;
    return fn(in, out, g);
  }
  std::vector<int> host_steps;
  void run_host_step(int id) override { host_steps.push_back(id); }
};

}  // namespace

TEST_CASE("graph trace: records top-level ops with their inputs, arguments and externals") {
  const Tensor x = leaf({2, 3}, -1, 1, 1, false), w = leaf({3}, -1, 1, 2, false);
  const Graph g = trace_graph({x}, [&](const std::vector<Tensor>& a) {
    return std::vector<Tensor>{op("exp", {op("mul", {a[0], w})})};
  });
  REQUIRE(g.nodes.size() == 2);
  CHECK(g.nodes[0].op == "mul");
  CHECK(g.nodes[1].op == "exp");
  CHECK(g.num_args == 1);
  REQUIRE(g.externals.size() == 1);
  CHECK(g.externals[0].same(w));
  CHECK(g.values[g.nodes[0].inputs[0]].source == ValueSource::Argument);
  CHECK(g.values[g.nodes[0].inputs[1]].source == ValueSource::External);
  CHECK(g.outputs.size() == 1);
  CHECK(g.values[g.outputs[0]].spec.shape == Shape{2, 3});
}

TEST_CASE("graph replay: new arguments give the eager results bit for bit, on every backend") {
  sgtest::on_each_backend([] {
    const Tensor w = leaf({5}, -1, 1, 3, false), b = leaf({4, 1}, -1, 1, 4, false);
    const Fn f = [&](const std::vector<Tensor>& a) {
      const Tensor h = op("add", {op("mul", {a[0], w}), b});
      const Tensor s = op("softmax", {op("tanh", {h})}, attrs({{"dim", 1.0}}));
      return std::vector<Tensor>{op("sum", {op("relu", {op("sub", {s, num(0.1)})})}), s};
    };
    for (bool fuse : {false, true}) {
      CompileOptions o;
      o.fuse = fuse;
      const auto p = compiled({leaf({4, 5}, -1, 1, 5, false)}, f, o);
      for (unsigned seed : {6u, 7u}) {
        const Tensor x = leaf({4, 5}, -2, 2, seed, false);
        const std::vector<Tensor> got = replay(p, {x}), want = f({x});
        check_bits(got[0], want[0]);
        check_bits(got[1], want[1]);
      }
    }
  });
}

TEST_CASE("graph passes: common subexpressions merge, but not across an impure op or when they escape") {
  const Tensor x = leaf({3}, -1, 1, 1, false);
  Graph g = trace_graph({x}, [](const std::vector<Tensor>& a) {
    const Tensor u = op("exp", {a[0]}), v = op("exp", {a[0]});  // merged
    const Tensor r = op("rand", {}, attrs({{"shape", std::vector<double>{3}}}));
    const Tensor w = op("exp", {a[0]});  // after an impure op: kept apart
    const Tensor o1 = op("neg", {a[0]}), o2 = op("neg", {a[0]});  // both outputs: kept apart
    return std::vector<Tensor>{op("add", {op("add", {u, v}), op("add", {w, r})}), o1, o2};
  });
  eliminate_common_subexpressions(g);
  eliminate_dead_code(g);
  CHECK(count_op(g, "exp") == 2);
  CHECK(count_op(g, "neg") == 2);
  CHECK(count_op(g, "rand") == 1);
  CHECK(g.outputs[1] != g.outputs[2]);
}

TEST_CASE("graph passes: dead code goes, impure ops and callbacks stay unless pure") {
  const Tensor x = leaf({3}, -1, 1, 1, false);
  Graph g = trace_graph({x}, [](const std::vector<Tensor>& a) {
    op("exp", {a[0]});                                               // unused: removed
    op("rand", {}, attrs({{"shape", std::vector<double>{2}}}));      // unused, but draws: kept
    Tracer::active()->callback(1, {a[0]}, {{{3}, DType::Float32}}, false);  // unused: kept
    Tracer::active()->callback(2, {a[0]}, {{{3}, DType::Float32}}, true);   // pure and unused: removed
    // Two identical pure calls are one.
    const Tensor p1 = Tracer::active()->callback(5, {a[0]}, {{{3}, DType::Float32}}, true)[0];
    const Tensor p2 = Tracer::active()->callback(5, {a[0]}, {{{3}, DType::Float32}}, true)[0];
    return std::vector<Tensor>{op("neg", {a[0]}), op("add", {p1, p2})};
  });
  eliminate_common_subexpressions(g);
  eliminate_dead_code(g);
  CHECK(count_op(g, "exp") == 0);
  CHECK(count_op(g, "rand") == 1);
  REQUIRE(count(g, NodeKind::Callback) == 2);
  int impure_callbacks = 0;
  for (const graph::Node& n : g.nodes)
    if (n.kind == NodeKind::Callback) impure_callbacks += n.callback == 1;
  CHECK(impure_callbacks == 1);
  CHECK(count_op(g, "neg") == 1);
}

TEST_CASE("graph fusion: an elementwise chain with broadcasts becomes one kernel, bit-identical") {
  sgtest::on_each_backend([] {
    // Sizes around the block length and the SIMD tails; broadcast rows, columns, scalars and a
    // transposed (strided) operand.
    for (int64_t cols : {1, 3, 7, 511, 512, 513, 1031}) {
      CAPTURE(cols);
      const Tensor x = leaf({3, cols}, -2, 2, 11, false);
      const Tensor row = leaf({cols}, 0.5, 2, 12, false);
      const Tensor col = leaf({3, 1}, -1, 1, 13, false);
      const Tensor xt = transpose(leaf({cols, 3}, -1, 1, 14, false), 0, 1);
      const Fn f = [&](const std::vector<Tensor>& a) {
        Tensor h = op("mul", {a[0], row});
        h = op("add", {h, col});
        h = op("sub", {h, xt});
        h = op("gelu", {h}, attrs({{"approximate", std::string("tanh")}}));
        h = op("clamp", {h}, attrs({{"min", -0.25}, {"max", 1.5}}));
        const Tensor e = op("exp", {op("neg", {op("square", {h})})});
        h = op("div", {op("maximum", {h, e}), op("add", {row, num(1)})});
        h = op("leakyRelu", {op("sigmoid", {h})}, attrs({{"negativeSlope", 0.2}}));
        h = op("pow", {op("abs", {h}), num(1.5)});
        return std::vector<Tensor>{op("softplus", {h}, attrs({{"beta", 2.0}})), e};
      };
      const auto p = compiled({x}, f);
      CHECK(p->stats.fused >= 1);
      CHECK(p->stats.fused_ops >= 12);
      const std::vector<Tensor> got = replay(p, {x}), want = f({x});
      check_bits(got[0], want[0]);
      check_bits(got[1], want[1]);
    }
  });
}

TEST_CASE("graph fusion: every fusable unary op and parameter gives the op's own values") {
  const Tensor x = leaf({3, 37}, -3, 3, 21, false);
  const std::vector<std::pair<std::string, Attrs>> ops = {
      {"neg", {}}, {"exp", {}}, {"log1p", {}}, {"expm1", {}}, {"abs", {}}, {"sign", {}}, {"sin", {}},
      {"cos", {}}, {"erf", {}}, {"square", {}}, {"reciprocal", {}}, {"relu", {}}, {"sigmoid", {}},
      {"tanh", {}}, {"silu", {}}, {"selu", {}}, {"elu", attrs({{"alpha", 0.7}})}, {"gelu", {}},
      {"softplus", attrs({{"beta", 0.5}, {"threshold", 25.0}})}, {"leakyRelu", {}},
      {"clamp", attrs({{"max", 0.3}})},
  };
  for (const auto& entry : ops) {
    const std::string& name = entry.first;  // (no structured binding: clang 14 cannot capture one)
    const Attrs& a = entry.second;
    CAPTURE(name);
    // op(x) * 1.5 + x: two more members so that the op sits inside a fused chain.
    const Fn f = [&](const std::vector<Tensor>& in) {
      return std::vector<Tensor>{op("add", {op("mul", {op(name, {in[0]}, a), num(1.5)}), in[0]})};
    };
    const auto p = compiled({x}, f);
    CHECK(p->stats.fused == 1);
    check_bits(replay(p, {x})[0], f({x})[0]);
    // log, sqrt and friends on positive inputs
  }
  const Tensor pos = leaf({5, 9}, 0.1, 3, 22, false);
  for (const char* name : {"log", "log2", "log10", "sqrt", "rsqrt"}) {
    CAPTURE(name);
    const Fn f = [&](const std::vector<Tensor>& in) {
      return std::vector<Tensor>{op("mul", {op(name, {in[0]}), in[0]})};
    };
    check_bits(replay(compiled({pos}, f), {pos})[0], f({pos})[0]);
  }
}

TEST_CASE("graph fusion: a temporary read twice by one op (x·x) keeps its register until both reads") {
  const Tensor x = leaf({2, 700}, -1, 1, 25, false);
  const Fn f = [](const std::vector<Tensor>& a) {
    const Tensor h = op("exp", {a[0]});
    const Tensor sq = op("mul", {h, h});            // h's last read, twice
    const Tensor u = op("sin", {a[0]}), v = op("cos", {a[0]});  // two more temporaries live
    const Tensor w = op("add", {op("mul", {sq, u}), v});
    return std::vector<Tensor>{op("sub", {w, op("mul", {u, v})})};
  };
  const auto p = compiled({x}, f);
  CHECK(p->stats.fused == 1);
  check_bits(replay(p, {x})[0], f({x})[0]);
}

TEST_CASE("graph fusion: a softplus below the kernel's threshold, int inputs and other shapes stay unfused") {
  const Tensor x = leaf({4, 6}, -1, 1, 31, false);
  const Tensor i = sgtest::ints({4, 6}, std::vector<int32_t>(24, 2));
  const auto p = compiled({x}, [&](const std::vector<Tensor>& a) {
    const Tensor s = op("softplus", {op("exp", {a[0]})}, attrs({{"threshold", 5.0}}));
    const Tensor r = op("sum", {op("mul", {a[0], num(2)})}, attrs({{"dim", 1.0}, {"keepdim", true}}));
    return std::vector<Tensor>{op("add", {s, r}), op("add", {i, i})};
  });
  // exp stands alone before softplus; mul sits before a reduction; the sum's [4, 1] result
  // differs from add's shape; the int add is not float.
  CHECK(p->stats.fused == 0);
}

TEST_CASE("graph fusion: a group ends where something outside it reads its values") {
  const Tensor x = leaf({8}, -1, 1, 41, false);
  const Fn f = [](const std::vector<Tensor>& a) {
    const Tensor e = op("exp", {a[0]});
    const Tensor m = op("mul", {e, num(2)});
    const Tensor s = op("sum", {m});                     // reads m: the group {exp, mul} ends
    const Tensor y = op("add", {op("sub", {m, s}), e});  // a new group reading m and e
    return std::vector<Tensor>{op("relu", {y})};
  };
  const auto p = compiled({x}, f);
  CHECK(p->stats.fused == 2);
  check_bits(replay(p, {x})[0], f({x})[0]);
}

TEST_CASE("graph executor: values are released after their last use; a fused kernel reuses a dying input") {
  const int64_t n = 1 << 16;
  const Tensor x = leaf({n}, -1, 1, 51, false);
  const Fn f = [](const std::vector<Tensor>& a) {
    Tensor h = op("exp", {a[0]});
    for (int k = 0; k < 10; ++k) h = op(k % 2 ? "sin" : "cos", {op("softmax", {h}, attrs({{"dim", 0.0}}))});
    return std::vector<Tensor>{h};
  };
  CompileOptions unfused;
  unfused.fuse = false;
  const auto p = compiled({x}, f, unfused);
  const int64_t bytes = n * 4;
  reset_peak_bytes();
  const int64_t base = memory_stats().bytes;
  {
    const std::vector<Tensor> out = replay(p, {x});
    // At most the input of a node, its output and one temporary of softmax are alive at once.
    CHECK(memory_stats().peak_bytes - base <= 3 * bytes);
  }
  CHECK(memory_stats().bytes == base);

  // exp(x) dies in the fused kernel (exp(..) * 2 + 1 after a softmax): the output takes its buffer.
  const auto q = compiled({x}, [](const std::vector<Tensor>& a) {
    const Tensor s = op("softmax", {a[0]}, attrs({{"dim", 0.0}}));
    return std::vector<Tensor>{op("add", {op("mul", {op("exp", {s}), num(2)}), num(1)})};
  });
  REQUIRE(q->stats.fused == 1);
  reset_peak_bytes();
  const int64_t before = memory_stats().bytes;
  const Tensor out = replay(q, {x})[0];
  // softmax's output (the fused kernel's input, dying there) became the output buffer.
  CHECK(memory_stats().peak_bytes - before <= bytes + 64 * 1024);  // + softmax's small temporaries
  check_bits(out, op("add", {op("mul", {op("exp", {op("softmax", {x}, attrs({{"dim", 0.0}}))}), num(2)}), num(1)}));
}

TEST_CASE("graph autograd: gradients through a replayed graph equal eager ones, fused or not") {
  sgtest::on_each_backend([] {
    const Tensor w = leaf({6}, -1, 1, 61), b = leaf({4, 1}, -1, 1, 62);
    const Fn f = [&](const std::vector<Tensor>& a) {
      const Tensor h = op("tanh", {op("add", {op("mul", {a[0], w}), b})});
      const Tensor y = op("mul", {op("exp", {op("neg", {h})}), op("sigmoid", {h})});
      return std::vector<Tensor>{op("sum", {op("square", {y})})};
    };
    for (bool fuse : {false, true}) {
      CAPTURE(fuse);
      CompileOptions o;
      o.fuse = fuse;
      const Tensor x0 = leaf({4, 6}, -1, 1, 63);
      const auto p = compiled({x0}, f, o);
      const Tensor x = leaf({4, 6}, -1, 1, 64);
      const Tensor got = replay(p, {x})[0];
      const std::vector<Tensor> g = compute_grads(got, Tensor(), {x, w, b}, false);
      const Tensor want = f({x})[0];
      const std::vector<Tensor> e = compute_grads(want, Tensor(), {x, w, b}, false);
      check_bits(got, want);
      for (size_t k = 0; k < g.size(); ++k) {
        if (fuse) check_close(g[k], e[k]);  // sums meeting at one input may be ordered otherwise
        else check_bits(g[k], e[k]);
      }
    }
  });
}

TEST_CASE("graph autograd: a fused chain's gradient is checked against central differences") {
  const auto p = compiled({leaf({3, 4})}, [](const std::vector<Tensor>& a) {
    return std::vector<Tensor>{op("mul", {op("sin", {op("mul", {a[0], a[0]})}), op("exp", {a[0]})})};
  });
  REQUIRE(p->stats.fused == 1);
  sgtest::gradcheck("fused sin(x²)·eˣ", [&](std::vector<Tensor>& in) { return replay(p, {in[0]})[0]; },
                    {leaf({3, 4}, -1, 1, 71)});
}

TEST_CASE("graph trace: a training step records backward and grad, and leaves no effect behind") {
  const Tensor w = leaf({3, 2}, -1, 1, 81), x = leaf({5, 3}, -1, 1, 82, false);
  const Fn step = [&](const std::vector<Tensor>& a) {
    call_op("setGrad", {w, Tensor()}, {});
    const Tensor loss = op("mean", {op("square", {op("matmul", {a[0], w})})});
    call_op("backward", {loss}, {});
    const Tensor g = op("grad", {w});
    return std::vector<Tensor>{loss, op("mul", {g, num(0.5)})};
  };
  const Tensor before = leaf({3, 2}, 0, 1, 83, false);
  w.impl()->grad = before.ptr();
  const auto p = compiled({x}, step);
  CHECK(w.impl()->grad == before.ptr());  // the trace's setGrad and backward were undone
  CHECK(count_op(p->graph, "backward") == 1);
  const std::vector<Tensor> got = replay(p, {x});
  const Tensor compiled_grad = w.grad();
  const std::vector<Tensor> want = step({x});
  check_bits(got[0], want[0]);
  check_bits(compiled_grad, w.grad());
  check_bits(got[1], want[1]);
}

TEST_CASE("graph trace: the grad mode set inside the function is replayed, and put back after tracing") {
  const Tensor w = leaf({3}, -1, 1, 95);
  const auto p = compiled({}, [&](const std::vector<Tensor>&) {
    call_op("setGradEnabled", {}, attrs({{"enabled", false}}));
    const Tensor frozen = op("mul", {w, num(2)});
    call_op("setGradEnabled", {}, attrs({{"enabled", true}}));
    return std::vector<Tensor>{frozen, op("mul", {w, num(3)})};
  });
  CHECK(grad_enabled());
  const std::vector<Tensor> out = replay(p, {});
  CHECK(!out[0].requires_grad());
  CHECK(out[1].requires_grad());
}

TEST_CASE("graph trace: running statistics and the generator are put back after tracing") {
  const Tensor mean = leaf({3}, -1, 1, 91, false), var = leaf({3}, 0.5, 1, 92, false);
  const Tensor mean0 = contiguous_copy(mean), var0 = contiguous_copy(var);
  manual_seed(5);
  const Tensor x = leaf({4, 3}, -1, 1, 93, false);
  const Fn f = [&](const std::vector<Tensor>& a) {
    const Tensor y = op("batchNorm", {a[0], mean, var}, attrs({{"training", true}}));
    return std::vector<Tensor>{op("add", {y, op("rand", {}, attrs({{"shape", std::vector<double>{4, 3}}}))})};
  };
  const auto p = compiled({x}, f);
  check_bits(mean, mean0);
  check_bits(var, var0);
  const std::vector<Tensor> got = replay(p, {x});
  const Tensor mean1 = contiguous_copy(mean);
  // The same from the same start: the first run draws what eager code would have drawn.
  copy_into(mean, mean0);
  copy_into(var, var0);
  manual_seed(5);
  const std::vector<Tensor> want = f({x});
  check_bits(got[0], want[0]);
  check_bits(mean1, mean);
  // Random ops draw fresh values on every run.
  const std::vector<Tensor> again = replay(p, {x});
  CHECK(again[0].at(0) != got[0].at(0));
}

TEST_CASE("graph trace: an error inside the traced function leaves no effect and no trace") {
  const Tensor w = leaf({2}, -1, 1, 101);
  const auto old = w.impl()->grad;
  CHECK(error_of([&] {
          Tracer t({});
          call_op("setGrad", {w, leaf({2}, 0, 1, 102, false)}, {});
          op("matmul", {w, leaf({3}, 0, 1, 103, false)});
        }) == "matmul: shapes [2] and [3] are not aligned (2 != 3)");
  CHECK(w.impl()->grad == old);
  CHECK(Tracer::active() == nullptr);
  // Tracing twice at once on one thread is refused.
  Tracer t({});
  CHECK(error_of([] { Tracer u({}); }) == "sg.compile: a function is already being traced on this thread");
}

TEST_CASE("graph callbacks: a graph splits into stages at each callback") {
  const Tensor x = leaf({2, 3}, -1, 1, 111, false);
  const auto p = compiled({x}, [](const std::vector<Tensor>& a) {
    const Tensor h = op("exp", {a[0]});
    const Tensor c = Tracer::active()->callback(7, {h}, {{{2, 3}, DType::Float32}, {{2}, DType::Int32}}, false)[0];
    const Tensor u = Tracer::active()->callback(8, {c}, {{{1}, DType::Float32}}, false)[0];  // unused
    (void)u;
    return std::vector<Tensor>{op("add", {c, h})};
  });
  CHECK(p->stats.stages == 3);
  CHECK(p->stats.callbacks == 2);
  Run r(p, {x});
  REQUIRE(r.resume() == 7);
  const std::vector<Tensor> in = r.callback_inputs();
  REQUIRE(in.size() == 1);
  check_bits(in[0], op("exp", {x}));
  const Tensor c = op("mul", {in[0], num(3)});
  r.provide({c, sgtest::ints({2}, {1, 2})});
  REQUIRE(r.resume() == 8);
  // A result that does not match the template is refused, and the run is over.
  CHECK(error_of([&] { r.provide({leaf({2}, 0, 1, 1, false)}); }) ==
        "jsCall: result 0 of callback #8 should be [1] float32, got [2] float32");
  CHECK(error_of([&] { r.resume(); }) == "sg.compile: this run failed earlier");

  Run ok(p, {x});
  REQUIRE(ok.resume() == 7);
  ok.provide({c, sgtest::ints({2}, {1, 2})});
  REQUIRE(ok.resume() == 8);
  ok.provide({leaf({1}, 0, 1, 1, false)});
  REQUIRE(ok.resume() == -1);
  check_bits(ok.outputs()[0], op("add", {c, op("exp", {x})}));
}

TEST_CASE("graph callbacks: gradients through a callback come from its vjp, checked by central differences") {
  TestHost host;
  // The callback computes x³ (in "JavaScript"); its vjp is 3x²·g.
  host.fn = [](const std::vector<Tensor>& in, const std::vector<Tensor>&, const std::vector<Tensor>& g) {
    NoGradGuard no;
    return std::vector<Tensor>{mul(g[0], mul(square(in[0]), scalar_tensor(3)))};
  };
  const auto p = compiled({leaf({4})}, [](const std::vector<Tensor>& a) {
    const Tensor c = Tracer::active()->callback(3, {op("mul", {a[0], num(2)})}, {{{4}, DType::Float32}}, false)[0];
    return std::vector<Tensor>{op("sum", {op("sin", {c})})};
  });
  const auto run = [&](const Tensor& x) {
    Run r(p, {x});
    REQUIRE(r.resume() == 3);
    const Tensor in = r.callback_inputs()[0].detach();
    r.provide({mul(in, mul(in, in))});
    REQUIRE(r.resume() == -1);
    return r.outputs()[0];
  };
  sgtest::gradcheck("callback (2x)³", [&](std::vector<Tensor>& in) { return run(in[0]); }, {leaf({4}, -1, 1, 121)});
  CHECK(host.vjp_calls > 0);

  host.fn = nullptr;  // no vjp: backward through the callback names it and the option
  const Tensor out = run(leaf({4}, -1, 1, 122));
  CHECK(error_of([&] { out.backward(); }) ==
        "jsCall: cannot differentiate through callback 'cube' (#3): it has no vjp (pass { vjp: (residuals, "
        "gradOutputs) => gradInputs } in the options of sg.jsCall, or detach its inputs)");
}

TEST_CASE("graph callbacks: several outputs share one vjp call") {
  TestHost host;
  host.fn = [](const std::vector<Tensor>& in, const std::vector<Tensor>&, const std::vector<Tensor>& g) {
    NoGradGuard no;
    REQUIRE(g.size() == 3);
    CHECK(!g[1].defined());  // the int32 output carries no gradient
    return std::vector<Tensor>{add(g[0], mul(g[2], scalar_tensor(2)))};  // d(x, ·, 2x)
  };
  const Tensor x = leaf({3}, -1, 1, 131);
  const std::vector<Tensor> outs = link_callback(
      9, {x}, {contiguous_copy(x.detach()), sgtest::ints({3}, {1, 2, 3}), mul(x.detach(), scalar_tensor(2))});
  const Tensor loss = add(sum(mul(outs[0], scalar_tensor(3))), sum(outs[2]));
  loss.backward();
  CHECK(host.vjp_calls == 1);
  for (int64_t i = 0; i < 3; ++i) CHECK(x.grad().at(i) == doctest::Approx(5.0));
}

TEST_CASE("graph host steps: run in place, in order, without ending the stage") {
  TestHost host;
  const Tensor x = leaf({3}, -1, 1, 161, false);
  const auto p = compiled({x}, [](const std::vector<Tensor>& a) {
    const Tensor y = op("exp", {a[0]});
    Tracer::active()->host_step(4);
    Tracer::active()->host_step(5);
    return std::vector<Tensor>{op("neg", {y})};
  });
  CHECK(p->stats.stages == 1);
  CHECK(host.host_steps.empty());  // not at trace time
  replay(p, {x});
  replay(p, {x});
  CHECK(host.host_steps == std::vector<int>{4, 5, 4, 5});
}

TEST_CASE("graph executor: a failing op ends the run and keeps nothing") {
  const Tensor table = leaf({4, 2}, -1, 1, 141, false);
  const auto p = compiled({sgtest::ints({3}, {0, 1, 2})}, [&](const std::vector<Tensor>& a) {
    return std::vector<Tensor>{op("exp", {op("indexSelect", {table, a[0]}, attrs({{"dim", 0.0}}))})};
  });
  const int64_t before = memory_stats().storages;
  {
    Run r(p, {sgtest::ints({3}, {0, 9, 2})});
    CHECK(error_of([&] { r.resume(); }).find("indexSelect") == 0);
  }
  CHECK(memory_stats().storages == before);
}

TEST_CASE("graph session: programs and runs by id") {
  const Tensor x = leaf({2}, -1, 1, 151, false);
  trace_begin({x});
  CHECK(tracing());
  const Tensor y = op("exp", {x});
  const int id = trace_end({y}, {});
  CHECK(!tracing());
  CHECK(program(id).stats.nodes == 1);
  const int r = start_run(id, {x});
  CHECK(run(r).resume() == -1);
  check_bits(run(r).outputs()[0], exp(x));
  end_run(r);
  CHECK(error_of([&] { run(r); }).find("is not a run in progress") != std::string::npos);
  CHECK(error_of([&] { start_run(id, {leaf({3}, 0, 1, 1, false)}); }) ==
        "sg.compile: argument 0 should be [2] float32 on cpu as when traced, got [3] float32 on cpu");
  free_program(id);
  CHECK(error_of([&] { program(id); }).find("is not a live compiled program") != std::string::npos);
}
