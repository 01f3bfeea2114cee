#!/usr/bin/env bash
# The remote training server (trainer/):
#   bash scripts/trainer.sh --model DIR [--nproc N] [--port P] [--token T] [--host H] [...]
# Runs `python -m trainer` with Debian's /usr/bin/python3 (PyTorch 1.13 from python3-torch), installing
# python3-torch with apt only when `import torch` fails there. All arguments go to the trainer
# (`bash scripts/trainer.sh --help` lists them; trainer/README.md documents the HTTP API).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)  # no cd: a relative --model stays relative to the caller's folder
PY=/usr/bin/python3
if ! "$PY" -c 'import torch' 2>/dev/null; then
  echo "trainer.sh: torch is not importable by $PY; installing python3-torch with apt" >&2
  SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-torch >&2
fi
export PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
exec "$PY" -m trainer "$@"
