// Native yardstick for the kernels that the JS benchmark (tests/bench/run.mjs) times in wasm:
// simdgrad's SIMD backend (Highway, dynamic dispatch: AVX2/AVX-512 here) against
// single-threaded OpenBLAS for GEMM, and against plain compiler-vectorized loops for the
// elementwise ops and the sum (BLAS has no exp/add/mul kernels of that shape).
// OpenBLAS is loaded at run time (dlopen of libopenblas.so.0: the runtime package
// libopenblas0-pthread is enough, no headers); without it there are no OpenBLAS rows.
//   cmake -S . -B build/bench -DCMAKE_BUILD_TYPE=Release -DSG_BENCH=ON && cmake --build build/bench -j2
//   build/bench/simdgrad_bench_native [--benchmark_filter=gemm] [--benchmark_min_time=0.2]
// Names: <who>_<what>/<N>/<variant>, variant 0 = A·B, 1 = Aᵀ·B, 2 = A·Bᵀ. GFLOPS = 2·N³ per GEMM,
// 1 per element otherwise.
#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/backend.h"
#include "ops/ops.h"

// The few OpenBLAS entry points used, looked up in libopenblas.so.0 (CBLAS's enum values are
// fixed by the standard: RowMajor 101, NoTrans 111, Trans 112).
struct OpenBlas {
  using Sgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float,
                         float*, int);
  Sgemm sgemm = nullptr;
  void (*set_num_threads)(int) = nullptr;
  char* (*get_corename)() = nullptr;
  char* (*get_config)() = nullptr;
  bool loaded() const { return sgemm && set_num_threads && get_corename && get_config; }
};

OpenBlas load_openblas() {
  OpenBlas o;
  void* lib = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return o;
  o.sgemm = reinterpret_cast<OpenBlas::Sgemm>(dlsym(lib, "cblas_sgemm"));
  o.set_num_threads = reinterpret_cast<void (*)(int)>(dlsym(lib, "openblas_set_num_threads"));
  o.get_corename = reinterpret_cast<char* (*)()>(dlsym(lib, "openblas_get_corename"));
  o.get_config = reinterpret_cast<char* (*)()>(dlsym(lib, "openblas_get_config"));
  return o;
}

const OpenBlas& openblas() {
  static const OpenBlas o = load_openblas();
  return o;
}

