// Results of a synchronous compiled call whose run goes on after a download (compile.ts: a
// `t.to('cpu')` of a GPU tensor, or a callback given host copies of GPU inputs, is a stage that
// can only start once the bytes have arrived). The call returns at once with placeholders of the
// traced shapes, dtypes and devices; the rest of the run happens in a host step of the device's
// queue (core/device.h: before any device work enqueued after the call), which fills them:
//   - a CPU placeholder's storage is pending until then, exactly as the result of an eager
//     `to('cpu')` (reading it earlier is that Error; `await sg.sync()` / `await t.data()` wait);
//   - a GPU placeholder is filled by a device copy that the queue orders before later work;
//   - a floating placeholder, when grad mode is on and an argument or a tensor the program holds
//     requires grad, gets a node whose backward is the gradient of the real result (kept once it
//     exists) with respect to those tensors, as ops/fallback.cpp does for an op deferred to the
//     CPU. Whether the real result requires grad is known only then (the trace records without
//     autograd): one that does not loses the node when filled.
#include <emscripten/emscripten.h>

#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "autograd/record.h"
#include "core/copy.h"
#include "core/device.h"
#include "core/error.h"
#include "glue.h"
#include "graph/session.h"
#include "ops/ops.h"

using namespace sgjs;

namespace {

namespace sgg = sg::graph;

// What the placeholders' backward needs: the real results once the run has made them.
struct Filled {
  bool done = false;
  std::string error;  // the deferred part failed: why
  std::vector<sg::Tensor> results;
};

struct Pending {
  std::vector<sg::Tensor> placeholders;  // graph-free (the storage the results are copied into)
  // The placeholders handed out with a node, while alive: one whose real result turns out not to
  // require grad (a detached or integer result) loses its node when filled.
  std::vector<std::weak_ptr<sg::TensorImpl>> joined;
  std::shared_ptr<Filled> filled;
};

std::map<int, Pending> g_pending;
int g_next_pending = 1;

}  // namespace

