// The backward of a fused kernel (graph/fused_autograd.h, fused_backward.h): every gradient
// formula written into the fused gradient kernel against the op's own eager backward, bit for
// bit where each value meets at most two contributions (two adds commute exactly); the
// members replayed where an op has no formula; a second derivative through a fused kernel.
#include <doctest/doctest.h>

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "autograd/engine.h"
#include "gradcheck.h"
#include "graph/fused_autograd.h"
#include "graph/fused_backward.h"
#include "graph_test_util.h"
#include "test_util.h"

using namespace sg;
using namespace sg::graph;
using namespace graphtest;
using sgtest::leaf;
using sgtest::on_each_backend;

namespace {

// Backward runs through the program's fused kernels so far, by way.
FusedBackwardCounts counts(const Program& p) {
  FusedBackwardCounts sum;
  for (const graph::Node& n : p.graph.nodes) {
    if (!n.fused) continue;
    const FusedBackwardCounts c = fused_backward_counts(*n.fused);
    sum.fused += c.fused;
    sum.replayed += c.replayed;
  }
  return sum;
}

int fused_nodes(const Program& p) {
  int n = 0;
  for (const graph::Node& node : p.graph.nodes) n += node.kind == NodeKind::Fused;
  return n;
}

// f's gradients with respect to `wrt` for the output gradient `g`: compiled (traced on x0, run
// on x) and eager, each compared; `exact`: bit for bit, else within the 1e-6 bound. Returns the
// program, for its counts.
std::shared_ptr<const Program> compare(const Fn& f, const Tensor& x0, const Tensor& x, const std::vector<Tensor>& also,
                                       bool exact) {
  const auto p = compiled({x0}, f);
  REQUIRE(fused_nodes(*p) == 1);
  const Tensor got = replay(p, {x})[0];
  const Tensor g = leaf(got.shape(), -1, 1, 99, false);
  std::vector<Tensor> wrt{x};
  wrt.insert(wrt.end(), also.begin(), also.end());
  const std::vector<Tensor> gc = compute_grads(got, g, wrt, false);
  const Tensor want = f({x})[0];
  const std::vector<Tensor> ge = compute_grads(want, g, wrt, false);
  check_bits(got, want);
  for (size_t k = 0; k < wrt.size(); ++k) {
    CAPTURE(k);
    REQUIRE(gc[k].defined());
    if (exact) check_bits(gc[k], ge[k]);
    else check_close(gc[k], ge[k]);
  }
  return p;
}

}  // namespace

TEST_CASE("fused backward: every unary formula equals the op's eager gradient bit for bit, as one kernel") {
  on_each_backend([] {
    const std::vector<std::pair<std::string, Attrs>> anywhere = {
        {"neg", {}}, {"exp", {}}, {"expm1", {}}, {"abs", {}}, {"sin", {}}, {"cos", {}}, {"erf", {}},
        {"square", {}}, {"reciprocal", {}}, {"relu", {}}, {"sigmoid", {}}, {"tanh", {}}, {"silu", {}},
        {"gelu", {}}, {"gelu", attrs({{"approximate", std::string("tanh")}})}, {"log1p", {}},
    };
    const std::vector<std::string> positive = {"log", "log2", "log10", "sqrt", "rsqrt"};
    // Sizes around the block length and the SIMD tails; w is read through a broadcast.
    for (int64_t cols : {1, 7, 513, 1031}) {
      CAPTURE(cols);
      for (bool pos : {false, true}) {
        const double lo = pos ? 0.2 : -2, hi = pos ? 3 : 2;
        const Tensor w = leaf({cols}, pos ? 0.5 : -1.5, 1.5, 31);
        const Tensor x0 = leaf({3, cols}, lo, hi, 32), x = leaf({3, cols}, lo, hi, 33);
        std::vector<std::pair<std::string, Attrs>> ops;
        if (pos) {
          for (const std::string& name : positive) ops.push_back({name, {}});
        } else {
          ops = anywhere;
        }
        for (const auto& entry : ops) {
          const std::string& name = entry.first;
          const Attrs& a = entry.second;
          CAPTURE(name);
          // op(x·w)·1.5 + x: x meets two contributions, w one (summed over the broadcast rows).
          const Fn f = [&](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{op("add", {op("mul", {op(name, {op("mul", {in[0], w})}, a), num(1.5)}), in[0]})};
          };
          const auto p = compare(f, x0, x, {w}, true);
          CHECK(counts(*p).fused == 1);
          CHECK(counts(*p).replayed == 0);
        }
      }
    }
  });
}

