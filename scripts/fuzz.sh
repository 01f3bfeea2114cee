#!/usr/bin/env bash
# Fuzzes the safetensors reader (src/io/safetensors.h) with libFuzzer, natively, under
# AddressSanitizer + UndefinedBehaviorSanitizer:
#   bash scripts/fuzz.sh [seconds=30] [extra libFuzzer flags...]
# Builds build/fuzz/fuzz_safetensors from tests/fuzz/fuzz_safetensors.cpp (clang++, -O1, only
# the sources the reader needs: src/io, src/core, src/autograd), then runs it for `seconds`
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

sources=(tests/fuzz/fuzz_safetensors.cpp src/io/*.cpp src/core/*.cpp src/autograd/*.cpp)
# Rebuild only when a source or header it may include changed.
if [ ! -x "$bin" ] || [ -n "$(find tests/fuzz/fuzz_safetensors.cpp src/io src/core src/autograd "$0" -newer "$bin" -print -quit)" ]; then
  echo "== fuzz: building $bin"
  clang++ -std=c++20 -O1 -g -fno-omit-frame-pointer \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -Isrc "${sources[@]}" -o "$bin"
fi

echo "== fuzz: ${seconds} s from $(find "$seeds" -type f | wc -l) seeds"
# -rss_limit_mb: a malformed file must not make the reader allocate more than the file implies.
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  "$bin" -max_total_time="$seconds" -rss_limit_mb=1024 -timeout=10 -print_final_stats=1 \
  -dict=tests/fuzz/safetensors.dict -artifact_prefix="$out/" "$@" "$out/corpus" "$seeds"

if [ "${FUZZ_MERGE:-0}" = 1 ]; then
  echo "== fuzz: merging new coverage into $seeds"
  "$bin" -merge=1 -dict=tests/fuzz/safetensors.dict "$seeds" "$out/corpus"
fi
