// The microkernel slots of gemm_slots.h (wasm builds only).
#include "kernels/simd/gemm_slots.h"

#if defined(__EMSCRIPTEN__) && defined(__wasm_simd128__)

#include "hwy/highway.h"
#include "kernels/simd/gemm-inl.h"

HWY_BEFORE_NAMESPACE();
namespace sg {
namespace simd {
namespace HWY_NAMESPACE {
namespace {

// Each slot is a distinct function (its own table index) that runs the built-in kernel of its
// shape until its table entry is replaced.
template <int MR, int PW>
HWY_NOINLINE void PackedSlot(int64_t kc, const float* ap, const float* bp, float* tile) {
  Microkernel<MR, PW>(kc, ap, bp, tile);
}
template <int MR, int PW>
HWY_NOINLINE void RowsSlot(int64_t kc, const float* ap, const float* const* rows, int64_t col, float* tile) {
  MicrokernelRows<MR, PW>(kc, ap, rows, col, tile);
}
template <int MR>
HWY_NOINLINE void RowsOfASlot(int64_t kc, const float* a, int64_t lda, const float* bp, float* tile) {
  MicrokernelRowsOfA<MR>(kc, a, lda, bp, tile);
}

// A function pointer's table index (wasm32: a function's address is its index).
template <class Fn>
uint32_t IndexOf(Fn f) {
  return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(f));
}

bool g_in_use = false;

// One tile width's families pointed at the slots (on) or at the built-in kernels.
template <int PW>
void Point(bool on) {
  constexpr int kMid = Kernels<PW>::kMid;
  auto& packed = Kernels<PW>::packed;
  auto& rows = Kernels<PW>::rows;
  packed.full = on ? &PackedSlot<PW, PW> : &Microkernel<PW, PW>;
  packed.mid = on ? &PackedSlot<kMid, PW> : &Microkernel<kMid, PW>;
  packed.two = on ? &PackedSlot<2, PW> : &Microkernel<2, PW>;
  rows.full = on ? &RowsSlot<PW, PW> : &MicrokernelRows<PW, PW>;
  rows.mid = on ? &RowsSlot<kMid, PW> : &MicrokernelRows<kMid, PW>;
  rows.two = on ? &RowsSlot<2, PW> : &MicrokernelRows<2, PW>;
  auto& t = RowsOfAKernels<PW>::table;
  using RowsOfAFn = typename RowsOfAKernels<PW>::Fn;
  const RowsOfAFn slots[6] = {&RowsOfASlot<1>, &RowsOfASlot<2>, &RowsOfASlot<3>,
                              &RowsOfASlot<4>, &RowsOfASlot<5>, &RowsOfASlot<6>};
  const RowsOfAFn builtin[6] = {&MicrokernelRowsOfA<1>, &MicrokernelRowsOfA<2>, &MicrokernelRowsOfA<3>,
                                &MicrokernelRowsOfA<4>, &MicrokernelRowsOfA<5>, &MicrokernelRowsOfA<6>};
  for (int h = 0; h < PW; ++h) t[static_cast<size_t>(h)] = on ? slots[h] : builtin[h];
}

}  // namespace

std::vector<GemmKernelSlot> Slots() {
  static_assert(Kernels<5>::kMid == 4 && Kernels<6>::kMid == 4, "the side module's heights are 5/4/2 and 6/4/2");
  return {
      {"packed_5_5", IndexOf(&PackedSlot<5, 5>)}, {"packed_4_5", IndexOf(&PackedSlot<4, 5>)},
      {"packed_2_5", IndexOf(&PackedSlot<2, 5>)}, {"packed_6_6", IndexOf(&PackedSlot<6, 6>)},
      {"packed_4_6", IndexOf(&PackedSlot<4, 6>)}, {"packed_2_6", IndexOf(&PackedSlot<2, 6>)},
      {"rows_5_5", IndexOf(&RowsSlot<5, 5>)},     {"rows_4_5", IndexOf(&RowsSlot<4, 5>)},
      {"rows_2_5", IndexOf(&RowsSlot<2, 5>)},     {"rows_6_6", IndexOf(&RowsSlot<6, 6>)},
      {"rows_4_6", IndexOf(&RowsSlot<4, 6>)},     {"rows_2_6", IndexOf(&RowsSlot<2, 6>)},
      {"rows_of_a_1", IndexOf(&RowsOfASlot<1>)},  {"rows_of_a_2", IndexOf(&RowsOfASlot<2>)},
      {"rows_of_a_3", IndexOf(&RowsOfASlot<3>)},  {"rows_of_a_4", IndexOf(&RowsOfASlot<4>)},
      {"rows_of_a_5", IndexOf(&RowsOfASlot<5>)},  {"rows_of_a_6", IndexOf(&RowsOfASlot<6>)},
  };
}

void Use(bool on) {
  Point<5>(on);
  Point<6>(on);
  g_in_use = on;
}

bool InUse() { return g_in_use; }

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace sg
HWY_AFTER_NAMESPACE();

namespace sg::simd {
std::vector<GemmKernelSlot> gemm_kernel_slots() { return HWY_STATIC_DISPATCH(Slots)(); }
void use_gemm_kernel_slots(bool on) { HWY_STATIC_DISPATCH(Use)(on); }
bool gemm_kernel_slots_in_use() { return HWY_STATIC_DISPATCH(InUse)(); }
}  // namespace sg::simd

#else  // natively (and in a wasm build without SIMD128): no slots

namespace sg::simd {
std::vector<GemmKernelSlot> gemm_kernel_slots() { return {}; }
void use_gemm_kernel_slots(bool) {}
bool gemm_kernel_slots_in_use() { return false; }
}  // namespace sg::simd

#endif
