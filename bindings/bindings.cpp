// Embind glue: the module's free functions that are not per-op or per-tensor (bindings/README.md).
// Glue only: each converts its arguments, calls the C++ API and converts back; every one is
// registered through guarded<> (glue.h), which turns C++ exceptions into JS Errors.
#include <emscripten/bind.h>
#include <malloc.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/rng.h"
#include "core/storage.h"
#include "glue.h"
#include "kernels/backend.h"
#include "ops/registry.h"

namespace sgjs {
namespace {

void set_backend(std::string name) { sg::set_backend(name); }
std::string get_backend() { return sg::backend().name(); }

// JS numbers are doubles: accept the integers they hold exactly.
void manual_seed(double seed) {
  if (!(seed >= 0 && seed <= 9007199254740991.0 && seed == std::floor(seed)))
    sg::fail("manualSeed: expected a non-negative integer, got ", seed);
  sg::manual_seed(static_cast<uint64_t>(seed));
}

// The global generator's position, [seed, offset] (both below 2^53 in practice: a JS number holds
// them exactly), so sg.utils.checkpoint can replay the random draws of a region (dropout) when it
// recomputes it, as torch.utils.checkpoint's preserve_rng_state.
val get_rng_state() {
  const sg::RngState s = sg::rng_state();
  val out = val::array();
  out.call<void>("push", static_cast<double>(s.seed));
  out.call<void>("push", static_cast<double>(s.offset));
  return out;
}

void set_rng_state(double seed, double offset) {
  if (!(seed >= 0 && seed == std::floor(seed) && offset >= 0 && offset == std::floor(offset)))
    sg::fail("setRngState: expected non-negative integers, got ", seed, ", ", offset);
  sg::set_rng_state({static_cast<uint64_t>(seed), static_cast<uint64_t>(offset)});
}

val memory_stats() {
  const sg::MemoryStats s = sg::memory_stats();
  val out = val::object();
  out.set("storages", static_cast<double>(s.storages));
  out.set("bytes", static_cast<double>(s.bytes));
  out.set("peakBytes", static_cast<double>(s.peak_bytes));
  out.set("cachedBytes", static_cast<double>(s.cached_bytes));
  out.set("cachedBlocks", static_cast<double>(s.cached_blocks));
  out.set("deviceStorages", static_cast<double>(s.device_storages));
  out.set("deviceBytes", static_cast<double>(s.device_bytes));
  // Bytes malloc has handed out and not taken back (tensors, graph nodes, caches, everything):
  // a leak below the tensor level shows here long before the heap has to grow.
  out.set("heapUsed", static_cast<double>(mallinfo().uordblks));
  // Ids in the handle table: every JS Tensor holds one; flat across a loop = no id leak.
  out.set("handles", static_cast<double>(live_handles()));
  return out;
}

void empty_cache() { sg::empty_cache(); }
void reset_peak_bytes() { sg::reset_peak_bytes(); }

val op_names() {
  val out = val::array();
  for (const std::string& name : sg::op_names()) out.call<void>("push", name);
  return out;
}

bool simd_enabled() {
#ifdef __wasm_simd128__
  return true;
#else
  return false;
#endif
}
}  // namespace
}  // namespace sgjs

EMSCRIPTEN_BINDINGS(simdgrad_functions) {
  using namespace sgjs;
  std::string names;
  def<&set_backend>(names, "setBackend");
  def<&get_backend>(names, "getBackend");
  def<&manual_seed>(names, "manualSeed");
  def<&get_rng_state>(names, "getRngState");
  def<&set_rng_state>(names, "setRngState");
  def<&memory_stats>(names, "memoryStats");
  def<&empty_cache>(names, "emptyCache");
  def<&reset_peak_bytes>(names, "resetPeakBytes");
  def<&op_names>(names, "opNames");
  def<&simd_enabled>(names, "simdEnabled");
  install_stack_guards(names);
}
