// The handle table: what a JS Tensor holds is an int32 id into it (bindings/README.md).
//
// Why integers: with Embind class handles, every tensor crossing the boundary was a JS object
// made by Embind (makeClassHandle, 16 % of a tiny op) plus a C++ heap copy of the handle; an
// id is a number both sides read for free. A JS Tensor owns one id and releases it in dispose()
// (or its FinalizationRegistry does).
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "glue.h"

namespace sgjs {
namespace {

// id = generation << 24 | (slot index + 1). The generation (1..127) changes each time a slot
// is freed, so an id kept after its release cannot reach the slot's next tensor; ids stay
// positive int32 (JS numbers that wasm takes as i32 without conversion).
constexpr int kIndexBits = 24;
constexpr uint32_t kIndexMask = (1u << kIndexBits) - 1;
constexpr uint32_t kMaxGeneration = 127;

struct Slot {
  sg::Tensor tensor;  // undefined while the slot is free
  uint32_t generation = 1;
};

std::vector<Slot> g_slots;
std::vector<uint32_t> g_free;  // indices of free slots, reused last-in first-out
size_t g_live = 0;

[[noreturn]] void bad_id(int32_t id, std::string_view what) {
  sg::fail(what, ": ", id, " is not a live tensor handle (a disposed tensor?)");
}

Slot* slot_of(int32_t id) {
  const uint32_t u = static_cast<uint32_t>(id);
  const uint32_t index = (u & kIndexMask) - 1;
  if (id <= 0 || index >= g_slots.size()) return nullptr;
  Slot& s = g_slots[index];
  if (s.generation != (u >> kIndexBits) || !s.tensor.defined()) return nullptr;
  return &s;
}

}  // namespace

const sg::Tensor* find(int32_t id) {
  Slot* s = slot_of(id);
  return s ? &s->tensor : nullptr;
}

int32_t put(sg::Tensor t) {
  if (!t.defined()) return 0;
  uint32_t index;
  if (!g_free.empty()) {
    index = g_free.back();
    g_free.pop_back();
  } else {
    if (g_slots.size() >= kIndexMask) sg::fail("too many live tensors (", g_slots.size(), ")");
    g_slots.emplace_back();
    index = static_cast<uint32_t>(g_slots.size() - 1);
  }
  Slot& s = g_slots[index];
  s.tensor = std::move(t);
  ++g_live;
  return static_cast<int32_t>((s.generation << kIndexBits) | (index + 1));
}

const sg::Tensor& get(int32_t id, std::string_view what) {
  const sg::Tensor* t = find(id);
  if (!t) bad_id(id, what);
  return *t;
}

sg::Tensor get_or_null(int32_t id, std::string_view what) {
  return id == 0 ? sg::Tensor() : get(id, what);
}

void release(int32_t id) {
  Slot* s = slot_of(id);
  if (!s) bad_id(id, "release");
  s->tensor = sg::Tensor();
  s->generation = s->generation == kMaxGeneration ? 1 : s->generation + 1;
  g_free.push_back(static_cast<uint32_t>(s - g_slots.data()));
  --g_live;
}

size_t live_handles() { return g_live; }

}  // namespace sgjs