extern "C" {

// Placeholders for program `program`'s results, run on the arguments in ids[0..n_args) (program
// 0: none, for an eager sg.jsCall on host copies, npm/src/compile/jscall_host_copies.ts); words:
// [count, then per result: ndim, sizes..., dtype code, device code]. Writes the
// placeholders (ids and dtypes) and returns the pending set's id (for sg_graph_fill_pending).
EMSCRIPTEN_KEEPALIVE int sg_graph_pending(int program, int n_args) {
  return catching(-1, [&] {
    std::vector<int32_t>& ids = scratch_ids();
    if (static_cast<size_t>(n_args) > ids.size()) sg::fail("sg.compile: malformed call (", n_args, " arguments)");
    std::vector<sg::Tensor> wanted;
    auto want = [&](const sg::Tensor& t) {
      if (!t.defined() || !t.requires_grad()) return;
      for (const sg::Tensor& w : wanted)
        if (w.same(t)) return;
      wanted.push_back(t);
    };
    for (int i = 0; i < n_args; ++i) want(get_or_null(ids[static_cast<size_t>(i)], "sg.compile: arguments"));
    if (program != 0)
      for (const sg::Tensor& e : sgg::program(program).graph.externals) want(e);

    const std::vector<double>& w = scratch_words();
    size_t at = 0;
    auto word = [&]() {
      if (at >= w.size()) sg::fail("sg.compile: malformed result specs");
      return w[at++];
    };
    auto filled = std::make_shared<Filled>();
    Pending p{{}, {}, filled};
    std::vector<sg::Tensor> handed;
    std::vector<sg::Shape> wanted_shapes;
    for (const sg::Tensor& t : wanted) wanted_shapes.push_back(t.shape());
    const int count = static_cast<int>(word());
    for (int k = 0; k < count; ++k) {
      sg::Shape shape;
      const int ndim = static_cast<int>(word());
      for (int d = 0; d < ndim; ++d) shape.push_back(static_cast<int64_t>(word()));
      const auto dtype = static_cast<sg::DType>(static_cast<int>(word()));
      const auto device = static_cast<sg::Device>(static_cast<int>(word()));
      sg::Tensor t = sg::Tensor::uninitialized(shape, dtype, device);
      if (device == sg::Device::CPU && t.numel() > 0) t.impl()->storage->set_pending(true);
      p.placeholders.push_back(t);
      if (!sg::is_floating(dtype) || wanted.empty() || !sg::grad_enabled()) {
        handed.push_back(t);
        p.joined.emplace_back();
        continue;
      }
      const size_t j = static_cast<size_t>(k);
      handed.push_back(sg::record("sg.compile (deferred)", t, wanted, [filled, j, wanted, wanted_shapes](const sg::Tensor& g) {
        sg::check(filled->error.empty(), "backward: the compiled call that made this tensor failed: ", filled->error);
        sg::check(filled->done,
                  "backward: a result of a compiled call (or of an sg.jsCall given host copies) whose data has not "
                  "arrived yet (the call goes on after a copy from the gpu): `await sg.sync()` or `await t.data()` "
                  "before backward");
        const sg::Tensor& r = filled->results[j];
        if (!r.requires_grad()) {
          std::vector<sg::Tensor> zeros;
          for (size_t i = 0; i < wanted.size(); ++i) zeros.push_back(sg::Tensor::empty(wanted_shapes[i], wanted[i].dtype(), wanted[i].device()));
          return zeros;
        }
        return sg::compute_grads(r, g, wanted, /*retain_graph=*/true, /*create_graph=*/sg::grad_enabled());
      }));
      p.joined.push_back(handed.back().ptr());
    }
    const int id = g_next_pending++;
    g_pending.emplace(id, std::move(p));
    std::vector<double>& out = scratch_words();
    grow_to(out, 1);
    const int n = write_results(handed);
    scratch_words()[0] = id;
    return n;
  });
}

// Fills pending set `id` with the run's results in ids[0..n): each copied into its placeholder
// (a CPU one stops being pending), kept for the placeholders' backward where one needs them.
EMSCRIPTEN_KEEPALIVE int sg_graph_fill_pending(int id, int n) {
  return catching(-1, [&] {
    auto it = g_pending.find(id);
    if (it == g_pending.end()) sg::fail("sg.compile: internal error: no pending results #", id);
    Pending p = std::move(it->second);
    g_pending.erase(it);
    std::vector<int32_t>& ids = scratch_ids();
    if (static_cast<size_t>(n) != p.placeholders.size() || static_cast<size_t>(n) > ids.size())
      sg::fail("sg.compile: internal error: ", n, " results for ", p.placeholders.size(), " placeholders");
    std::vector<sg::Tensor> results;
    for (int i = 0; i < n; ++i) results.push_back(get_or_null(ids[static_cast<size_t>(i)], "sg.compile: results"));
    for (size_t i = 0; i < results.size(); ++i) {
      const sg::Tensor& dst = p.placeholders[i];
      const sg::Tensor& r = results[i];
      sg::check(r.shape() == dst.shape() && r.dtype() == dst.dtype() && r.device() == dst.device(),
                "sg.compile: result ", i, " of the deferred run is ", sg::dtype_name(r.dtype()), " ", r.shape(), " on ",
                sg::device_name(r.device()), " where the trace gave ", sg::dtype_name(dst.dtype()), " ", dst.shape(),
                " on ", sg::device_name(dst.device()));
    }
    for (size_t i = 0; i < results.size(); ++i) {
      const sg::Tensor& dst = p.placeholders[i];
      if (dst.numel() > 0) dst.impl()->storage->set_pending(false);
      sg::copy_into(dst, results[i].detach());
    }
    for (size_t i = 0; i < results.size(); ++i) {
      const std::shared_ptr<sg::TensorImpl> alias = p.joined[i].lock();
      if (alias && !results[i].requires_grad()) {
        alias->grad_fn.reset();
        alias->requires_grad = false;
      }
    }
    p.filled->results = std::move(results);
    p.filled->done = true;
    return 0;
  });
}

// The deferred part of pending set `id` failed (`message` in words as character codes): its CPU
// placeholders stay pending (reading them is an Error), its floating GPU ones read NaN (the
// failure was reported by sg.sync(); no stale bytes of a reused buffer that look like results),
// and their backward names the failure.
EMSCRIPTEN_KEEPALIVE int sg_graph_fail_pending(int id, int length) {
  return catching(-1, [&] {
    auto it = g_pending.find(id);
    if (it == g_pending.end()) return 0;
    const std::vector<double>& w = scratch_words();
    std::string message;
    for (int i = 0; i < length && static_cast<size_t>(i) < w.size(); ++i) message.push_back(static_cast<char>(w[static_cast<size_t>(i)]));
    it->second.filled->error = message.empty() ? "an error in its deferred part" : message;
    for (const sg::Tensor& dst : it->second.placeholders)
      if (dst.device() != sg::Device::CPU && sg::is_floating(dst.dtype()) && dst.numel() > 0)
        sg::copy_into(dst, sg::full(dst.shape(), std::numeric_limits<double>::quiet_NaN(), dst.dtype(), dst.device()));
    g_pending.erase(it);
    return 0;
  });
}

EMSCRIPTEN_KEEPALIVE int sg_graph_live_pending() { return static_cast<int>(g_pending.size()); }

}  // extern "C"