TEST_CASE("fused backward: add, sub, mul and div give each operand its eager gradient, broadcasts included") {
  on_each_backend([] {
    const Tensor row = leaf({5}, 0.5, 2, 41), col = leaf({4, 1}, 0.5, 2, 42);
    const Tensor x0 = leaf({4, 5}, 0.5, 2, 43), x = leaf({4, 5}, 0.5, 2, 44);
    for (const char* name : {"add", "sub", "mul", "div"}) {
      CAPTURE(name);
      // Each operand position: the argument, a row and a column broadcast, a scalar.
      const Fn f = [&](const std::vector<Tensor>& in) {
        const Tensor h = op(name, {op("tanh", {in[0]}), op("mul", {row, col})});
        return std::vector<Tensor>{op(name, {op(name, {col, h}), op("exp", {in[0]})})};
      };
      const auto p = compare(f, x0, x, {row, col}, true);
      CHECK(counts(*p).fused == 1);
    }
  });
}

TEST_CASE("fused backward: three contributions meeting at one value are within the bound") {
  const Tensor w = leaf({6}, -1, 1, 51);
  const Fn f = [&](const std::vector<Tensor>& in) {
    const Tensor s = op("sigmoid", {in[0]});
    const Tensor t = op("add", {op("mul", {s, w}), op("mul", {s, s})});
    return std::vector<Tensor>{op("add", {op("mul", {t, in[0]}), op("sin", {in[0]})})};
  };
  const auto p = compare(f, leaf({4, 6}, -1, 1, 52), leaf({4, 6}, -1, 1, 53), {w}, false);
  CHECK(counts(*p).fused == 1);
}

TEST_CASE("fused backward: the selecting formulas (maximum, pow, clamp, leakyRelu, elu, selu, softplus, sign) equal eager bit for bit, special values included") {
  on_each_backend([] {
    // Values at the formulas' edges: zeros of both signs, ties, the clamp bounds, NaN, ±inf.
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> xs = {-2, -0.3f, 0, -0.0f, 0.3f, 0.4f, 1.5f, nan, inf, -inf, 0.7f, -1e-3f};
    const std::vector<float> ws = {1, 1, 1, 1, 1, 1, -2, 1, 1, 1, 0.5f, 1};
    const int64_t n = static_cast<int64_t>(xs.size());
    const Tensor x = sgtest::from({n}, xs, true), w = sgtest::from({n}, ws, true);
    const std::vector<std::pair<std::string, std::function<Tensor(const Tensor&, const Tensor&)>>> cases = {
        {"maximum", [](const Tensor& a, const Tensor& b) { return op("maximum", {a, op("mul", {b, num(0.3)})}); }},
        {"minimum", [](const Tensor& a, const Tensor& b) { return op("minimum", {op("abs", {b}), a}); }},
        {"pow", [](const Tensor& a, const Tensor& b) { return op("pow", {op("abs", {a}), op("sub", {b, num(1)})}); }},
        {"clamp", [](const Tensor& a, const Tensor&) { return op("clamp", {a}, attrs({{"min", -0.3}, {"max", 0.4}})); }},
        {"leakyRelu", [](const Tensor& a, const Tensor&) { return op("leakyRelu", {a}, attrs({{"negativeSlope", 0.2}})); }},
        {"elu", [](const Tensor& a, const Tensor&) { return op("elu", {a}, attrs({{"alpha", 0.7}})); }},
        {"selu", [](const Tensor& a, const Tensor&) { return op("selu", {a}); }},
        {"softplus", [](const Tensor& a, const Tensor&) { return op("softplus", {a}, attrs({{"beta", 2.0}})); }},
        {"sign", [](const Tensor& a, const Tensor&) { return op("sign", {a}); }},
    };
    for (const auto& entry : cases) {
      const std::string& name = entry.first;
      const auto& body = entry.second;
      CAPTURE(name);
      // body(x·w, w)·2 + x·w: each value meets at most two contributions.
      const Fn f = [&](const std::vector<Tensor>& in) {
        const Tensor h = op("mul", {in[0], w});
        return std::vector<Tensor>{op("add", {op("mul", {body(h, w), num(2)}), h})};
      };
      const auto p = compare(f, x, x, {w}, true);
      CHECK(counts(*p).fused == 1);
      CHECK(counts(*p).replayed == 0);
    }
  });
}

