#!/usr/bin/env bash
# The one build entry (README, npm run build, test.sh, demo.sh and CI call it).
#   bash scripts/build.sh [native] [wasm] [js] [asan]     (default: native wasm js)
#     native  build/native: simdgrad_core + simdgrad_tests (g++, -O2, Highway dynamic dispatch)
#     wasm    build/wasm:   simdgrad.{mjs,cjs,wasm} -> npm/dist
#     js      npm/src/*.ts  -> npm/dist/{esm,cjs}, entry files -> npm/dist
#     asan    build/native-asan: the native build with -DSG_SANITIZE=ON (not in the default set)
# Incremental: configure happens once per build dir, make/tsc/install redo only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
JOBS=${SG_JOBS:-2}

steps=("$@")
((${#steps[@]})) || steps=(native wasm js)

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

build_wasm() {
  if [ ! -f build/wasm/CMakeCache.txt ]; then
    log "configure build/wasm"
    # emcmake's default CTest emulator passes --experimental-wasm-threads, which Node 20 rejects.
    emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CROSSCOMPILING_EMULATOR="$(command -v node)" >/dev/null
  fi
  log "compile build/wasm"
  cmake --build build/wasm -j"$JOBS"
  # Install only prints the files it actually copied.
  cmake --install build/wasm --prefix npm/dist | grep -v -e '^-- Up-to-date' -e '^-- Install configuration' || true
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
    if [ ! -f "$stamp" ] || [ -n "$(find npm/src npm/tsconfig.esm.json npm/tsconfig.cjs.json \
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

for s in "${steps[@]}"; do
  case $s in
    native) build_native build/native ;;
    asan)   build_native build/native-asan -DSG_SANITIZE=ON ;;
    wasm)   build_wasm ;;
    js)     build_js ;;
    *) echo "build: unknown step '$s' (native, wasm, js, asan)" >&2; exit 2 ;;
  esac
done
