#!/usr/bin/env bash
# Line coverage of the C++ core and of the TypeScript layer, reported and gated (issue 28):
#   bash scripts/coverage.sh cpp      run build/native-asan's doctests (build.sh asan: ASan + UBSan +
#                                     gcov) afresh and report src/ with gcovr (through llvm-cov
#                                     gcov: clang wrote the data) -> build/coverage/cpp.txt, cpp.json
#                                     (per folder and file), cpp-lines.json (per line, for mutation.sh)
#   bash scripts/coverage.sh ts-maps  compile npm/src + web/webgpu once more with source maps into
#                                     build/coverage/ts-maps (never into npm/dist: the package has none)
#   bash scripts/coverage.sh ts       report the raw V8 coverage that the Node tests left in
#                                     build/coverage/v8 (NODE_V8_COVERAGE; scripts/test.sh sets it)
#                                     with c8 against the .ts sources -> build/coverage/ts.txt, ts/
#   bash scripts/coverage.sh gate     one line per layer, compared with .ci/coverage-floor.json
#                                     (scripts/coverage_gate.mjs); fails below a floor
# Without an argument: cpp, ts and gate on what the last runs left.
# bindings/ (Embind) is compiled by emcc only, and Emscripten 3.1.6 ships no coverage runtime for
# wasm: its lines are not measured here. Every binding is reached through npm/src, whose coverage
# the TypeScript figure measures; the gate prints how many bound names npm/src and web/webgpu call.
set -uo pipefail
cd "$(dirname "$0")/.."
out=build/coverage
mkdir -p "$out"
bin=npm/node_modules/.bin

# The coverage build is the sanitizer build (scripts/build.sh asan): one run of the doctests is both
# checks. Any ASan or UBSan finding aborts the run (abort_on_error, halt_on_error);
# allocator_may_return_null: tests of huge allocations expect a clean sg::Error.
cov_dir=build/native-asan
gcov_tool="llvm-cov-14 gcov"  # clang's --coverage data; g++'s gcov cannot read it

cpp() {
  [ -x $cov_dir/simdgrad_tests ] || { echo "coverage: $cov_dir missing (bash scripts/build.sh asan)"; return 1; }
  command -v gcovr >/dev/null || { echo "coverage: gcovr missing (scripts/setup.sh installs it)"; return 1; }
  command -v llvm-cov-14 >/dev/null || { echo "coverage: llvm-cov-14 missing (scripts/setup.sh installs llvm-14)"; return 1; }
  # Counts of an earlier run would add up with this one's.
  find $cov_dir -name '*.gcda' -delete
  local rc=0
  ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:allocator_may_return_null=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    $cov_dir/simdgrad_tests --no-colors "$@" || rc=$?
  cpp_report
  return $rc
}

cpp_report() {
  # src/ only: the tests and the system headers (Highway, doctest, libstdc++) are not ours to cover.
  # -j2: one gcov process per core. Lines the optimizer folded away are not counted by gcov at all.
  # $cov_dir as the search path: gcovr would otherwise read every .gcda under the root (the
  # mutation runs leave theirs in build/mutation).
  gcovr --root . --object-directory $cov_dir --gcov-executable "$gcov_tool" --filter 'src/' -j "${SG_JOBS:-2}" \
    --gcov-ignore-parse-errors --exclude-unreachable-branches \
    --txt "$out/cpp.txt" --json-summary "$out/cpp.json" --json-summary-pretty --json "$out/cpp-lines.json" \
    ${SG_COVERAGE_HTML:+--html-details "$out/cpp/index.html"} "$cov_dir" >/dev/null &&
    echo "coverage: C++ report in $out/cpp.txt"
}

ts_maps() {
  # The same compile as build.sh's js step (same tsconfig, so the same JavaScript), plus the maps.
  # Incremental: only what changed since the last run is compiled again.
  mkdir -p "$out/ts-maps/esm"
  "$bin/tsc" -p npm/tsconfig.esm.json --sourceMap --declaration false \
    --outDir "$out/ts-maps/esm" --tsBuildInfoFile "$out/ts-maps/esm/.tsbuildinfo"
}

ts() {
  [ -d "$out/v8" ] || { echo "coverage: no $out/v8 (run the Node tests with NODE_V8_COVERAGE=$out/v8)"; return 1; }
  node scripts/coverage_ts_remap.mjs "$out/v8" "$out/ts-maps/esm" "$out/v8-mapped" || return 1
  rm -rf "$out/ts"
  "$bin/c8" report --temp-directory "$out/v8-mapped" --reports-dir "$out/ts" \
    --include 'npm/src/**' --include 'web/webgpu/**' --exclude-after-remap \
    --reporter=text --reporter=json-summary ${SG_COVERAGE_HTML:+--reporter=html} >"$out/ts.txt" || return 1
  echo "coverage: TypeScript report in $out/ts.txt"
}

gate() { node scripts/coverage_gate.mjs; }

case ${1:-all} in
  cpp) shift; cpp "$@" ;;
  cpp-report) cpp_report ;;
  ts-maps) ts_maps ;;
  ts) ts ;;
  gate) gate ;;
  all) rc=0; cpp || rc=1; ts || rc=1; gate || rc=1; exit $rc ;;
  *) echo "usage: scripts/coverage.sh [cpp|cpp-report|ts-maps|ts|gate]" >&2; exit 2 ;;
esac
