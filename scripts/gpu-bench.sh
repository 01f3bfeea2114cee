#!/usr/bin/env bash
# The WebGPU bench on a machine's real GPU (issue 29): Node with the `webgpu` npm package (Dawn)
# over the GPU's Vulkan driver (Linux; on macOS/Windows Dawn uses Metal/D3D12 itself), printing
# matmul f32 at 1024, 2048, 4096 and 8192 in GFLOP/s with the fraction of the GPU's fp32 peak
# where tests/bench/lib/gpu_peaks.mjs knows it, the MLP, CNN and nanoGPT-shaped train steps (with
# dispatches a step), sg.compile's fused chains, and tfjs-backend-webgpu on the same adapter in the
# same run (tests/bench/webgpu.mjs --gpu-report).
#   bash scripts/gpu-bench.sh [--quick] [--sizes 1024,4096] [--no-tfjs] [--save]
#   --save  also writes tests/bench/results/gpu-<adapter>.md
# Without a GPU driver Dawn falls back to SwiftShader (the CPU), and the header says so.
set -euo pipefail
cd "$(dirname "$0")/.."

# A Vulkan ICD that is not a CPU emulation (the tests force Chromium's SwiftShader through
# VK_ICD_FILENAMES when it is unset: tests/js/webgpu_env.mjs).
if [ -z "${VK_ICD_FILENAMES:-}" ] && [ "$(uname)" = Linux ]; then
  for icd in /usr/share/vulkan/icd.d/*.json /etc/vulkan/icd.d/*.json; do
    [ -f "$icd" ] || continue
    case "$icd" in *swiftshader*|*lvp*|*llvmpipe*) continue ;; esac
    export VK_ICD_FILENAMES="$icd"
    break
  done
  if [ -z "${VK_ICD_FILENAMES:-}" ]; then
    echo "gpu-bench: no GPU Vulkan driver in /usr/share/vulkan/icd.d or /etc/vulkan/icd.d (NVIDIA: the driver's nvidia_icd.json); running on SwiftShader" >&2
  else
    echo "gpu-bench: Vulkan driver $VK_ICD_FILENAMES" >&2
  fi
fi

[ -f npm/dist/index.mjs ] && [ -f npm/dist/simdgrad.wasm ] || bash scripts/build.sh wasm js
[ -d npm/node_modules/webgpu ] || (cd npm && npm ci --no-audit --no-fund)
[ -d tests/bench/node_modules/@tensorflow/tfjs-backend-webgpu ] || (cd tests/bench && npm ci --no-audit --no-fund)

save=0
rest=()
for a in "$@"; do
  if [ "$a" = --save ]; then save=1; else rest+=("$a"); fi
done
out=$(mktemp)
node tests/bench/webgpu.mjs --gpu-report "${rest[@]}" | tee "$out"
if [ "$save" = 1 ]; then
  name=$(head -1 "$out" | sed -n 's/.*adapter \(.*\) · CPU.*/\1/p' | tr 'A-Z' 'a-z' | tr -cs 'a-z0-9' '-' | sed 's/^-//; s/-$//' | cut -c1-60)
  file="tests/bench/results/gpu-${name:-unknown}.md"
  { echo "# WebGPU bench: \`bash scripts/gpu-bench.sh\`"; echo; echo "- commit $(git rev-parse --short HEAD), $(date -u +%FT%TZ)"; echo; echo '```'; grep -v '^{' "$out"; echo '```'; } > "$file"
  echo "results written to $file"
fi
rm -f "$out"
