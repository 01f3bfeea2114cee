#!/usr/bin/env bash
# Fuzzes the safetensors reader (src/io/safetensors.h) with libFuzzer, natively, under
# AddressSanitizer + UndefinedBehaviorSanitizer:
#   bash scripts/fuzz.sh [seconds=30] [extra libFuzzer flags...]
# Builds build/fuzz/fuzz_safetensors from tests/fuzz/fuzz_safetensors.cpp (clang++, -O1, only
# the library compiled with the same sanitizers), then runs it for `seconds`
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
# linked: src/ compiled once into build/fuzz/obj (one object per file, rebuilt when its source or
# any header is newer, both cores at once), archived, and the linker keeps what the reader uses.
# One static Highway target (AVX2), as in the ASan stage: the sanitizers look at our loops.
flags=(-std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined
       -fno-sanitize-recover=undefined -DHWY_COMPILE_ONLY_STATIC -march=haswell -maes -Isrc)
objs=$out/obj
mkdir -p "$objs"
newest_header=$(find src -name '*.h' -printf '%T@\n' | sort -n | tail -1)
stale=()
while IFS= read -r src; do
  obj=$objs/$(echo "$src" | tr / _).o
  if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || \
     awk -v h="$newest_header" -v o="$(stat -c %Y "$obj")" 'BEGIN { exit !(h > o) }'; then
    stale+=("$src")
  fi
done < <(find src -name '*.cpp' | sort)
if [ ${#stale[@]} -gt 0 ]; then
  echo "== fuzz: compiling ${#stale[@]} library sources"
  export FUZZ_FLAGS="${flags[*]}" FUZZ_OBJS="$objs"
  printf '%s\n' "${stale[@]}" | xargs -P "$(nproc)" -I{} sh -c \
    'clang++ $FUZZ_FLAGS -c "$1" -o "$FUZZ_OBJS/$(echo "$1" | tr / _).o"' _ {}
  rm -f "$out/libsimdgrad_fuzz.a"
fi
if [ ! -f "$out/libsimdgrad_fuzz.a" ]; then
  # Objects of sources that no longer exist are left out: only today's sources are archived.
  mapfile -t current < <(find src -name '*.cpp' | sort | while read -r s; do echo "$objs/$(echo "$s" | tr / _).o"; done)
  ar rcs "$out/libsimdgrad_fuzz.a" "${current[@]}"
fi
if [ ! -x "$bin" ] || [ "$out/libsimdgrad_fuzz.a" -nt "$bin" ] || [ tests/fuzz/fuzz_safetensors.cpp -nt "$bin" ] || [ "$0" -nt "$bin" ]; then
  echo "== fuzz: building $bin"
  clang++ "${flags[@]/fuzzer-no-link/fuzzer}" tests/fuzz/fuzz_safetensors.cpp "$out/libsimdgrad_fuzz.a" -lhwy -o "$bin"
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
