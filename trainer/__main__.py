# trainer/__main__.py: the command line, `python -m trainer --model DIR [--nproc N] [--port P] [--token T]
# [--host H] ...` (scripts/trainer.sh runs it with Debian's /usr/bin/python3). See trainer/README.md.
import argparse
import os
import sys


def main(argv=None):
    ap = argparse.ArgumentParser(prog="trainer", description="simdgrad's remote training server: a Hugging Face "
                                 "model folder (GPT-2 or Llama) trained by N data-parallel PyTorch processes over HTTP.")
    ap.add_argument("--model", required=True, help="model folder: config.json + model.safetensors (or its index)")
    ap.add_argument("--nproc", type=int, default=1, help="data-parallel ranks (processes), default 1")
    ap.add_argument("--port", type=int, default=8765, help="HTTP port, 0 = any free port (default 8765)")
    ap.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1, loopback only)")
    ap.add_argument("--token", default=os.environ.get("TRAINER_TOKEN") or None,
                    help="require 'Authorization: Bearer <token>' (default: $TRAINER_TOKEN; none when unset)")
    ap.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                    help="auto: CUDA (NCCL, one GPU per rank) when available, else CPU (gloo)")
    ap.add_argument("--threads", type=int, default=0,
                    help="torch threads per rank (default: $OMP_NUM_THREADS, else CPU count / nproc)")
    ap.add_argument("--timeout", type=float, default=45.0,
                    help="seconds a collective or a rank's reply may take before the group counts as broken "
                         "(default 45: a hung rank is reported within the JS client's default 60 s timeout)")
    ap.add_argument("--max-request-bytes", type=int, default=64 * 1024 * 1024,
                    help="largest JSON request body (default 64 MiB); load_state's limit follows the model size")
    ap.add_argument("--micro-batch-tokens", type=int, default=4096,
                    help="padded tokens per forward pass on a rank (larger requests run in several passes)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the sampling generator (sample without 'seed')")
    ap.add_argument("--allow-origin", default=None,
                    help="send CORS headers for this origin (for a client in a browser page); off by default")
    ap.add_argument("--verbose", action="store_true", help="log each request to stderr")
    args = ap.parse_args(argv)
    if args.nproc < 1:
        ap.error("--nproc must be ≥ 1")
    if not 0 <= args.port < 65536:
        ap.error("--port must be in [0, 65535]")
    if not os.path.isfile(os.path.join(args.model, "config.json")):
        ap.error(f"--model {args.model}: no config.json there")
    import json
    with open(os.path.join(args.model, "config.json"), encoding="utf-8") as f:
        kind = json.load(f).get("model_type")
    if kind not in ("gpt2", "llama"):
        ap.error(f"--model {args.model}: model_type {kind!r} is not supported (gpt2, llama)")
    from .server import serve
    opts = {k: v for k, v in vars(args).items()}
    opts["model"] = os.path.abspath(args.model)
    serve(opts)


if __name__ == "__main__":
    sys.exit(main())
