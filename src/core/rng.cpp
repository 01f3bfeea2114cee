#include "core/rng.h"

#include <cmath>
#include <mutex>

namespace sg {

namespace {

constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // round multipliers
constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // Weyl key increments (golden ratio, √3 − 1)

inline void mulhilo(uint32_t a, uint32_t b, uint32_t& hi, uint32_t& lo) {
  uint64_t p = uint64_t(a) * uint64_t(b);
  hi = uint32_t(p >> 32);
  lo = uint32_t(p);
}

}  // namespace

Philox4x32Ctr philox4x32_10(Philox4x32Ctr c, Philox4x32Key k) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {  // the key schedule bumps the key between rounds
      k[0] += kW0;
      k[1] += kW1;
    }
    uint32_t hi0, lo0, hi1, lo1;
    mulhilo(kM0, c[0], hi0, lo0);
    mulhilo(kM1, c[2], hi1, lo1);
    c = {hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0};
  }
  return c;
}

void Philox::reset(uint64_t seed) { set_state({seed, 0}); }

void Philox::set_state(RngState s) {
  seed_ = s.seed;
  offset_ = s.offset;
  cached_block_ = ~uint64_t(0);
}

uint32_t Philox::next_u32() {
  uint64_t block = offset_ >> 2;
  if (block != cached_block_) {
    cache_ = philox4x32_10({uint32_t(block), uint32_t(block >> 32), 0, 0},
                           {uint32_t(seed_), uint32_t(seed_ >> 32)});
    cached_block_ = block;
  }
  return cache_[offset_++ & 3];
}

uint32_t Philox::next_below(uint32_t bound) {
  // Lemire, "Fast random integer generation in an interval" (2019): the high word of x·bound
  // is uniform once the few low words below 2^32 mod bound are rejected.
  if (bound == 0) return next_u32();  // 0 stands for 2^32: every word is fine
  uint64_t m = uint64_t(next_u32()) * bound;
  uint32_t low = uint32_t(m);
  if (low < bound) {
    uint32_t threshold = uint32_t(0u - bound) % bound;
    while (low < threshold) {
      m = uint64_t(next_u32()) * bound;
      low = uint32_t(m);
    }
  }
  return uint32_t(m >> 32);
}

float Philox::next_unit_float() { return float(next_u32() >> 8) * (1.0f / 16777216.0f); }

void Philox::fill_uniform(float* out, int64_t n, float lo, float hi) {
  double span = double(hi) - double(lo);
  for (int64_t i = 0; i < n; ++i) {
    float v = float(double(lo) + span * double(next_unit_float()));
    // lo + span·u may round up to hi in float; keep the interval half-open.
    if (v >= hi && lo < hi) v = std::nextafter(hi, lo);
    out[i] = v;
  }
}

void Philox::fill_normal(float* out, int64_t n, float mean, float std) {
  const double two_pi = 6.283185307179586476925286766559;
  for (int64_t i = 0; i < n; i += 2) {
    // Full 32-bit words (not 24) for longer tails; u1 in (0, 1] keeps log finite.
    double u1 = (double(next_u32()) + 1.0) * 0x1p-32;
    double u2 = double(next_u32()) * 0x1p-32;
    double r = std::sqrt(-2.0 * std::log(u1));
    double theta = two_pi * u2;
    out[i] = float(mean + std * r * std::cos(theta));
    if (i + 1 < n) out[i + 1] = float(mean + std * r * std::sin(theta));
  }
}

namespace {
std::mutex& global_mutex() {
  static std::mutex m;
  return m;
}
Philox& global_rng() {
  static Philox g(kDefaultSeed);
  return g;
}
}  // namespace

void manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(global_mutex());
  global_rng().reset(seed);
}

RngState rng_state() {
  std::lock_guard<std::mutex> lock(global_mutex());
  return global_rng().state();
}

void set_rng_state(RngState state) {
  std::lock_guard<std::mutex> lock(global_mutex());
  global_rng().set_state(state);
}

uint32_t next_u32() {
  std::lock_guard<std::mutex> lock(global_mutex());
  return global_rng().next_u32();
}

uint32_t next_below(uint32_t bound) {
  std::lock_guard<std::mutex> lock(global_mutex());
  return global_rng().next_below(bound);
}

void fill_below(uint32_t* out, int64_t n, uint32_t bound) {
  std::lock_guard<std::mutex> lock(global_mutex());
  for (int64_t i = 0; i < n; ++i) out[i] = global_rng().next_below(bound);
}

void fill_uniform(float* out, int64_t n, float lo, float hi) {
  std::lock_guard<std::mutex> lock(global_mutex());
  global_rng().fill_uniform(out, n, lo, hi);
}

void fill_normal(float* out, int64_t n, float mean, float std) {
  std::lock_guard<std::mutex> lock(global_mutex());
  global_rng().fill_normal(out, n, mean, std);
}

RngState reserve_words(uint64_t words) {
  std::lock_guard<std::mutex> lock(global_mutex());
  RngState at = global_rng().state();
  global_rng().set_state({at.seed, at.offset + words});
  return at;
}

}  // namespace sg
