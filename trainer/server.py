# trainer/server.py: the process layout and the HTTP API. The process started by `python -m trainer` is rank 0 and
# the launcher: it spawns ranks 1..N-1 (multiprocessing, spawn), joins them in a torch.distributed process group
# (gloo on CPU, NCCL on CUDA; rendezvous through a FileStore in a temporary folder), and serves HTTP. Commands
# reach the other ranks over one multiprocessing pipe each (so an idle rank waits on its pipe, not in a collective
# that could time out); the only collectives are DDP's parameter broadcast at start and its gradient all-reduce in
# forward_backward. Rank 0 watches the other ranks' processes: a dead rank turns every later training call into
# HTTP 503 naming it, and a collective never waits longer than --timeout seconds.
import ctypes
import hmac
import http.server
import json
import math
import multiprocessing
import multiprocessing.connection
import os
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
import traceback
from datetime import timedelta

JSON_LIMIT_DEFAULT = 64 * 1024 * 1024


class HttpError(Exception):
    def __init__(self, status, message, **extra):
        super().__init__(message)
        self.status, self.message, self.extra = status, message, extra


class Fault(Exception):
    """The rank group is broken (a rank died, a collective failed): only a restart helps."""


# ----------------------------------------------------------------------------------------------------------------
# Ranks
# ----------------------------------------------------------------------------------------------------------------
def _setup_rank(rank, world, store_path, opts):
    import torch
    import torch.distributed as dist
    torch.set_num_threads(opts["threads"])
    torch.manual_seed(0)
    if opts["device"] == "cuda":
        device = f"cuda:{rank}"
        torch.cuda.set_device(rank)
        backend = "nccl"
    else:
        device, backend = "cpu", "gloo"
    dist.init_process_group(backend, init_method="file://" + store_path, rank=rank, world_size=world,
                            timeout=timedelta(seconds=opts["timeout"]))
    from .engine import Engine
    return Engine(opts["model"], device, opts["micro_batch_tokens"])


def _die_with_parent():
    """Linux: have the kernel send SIGTERM to this process when rank 0 (its parent) dies."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def run_command(engine, cmd, payload):
    """One command on one rank (payload already split for it). Returns a picklable result."""
    if cmd == "forward":
        return [lp.tolist() for lp in engine.forward(payload["data"])]
    if cmd == "forward_backward":
        loss, lps, tokens = engine.forward_backward(payload["data"], payload["weights"])
        return {"loss": loss, "logprobs": [lp.tolist() for lp in lps], "tokens": tokens}
    if cmd == "optim_step":
        step, norm = engine.optim_step(payload)
        return {"step": step, "gradNorm": norm}
    if cmd == "load_state":
        step, with_opt = engine.load_state(payload)
        return {"step": step, "optimizerState": with_opt}
    raise ValueError(f"unknown command {cmd}")


def worker_main(rank, world, store_path, opts, conn):
    """Ranks 1..N-1: build the engine, say ready, then run commands from the pipe until it closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group; rank 0 shuts us down
    _die_with_parent()
    try:
        engine = _setup_rank(rank, world, store_path, opts)
        conn.send(("ready", None))
    except BaseException:
        conn.send(("error", traceback.format_exc()))
        return
    while True:
        try:
            cmd, payload = conn.recv()
        except (EOFError, OSError):
            return
        if cmd == "shutdown":
            return
        try:
            conn.send(("ok", run_command(engine, cmd, payload)))
        except BaseException:
            conn.send(("error", traceback.format_exc()))


def _exit_text(code):
    if code is None:
        return "stopped responding"
    if code < 0:
        try:
            return f"was killed by signal {-code} ({signal.Signals(-code).name})"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


