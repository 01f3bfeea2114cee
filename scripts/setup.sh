#!/usr/bin/env bash
# Install what simdgrad needs on a Debian 12 machine; safe to re-run (does only
# what is missing). Called by build/test/demo entry points and CI.
set -euo pipefail
cd "$(dirname "$0")/.."

# clang + libclang-rt-14-dev: libFuzzer and the sanitizer runtimes for the fuzz stage.
APT_PACKAGES=(emscripten binaryen libhwy-dev doctest-dev wabt cmake g++ clang libclang-rt-14-dev)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install ${missing[*]}" >&2; exit 1; }
    SUDO="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

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
