#!/usr/bin/env bash
# Install what simdgrad needs on a Debian 12 machine; safe to re-run (does only
# what is missing). Called by build/test/demo entry points and CI.
set -euo pipefail
cd "$(dirname "$0")/.."

# apt_install [apt flags...] -- packages...: installs those of the packages not installed yet.
apt_install() {
  local flags=() missing=() p
  while [ "$1" != "--" ]; do flags+=("$1"); shift; done
  shift
  for p in "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  echo "setup: installing ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq "${flags[@]}" "${missing[@]}" >/dev/null
}

# clang + libclang-rt-14-dev: libFuzzer and the sanitizer runtimes for the fuzz stage.
apt_install -- emscripten binaryen libhwy-dev doctest-dev wabt cmake g++ clang libclang-rt-14-dev
# clang-19 + lld-19 (wasm-ld-19): the relaxed-SIMD GEMM side module (src/kernels/relaxed_simd;
# Emscripten 3.1.6's clang 14 has no final relaxed-SIMD opcodes). Without them the wasm build
# warns and leaves the kernels out.
apt_install --no-install-recommends -- clang-19 lld-19
# Headless Chromium for the browser stage (tests/browser drives it with playwright-core, which
# downloads no browser of its own); without recommends it is the browser alone (~20 s).
apt_install --no-install-recommends -- chromium
# The Vulkan loader: the WebGPU tests run Dawn (npm `webgpu`) on Chromium's SwiftShader driver.
apt_install --no-install-recommends -- libvulkan1
# PyTorch 1.13 for the remote trainer (trainer/: its tests run in CI) and the reference generators
# (tests/data/gen_*.py, run by hand).
apt_install --no-install-recommends -- python3-torch

# gcovr: the C++ coverage report of the coverage build (scripts/coverage.sh cpp; Debian's 5.2),
# which reads clang's gcov data through llvm-14's `llvm-cov gcov` (the coverage build is clang's
# ASan build).
apt_install --no-install-recommends -- gcovr llvm-14

# The ONNX checker for tests/js/onnx_export.test.mjs (Debian's python3-onnx 1.12: IR version 8, opset 17).
apt_install --no-install-recommends -- python3-onnx

# Node 20+ and npm are expected on the machine already (Debian 12's own nodejs is 18).
command -v node >/dev/null && command -v npm >/dev/null || { echo "setup: node >= 20 and npm required" >&2; exit 1; }
node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 20 ]; then
  echo "setup: Node >= 20 required (found $(node --version))" >&2
  exit 1
fi

# npm dependencies: `npm ci` when the installed tree is older than the lockfile
# or package.json (npm writes node_modules/.package-lock.json on every install).
npm_deps() {
  local dir=$1
  [ -f "$dir/package.json" ] || return 0
  local stamp="$dir/node_modules/.package-lock.json"
  if [ -f "$stamp" ] && [ "$stamp" -nt "$dir/package.json" ] &&
     { [ ! -f "$dir/package-lock.json" ] || [ "$stamp" -nt "$dir/package-lock.json" ]; }; then
    return 0
  fi
  echo "setup: npm dependencies in ${dir}/"
  if [ -f "$dir/package-lock.json" ]; then
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  else
    (cd "$dir" && npm install --no-audit --no-fund --loglevel=error)
  fi
}
npm_deps npm
npm_deps .
npm_deps tests/browser   # playwright-core + vite, for the browser stage
