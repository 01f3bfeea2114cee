#!/usr/bin/env bash
# The one build entry (README, npm run build, test.sh, demo.sh and CI call it).
#   bash scripts/build.sh [native] [wasm] [wasm-mt] [js] [asan] [tsan] [cov]   (default: native wasm wasm-mt js)
#     native  build/native: simdgrad_core + simdgrad_tests (g++, -O2, Highway dynamic dispatch)
#     wasm    build/wasm:   simdgrad.{mjs,cjs,wasm} -> npm/dist
#     wasm-mt build/wasm:   the threaded module (-pthread) simdgrad-mt.{mjs,wasm,worker.js}
#                           -> npm/dist/mt (loaded by init({ threads: n > 1 })); the library is
#                           compiled a second time, so a clean build takes about as long as wasm
#     js      npm/src/**/*.ts + web/webgpu/**/*.ts -> npm/dist/{esm,cjs}, entry files -> npm/dist
#     asan    build/native-asan: the native build under ASan + UBSan and instrumented for gcov
#             (-DSG_SANITIZE=ON -DSG_COVERAGE=ON, clang++ -O1; not in the default set). CI builds
#             and runs it instead of build/native; scripts/coverage.sh cpp reports it with gcovr
#     asan-lib  build/native-asan's library only (what scripts/fuzz.sh links its target against)
#     cov     the same as asan (the coverage build is the ASan build)
#     tsan    build/native-tsan: simdgrad_tsan_tests, the thread pool and threaded-kernel tests
#             under ThreadSanitizer (-DSG_TSAN=ON, -O1, Highway static target; not in the default set)
# Incremental: configure happens once per build dir, make/tsc/install redo only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
JOBS=${SG_JOBS:-2}