class RankGroup:
    """Rank 0's view: its own engine, the other ranks' processes and pipes, and the fault state."""

    def __init__(self, opts):
        self.opts = opts
        self.world = opts["nproc"]
        self.lock = threading.Lock()  # one command at a time
        # Reaping is serialized: when the watch thread and a request thread both waitpid() a dead rank, the one
        # that loses the race gets ECHILD, and multiprocessing then reports no exit code ("stopped responding"
        # where "killed by signal 9" is the truth).
        self.reap_lock = threading.Lock()
        self.fault = None  # (message, rank or None) once broken
        self.closing = False
        self.store_dir = tempfile.mkdtemp(prefix="sg-trainer-")
        store = os.path.join(self.store_dir, "store")
        ctx = multiprocessing.get_context("spawn")
        self.procs, self.conns = {}, {}
        for r in range(1, self.world):
            parent, child = ctx.Pipe()
            p = ctx.Process(target=worker_main, args=(r, self.world, store, opts, child), daemon=True,
                            name=f"trainer-rank-{r}")
            p.start()
            child.close()
            self.procs[r], self.conns[r] = p, parent
        self.engine = _setup_rank(0, self.world, store, opts)
        for r in self.procs:  # wait for every rank's ready
            status, info = self._recv(r, opts["timeout"])
            if status != "ready":
                raise RuntimeError(f"rank {r} failed to start:\n{info}")
        import torch
        self.generator = torch.Generator().manual_seed(opts["seed"])
        threading.Thread(target=self._watch, daemon=True, name="trainer-watch").start()

    def pids(self):
        return [os.getpid()] + [self.procs[r].pid for r in sorted(self.procs)]

    def _watch(self):
        """Reports a rank's death as soon as it happens (the next call answers 503 without touching the group)."""
        sentinels = {self.procs[r].sentinel: r for r in self.procs}
        while sentinels and not self.closing:
            ready = multiprocessing.connection.wait(list(sentinels), timeout=1.0)
            for s in ready:
                r = sentinels.pop(s)
                ended = self._ended(r)
                if not self.closing:
                    self._set_fault(ended, r)

    def _ended(self, r):
        """'rank r <how it ended>', after reaping rank r (waiting up to 1 s for its exit code)."""
        with self.reap_lock:
            self.procs[r].join(1.0)
            return f"rank {r} {_exit_text(self.procs[r].exitcode)}"

    def _alive(self, r):
        with self.reap_lock:
            return self.procs[r].is_alive()

    def _set_fault(self, message, rank=None):
        if self.fault is None:
            self.fault = (message, rank)
            print(f"trainer: {message}; training calls now answer 503 (restart the trainer, then load_state)",
                  file=sys.stderr, flush=True)

    def _dead_rank(self, grace=0.0):
        """The first rank whose process has ended (waiting up to `grace` seconds for one to end), or None."""
        deadline = time.monotonic() + grace
        while True:
            for r in sorted(self.procs):
                if not self._alive(r):
                    return r
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.05)

    def _recv(self, r, timeout):
        """A reply from rank r, raising Fault when it dies or does not answer within `timeout` seconds."""
        conn, proc = self.conns[r], self.procs[r]
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Fault(f"rank {r} did not answer within {timeout:g} s")
            ready = multiprocessing.connection.wait([conn, proc.sentinel], timeout=left)
            if conn in ready:
                try:
                    return conn.recv()
                except (EOFError, OSError):
                    pass
                raise Fault(self._ended(r))
            if proc.sentinel in ready:
                raise Fault(self._ended(r))

    def check(self):
        if self.fault is None:
            r = self._dead_rank()
            if r is not None:
                self._set_fault(self._ended(r), r)
        if self.fault is not None:
            message, rank = self.fault
            raise HttpError(503, message, rank=rank)

    def run(self, cmd, payloads):
        """Runs cmd on every rank (payloads[r] for rank r) and returns the results in rank order. A rank's death or
        hang, or a failure in a command that changes state or joins a collective, breaks the group (Fault → 503).
        A failure in `forward` (no collective, no state) is answered 500 once every rank has replied."""
        with self.lock:
            self.check()
            try:
                for r in self.procs:
                    try:
                        self.conns[r].send((cmd, payloads[r]))
                    except (OSError, ValueError):
                        raise Fault(self._ended(r)) from None  # reaped first: its exit code says how it ended
                results, failures = [], []
                try:
                    results.append(run_command(self.engine, cmd, payloads[0]))
                    wait = self.opts["timeout"]
                except Exception as e:
                    failures.append(f"rank 0 failed in {cmd}: {type(e).__name__}: {str(e).strip()[:300]}")
                    r = self._dead_rank(grace=1.0)  # a collective fails fast when a peer's sockets close
                    if r is not None:
                        raise Fault(self._ended(r)) from None
                    wait = 2.0 if cmd != "forward" else self.opts["timeout"]  # a live rank answers, a hung one not
                for r in sorted(self.procs):
                    try:
                        status, info = self._recv(r, wait)
                    except Fault as f:
                        raise Fault(f"{f}" + (f" ({failures[0]})" if failures else "")) from None
                    if status != "ok":
                        failures.append(f"rank {r} failed in {cmd}: {info.strip().splitlines()[-1]}")
                    results.append(info)
                if failures and cmd == "forward":
                    raise HttpError(500, "; ".join(failures))
                if failures:
                    raise Fault(failures[0] if len(failures) == 1 or not failures[0].startswith("rank 0")
                                else failures[1] + f" ({failures[0]})")
                return results
            except Fault as f:
                r = self._dead_rank()
                self._set_fault(str(f), r if r is not None else _rank_in(str(f)))
                self.check()

    def run_local(self, fn):
        """Work on rank 0 alone (forward-only paths need no other rank); exceptions stay ordinary (500)."""
        with self.lock:
            self.check()
            return fn()

    def close(self):
        self.closing = True
        for r, conn in self.conns.items():
            try:
                conn.send(("shutdown", None))
            except (OSError, ValueError):
                pass
        with self.reap_lock:
            for r, p in self.procs.items():
                p.join(5.0)
                if p.is_alive():
                    p.terminate()
                    p.join(2.0)
        shutil.rmtree(self.store_dir, ignore_errors=True)


