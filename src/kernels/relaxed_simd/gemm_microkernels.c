// The float32 GEMM microkernels with f32x4.relaxed_madd (one fused multiply-add per product
// instead of a multiply and an add), compiled by clang-19 into a small wasm module of its own.
// Emscripten 3.1.6 (clang 14) cannot compile them (no relaxed-SIMD builtins; LLVM < 16 emitted the
// draft opcodes) and its Binaryen 108 cannot link an object that holds the final opcodes, so this
// module is built apart (CMakeLists.txt), carried inside simdgrad.wasm as bytes
// (bindings/relaxed_gemm.cpp) and instantiated by the JS layer on the main module's memory where
// the engine validates relaxed SIMD (npm/src/runtime/relaxed_gemm.ts). Its functions are written
// into table slots that the C++ GEMM calls through (kernels/simd/gemm_slots.h).
//
// Each kernel is the twin of one SIMD128 microkernel of kernels/simd/gemm-inl.h: same arguments
// (so the same wasm signature: the table call checks it), same tile layout (MR rows of 2 vectors,
// stored NR = 8 floats apart), and every accumulator summed over p in the same order. Only the
// rounding differs: relaxed_madd rounds a·b + acc once where the engine fuses it (x86 with FMA3,
// arm64), twice where it does not.
//
// No libc, no data and no stack: everything lives in locals (wasm-ld would otherwise put a stack
// at the bottom of the memory it imports, which is the main module's). embed_wasm.mjs checks the
// built module for that.
#include <wasm_simd128.h>

#define ALWAYS_INLINE static inline __attribute__((always_inline))
#define EXPORT(name) __attribute__((export_name(#name))) void name

// One depth step of every kernel: acc[i] += a[i · stride] · bp[0..8) for the tile's MR rows,
// then the tile stored (rows 8 floats apart). Inlined with constant MR, acc lives in locals.
ALWAYS_INLINE void step(int MR, const float* a, long long stride, const float* bp, v128_t acc[6][2]) {
  const v128_t b0 = wasm_v128_load(bp), b1 = wasm_v128_load(bp + 4);
#pragma clang loop unroll(full)
  for (int i = 0; i < MR; ++i) {
    const v128_t av = wasm_v128_load32_splat(a + i * stride);
    acc[i][0] = wasm_f32x4_relaxed_madd(av, b0, acc[i][0]);
    acc[i][1] = wasm_f32x4_relaxed_madd(av, b1, acc[i][1]);
  }
}
ALWAYS_INLINE void store(int MR, v128_t acc[6][2], float* tile) {
#pragma clang loop unroll(full)
  for (int i = 0; i < MR; ++i) {
    wasm_v128_store(tile + i * 8, acc[i][0]);
    wasm_v128_store(tile + i * 8 + 4, acc[i][1]);
  }
}
#define ZERO_ACC(acc)                             \
  v128_t acc[6][2];                               \
  _Pragma("clang loop unroll(full)") for (int i = 0; i < 6; ++i) acc[i][0] = acc[i][1] = wasm_f32x4_const_splat(0.0f)

// tile[i·8 + j] = Σ_p ap[p·PW + i] · bp[p·8 + j], i < MR (Microkernel<MR, PW>). The depth loops
// stay rolled, as the SIMD128 kernels' do: an unrolled body makes V8 spill accumulators.
ALWAYS_INLINE void packed(int MR, int PW, long long kc, const float* ap, const float* bp, float* tile) {
  ZERO_ACC(acc);
  const float* const bend = bp + kc * 8;
#pragma clang loop unroll(disable)
  for (; bp != bend; bp += 8, ap += PW) step(MR, ap, 1, bp, acc);
  store(MR, acc, tile);
}

// The same with B's row p read in place at rows[p] + col, any alignment (MicrokernelRows<MR, PW>:
// the convolutions' zero-padded image).
ALWAYS_INLINE void rows(int MR, int PW, long long kc, const float* ap, const float* const* rowp, long long col,
                        float* tile) {
  ZERO_ACC(acc);
  const float* const* const rows_end = rowp + kc;
#pragma clang loop unroll(disable)
  for (; rowp != rows_end; ++rowp, ap += PW) step(MR, ap, 1, *rowp + col, acc);
  store(MR, acc, tile);
}

// A's values broadcast from A's own rows (row i at a + i·lda, contiguous along p): the small
// products' kernel (MicrokernelRowsOfA<MR>).
ALWAYS_INLINE void rows_of_a(int MR, long long kc, const float* a, long long lda, const float* bp, float* tile) {
  ZERO_ACC(acc);
  const float* const bend = bp + kc * 8;
#pragma clang loop unroll(disable)
  for (; bp != bend; bp += 8, ++a) step(MR, a, lda, bp, acc);
  store(MR, acc, tile);
}

// The kernels the C++ side has slots for, named <family>_<rows>_<panel width> (gemm_slots.h
// lists them in the same order): the three heights of each wasm tile (5 rows on x86, 6 elsewhere).
#define PACKED(MR, PW) \
  EXPORT(packed_##MR##_##PW)(long long kc, const float* ap, const float* bp, float* tile) { \
    packed(MR, PW, kc, ap, bp, tile); \
  }
#define ROWS(MR, PW) \
  EXPORT(rows_##MR##_##PW)(long long kc, const float* ap, const float* const* r, long long col, float* tile) { \
    rows(MR, PW, kc, ap, r, col, tile); \
  }
#define ROWS_OF_A(MR) \
  EXPORT(rows_of_a_##MR)(long long kc, const float* a, long long lda, const float* bp, float* tile) { \
    rows_of_a(MR, kc, a, lda, bp, tile); \
  }

PACKED(5, 5) PACKED(4, 5) PACKED(2, 5)
PACKED(6, 6) PACKED(4, 6) PACKED(2, 6)
ROWS(5, 5) ROWS(4, 5) ROWS(2, 5)
ROWS(6, 6) ROWS(4, 6) ROWS(2, 6)
ROWS_OF_A(1) ROWS_OF_A(2) ROWS_OF_A(3) ROWS_OF_A(4) ROWS_OF_A(5) ROWS_OF_A(6)