TEST_CASE("fused backward: an output read inside the chain too, and two outputs, each get their gradients") {
  on_each_backend([] {
    const Tensor x0 = leaf({3, 9}, -1, 1, 71), x = leaf({3, 9}, -1, 1, 72);
    // h is both a result and read by the rest of the chain.
    const Fn f = [&](const std::vector<Tensor>& in) {
      const Tensor h = op("tanh", {op("mul", {in[0], num(0.7)})});
      const Tensor y = op("mul", {op("exp", {h}), in[0]});
      return std::vector<Tensor>{h, y};
    };
    const auto p = compiled({x0}, f);
    REQUIRE(fused_nodes(*p) == 1);
    const std::vector<Tensor> got = replay(p, {x}), want = f({x});
    const Tensor g0 = leaf({3, 9}, -1, 1, 73, false), g1 = leaf({3, 9}, -1, 1, 74, false);
    // The sum of both results with its own weights, eagerly and compiled.
    const auto loss = [&](const std::vector<Tensor>& r) {
      return op("sum", {op("add", {op("mul", {r[0], g0}), op("mul", {r[1], g1})})});
    };
    const Tensor gc = compute_grads(loss(got), Tensor(), {x}, false)[0];
    const Tensor ge = compute_grads(loss(want), Tensor(), {x}, false)[0];
    // h's gradient from outside and through y meet at different places (the fused kernel sends
    // each to x by itself): a reassociation, within the bound.
    check_close(gc, ge);
    CHECK(counts(*p).fused == 2);  // one fused gradient per output
  });
}

TEST_CASE("fused backward: a second derivative through a fused kernel equals eager's") {
  // d/dx of sum(d/dx sum(sin(3·tanh(x²)))): the first gradient is recorded (createGraph), so
  // the fused kernel's backward replays its members with autograd, joined to the graph.
  const Fn f = [](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{op("sin", {op("mul", {op("tanh", {op("mul", {in[0], in[0]})}), num(3)})})};
  };
  const auto p = compiled({leaf({2, 5})}, f);
  REQUIRE(fused_nodes(*p) == 1);
  const Tensor x = leaf({2, 5}, -1, 1, 81);
  const auto second = [&](const Tensor& out) {
    const Tensor g1 = compute_grads(op("sum", {out}), Tensor(), {x}, true, true)[0];
    REQUIRE(g1.requires_grad());
    return std::vector<Tensor>{g1, compute_grads(op("sum", {g1}), Tensor(), {x}, false)[0]};
  };
  const std::vector<Tensor> got = second(replay(p, {x})[0]), want = second(f({x})[0]);
  check_close(got[0], want[0]);
  check_close(got[1], want[1], 1e-5);
  CHECK(counts(*p).replayed >= 1);
  // And against central differences of the compiled function's gradient.
  sgtest::gradcheck("second derivative through a fused kernel",
                    [&](std::vector<Tensor>& in) {
                      return compute_grads(op("sum", {replay(p, {in[0]})[0]}), Tensor(), {in[0]}, true, true)[0];
                    },
                    {leaf({2, 5}, -1, 1, 82)});
}

TEST_CASE("fused backward: the forward keeps the costly values the gradient reads; the gradient kernel recomputes only cheap ones") {
  const Tensor w = leaf({6}, -1, 1, 91);
  // tanh and exp are kept (their formulas read their results); x·w and the sum are recomputed.
  const Fn f = [&](const std::vector<Tensor>& in) {
    const Tensor h = op("mul", {in[0], w});
    return std::vector<Tensor>{op("add", {op("mul", {op("tanh", {h}), op("exp", {in[0]})}), h})};
  };
  const auto p = compiled({leaf({4, 6})}, f);
  REQUIRE(fused_nodes(*p) == 1);
  const FusedProgram* fp = nullptr;
  for (const graph::Node& n : p->graph.nodes)
    if (n.fused) fp = n.fused.get();
  REQUIRE(fp->num_inputs == 2);  // x, then w (read through a broadcast)
  const std::vector<bool> wanted{true, true}, broadcast{false, true};
  const auto fg = fused_gradient(*fp, wanted, broadcast);
  REQUIRE(fg.has_value());
  CHECK(fg->saved_at.size() == 2);
  CHECK(fg->forward.output_registers.size() == 3);  // the result, tanh's and exp's
  REQUIRE(fg->gradients.size() == 1);
  int costly = 0, products = 0;
  for (const FusedInstr& ins : fg->gradients[0].code) {
    costly += !ins.binary && (ins.unary == Unary::Tanh || ins.unary == Unary::Exp);
    products += ins.binary && ins.op == Binary::Mul;
  }
  CHECK(costly == 0);
  CHECK(products >= 3);  // x·w again, and the formulas' products
  // Run through the executor: same gradients as eager, bit for bit.
  compare(f, leaf({4, 6}, -1, 1, 92), leaf({4, 6}, -1, 1, 93), {w}, true);
}

