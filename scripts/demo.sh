#!/usr/bin/env bash
# Build (incrementally) and run the command-line training demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh wasm js   # the demo needs the npm package only, not the native tests
node demos/node/train.mjs "$@"