namespace {

constexpr int64_t kElems = int64_t{1} << 20;  // the JS benchmark's "1M floats"

std::vector<float> filled(int64_t n, uint32_t seed) {
  std::vector<float> v(static_cast<size_t>(n));
  uint32_t s = seed;
  for (auto& x : v) {  // xorshift, values in [-1, 1)
    s ^= s << 13, s ^= s >> 17, s ^= s << 5;
    x = static_cast<float>(s) / 2147483648.0f - 1.0f;
  }
  return v;
}

void set_flops(benchmark::State& state, double per_iteration) {
  state.counters["GFLOPS"] =
      benchmark::Counter(per_iteration * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

bool trans_a(const benchmark::State& s) { return s.range(1) == 1; }
bool trans_b(const benchmark::State& s) { return s.range(1) == 2; }

// ------------------------------------------------------------------------ GEMM
// Kernel level: the backend's gemm_f32 on raw buffers (what the matmul op calls).
void sg_gemm(benchmark::State& state) {
  const int64_t n = state.range(0);
  auto a = filled(n * n, 1), b = filled(n * n, 2);
  std::vector<float> c(static_cast<size_t>(n * n));
  const sg::Backend& be = sg::simd_backend();
  for (auto _ : state) {
    be.gemm_f32(trans_a(state), trans_b(state), n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f,
                c.data(), n);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  set_flops(state, 2.0 * n * n * n);
}

// Op level: sg::matmul on tensors, the transposed operand a view (as a.T in JS): includes
// output allocation and whatever copy the op makes of a strided operand.
void sg_matmul_op(benchmark::State& state) {
  const int64_t n = state.range(0);
  sg::set_backend("wasm");  // the SIMD backend's name on every build (see backend.h)
  sg::Tensor a = sg::randn({n, n}), b = sg::randn({n, n});
  sg::Tensor lhs = trans_a(state) ? sg::transpose(a, 0, 1) : a;
  sg::Tensor rhs = trans_b(state) ? sg::transpose(b, 0, 1) : b;
  for (auto _ : state) {
    sg::Tensor c = sg::matmul(lhs, rhs);
    benchmark::DoNotOptimize(c.f32());
  }
  set_flops(state, 2.0 * n * n * n);
}

void openblas_sgemm(benchmark::State& state) {
  const int64_t n = state.range(0);
  auto a = filled(n * n, 1), b = filled(n * n, 2);
  std::vector<float> c(static_cast<size_t>(n * n));
  const int ta = trans_a(state) ? 112 : 111, tb = trans_b(state) ? 112 : 111;
  const auto ni = static_cast<int>(n);
  for (auto _ : state) {
    openblas().sgemm(101, ta, tb, ni, ni, ni, 1.0f, a.data(), ni, b.data(), ni, 0.0f, c.data(), ni);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  set_flops(state, 2.0 * n * n * n);
}

void gemm_args(benchmark::internal::Benchmark* b) {
  for (int64_t n : {128, 256, 512, 1024})
    for (int64_t v : {0, 1, 2}) b->Args({n, v});
  b->Unit(benchmark::kMillisecond);
}

// ------------------------------------------------------------- elementwise, 1M
enum class Elem { Add, Mul, Exp, Sum };

void sg_elementwise(benchmark::State& state, Elem op) {
  auto a = filled(kElems, 3), b = filled(kElems, 4);
  std::vector<float> out(static_cast<size_t>(kElems));
  const sg::Backend& be = sg::simd_backend();
  const sg::BroadcastPlan plan{{kElems}, {1}, {1}};
  for (auto _ : state) {
    switch (op) {
      case Elem::Add: be.binary_f32(sg::Binary::Add, plan, a.data(), b.data(), out.data()); break;
      case Elem::Mul: be.binary_f32(sg::Binary::Mul, plan, a.data(), b.data(), out.data()); break;
      case Elem::Exp: be.unary_f32(sg::Unary::Exp, 0.0f, a.data(), out.data(), kElems); break;
      case Elem::Sum: be.reduce_f32(sg::Reduce::Sum, a.data(), 1, kElems, 1, out.data()); break;
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  set_flops(state, static_cast<double>(kElems));
}

// The baseline: what g++ -O2 makes of a plain loop (SSE2 only: no -march flags here).
void loop_elementwise(benchmark::State& state, Elem op) {
  auto a = filled(kElems, 3), b = filled(kElems, 4);
  std::vector<float> out(static_cast<size_t>(kElems));
  const float* x = a.data();
  const float* y = b.data();
  float* o = out.data();
  for (auto _ : state) {
    switch (op) {
      case Elem::Add: for (int64_t i = 0; i < kElems; i++) o[i] = x[i] + y[i]; break;
      case Elem::Mul: for (int64_t i = 0; i < kElems; i++) o[i] = x[i] * y[i]; break;
      case Elem::Exp: for (int64_t i = 0; i < kElems; i++) o[i] = std::exp(x[i]); break;
      case Elem::Sum: {
        float s = 0.0f;
        for (int64_t i = 0; i < kElems; i++) s += x[i];
        o[0] = s;
        break;
      }
    }
    benchmark::DoNotOptimize(o);
    benchmark::ClobberMemory();
  }
  set_flops(state, static_cast<double>(kElems));
}

}  // namespace

BENCHMARK(sg_gemm)->Apply(gemm_args);
BENCHMARK(sg_matmul_op)->Apply(gemm_args);

#define SG_ELEM(name, op)                                                             \
  BENCHMARK_CAPTURE(sg_elementwise, name, op)->Unit(benchmark::kMicrosecond);         \
  BENCHMARK_CAPTURE(loop_elementwise, name, op)->Unit(benchmark::kMicrosecond)
SG_ELEM(add_1M, Elem::Add);
SG_ELEM(mul_1M, Elem::Mul);
SG_ELEM(exp_1M, Elem::Exp);
SG_ELEM(sum_1M, Elem::Sum);

// OpenBLAS 0.3.21 (Debian 12) does not recognize recent Xeons and falls back to its SSE3
// "Prescott" kernels, 4-5x slower than its AVX-512 ones. The core type is read when the
// library loads, so when the user set none, run this program again with the best one the
// CPU supports. An explicit OPENBLAS_CORETYPE is always respected.
void pick_openblas_core(char** argv) {
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return;
  const std::string core = openblas().get_corename();
  const bool generic = core == "Prescott" || core == "Nehalem" || core == "Core2" || core == "Sandybridge";
  const char* better = nullptr;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")) better = "SkylakeX";
  else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) better = "Haswell";
  if (!generic || better == nullptr) return;
  setenv("OPENBLAS_CORETYPE", better, 1);
  setenv("SG_BENCH_OPENBLAS_DETECTED", core.c_str(), 1);
  execv("/proc/self/exe", argv);  // returns only on failure: then go on with the slow core
}

int main(int argc, char** argv) {
  if (openblas().loaded()) {
    pick_openblas_core(argv);
    openblas().set_num_threads(1);  // the yardstick is one core, like the wasm builds
    std::string ctx = std::string(openblas().get_config()) + ", core " + openblas().get_corename() + ", 1 thread";
    if (const char* detected = std::getenv("SG_BENCH_OPENBLAS_DETECTED")) {
      ctx += std::string(" (OPENBLAS_CORETYPE set by this bench: OpenBLAS detected ") + detected + ")";
    }
    benchmark::AddCustomContext("openblas", ctx);
    benchmark::RegisterBenchmark("openblas_sgemm", openblas_sgemm)->Apply(gemm_args);
  } else {
    benchmark::AddCustomContext("openblas", "libopenblas.so.0 not found (apt-get install libopenblas0-pthread): no OpenBLAS rows");
  }
  benchmark::AddCustomContext("simdgrad backend", sg::simd_backend().name());
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