steps=("$@")
((${#steps[@]})) || steps=(native wasm wasm-mt js)

# emcc's JS optimizer needs Debian's acorn & co. from /usr/share/nodejs.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}

log() { printf '== build: %s\n' "$*"; }

build_native() {  # $1 = build dir, rest = extra configure args
  local dir=$1; shift
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    log "configure $dir"
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
  fi
  log "compile $dir"
  cmake --build "$dir" -j"$JOBS"
}

configure_wasm() {
  if [ ! -f build/wasm/CMakeCache.txt ]; then
    log "configure build/wasm"
    # emcmake's default CTest emulator passes --experimental-wasm-threads, which Node 20 rejects.
    emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CROSSCOMPILING_EMULATOR="$(command -v node)" >/dev/null
  fi
}

build_wasm() {
  configure_wasm
  log "compile build/wasm"
  cmake --build build/wasm -j"$JOBS"
  # Install only prints the files it actually copied.
  cmake --install build/wasm --prefix npm/dist | grep -v -e '^-- Up-to-date' -e '^-- Install configuration' || true
}

build_wasm_mt() {
  configure_wasm
  log "compile build/wasm (threaded module)"
  cmake --build build/wasm --target simdgrad_mt -j"$JOBS"
  cmake --install build/wasm --prefix npm/dist --component mt |
    grep -v -e '^-- Up-to-date' -e '^-- Install configuration' || true
}

# ASan + UBSan + gcov (build/native-asan): the one instrumented native build CI compiles. Its
# doctest run is both the sanitizer check and the coverage measurement (scripts/coverage.sh cpp),
# and scripts/fuzz.sh links its target against its library. clang++: the fuzzer needs clang
# (libFuzzer), and clang compiled the sanitized sources faster than g++ did (measured: e.g.
# nn/rnn.cpp 7 s vs 19 s, a test file 17 s vs 30 s). Until 2026-11-29 CI compiled the library
# twice more for these (a g++ --coverage build of its own, 531 s of CPU in a clean-clone run);
# clang's --coverage writes gcov's format, which gcovr reads through `llvm-cov gcov`.
# A build type of its own gives -fno-sanitize-recover=undefined, so that any UBSan finding aborts
# instead of printing and going on, and keeps the build affordable: -O1, line tables only for
# the sanitizers' stack traces (full -g is DWARF for a debugger nobody attaches in CI), and
# Highway's static target only (HWY_COMPILE_ONLY_STATIC: the SIMD kernels compiled once instead
# of once per x86 target; `bash scripts/build.sh native` and its tests check the dispatched ones).
build_asan() {  # [target]
  local dir=build/native-asan
  # A build dir configured otherwise (g++, or before coverage joined it) is started afresh.
  if [ -f "$dir/CMakeCache.txt" ] && ! { grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang++' "$dir/CMakeCache.txt" &&
                                         grep -q '^SG_COVERAGE:BOOL=ON' "$dir/CMakeCache.txt"; }; then
    rm -rf "$dir"
  fi
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    log "configure $dir"
    cmake -S . -B "$dir" -DSG_SANITIZE=ON -DSG_COVERAGE=ON -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Sanitize \
      -DCMAKE_CXX_FLAGS_SANITIZE="-O1 -gline-tables-only -fno-sanitize-recover=undefined -DHWY_COMPILE_ONLY_STATIC" >/dev/null
  fi
  log "compile $dir${1:+ ($1)}"
  cmake --build "$dir" ${1:+--target "$1"} -j"$JOBS"
}

build_tsan() {
  local dir=build/native-tsan
  # clang++, as the ASan build: g++ spent 1,089 s of CPU on this stage in a clean-clone run
  # (2026-11-29; the library is compiled whole), and clang compiles sanitized sources 2-3x
  # faster (see build_asan). A build dir configured with g++ is started afresh.
  if [ -f "$dir/CMakeCache.txt" ] && ! grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang++' "$dir/CMakeCache.txt"; then
    rm -rf "$dir"
  fi
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    log "configure $dir"
    # -O1 and Highway's static target only: the kernels compile once instead of once per x86
    # target (as in the ASan stage); the plain native stage tests the dispatched paths.
    cmake -S . -B "$dir" -DSG_TSAN=ON -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Tsan \
      -DCMAKE_CXX_FLAGS_TSAN="-O1 -gline-tables-only -DHWY_COMPILE_ONLY_STATIC" >/dev/null
  fi
  log "compile $dir"
  cmake --build "$dir" --target simdgrad_tsan_tests -j"$JOBS"
}

copy_if_changed() {  # src dst
  cmp -s "$1" "$2" 2>/dev/null || { cp "$1" "$2"; echo "-- Installing: $2"; }
}

build_js() {
  local tsc=npm/node_modules/.bin/tsc
  [ -x "$tsc" ] || { echo "build: $tsc missing; run scripts/setup.sh" >&2; exit 1; }
  mkdir -p npm/dist/esm npm/dist/cjs
  local stamp=npm/dist/.tsc-stamp
  if compgen -G "npm/src/*.ts" >/dev/null; then
    # tsc is incremental too, but even a no-op costs ~1.5 s per config: skip it
    # when no source or config is newer than the last successful run.
    if [ ! -f "$stamp" ] || [ -n "$(find npm/src web/webgpu npm/tsconfig.esm.json npm/tsconfig.cjs.json \
         npm/package-lock.json -newer "$stamp" -print -quit)" ]; then
      log "tsc (esm, cjs)"
      "$tsc" -p npm/tsconfig.esm.json
      "$tsc" -p npm/tsconfig.cjs.json
      touch "$stamp"
    fi
  else
    echo "build: no npm/src/*.ts yet; skipping the TypeScript layer"
  fi
  # dist/cjs holds .js files that are CommonJS inside a "type": "module" package.
  printf '{\n  "type": "commonjs"\n}\n' > npm/dist/cjs/package.json.tmp
  copy_if_changed npm/dist/cjs/package.json.tmp npm/dist/cjs/package.json
  rm -f npm/dist/cjs/package.json.tmp
  for f in index.mjs index.cjs index.d.ts index.d.cts; do
    copy_if_changed "npm/entry/$f" "npm/dist/$f"
  done
}

# Several people (or agents) share one working tree: a lock per step serializes builds of the
# same directory instead of letting two make/tsc runs write it at once. SG_BUILD_NO_LOCK=1 skips it.
lock_step() {  # $1 = step name
  [ -n "${SG_BUILD_NO_LOCK:-}" ] && return 0
  mkdir -p build
  exec 9>"build/.lock-$1"
  flock 9
}

for s in "${steps[@]}"; do
  case $s in wasm|wasm-mt) lock_step wasm ;; asan|asan-lib|cov) lock_step asan ;; *) lock_step "$s" ;; esac
  case $s in
    native) build_native build/native ;;
    asan)   build_asan ;;
    asan-lib) build_asan simdgrad_core ;;
    wasm)   build_wasm ;;
    wasm-mt) build_wasm_mt ;;
    tsan)   build_tsan ;;
    cov)    build_asan ;;
    js)     build_js ;;
    *) echo "build: unknown step '$s' (native, wasm, wasm-mt, js, asan, asan-lib, tsan, cov)" >&2; exit 2 ;;
  esac
done