def _rank_in(message):
    parts = message.split()
    if len(parts) > 1 and parts[0] == "rank" and parts[1].isdigit():
        return int(parts[1])
    return None


# ----------------------------------------------------------------------------------------------------------------
# Request validation
# ----------------------------------------------------------------------------------------------------------------
def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _is_num(x):
    return (isinstance(x, (int, float)) and not isinstance(x, bool)) and math.isfinite(x)


def _only(obj, allowed, where):
    if not isinstance(obj, dict):
        raise HttpError(400, f"{where}: expected a JSON object")
    extra = sorted(set(obj) - set(allowed))
    if extra:
        raise HttpError(400, f"{where}: unknown field(s) {extra}; allowed: {sorted(allowed)}")


def _ids(value, where, vocab, min_len=1):
    if not isinstance(value, list) or len(value) < min_len:
        raise HttpError(400, f"{where}: expected a list of at least {min_len} token ids")
    for x in value:
        if not _is_int(x) or not 0 <= x < vocab:
            raise HttpError(400, f"{where}: {x!r} is not a token id in [0, {vocab})")
    return value


def parse_data(body, vocab, max_t, with_weights):
    _only(body, ("data", "weights") if with_weights else ("data",), "request")
    data = body.get("data")
    if not isinstance(data, list):
        raise HttpError(400, "request: 'data' must be a list of {inputIds, targets}")
    for i, d in enumerate(data):
        _only(d, ("inputIds", "targets"), f"data[{i}]")
        ids = _ids(d.get("inputIds"), f"data[{i}].inputIds", vocab)
        tgt = _ids(d.get("targets"), f"data[{i}].targets", vocab)
        if len(ids) != len(tgt):
            raise HttpError(400, f"data[{i}]: inputIds has {len(ids)} tokens, targets {len(tgt)}")
        if len(ids) > max_t:
            raise HttpError(400, f"data[{i}]: {len(ids)} tokens exceed the model's {max_t} positions")
    if not with_weights:
        return data, None
    weights = body.get("weights")
    if not isinstance(weights, list) or len(weights) != len(data):
        raise HttpError(400, f"request: 'weights' must be a list with one float list per datum ({len(data)})")
    for i, (w, d) in enumerate(zip(weights, data)):
        if not isinstance(w, list) or len(w) != len(d["inputIds"]) or not all(_is_num(x) for x in w):
            raise HttpError(400, f"weights[{i}]: expected {len(d['inputIds'])} finite numbers")
    return data, weights


