// The library's random numbers: a counter-based Philox4x32-10 generator (Salmon, Moraes, Dror,
// Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC 2011), the generator of Random123,
// cuRAND and PyTorch's CUDA backend.
//
// Why counter-based: the whole state is (seed, counter), word i of the stream is a pure
// function of (seed, i), so a stream can be resumed, skipped ahead or split across threads or
// GPU invocations without running it. The generator is pure 32/64-bit integer arithmetic,
// so the same seed gives the same bits natively and in wasm. Floats derived from the bits are
// identical too, except normal variates: Box–Muller goes through libm's log/cos/sin, whose last
// ulp may differ between glibc (native) and musl (Emscripten).
//
// Layout of the stream: key = (seed low 32 bits, seed high 32 bits); block b is
// philox4x32_10({b low, b high, 0, 0}, key); word i of the stream is lane i % 4 of block i / 4.
#pragma once
#include <array>
#include <cstdint>

namespace sg {

using Philox4x32Ctr = std::array<uint32_t, 4>;
using Philox4x32Key = std::array<uint32_t, 2>;

// One Philox4x32 block with 10 rounds.
Philox4x32Ctr philox4x32_10(Philox4x32Ctr ctr, Philox4x32Key key);

// Where a stream stands: `offset` words of the stream of `seed` have been used.
struct RngState {
  uint64_t seed = 0;
  uint64_t offset = 0;
};

// Fixed so that a program that never calls manual_seed is still reproducible
// (PyTorch's default seed value).
constexpr uint64_t kDefaultSeed = 67280421310721ull;

class Philox {
 public:
  explicit Philox(uint64_t seed = kDefaultSeed) { reset(seed); }
  void reset(uint64_t seed);  // back to word 0 of the stream of `seed`

  RngState state() const { return {seed_, offset_}; }
  void set_state(RngState s);

  uint32_t next_u32();
  // Uniform in [0, bound) without modulo bias (Lemire's multiply-and-reject); bound 0
  // stands for 2^32.
  uint32_t next_below(uint32_t bound);
  // Uniform float in [0, 1): the top 24 bits of one word times 2^-24, so every value is an
  // exact float and 1 is never reached.
  float next_unit_float();

  // n values from U[lo, hi) (one word each).
  void fill_uniform(float* out, int64_t n, float lo, float hi);
  // n values from N(mean, std²) by Box–Muller: each pair of words gives two values; an odd n
  // uses (and drops the second value of) one more pair, so n values consume 2·ceil(n/2) words.
  void fill_normal(float* out, int64_t n, float mean, float std);

 private:
  uint64_t seed_ = 0;
  uint64_t offset_ = 0;
  uint64_t cached_block_ = ~uint64_t(0);  // block whose words sit in cache_
  Philox4x32Ctr cache_{};
};

// The global generator behind rand/randn/randint, init and dropout. These calls lock it, so
// threads may share it (the order of their draws is then up to the scheduler).
void manual_seed(uint64_t seed);
RngState rng_state();
void set_rng_state(RngState state);
uint32_t next_u32();
uint32_t next_below(uint32_t bound);
void fill_below(uint32_t* out, int64_t n, uint32_t bound);  // n draws of next_below(bound)
void fill_uniform(float* out, int64_t n, float lo, float hi);
void fill_normal(float* out, int64_t n, float mean, float std);
// Takes the next `words` words of the global stream for a kernel to generate from (a device
// fills its own memory from the state returned, word for word as fill_uniform would have).
RngState reserve_words(uint64_t words);
// Words fill_uniform / fill_normal use for n values.
inline uint64_t uniform_words(int64_t n) { return uint64_t(n); }
inline uint64_t normal_words(int64_t n) { return 2 * ((uint64_t(n) + 1) / 2); }

}  // namespace sg
