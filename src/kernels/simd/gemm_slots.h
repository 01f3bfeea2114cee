// Table slots for GEMM microkernels supplied from outside the wasm module: the relaxed-SIMD
// kernels of kernels/relaxed_simd/ (one fused multiply-add per product), which Emscripten 3.1.6
// cannot compile, are built as a wasm module of their own and written by the JS layer into the
// main module's function table at these slots (npm/src/runtime/relaxed_gemm.ts).
//
// A slot is a function of this module whose table index is its address; until something else
// is written there it runs the SIMD128 kernel of the same shape, so a slot is never wrong, only
// slower by one call. use_gemm_kernel_slots(true) points the GEMM's and the convolutions'
// microkernel families (gemm-inl.h: Kernels<PW>::packed and ::rows, RowsOfAKernels<PW>) at the
// slots; false points them back at the built-in kernels. Only in wasm builds (natively Highway
// dispatches to FMA targets already): elsewhere there are no slots and the switch does nothing.
#ifndef SG_KERNELS_SIMD_GEMM_SLOTS_H_
#define SG_KERNELS_SIMD_GEMM_SLOTS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace sg::simd {

struct GemmKernelSlot {
  std::string name;  // the external module's export that belongs here, e.g. "packed_5_5"
  uint32_t index;    // the slot's index in the function table
};

// Every slot, in a fixed order (empty outside wasm). Names: packed_<rows>_<panel width> (an A
// panel times a packed B panel), rows_<rows>_<panel width> (B read in place, the convolutions),
// rows_of_a_<rows> (A read in place, the small products).
std::vector<GemmKernelSlot> gemm_kernel_slots();

// Switches the microkernels to the slots (true) or back to the built-in SIMD128 ones (false).
// Set it on the calling thread of a single-threaded module only (no GEMM may be running).
void use_gemm_kernel_slots(bool on);
bool gemm_kernel_slots_in_use();

}  // namespace sg::simd

#endif  // SG_KERNELS_SIMD_GEMM_SLOTS_H_
