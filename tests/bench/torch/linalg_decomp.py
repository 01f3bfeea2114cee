"""PyTorch 1.13's side of tests/bench/linalg.mjs: torch.linalg.svd of a 256x256 and torch.linalg.eigh of
a 512x512 float32 matrix (LAPACK through the system OpenBLAS), on one thread (the caller sets
OPENBLAS_NUM_THREADS=OMP_NUM_THREADS=1 before torch loads; set_num_threads(1) here too).

Serves the bench call by call, so that both sides run interleaved under the same load: after one
warm-up call of each workload it prints "ready <threads>", then for each workload name read from
stdin runs it once and prints its CPU milliseconds (time.process_time). Ends at end of input."""
import sys
import time

import torch

torch.set_num_threads(1)
torch.manual_seed(0)

a = torch.randn(256, 256)
s = torch.randn(512, 512)
s = s + s.T
WORKLOADS = {
    "svd_256": lambda: torch.linalg.svd(a),
    "svdvals_256": lambda: torch.linalg.svdvals(a),
    "eigh_512": lambda: torch.linalg.eigh(s),
    "eigvalsh_512": lambda: torch.linalg.eigvalsh(s),
}
for fn in WORKLOADS.values():
    fn()
print("ready", torch.get_num_threads(), flush=True)
for line in sys.stdin:
    fn = WORKLOADS[line.strip()]
    t0 = time.process_time()
    fn()
    print((time.process_time() - t0) * 1000, flush=True)