def parse_optim(body):
    _only(body, ("lr", "betas", "eps", "weightDecay"), "request")
    hp = {"lr": 1e-3, "betas": [0.9, 0.999], "eps": 1e-8, "weight_decay": 1e-2}
    if "lr" in body:
        if not _is_num(body["lr"]) or body["lr"] < 0:
            raise HttpError(400, "lr: expected a number ≥ 0")
        hp["lr"] = float(body["lr"])
    if "betas" in body:
        b = body["betas"]
        if not (isinstance(b, list) and len(b) == 2 and all(_is_num(x) and 0 <= x < 1 for x in b)):
            raise HttpError(400, "betas: expected [beta1, beta2], each in [0, 1)")
        hp["betas"] = [float(b[0]), float(b[1])]
    if "eps" in body:
        if not _is_num(body["eps"]) or body["eps"] <= 0:
            raise HttpError(400, "eps: expected a number > 0")
        hp["eps"] = float(body["eps"])
    if "weightDecay" in body:
        if not _is_num(body["weightDecay"]) or body["weightDecay"] < 0:
            raise HttpError(400, "weightDecay: expected a number ≥ 0")
        hp["weight_decay"] = float(body["weightDecay"])
    return hp


def parse_sample(body, vocab):
    _only(body, ("promptIds", "maxNewTokens", "temperature", "topK", "seed"), "request")
    prompt = _ids(body.get("promptIds"), "promptIds", vocab)
    max_new = body.get("maxNewTokens", 16)
    if not _is_int(max_new) or not 0 <= max_new <= 100000:
        raise HttpError(400, "maxNewTokens: expected an integer in [0, 100000]")
    temperature = body.get("temperature", 1.0)
    if not _is_num(temperature) or temperature < 0:
        raise HttpError(400, "temperature: expected a number ≥ 0")
    top_k = body.get("topK", 0)
    if top_k is None:
        top_k = 0
    if not _is_int(top_k) or top_k < 0:
        raise HttpError(400, "topK: expected an integer ≥ 0 (0 or null: no limit)")
    seed = body.get("seed")
    if seed is not None and (not _is_int(seed) or not 0 <= seed < 2 ** 63):
        raise HttpError(400, "seed: expected an integer in [0, 2^63)")
    return prompt, max_new, float(temperature), top_k, seed


def _finite_or_none(x):
    return x if math.isfinite(x) else None


# ----------------------------------------------------------------------------------------------------------------
# HTTP
# ----------------------------------------------------------------------------------------------------------------
class Trainer:
    """The endpoints, on top of a RankGroup."""

    def __init__(self, group, opts):
        import torch
        self.torch = torch
        self.group = group
        self.opts = opts
        model = group.engine.model
        self.vocab = model.vocab_size
        self.max_t = model.max_positions
        self.n_params = sum(p.numel() for p in model.parameters())
        # a state file holds weights + two AdamW moments (float32) + a step scalar per parameter + its header
        self.state_limit = 3 * 4 * self.n_params + 1024 * len(group.engine.params) + 1024 * 1024

    def split(self, items):
        return [items[slice(*_shard(len(items), self.group.world, r))] for r in range(self.group.world)]

    def health(self):
        self.group.check()
        return {"ok": True, "ranks": self.group.world, "modelType": self.group.engine.config["model_type"],
                "parameters": self.n_params, "step": self.group.engine.step_count(), "pids": self.group.pids()}

    def forward(self, body):
        data, _ = parse_data(body, self.vocab, self.max_t, False)
        if not data:
            return {"logprobs": []}
        results = self.group.run("forward", [{"data": part} for part in self.split(data)])
        lps = [lp for part in results for lp in part]
        return {"logprobs": [[_finite_or_none(x) for x in lp] for lp in lps]}

    def forward_backward(self, body):
        data, weights = parse_data(body, self.vocab, self.max_t, True)
        t0 = time.perf_counter()
        if not data:
            return {"loss": 0.0, "logprobs": [], "metrics": {"tokens": 0, "weightSum": 0.0, "seconds": 0.0}}
        parts = [{"data": d, "weights": w} for d, w in zip(self.split(data), self.split(weights))]
        results = self.group.run("forward_backward", parts)
        loss = sum(r["loss"] for r in results)
        lps = [lp for r in results for lp in r["logprobs"]]
        return {"loss": _finite_or_none(loss),
                "logprobs": [[_finite_or_none(x) for x in lp] for lp in lps],
                "metrics": {"tokens": sum(r["tokens"] for r in results),
                            "weightSum": float(sum(sum(w) for w in weights)),
                            "seconds": round(time.perf_counter() - t0, 6)}}

    def optim_step(self, body):
        hp = parse_optim(body)
        results = self.group.run("optim_step", [hp] * self.group.world)
        return {"step": results[0]["step"],
                "metrics": {"gradNorm": _finite_or_none(results[0]["gradNorm"]), "lr": hp["lr"]}}

    def save_state(self):
        return self.group.run_local(self.group.engine.save_state)

    def load_state(self, blob):
        from .safetensors_io import SafetensorsError, loads
        try:
            self.group.engine.check_state(loads(blob)[0])  # validate before any rank changes anything
        except (SafetensorsError, ValueError) as e:
            raise HttpError(400, str(e)) from None
        results = self.group.run("load_state", [blob] * self.group.world)
        return {"ok": True, "step": results[0]["step"], "optimizerState": results[0]["optimizerState"]}

    def sample(self, body):
        prompt, max_new, temperature, top_k, seed = parse_sample(body, self.vocab)

        def go():
            gen = self.group.generator if seed is None else self.torch.Generator().manual_seed(seed)
            return self.group.engine.sample(prompt, max_new, temperature, top_k, gen)
        return {"ids": self.group.run_local(go)}


