#!/usr/bin/env bash
# Fuzzes the safetensors reader (src/io/safetensors.h) with libFuzzer, natively, under
# AddressSanitizer + UndefinedBehaviorSanitizer:
#   bash scripts/fuzz.sh [seconds=30] [extra libFuzzer flags...]
# Builds build/fuzz/fuzz_safetensors from tests/fuzz/fuzz_safetensors.cpp (clang++, -O1, linked
# against build/native-asan's library, compiled with the same sanitizers), then runs it for `seconds`
# from the seed corpus tests/fuzz/corpus/safetensors. The seeds are read-only: new inputs go to
# build/fuzz/corpus. Any crash, leak, sanitizer report or unexpected exception fails the run;
# the input that caused it is saved as build/fuzz/crash-* (replay: build/fuzz/fuzz_safetensors FILE).
#   FUZZ_MERGE=1  afterwards, merge the inputs that add coverage into the seed corpus
#                 (minimized; review and commit them with the test).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shift || true

out=build/fuzz
bin=$out/fuzz_safetensors
seeds=tests/fuzz/corpus/safetensors
mkdir -p "$out/corpus"

# The reader copies through the backend (core/copy.cpp → backend_for), so the whole library is
# linked: build/native-asan's libsimdgrad_core.a (scripts/build.sh asan-lib: clang++ -O1, ASan +
# UBSan, libFuzzer's coverage instrumentation, gcov's counters, one static Highway target, AVX2),
# the same library the native doctest stage tests, so CI compiles it once for both. The linker
# keeps what the reader uses. The target itself is compiled here with the same sanitizer flags,
# plus libFuzzer's main.
bash scripts/build.sh asan-lib
lib=build/native-asan/libsimdgrad_core.a
# --coverage: the library carries gcov's counters, whose runtime the link must bring.
flags=(-std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined --coverage
       -fno-sanitize-recover=undefined -DHWY_COMPILE_ONLY_STATIC -march=haswell -maes)
if [ ! -x "$bin" ] || [ "$lib" -nt "$bin" ] || [ tests/fuzz/fuzz_safetensors.cpp -nt "$bin" ] || [ "$0" -nt "$bin" ]; then
  echo "== fuzz: building $bin"
  # Compiled in $out: --coverage writes the target's notes file (.gcno) into the working directory.
  root=$PWD
  (cd "$out" && clang++ "${flags[@]}" -I"$root/src" "$root/tests/fuzz/fuzz_safetensors.cpp" "$root/$lib" -lhwy -pthread \
    -o fuzz_safetensors)
fi

echo "== fuzz: ${seconds} s from $(find "$seeds" -type f | wc -l) seeds"
# -rss_limit_mb: a malformed file must not make the reader allocate more than the file implies.
# GCOV_PREFIX: the fuzzer's gcov counts go under build/fuzz, not into the doctests' coverage data.
export GCOV_PREFIX=$PWD/$out/gcov
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  "$bin" -max_total_time="$seconds" -rss_limit_mb=1024 -timeout=10 -print_final_stats=1 \
  -dict=tests/fuzz/safetensors.dict -artifact_prefix="$out/" "$@" "$out/corpus" "$seeds"

if [ "${FUZZ_MERGE:-0}" = 1 ]; then
  echo "== fuzz: merging new coverage into $seeds"
  "$bin" -merge=1 -dict=tests/fuzz/safetensors.dict "$seeds" "$out/corpus"
fi
