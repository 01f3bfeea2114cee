"""PyTorch 1.13's side of tests/bench/linalg.mjs: torch.linalg.svd of a 256x256 and torch.linalg.eigh of
a 512x512 float32 matrix (LAPACK through the system OpenBLAS), on one thread (the caller sets
OPENBLAS_NUM_THREADS=OMP_NUM_THREADS=1 before torch loads; set_num_threads(1) here too). Prints one
JSON line: { name: median ms } over `rounds` calls after a warm-up call."""
import json
import sys
import time

import torch

torch.set_num_threads(1)
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
torch.manual_seed(0)


def median_ms(fn):
    fn()
    times = []
    for _ in range(rounds):
        t0 = time.process_time()
        fn()
        times.append((time.process_time() - t0) * 1000)
    return sorted(times)[len(times) // 2]


a = torch.randn(256, 256)
s = torch.randn(512, 512)
s = s + s.T
print(json.dumps({
    "svd_256": median_ms(lambda: torch.linalg.svd(a)),
    "svdvals_256": median_ms(lambda: torch.linalg.svdvals(a)),
    "eigh_512": median_ms(lambda: torch.linalg.eigh(s)),
    "eigvalsh_512": median_ms(lambda: torch.linalg.eigvalsh(s)),
    "threads": torch.get_num_threads(),
}))