def _shard(n, world, rank):
    from .engine import shard_bounds
    return shard_bounds(n, world, rank)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # TCP_NODELAY: headers and body go in two writes; with Nagle + delayed ACK each answer waited ~40 ms
    server_version = "simdgrad-trainer"
    trainer = None  # set by serve()
    opts = None

    def log_message(self, fmt, *args):
        if self.opts.get("verbose"):
            sys.stderr.write("trainer: %s %s\n" % (self.address_string(), fmt % args))

    def _send(self, status, body, content_type="application/json", close=False):
        if isinstance(body, (dict, list)):
            body = json.dumps(body, allow_nan=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        origin = self.opts.get("allow_origin")
        if origin:
            self.send_header("Access-Control-Allow-Origin", origin)
            self.send_header("Vary", "Origin")
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(body)

    def _error(self, status, message, close=False, **extra):
        self._send(status, {"error": message, **{k: v for k, v in extra.items() if v is not None}}, close=close)

    def do_OPTIONS(self):  # CORS preflight, only when --allow-origin is set
        origin = self.opts.get("allow_origin")
        if not origin:
            return self._error(405, "OPTIONS is not supported (start the trainer with --allow-origin for CORS)")
        self.send_response(204)
        self.send_header("Access-Control-Allow-Origin", origin)
        self.send_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
        self.send_header("Access-Control-Allow-Headers", "Authorization, Content-Type")
        self.send_header("Access-Control-Max-Age", "600")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        self._handle("GET")

    def do_POST(self):
        self._handle("POST")

    def do_PUT(self):
        self._handle("PUT")

    def do_DELETE(self):
        self._handle("DELETE")

    ROUTES = {"/health": "GET", "/forward": "POST", "/forward_backward": "POST", "/optim_step": "POST",
              "/save_state": "POST", "/load_state": "POST", "/sample": "POST"}

    def _authorized(self):
        token = self.opts.get("token")
        if not token:
            return True
        given = self.headers.get("Authorization", "")
        return given.startswith("Bearer ") and hmac.compare_digest(given[7:].encode(), token.encode())

    def _drain(self, length, cap):
        """Reads away up to `cap` bytes of an unwanted body, so the client gets the answer rather than a reset."""
        left = length if length <= cap else 0
        while left > 0:
            chunk = self.rfile.read(min(left, 1 << 20))
            if not chunk:
                break
            left -= len(chunk)
        self.body_read = True

    def _content_length(self):
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        return length

    def _read_body(self, limit):
        if self.headers.get("Transfer-Encoding"):
            raise HttpError(411, "send a Content-Length (chunked request bodies are not supported)", close=True)
        length = self._content_length()
        if length < 0:
            raise HttpError(400, "bad Content-Length", close=True)
        if length > limit:
            self._drain(length, limit + 64 * 1024 * 1024)
            raise HttpError(413, f"request body of {length} bytes exceeds this endpoint's limit of {limit} bytes",
                            close=True)
        body = self.rfile.read(length) if length else b""
        self.body_read = True
        if len(body) != length:
            raise HttpError(400, "request body shorter than its Content-Length", close=True)
        return body

    def _handle(self, method):
        path = self.path.split("?", 1)[0]
        self.body_read = False
        try:
            if path not in self.ROUTES:
                raise HttpError(404, f"no endpoint {path}; endpoints: {sorted(self.ROUTES)}", close=True)
            if not self._authorized():
                raise HttpError(401, "authentication required: send 'Authorization: Bearer <token>' with the "
                                     "trainer's token", close=True)
            if method != self.ROUTES[path]:
                raise HttpError(405, f"{path} takes {self.ROUTES[path]}", close=True)
            t = self.trainer
            if path == "/health":
                return self._send(200, t.health())
            if path == "/load_state":
                return self._send(200, t.load_state(self._read_body(t.state_limit)))
            raw = self._read_body(self.opts["max_request_bytes"])
            if path == "/save_state":
                return self._send(200, t.save_state(), "application/octet-stream")
            try:
                body = json.loads(raw.decode("utf-8")) if raw.strip() else {}
            except (UnicodeDecodeError, json.JSONDecodeError) as e:
                raise HttpError(400, f"malformed JSON: {e}") from None
            if not isinstance(body, dict):
                raise HttpError(400, "request: expected a JSON object")
            handler = {"/forward": t.forward, "/forward_backward": t.forward_backward,
                       "/optim_step": t.optim_step, "/sample": t.sample}[path]
            return self._send(200, handler(body))
        except HttpError as e:
            close = e.extra.pop("close", False)
            if not self.body_read:
                self._drain(self._content_length(), self.opts["max_request_bytes"])
            self._error(e.status, e.message, close=close, **e.extra)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception as e:  # a bug or resource failure on rank 0 alone: report it and keep serving
            traceback.print_exc(file=sys.stderr)
            try:
                self._error(500, f"internal error: {type(e).__name__}: {e}", close=True)
            except OSError:
                self.close_connection = True


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def _loopback(host):
    return host in ("127.0.0.1", "localhost", "::1") or host.startswith("127.")


def serve(opts):
    """Starts the ranks and the HTTP server; returns when interrupted (SIGINT/SIGTERM)."""
    import torch
    if opts["device"] == "auto":
        opts["device"] = "cuda" if torch.cuda.is_available() else "cpu"
    if opts["device"] == "cuda":
        n = torch.cuda.device_count()
        if opts["nproc"] > n:
            raise SystemExit(f"trainer: --nproc {opts['nproc']} > {n} CUDA devices (NCCL wants one per rank)")
    if not opts.get("threads"):
        opts["threads"] = int(os.environ.get("OMP_NUM_THREADS") or 0) or max(1, (os.cpu_count() or 1) // opts["nproc"])
    os.environ.setdefault("OMP_NUM_THREADS", str(opts["threads"]))  # for the spawned ranks' OpenMP
    if sys.platform.startswith("linux"):
        os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")  # ranks talk over loopback only
    os.environ.setdefault("NCCL_BLOCKING_WAIT", "1")  # NCCL collectives raise after --timeout instead of hanging

    def stop(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, stop)

    group = None
    httpd = None
    try:
        group = RankGroup(opts)
        Handler.trainer = Trainer(group, opts)
        Handler.opts = opts
        host = opts["host"]
        Server.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        httpd = Server((host, opts["port"]), Handler)
        port = httpd.server_address[1]
        if not _loopback(host):
            print(f"trainer: WARNING: listening on {host}, not loopback: other machines can reach this trainer"
                  + ("" if opts.get("token") else " and no --token is set"), file=sys.stderr, flush=True)
        shown = f"[{host}]" if ":" in host else host
        print(f"trainer listening on http://{shown}:{port} ({group.world} ranks)", flush=True)
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    except (ValueError, OSError, RuntimeError) as e:  # bad model folder, port in use, a rank that failed to start
        print(f"trainer: cannot start: {e}", file=sys.stderr, flush=True)
        raise SystemExit(1) from None
    finally:
        if httpd is not None:
            httpd.server_close()
        if group is not None:
            group.close()
