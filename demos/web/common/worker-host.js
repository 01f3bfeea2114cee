// Training side of the demo protocol (the page side is common/demo.js).
//
// A demo's worker calls hostTraining(createTrainer, pacing). The host loads simdgrad, builds the trainer and
// runs its step() in chunks of ~CHUNK_MS, yielding to the event loop in between so that pause,
// reset and the demo's own requests (predict, save, ...) are answered while it trains.
//
// page → worker: { type: 'init', simdgradUrl, threads, backend ('wasm' | 'webgpu'), config }
//                { type: 'start', steps, run } (train until `steps` more steps are done) · { type: 'pause' }
//                { type: 'reset', config, run } · { type: 'request', id, name, payload }
// worker → page: { type: 'ready', backend, features, threads, warning }
//                { type: 'progress', run, step, loss, lossMean, stepsPerSec, running, memory: sg.memory() }
//                { type: 'report', run, step, ...whatever trainer.report() returns } (every ~REPORT_MS and on pause)
// `run` is the page's counter of start/reset presses: messages still in flight from before a
// reset or a restart carry an older run, and the page ignores them.
//                { type: 'reply', id, result | error } · { type: 'error', message }
//
// trainer = { step() → loss (number, or a Promise of one: GPU tensors are read with await),
//             report?() → object | Promise, handle?(name, payload) → result | Promise,
//             transfer?(name, result) → Transferable[], dispose() }; createTrainer(sg, config) may be async.
//
// options (pacing): chunkMs — time budget of one chunk; maxChunkSteps — at most this many steps per
// chunk; restMs — pause between chunks; reportMs — least time between reports. A fast demo (the
// playground) rests between small chunks so its decision boundary can be watched as it moves.
//
// endpoint: where messages come from and go to — by default this worker's global scope;
// common/inline-host.js passes its own to run the same host on the page's main thread, with
// options.init (simdgrad's init, imported there) instead of importing the URL the page sends.

const workerEndpoint = {
  post: (msg, transfer) => self.postMessage(msg, transfer ?? []),
  listen: (handler) => (self.onmessage = handler),
};

export function hostTraining(createTrainer, options = {}, endpoint = workerEndpoint) {
  const CHUNK_MS = options.chunkMs ?? 120;
  const MAX_CHUNK_STEPS = options.maxChunkSteps ?? Infinity;
  const REST_MS = options.restMs ?? 0;
  const REPORT_MS = options.reportMs ?? 700;
  let sg = null;
  let trainer = null;
  let step = 0;
  let target = 0;
  let running = false;
  let looping = false; // a loop() is alive (possibly awaiting its next chunk)
  let lastReport = 0;
  let rate = 0;
  let cycleStart = null;
  let run = 0;

  const post = (msg, transfer) => endpoint.post(msg, transfer);
  const fail = (e) => post({ type: 'error', message: e?.message ?? String(e) });

  // Requests and 'start' wait for the trainer being built (the message handler is async, so a
  // request can arrive while a reset is still loading its data).
  let building = Promise.resolve();
  function build(config) {
    trainer?.dispose();
    trainer = null;
    step = 0;
    rate = 0;
    building = (async () => {
      trainer = await createTrainer(sg, config ?? {});
      await report();
    })();
    return building;
  }

  async function report() {
    lastReport = performance.now();
    if (trainer?.report) post({ type: 'report', run, step, ...(await trainer.report()) });
  }

  // Runs chunks until paused or done; one loop at a time (a start during its yield just keeps it going).
  async function loop() {
    if (looping) return;
    looping = true;
    while (running && trainer) {
      const t0 = performance.now();
      let sum = 0;
      let n = 0;
      let loss = NaN;
      try {
        do {
          loss = await trainer.step();
          sum += loss;
          n++;
          step++;
        } while (performance.now() - t0 < CHUNK_MS && n < MAX_CHUNK_STEPS && step < target);
      } catch (e) {
        running = false;
        fail(e);
        break;
      }
      // Rate over the whole cycle (chunk + the previous rest), as the user sees it.
      const now = performance.now();
      const dt = (now - (cycleStart ?? t0)) / 1000;
      cycleStart = now;
      rate = rate ? 0.8 * rate + 0.2 * (n / dt) : n / dt;
      if (step >= target) running = false;
      post({ type: 'progress', run, step, loss, lossMean: sum / n, stepsPerSec: rate, running, memory: sg.memory() });
      if (!running || performance.now() - lastReport > REPORT_MS) {
        try {
          await report();
        } catch (e) {
          fail(e);
        }
      }
      // setTimeout lets queued messages (pause, predict, ...) run before the next chunk.
      await new Promise((ok) => setTimeout(ok, REST_MS));
    }
    cycleStart = null;
    looping = false;
  }

  async function loadSimdgrad(url, threads, backend) {
    // Import maps do not apply inside workers, so the page passes the URL it resolved 'simdgrad' to.
    const init = options.init ?? (await import(url)).init;
    let warning = null;
    let sgx;
    if (backend === 'webgpu') {
      try {
        sgx = await init({ backend: 'webgpu' });
      } catch (e) {
        warning = `webgpu unavailable, using wasm — ${e?.message ?? e}`;
      }
    }
    if (!sgx && threads > 1) {
      try {
        sgx = await init({ threads });
      } catch (e) {
        warning = `threads: ${threads} unavailable, using 1 — ${e?.message ?? e}`;
      }
    }
    sgx ??= await init();
    const features = sgx.features();
    // getNumThreads() arrives with the threaded build; before it, a successful init({ threads })
    // with features().threads true is the evidence.
    const used = typeof sgx.getNumThreads === 'function' ? sgx.getNumThreads() : threads > 1 && !warning && features.threads ? threads : 1;
    return { sg: sgx, warning, threads: used, features };
  }

  endpoint.listen(async (ev) => {
    const msg = ev.data;
    try {
      switch (msg.type) {
        case 'init': {
          const loaded = await loadSimdgrad(msg.simdgradUrl, msg.threads ?? 1, msg.backend ?? 'wasm');
          sg = loaded.sg;
          await build(msg.config);
          post({ type: 'ready', backend: sg.getBackend(), features: loaded.features, threads: loaded.threads, warning: loaded.warning, version: sg.version });
          break;
        }
        case 'start':
          run = msg.run ?? run;
          await building;
          if (!trainer || run !== (msg.run ?? run)) return;
          target = step + (msg.steps ?? Infinity);
          if (!running && step < target) {
            running = true;
            loop();
          }
          break;
        case 'pause':
          running = false;
          break;
        case 'reset':
          running = false;
          run = msg.run ?? run;
          await build(msg.config);
          break;
        case 'request': {
          try {
            await building;
            if (!trainer?.handle) throw new Error(`no trainer to handle '${msg.name}'`);
            const result = await trainer.handle(msg.name, msg.payload);
            post({ type: 'reply', id: msg.id, result }, trainer.transfer?.(msg.name, result));
          } catch (e) {
            post({ type: 'reply', id: msg.id, error: e?.message ?? String(e) });
          }
          break;
        }
        default:
          throw new Error(`worker: unknown message type ${JSON.stringify(msg.type)}`);
      }
    } catch (e) {
      fail(e);
    }
  });
}
