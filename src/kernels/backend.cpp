// Backend registry: names → backends, and the one active backend (SIMD by default).
#include "kernels/backend.h"

#include "core/error.h"

namespace sg {
namespace {

const Backend* g_active = nullptr;  // null until first use → simd_backend()

const Backend* find(const std::string& name) {
  if (name == "reference") return &reference_backend();
  if (name == "wasm" || name == "simd") return &simd_backend();
  return nullptr;
}

}  // namespace

const Backend& backend() {
  if (!g_active) g_active = &simd_backend();
  return *g_active;
}

const Backend& backend_named(const std::string& name) {
  const Backend* b = find(name);
  if (!b) fail("setBackend: unknown backend '", name, "' (expected one of: reference, wasm)");
  return *b;
}

void set_backend(const std::string& name) { g_active = &backend_named(name); }

std::vector<std::string> backend_names() { return {"reference", "wasm"}; }

}  // namespace sg