TEST_CASE("fused backward: the gradient program that computes every value again equals the one reading saved values") {
  // (WebGPU runs it where the forward with its saved values binds too many buffers.)
  on_each_backend([] {
    const Tensor w = leaf({5}, -1, 1, 101);
    const Fn f = [&](const std::vector<Tensor>& in) {
      Tensor h = in[0];
      for (int i = 0; i < 4; ++i)
        h = op("sigmoid", {op("sub", {op("tanh", {op("add", {op("mul", {h, num(0.9)}), w})}), op("mul", {in[0], num(0.1)})})});
      return std::vector<Tensor>{h};
    };
    const Tensor x = leaf({6, 5}, -1, 1, 102);
    const auto p = compiled({x}, f);
    REQUIRE(fused_nodes(*p) == 1);
    const graph::Node* node = nullptr;
    for (const graph::Node& n : p->graph.nodes)
      if (n.fused) node = &n;
    const FusedProgram& fp = *node->fused;
    // The node's inputs in the program's order: x, the numbers, w (as traced).
    std::vector<Tensor> inputs;
    std::vector<bool> wanted, broadcast;
    for (ValueId v : fp.input_values) {
      const ValueInfo& info = p->graph.values[v];
      Tensor t = info.source == ValueSource::Argument ? x : p->graph.externals[info.index];
      inputs.push_back(t);
      wanted.push_back(t.requires_grad());
      broadcast.push_back(t.shape() != fp.shape);
    }
    const auto fg = fused_gradient(fp, wanted, broadcast);
    REQUIRE(fg.has_value());
    CHECK(fg->saved_at.size() == 8);  // tanh's and sigmoid's results, four rounds
    const std::vector<Tensor> stored = run_fused(fg->forward, inputs, {});
    std::vector<Tensor> saved;
    for (int at : fg->saved_at) saved.push_back(stored[at]);
    const Tensor g = leaf(fp.shape, -1, 1, 103, false);
    std::vector<Tensor> with_saved = inputs, recomputing = inputs;
    with_saved.push_back(g);
    recomputing.push_back(g);
    with_saved.insert(with_saved.end(), saved.begin(), saved.end());
    const std::vector<Tensor> a = run_fused(fg->gradients[0], with_saved, {});
    const std::vector<Tensor> b = run_fused(fg->recomputing[0], recomputing, {});
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) check_bits(a[i], b[i]);
  });
}

TEST_CASE("fused backward: one-value operands (number exponents, a sum's gradient) give the eager gradients") {
  // pow(x, 2)'s formula computes 2 − 1 once (one value) and then x^1 over the block: the block
  // runner must not let the result overwrite that value while reading it (it did).
  on_each_backend([] {
    for (double e : {2.0, 3.0, 0.5}) {
      CAPTURE(e);
      const Fn f = [&](const std::vector<Tensor>& in) {
        const Tensor h = op("pow", {op("add", {op("abs", {in[0]}), num(0.25)}), num(e)});
        return std::vector<Tensor>{op("sum", {op("mul", {op("maximum", {h, num(0.5)}), num(3)})})};
      };
      for (int64_t n : {5, 1031}) {
        const Tensor x = leaf({n}, -2, 2, 111);
        const auto p = compiled({x}, f);
        const Tensor gc = compute_grads(replay(p, {x})[0], Tensor(), {x}, false)[0];
        const Tensor ge = compute_grads(f({x})[0], Tensor(), {x}, false)[0];
        check_bits(gc, ge);
        CHECK(counts(*p).fused == 1);
      }
    }
  });
}
