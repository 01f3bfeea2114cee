#!/usr/bin/env bash
# Everything CI checks, in one run:  bash scripts/test.sh
# Builds once (scripts/build.sh), then runs every stage even when an earlier one
# failed (a broken native test file must not hide the JS results), and ends with
# one summary line "stages: N passed, N failed"; exits non-zero if any failed.
set -uo pipefail
cd "$(dirname "$0")/.."
export SG_JOBS=${SG_JOBS:-2}

bash scripts/setup.sh || { echo "stages: 0 passed, 1 failed"; exit 1; }

passed=0; failed=0; failed_names=()
# CPU seconds (user + system) of this shell's finished children so far, from bash's `times`, into
# $cpu_now: a stage's CPU time is what CI's 2 cores must find for it, whatever else runs beside
# it, so the stage lines print it next to the wall time (the guide for keeping CI under 30
# minutes). `times` must run in this shell itself (a $(...) subshell's counters start at zero).
cpu_file=$(mktemp "${TMPDIR:-/tmp}/simdgrad-cpu.XXXXXX"); cpu_now=0
child_cpu() {
  local _ line
  times >"$cpu_file"
  { read -r _; read -r line; } <"$cpu_file"
  cpu_now=$(awk -v l="$line" 'BEGIN { split(l, f, /[ ms]+/); print int(f[1] * 60 + f[2] + f[3] * 60 + f[4]) }')
}
stage() {  # stage "name" command...
  local name=$1; shift
  printf '\n==================== %s ====================\n' "$name"
  local t0=$SECONDS c0 ok=0
  child_cpu; c0=$cpu_now
  "$@" && ok=1
  child_cpu
  local secs="$((SECONDS - t0)) s, CPU $((cpu_now - c0)) s"
  if ((ok)); then
    passed=$((passed + 1)); echo "---- $name: PASS ($secs)"
  else
    failed=$((failed + 1)); failed_names+=("$name"); echo "---- $name: FAIL ($secs)"
  fi
}
# bg_stages "name" function ["name" function]...: runs those stages one after another in the
# background (a chain), each one's output kept in a log; collect_bg waits for every chain started
# and prints each log under its stage header with its PASS/FAIL line, in the order the stages were
# started, so the output reads as if they ran in order. Several chains may run at once.
bg_pids=(); bg_dirs=(); bg_names=(); bg_slots=()
bg_stages() {
  local dir; dir=$(mktemp -d "${TMPDIR:-/tmp}/simdgrad-stages.XXXXXX")
  local args=("$@") i=0
  while (($#)); do bg_names+=("$1"); bg_slots+=("$dir/$i"); echo "(started in the background: $1)"; i=$((i + 1)); shift 2; done
  (
    set -- "${args[@]}"
    cpu_file=$dir/cpu  # its own: the foreground shell writes the other at the same time
    i=0
    while (($#)); do
      t0=$SECONDS; child_cpu; c0=$cpu_now
      "$2" >"$dir/$i.log" 2>&1
      rc=$?; child_cpu
      echo "$rc $((SECONDS - t0)) s, CPU $((cpu_now - c0))" >"$dir/$i.rc"
      i=$((i + 1)); shift 2
    done
  ) &
  bg_pids+=($!); bg_dirs+=("$dir")
}
collect_bg() {
  ((${#bg_pids[@]})) || return 0
  wait "${bg_pids[@]}"
  local i name rc secs
  for i in "${!bg_names[@]}"; do
    name=${bg_names[$i]}
    printf '\n==================== %s ====================\n' "$name"
    cat "${bg_slots[$i]}.log" 2>/dev/null
    read -r rc secs <"${bg_slots[$i]}.rc" 2>/dev/null || { rc=1; secs=?; }
    if [ "$rc" = 0 ]; then
      passed=$((passed + 1)); echo "---- $name: PASS ($secs s, in the background)"
    else
      failed=$((failed + 1)); failed_names+=("$name"); echo "---- $name: FAIL ($secs s, in the background)"
    fi
  done
  rm -rf "${bg_dirs[@]}"; bg_pids=(); bg_dirs=(); bg_names=(); bg_slots=()
}
needs() {  # needs <flag-var> <what>: fail a stage whose build failed
  [ "${!1}" = 1 ] || { echo "not run: $2 failed to build"; return 1; }
}

native_built=0; package_built=0
# The native doctests run once, in build/native-asan: clang++ -O1 under AddressSanitizer +
# UndefinedBehaviorSanitizer and instrumented for gcov, one static Highway target (AVX2; see
# scripts/build.sh asan and CMakeLists.txt's SG_SANITIZE and SG_COVERAGE). That one run is the
# sanitizer check and the coverage measurement (issue 28), and the fuzz stage links against the
# same library: one native compile of the library in CI instead of three.
# `bash scripts/build.sh native` (the -O2 build with every x86 target, for benchmarks and for
# checking those targets by hand) is not built by CI.
# The native build runs in the background from the start, beside the wasm build (start_native),
# and the native chain (its build's stage, the ASan doctests, TSan, fuzzing) waits for it
# (build_native): the two builds fill each other's single-threaded links, the native doctests start
# as soon as their build is done (while the threaded wasm module still builds and links on one
# core), and the node tests start as soon as npm/dist is built. The background stages learn whether
# it succeeded from build/.native-built or build/.native-failed (native_ready), and the mutation
# sample learns that the native doctests' coverage report is written from build/.native-doctest-done.
native_log=
start_native() {
  rm -f build/.native-built build/.native-failed build/.native-doctest-done build/.ts-coverage-done
  native_log=$(mktemp "${TMPDIR:-/tmp}/simdgrad-native.XXXXXX")
  ( if bash scripts/build.sh asan >"$native_log" 2>&1; then mkdir -p build && touch build/.native-built
    else mkdir -p build && touch build/.native-failed; exit 1; fi ) &
}
build_native() {
  native_ready; local rc=$?
  cat "$native_log"; rm -f "$native_log"
  ((rc == 0)) && native_built=1
}
native_ready() {  # waits (up to 40 minutes) for the native build's outcome; true if it built
  local i
  for ((i = 0; i < 480; i++)); do
    [ -e build/.native-built ] && return 0
    [ -e build/.native-failed ] && break
    sleep 5
  done
  echo "not run: build/native-asan failed to build"; return 1
}
build_package() { bash scripts/build.sh wasm wasm-mt js && package_built=1; }

# scripts/coverage.sh cpp: the doctests under ASan + UBSan (any finding aborts the run: UBSan with
# -fno-sanitize-recover=undefined and halt_on_error), then gcovr's report of src/
# (build/coverage/cpp.txt).
# It ends by writing build/.native-doctest-done, passed or not: the mutation sample waits for it.
native_doctest() {
  local rc=1
  needs native_built "build/native-asan" && bash scripts/coverage.sh cpp && rc=0
  touch build/.native-doctest-done
  return $rc
}

# The same doctest sources compiled to wasm (reusing build/wasm's simdgrad_core)
# and run by node. Built here, not in build.sh: only the tests need it.
wasm_doctest() {
  needs package_built "build/wasm" &&
    NODE_PATH=/usr/share/nodejs cmake --build build/wasm --target simdgrad_tests -j"$SG_JOBS" &&
    node build/wasm/simdgrad_tests.js --no-colors
}

node_tests() {
  needs package_built "npm/dist" || return 1
  local files
  mapfile -t files < <(find tests/js -type f \( -name '*.test.mjs' -o -name '*.test.cjs' -o -name '*.test.js' \) 2>/dev/null | sort)
  if ((${#files[@]} == 0)); then echo "no tests/js/*.test.{mjs,cjs} yet"; return 0; fi
  # V8's coverage of every test process, for the coverage stages (scripts/coverage.sh ts).
  # Two test files at a time (node's default on 2 cores is one): the stage runs in the background
  # beside the foreground's builds, and once those end a second file keeps the other core busy
  # (the whole stage was 581 s of CPU, one file after another, in the 2026-11-29 clean-clone run).
  rm -rf build/coverage/v8
  NODE_V8_COVERAGE=$PWD/build/coverage/v8 node --test --test-concurrency=2 "${files[@]}" || return 1
  # The backend-looping suites (tests/js/backends.mjs: forEachBackend) once more with the WebGPU
  # device started (Dawn on SwiftShader), so that they cover 'webgpu' too. Skipped, saying why,
  # where no SwiftShader driver is installed.
  if [ -e /usr/lib/chromium/vk_swiftshader_icd.json ]; then
    mapfile -t files < <(grep -l forEachBackend tests/js/*.test.mjs | sort)
    # Only the tests forEachBackend names "[webgpu]": the files' other tests (the reference and wasm
    # runs, type checks, examples) ran in the first pass (they were ~30 % of this pass's time).
    SG_TEST_WEBGPU=1 NODE_V8_COVERAGE=$PWD/build/coverage/v8 node --test --test-concurrency=2 \
      --test-name-pattern='\[webgpu\]' "${files[@]}"
  else
    echo "forEachBackend suites on webgpu: skipped (no /usr/lib/chromium/vk_swiftshader_icd.json; apt-get install chromium)"
  fi
}

consumer() { needs package_built "npm/dist" && bash tests/consumer/run.sh; }

# Costs measured on this 2-core machine under a load of 10-17 (seven other builds; CPU times are
# the better guide): V8 coverage adds about 10 % of user CPU to a node test file (nn_forward:
# 2.09-2.31 s -> 2.32-2.56 s); compiling the maps twin is one more tsc run (26 s of CPU);
# remapping and c8's report of 112 processes took 5 s of CPU (41 s wall).
# The TypeScript coverage of the node tests' run: npm/src and web/webgpu compiled once more with
# source maps into build/coverage/ts-maps (the package keeps none), and c8's report against the .ts
# files (build/coverage/ts.txt). In the background after the node tests.
# It ends by writing build/.ts-coverage-done, passed or not: the mutation sample waits for it.
ts_coverage() {
  local rc=1
  needs package_built "npm/dist" && bash scripts/coverage.sh ts-maps && bash scripts/coverage.sh ts && rc=0
  touch build/.ts-coverage-done
  return $rc
}

# One line per layer (C++ src/, TypeScript npm/src and web/webgpu), failing below the floors of
# .ci/coverage-floor.json (a ratchet: raised, never lowered).
coverage_gate() { bash scripts/coverage.sh gate; }

# A small seeded mutation sample (scripts/mutation.sh: Stryker on one region of npm/src, one C++
# operator swap run against the doctest files named like its file: --cpp-tests-near), so that the
# machinery cannot rot; its score is printed, not gated (a sample this small says little). The seed
# changes every day, so that CI walks over the code. A chain of its own, started with the node
# tests, that waits for the native doctests' coverage report (mutants on lines it never reached
# are not run; in the 2026-11-29 clean-clone run the sample ran alone at the end for 180 s) and for
# the node tests' TypeScript coverage (the per-test coverage it picks the region's test file from:
# started before it, as until 2026-11-30, the sample found no current coverage, measured one file
# that did not reach its region, e.g. onnx_dynamic.ts:44-47, and ran 9 mutants as NoCoverage). A
# region of 4 lines and one test file measured for it: in the 2026-11-30 run 8 lines (15 mutants)
# and up to 4 measured files took the whole 300 s on a CPU-bound machine without reaching C++.
# Stryker runs without its TypeScript checker (--ts-no-checker: the checker's start-up and checks
# took ~150 s of those 300 before a mutant ran; type-invalid mutants then run as JavaScript and
# count as killed or survived) on a region that holds code (--ts-code-only: a 4-line window often
# held only types or comments, and no TypeScript score): 36 s on a quiet machine.
stage_done() {  # stage_done <marker> <stage>: waits (up to 40 minutes) for a stage to end
  local i
  for ((i = 0; i < 480; i++)); do [ -e "$1" ] && return 0; sleep 5; done
  echo "not run: the $2 stage did not end"; return 1
}
mutation_smoke() {
  needs package_built "npm/dist" && stage_done build/.native-doctest-done "native doctest" &&
    stage_done build/.ts-coverage-done "TypeScript coverage" && native_ready &&
    { timeout 300 bash scripts/mutation.sh --seed "$(date +%Y%m%d)" --ts-regions 1 --ts-window 4 --ts-tests 1 --ts-measure 1 --ts-no-checker --ts-code-only --cpp-mutants 1 --cpp-tests-near --budget-min 4
      local rc=$?
      # A sample whose one test file is slow may outrun the stage's 5 minutes: that is not rot.
      if [ $rc = 124 ]; then echo "mutation sample: cut at 300 s (the machinery started; no score)"; rc=0; fi
      return $rc; }
}

# The remote training server (trainer/: PyTorch ranks behind HTTP) on its own: its unittest suite
# (safetensors, GPT-2 and Llama against float64 references, the HTTP API, 1 vs 2 ranks, faults;
# about 15 s). The JS client against it is tests/js/remote_client.test.mjs, in the node tests.
trainer_tests() { /usr/bin/python3 -m unittest discover -s trainer/tests -t .; }

# Headless Chromium (tests/browser: node:test files driving the system's /usr/bin/chromium with
# playwright-core): every demo linked from demos/web/index.html trains with ?autostart=1 (loss
# falls, no console error, screenshots in tests/browser/out/), the API subset runs in a page
# (init() and, marked as an expected failure until that build lands, init({ threads: 2 })), and a
# Vite 7 app built from the packed tarball runs (vite build and the dev server), and the results
# matrix runs on WebGPU (--enable-unsafe-webgpu: SwiftShader) in a page, and a page trains the digits
# CNN, exports it with sg.onnx.export and serves it with onnxruntime-web (same predictions). Reuses npm/dist;
# prepare-web-data.mjs writes the digits demo's data when missing. One file at a time: the demos
# are timed (bounded training) and must not share the 2 cores with each other.
# The stage runs in a background chain of its own beside the node tests and the foreground's
# stages: `nice -n -5` (where permitted, as root in CI; elsewhere nice warns and runs it as it is)
# lets the timed demos go first.
browser_tests() {
  needs package_built "npm/dist" || return 1
  node scripts/prepare-web-data.mjs &&
    (cd tests/browser && nice -n -5 node --test --test-concurrency=1 demos.test.mjs api.test.mjs webgpu.test.mjs vite.test.mjs onnx.test.mjs)
}

# The thread pool and the threaded kernels (tests/native/parallel_test.cpp,
# parallel_kernels_test.cpp) under ThreadSanitizer: only those tests, over src/core, src/kernels and
# src/optim compiled by clang++ at -O1 (simdgrad_tsan_tests; what those tests reach, CMakeLists.txt). halt_on_error: any
# data race or lock-order report fails the stage.
tsan_doctest() {
  bash scripts/build.sh tsan &&
    TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 build/native-tsan/simdgrad_tsan_tests --no-colors
}

# libFuzzer on the safetensors reader, briefly (scripts/fuzz.sh; run it for 10+ minutes by hand
# after changing src/io).
fuzz_smoke() { bash scripts/fuzz.sh "${SG_FUZZ_SECONDS:-30}"; }

# The TypeScript layer's imports form no circle (npm/src and web/webgpu, madge; npm run lint:circles).
import_circles() { (cd npm && npm run -s lint:circles); }

# Scheduling on 2 cores: the two builds run side by side (-j2 each; in the 2026-11-29 clean-clone
# run one after the other they kept 1.56 cores busy on average, 1,074 s). Every test stage then runs
# in one of five chains that share the cores, so that no core idles while work is left (in the
# 2026-11-30 clean-clone run, three chains of which one held the native and wasm doctests, TSan and
# fuzzing one after another, ~650 core-seconds were idle, most at the end): in the background the
# native chain (ASan doctests with coverage, TSan, fuzzing; started at once, it waits for its
# build), the node tests and their TypeScript coverage, the mutation sample (which needs both
# builds and the native coverage report: it mutates copies in build/mutation, never src/), and the
# browser stage; in the foreground the wasm doctests, the npm consumer and the trainer's suite. The
# background's output is printed once it ends. The browser stage's demos train for a bounded time
# (up to 40 s each until the loss falls) and use about a third of a core over its ~5 minutes,
# niced to go first.
stage "lint: import circles (npm/src, web/webgpu)" import_circles
start_native
bg_stages "build: native under ASan + UBSan, with coverage (build/native-asan; started beside the wasm build)" build_native \
          "native doctest under ASan + UBSan, with coverage (build/native-asan)" native_doctest \
          "thread pool + threaded kernels under TSan (build/native-tsan)" tsan_doctest \
          "fuzz: safetensors reader (libFuzzer + ASan + UBSan, ${SG_FUZZ_SECONDS:-30} s)" fuzz_smoke
stage "build: wasm, threaded wasm + TypeScript (npm/dist)" build_package
bg_stages "node tests (tests/js)"                node_tests \
          "coverage: TypeScript (c8: npm/src, web/webgpu)" ts_coverage
bg_stages "mutation sample (scripts/mutation.sh)"  mutation_smoke
bg_stages "browser (Playwright + Chromium)"      browser_tests
stage "native doctest under wasm (node)"         wasm_doctest
stage "npm consumer (pack, install, import/require, tsc)" consumer
stage "trainer (Python unittest: trainer/tests)" trainer_tests
collect_bg
stage "coverage gate (.ci/coverage-floor.json)"  coverage_gate

rm -f "$cpu_file"
echo
((failed)) && echo "failed stages: ${failed_names[*]}"
echo "stages: $passed passed, $failed failed"
((failed == 0))
