# trainer/engine.py: what one rank holds and does. An Engine owns the model (float32), its
# DistributedDataParallel wrapper and a torch.optim.AdamW over model.parameters(), and runs the commands on the
# data shard it is given: forward (log-probabilities of targets), forward_backward (accumulates the gradient of
# −Σ w·logprob, scaled by the world size because DDP averages), optim_step, state save/load and sampling.
# It needs an initialised torch.distributed process group; every rank runs the same command sequence.
import math

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

from . import safetensors_io
from .models import load_pretrained

ADAMW_DEFAULTS = {"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 1e-2}  # torch's own


def shard_bounds(n_items, world, rank):
    """Contiguous split of n_items over `world` ranks, sizes differing by at most one (the first ranks get the
    extra items): rank r gets items [begin, end)."""
    base, extra = divmod(n_items, world)
    begin = rank * base + min(rank, extra)
    return begin, begin + base + (1 if rank < extra else 0)


def micro_batches(data, max_tokens):
    """Consecutive groups of data whose padded size (count × longest T) stays within max_tokens (≥ 1 item each)."""
    groups, cur, longest = [], [], 0
    for i, d in enumerate(data):
        t = len(d["inputIds"])
        if cur and (len(cur) + 1) * max(longest, t) > max_tokens:
            groups.append(cur)
            cur, longest = [], 0
        cur.append(i)
        longest = max(longest, t)
    if cur:
        groups.append(cur)
    return groups


class Engine:
    def __init__(self, folder, device, micro_batch_tokens=4096):
        self.device = torch.device(device)
        model, self.config, self.names = load_pretrained(folder)
        self.model = model.to(self.device)
        self.world = dist.get_world_size()
        self.rank = dist.get_rank()
        # broadcast_buffers=False: the models have no buffers, and a per-forward broadcast would force every rank
        # to run the same number of forwards. DDP's constructor broadcasts rank 0's parameters to all ranks.
        self.ddp = DistributedDataParallel(self.model, device_ids=[self.device.index] if self.device.type == "cuda"
                                           else None, broadcast_buffers=False)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), **ADAMW_DEFAULTS)
        self.micro_batch_tokens = micro_batch_tokens
        self.params = dict(self.model.named_parameters())

    # ----- helpers -----
    def _batch(self, data, idx, weights=None):
        """Right-pads data[idx] to one [B, Tmax] batch (pad id 0, pad weight 0). Causal attention keeps padded
        positions from affecting real ones."""
        tmax = max(len(data[i]["inputIds"]) for i in idx)
        ids = torch.zeros(len(idx), tmax, dtype=torch.long)
        tgt = torch.zeros(len(idx), tmax, dtype=torch.long)
        w = torch.zeros(len(idx), tmax) if weights is not None else None
        for row, i in enumerate(idx):
            t = len(data[i]["inputIds"])
            ids[row, :t] = torch.tensor(data[i]["inputIds"], dtype=torch.long)
            tgt[row, :t] = torch.tensor(data[i]["targets"], dtype=torch.long)
            if w is not None:
                w[row, :t] = torch.tensor(weights[i], dtype=torch.float32)
        dev = self.device
        return ids.to(dev), tgt.to(dev), (w.to(dev) if w is not None else None)

    @staticmethod
    def _logprobs(logits, targets):
        return F.log_softmax(logits, dim=-1).gather(-1, targets.unsqueeze(-1)).squeeze(-1)

    def step_count(self):
        for p in self.model.parameters():
            st = self.optimizer.state.get(p)
            if st and "step" in st:
                return int(float(st["step"]))
        return 0

    # ----- commands (each rank calls these with its own shard) -----
    def forward(self, data):
        """→ per datum, a float32 CPU tensor [T] of log p(targets[t] | inputIds[:t+1])."""
        out = [None] * len(data)
        with torch.no_grad():
            for idx in micro_batches(data, self.micro_batch_tokens):
                ids, tgt, _ = self._batch(data, idx)
                lp = self._logprobs(self.model(ids), tgt).cpu()
                for row, i in enumerate(idx):
                    out[i] = lp[row, :len(data[i]["inputIds"])].clone()
        return out

    def forward_backward(self, data, weights):
        """Adds to .grad this rank's part of d/dθ of L = −Σ_i Σ_t w[i][t]·logprob[i][t], scaled by the world size:
        DDP averages gradients over ranks, so the all-reduced gradient is that of the sum over all ranks' data.
        Exactly one synchronising backward per call on every rank (the others run under no_sync); a rank without
        data joins the all-reduce with a zero loss that reaches every parameter.
        Returns (local L, per-datum log-probabilities, local token count)."""
        groups = micro_batches(data, self.micro_batch_tokens)
        logprobs = [None] * len(data)
        total = 0.0
        if not groups:
            ids = torch.zeros(1, 1, dtype=torch.long, device=self.device)
            (self.ddp(ids).sum() * 0.0).backward()
            return 0.0, [], 0
        for gi, idx in enumerate(groups):
            ids, tgt, w = self._batch(data, idx, weights)
            last = gi == len(groups) - 1
            ctx = torch.enable_grad() if last else self.ddp.no_sync()
            with ctx:
                lp = self._logprobs(self.ddp(ids), tgt)
                loss = -(w * lp).sum()
                (loss * self.world).backward()
            total += float(loss.detach())
            lp = lp.detach().cpu()
            for row, i in enumerate(idx):
                logprobs[i] = lp[row, :len(data[i]["inputIds"])].clone()
        return total, logprobs, sum(len(d["inputIds"]) for d in data)

    def optim_step(self, hp):
        """AdamW with the given hyper-parameters over every parameter, then zero the gradients (torch's default
        zero_grad: zeros, not None). Returns (step count, gradient norm before the step)."""
        sq = 0.0
        for p in self.model.parameters():
            if p.grad is not None:
                sq += float(p.grad.detach().double().pow(2).sum())
        for group in self.optimizer.param_groups:
            group["lr"] = hp["lr"]
            group["betas"] = tuple(hp["betas"])
            group["eps"] = hp["eps"]
            group["weight_decay"] = hp["weight_decay"]
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=False)
        return self.step_count(), math.sqrt(sq)

    def state_tensors(self):
        """{name: tensor}: the weights under the model folder's names, plus per parameter the AdamW state as
        optimizer.<name>.exp_avg, optimizer.<name>.exp_avg_sq and optimizer.<name>.step (F32 scalar, as torch)."""
        out = {}
        for pname, p in self.params.items():
            name = self.names[pname]
            out[name] = p.detach().cpu().clone()
            st = self.optimizer.state.get(p)
            if st:
                out[f"optimizer.{name}.exp_avg"] = st["exp_avg"].detach().cpu().clone()
                out[f"optimizer.{name}.exp_avg_sq"] = st["exp_avg_sq"].detach().cpu().clone()
                out[f"optimizer.{name}.step"] = torch.tensor(float(st["step"]), dtype=torch.float32)
        return out

    def save_state(self):
        meta = {"format": "pt", "producer": "simdgrad trainer", "model_type": self.config["model_type"],
                "step": str(self.step_count())}
        return safetensors_io.dumps(self.state_tensors(), meta)

    def check_state(self, tensors):
        """Raises ValueError naming what is wrong when `tensors` cannot be loaded; returns whether it has optimizer
        state (all parameters' or none)."""
        known = set()
        with_opt = 0
        for pname, p in self.params.items():
            name = self.names[pname]
            if name not in tensors:
                raise ValueError(f"state: weight '{name}' is missing")
            t = tensors[name]
            if tuple(t.shape) != tuple(p.shape) or not t.is_floating_point():
                raise ValueError(f"state: '{name}' is {t.dtype} {list(t.shape)}, expected floats {list(p.shape)}")
            keys = [f"optimizer.{name}.{k}" for k in ("exp_avg", "exp_avg_sq", "step")]
            present = [k in tensors for k in keys]
            if any(present) and not all(present):
                raise ValueError(f"state: optimizer state of '{name}' is incomplete")
            if all(present):
                with_opt += 1
                for k in keys[:2]:
                    if tuple(tensors[k].shape) != tuple(p.shape) or not tensors[k].is_floating_point():
                        raise ValueError(f"state: '{k}' has shape {list(tensors[k].shape)}")
                if tensors[keys[2]].numel() != 1:
                    raise ValueError(f"state: '{keys[2]}' must hold one number")
            known.update([name] + keys)
        if with_opt not in (0, len(self.params)):
            raise ValueError("state: optimizer state covers only some parameters")
        extra = sorted(set(tensors) - known)
        if extra:
            raise ValueError(f"state: unknown tensors {extra[:5]}")
        return with_opt > 0

    def load_state(self, blob):
        """Restores weights and (when present, else resets) AdamW state from save_state's bytes; gradients are
        cleared (None), as in a freshly started trainer."""
        tensors, _ = safetensors_io.loads(blob)
        with_opt = self.check_state(tensors)
        self.optimizer.state.clear()
        with torch.no_grad():
            for pname, p in self.params.items():
                name = self.names[pname]
                p.copy_(tensors[name].float())
                p.grad = None
                if with_opt:
                    self.optimizer.state[p] = {
                        "step": torch.tensor(float(tensors[f"optimizer.{name}.step"].reshape(()))),
                        "exp_avg": tensors[f"optimizer.{name}.exp_avg"].float().to(self.device).clone(),
                        "exp_avg_sq": tensors[f"optimizer.{name}.exp_avg_sq"].float().to(self.device).clone(),
                    }
        return self.step_count(), with_opt

    def sample(self, prompt, max_new, temperature, top_k, generator):
        """The prompt followed by max_new tokens: greedy (argmax) when temperature is 0, else sampled from
        softmax(logits / temperature) restricted to the top_k most likely (0 = all), with `generator`.
        No key/value cache: each token recomputes the window of the last max_positions tokens."""
        ids = torch.tensor([prompt], dtype=torch.long, device=self.device)
        with torch.no_grad():
            for _ in range(max_new):
                logits = self.model(ids[:, -self.model.max_positions:])[0, -1].float().cpu()
                if temperature == 0:
                    nxt = int(torch.argmax(logits))
                else:
                    logits = logits / temperature
                    if 0 < top_k < logits.numel():
                        kth = torch.topk(logits, top_k).values[-1]
                        logits = logits.masked_fill(logits < kth, float("-inf"))
                    nxt = int(torch.multinomial(torch.softmax(logits, -1), 1, generator=generator))
                ids = torch.cat([ids, torch.tensor([[nxt]], device=self.device)], dim=1)
        return ids[0].tolist()

