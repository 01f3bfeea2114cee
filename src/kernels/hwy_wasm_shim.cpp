// Out-of-line Highway symbols for the WebAssembly build.
//
// Why this file exists: Debian ships Highway 1.0.3 as headers plus an x86-only
// libhwy.so, and no .cc sources. Natively we link that library (-lhwy) and this
// file compiles to nothing. Under Emscripten there is no libhwy to link, so we
// define here the few functions the headers declare but do not define. The wasm
// build also uses -DHWY_COMPILE_ONLY_STATIC (a single target, WASM), so the
// dispatch functions below are only reached by code that asks for them
// explicitly (e.g. tests printing the chosen target).
#ifdef __EMSCRIPTEN__

#include <hwy/aligned_allocator.h>
#include <hwy/base.h>
#include <hwy/targets.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace hwy {

// Like Highway's own implementation: print and abort. Our code reports user
// errors through C++ exceptions; Abort is only for broken Highway invariants.
HWY_NORETURN void HWY_FORMAT(3, 4) Abort(const char* file, int line, const char* format, ...) {
  char buf[2000];
  va_list args;
  va_start(args, format);
  vsnprintf(buf, sizeof(buf), format, args);
  va_end(args);
  fprintf(stderr, "Abort at %s:%d: %s\n", file, line, buf);
  fflush(stderr);
  abort();
}

namespace {
// Stored just before each aligned block so that Free/Delete can find the
// original allocation and the payload size (DeleteAlignedArray needs it to
// run element destructors).
struct AllocationHeader {
  void* allocated;
  size_t payload_size;
};
// At least HWY_ALIGNMENT, and big enough to hold the header in front of the
// aligned pointer without breaking alignment.
constexpr size_t kAlign = HWY_ALIGNMENT > sizeof(AllocationHeader) ? HWY_ALIGNMENT : 2 * sizeof(AllocationHeader);

AllocationHeader* HeaderOf(const void* aligned) {
  return reinterpret_cast<AllocationHeader*>(reinterpret_cast<uintptr_t>(aligned) - sizeof(AllocationHeader));
}
}  // namespace

void* AllocateAlignedBytes(size_t payload_size, AllocPtr alloc_ptr, void* opaque_ptr) {
  if (payload_size > SIZE_MAX - 2 * kAlign) return nullptr;  // overflow guard
  const size_t total = payload_size + 2 * kAlign;             // room for header + alignment slack
  void* allocated = alloc_ptr ? alloc_ptr(opaque_ptr, total) : malloc(total);
  if (allocated == nullptr) return nullptr;
  uintptr_t aligned = (reinterpret_cast<uintptr_t>(allocated) + kAlign) & ~(uintptr_t(kAlign) - 1);
  AllocationHeader* header = HeaderOf(reinterpret_cast<void*>(aligned));
  header->allocated = allocated;
  header->payload_size = payload_size;
  return reinterpret_cast<void*>(aligned);
}

void FreeAlignedBytes(const void* aligned_pointer, FreePtr free_ptr, void* opaque_ptr) {
  if (aligned_pointer == nullptr) return;
  void* allocated = HeaderOf(aligned_pointer)->allocated;
  if (free_ptr) {
    free_ptr(opaque_ptr, allocated);
  } else {
    free(allocated);
  }
}

void AlignedDeleter::DeleteAlignedArray(void* aligned_pointer, FreePtr free_ptr, void* opaque_ptr,
                                        ArrayDeleter deleter) {
  if (aligned_pointer == nullptr) return;
  if (deleter) deleter(aligned_pointer, HeaderOf(aligned_pointer)->payload_size);
  FreeAlignedBytes(aligned_pointer, free_ptr, opaque_ptr);
}

// Target selection: with HWY_COMPILE_ONLY_STATIC the only compiled target is
// the static one (HWY_WASM with -msimd128), plus scalar as Highway's fallback.
namespace {
int64_t g_supported_for_test = 0;
int64_t g_disabled = 0;
}  // namespace

int64_t SupportedTargets() {
  int64_t targets = g_supported_for_test ? g_supported_for_test : (HWY_STATIC_TARGET | HWY_SCALAR);
  targets &= ~g_disabled;
  if (targets == 0) targets = HWY_STATIC_TARGET;
  GetChosenTarget().Update(targets);
  return targets;
}

void DisableTargets(int64_t disabled_targets) {
  g_disabled = disabled_targets & ~int64_t(HWY_STATIC_TARGET);
  GetChosenTarget().DeInit();
}

void SetSupportedTargetsForTest(int64_t targets) {
  g_supported_for_test = targets;
  GetChosenTarget().DeInit();
}

ChosenTarget& GetChosenTarget() {
  static ChosenTarget chosen_target;
  return chosen_target;
}

}  // namespace hwy

#endif  // __EMSCRIPTEN__
