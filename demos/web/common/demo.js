// Page side of every demo: starts the training worker, wires Start/Pause/Reset, the progress bar
// and the status lines, and keeps window.simdgradDemo = { ready, step, loss, memory, backend, request } current for tests.
// The worker side is common/worker-host.js (the message protocol is described there).
//
// Query parameters: ?backend=webgpu trains on the GPU (init({ backend: 'webgpu' }); the backend
// selector next to the status line reloads the page with it); ?autostart=1 starts training once ready;
// ?steps=N makes one run N steps (tests compare backends at an exact step); ?threads=N asks for the threaded build
// (init({ threads: N })); when that is unavailable the status line says why and 1 thread is used;
// ?worker=0 trains on the main thread (common/inline-host.js), as browsers without module workers do.

export const query = new URLSearchParams(location.search);

/**
 * options: { worker: URL of the demo's module worker, trainer: URL of its trainer.js (for the
 *            main-thread fallback), config: () => object sent on init/reset,
 *            stepsPerRun: steps one press of Start trains (Infinity: until paused),
 *            onProgress(msg), onReport(msg), onReady(msg), onReset() }
 * The page must contain #start, #reset, #progress-bar, #progress-text, #backend, #status.
 * Returns { request(name, payload, transfer) → Promise, reset(), start(), pause(), setStatus(text, kind) }.
 */
export function setupDemo(options) {
  const $ = (id) => document.getElementById(id);
  const startBtn = $('start');
  const resetBtn = $('reset');
  const bar = $('progress-bar');
  const text = $('progress-text');
  const backendLine = $('backend');
  const statusLine = $('status');
  const backend = query.get('backend') === 'webgpu' ? 'webgpu' : 'wasm';
  const state = (window.simdgradDemo = { ready: false, step: 0, loss: NaN, backend: null });
  backendSelector(backend);
  const stepsPerRun = query.has('steps') ? Math.max(1, Number.parseInt(query.get('steps'), 10) || 1) : (options.stepsPerRun ?? Infinity);
  let running = false;
  let runEnd = stepsPerRun;
  let run = 0; // bumped by start and reset; worker messages of an older run are stale
  let nextId = 1;
  const pending = new Map();

  const setStatus = (msg, kind = '') => {
    statusLine.textContent = msg;
    statusLine.className = kind;
  };
  const threads = Math.max(1, Number.parseInt(query.get('threads') ?? '1', 10) || 1);

  startBtn.disabled = resetBtn.disabled = true;
  setStatus('loading simdgrad…');

  // import.meta.resolve follows this document's import map, so the worker loads the same file
  // the page would get from `import ... from 'simdgrad'` (workers do not see import maps).
  const simdgradUrl = import.meta.resolve('simdgrad');
  const inline = query.get('worker') === '0' || !moduleWorkers();
  const where = inline ? 'on the main thread, in short chunks' : 'in a Web Worker';
  let worker = null;
  const outbox = [];
  const post = (msg, transfer) => (worker ? worker.postMessage(msg, transfer ?? []) : outbox.push([msg, transfer]));

  function showButtons() {
    startBtn.textContent = running ? 'Pause' : state.step > 0 ? (state.step >= runEnd ? 'Train more' : 'Resume') : 'Start';
    startBtn.disabled = !state.ready;
    resetBtn.disabled = !state.ready;
  }

  function showProgress(msg) {
    const finite = Number.isFinite(stepsPerRun);
    const frac = finite ? Math.min(1, state.step / runEnd) : 0;
    bar.style.width = `${(frac * 100).toFixed(1)}%`;
    const rate = msg?.stepsPerSec ? ` · ${msg.stepsPerSec.toFixed(1)} steps/s` : '';
    text.textContent = `step ${state.step}${finite ? ` / ${runEnd}` : ''}${rate}`;
  }

  function attach(w) {
    worker = w;
    worker.onmessage = onMessage;
    worker.onerror = (ev) => {
      setStatus(`worker failed: ${ev.message ?? 'could not load'}`, 'error');
      console.error('simdgrad demo worker failed', ev);
    };
    for (const [msg, transfer] of outbox.splice(0)) worker.postMessage(msg, transfer ?? []);
  }
  if (inline) {
    import('./inline-host.js').then(
      ({ InlineWorker }) => attach(new InlineWorker(options.trainer)),
      (e) => setStatus(`cannot load the main-thread host: ${e.message}`, 'error'),
    );
  } else {
    attach(new Worker(options.worker, { type: 'module' }));
  }

  function onMessage(ev) {
    const msg = ev.data;
    switch (msg.type) {
      case 'ready': {
        state.ready = true;
        state.backend = msg.backend;
        const f = msg.features;
        backendLine.textContent = `simdgrad ${msg.version} · backend ${msg.backend}${msg.backend === 'wasm' && f.simd ? ' (SIMD)' : ''} · ${msg.threads} thread${msg.threads === 1 ? '' : 's'} · ${where}`;
        if (msg.warning) {
          // Kept next to the backend line (the status line changes as training goes on).
          const note = document.createElement('span');
          note.className = 'warn';
          note.id = 'threads-warning';
          note.textContent = msg.warning;
          backendLine.after(note);
        }
        setStatus('ready');
        showButtons();
        showProgress();
        options.onReady?.(msg);
        if (query.get('autostart') === '1') start();
        break;
      }
      case 'progress':
        if (msg.run !== run) break;
        state.step = msg.step;
        state.loss = msg.loss;
        // Live tensors and bytes in the worker's wasm memory: flat while training if nothing leaks.
        if (msg.memory) state.memory = { tensors: msg.memory.tensors, bytes: msg.memory.bytes };
        if (running && !msg.running) {
          running = false;
          setStatus(msg.step >= runEnd ? `done: ${msg.step} steps — “Train more” continues` : `paused at step ${msg.step}`);
        }
        showButtons();
        showProgress(msg);
        options.onProgress?.(msg);
        break;
      case 'report':
        if (msg.run !== run) break;
        options.onReport?.(msg);
        break;
      case 'reply': {
        const p = pending.get(msg.id);
        pending.delete(msg.id);
        if (msg.error !== undefined) p?.reject(new Error(msg.error));
        else p?.resolve(msg.result);
        break;
      }
      case 'error':
        running = false;
        setStatus(`error: ${msg.message}`, 'error');
        showButtons();
        console.error('simdgrad demo worker:', msg.message);
        break;
    }
  }
  post({ type: 'init', simdgradUrl, threads, backend, config: options.config() });

  function start() {
    if (!state.ready) return;
    if (state.step >= runEnd) runEnd = state.step + stepsPerRun;
    running = true;
    post({ type: 'start', steps: runEnd - state.step, run: ++run });
    setStatus('training…');
    showButtons();
    showProgress();
  }
  function pause() {
    running = false;
    post({ type: 'pause' });
    setStatus(`paused at step ${state.step}`);
    showButtons();
  }
  function reset() {
    running = false;
    state.step = 0;
    state.loss = NaN;
    runEnd = stepsPerRun;
    post({ type: 'reset', config: options.config(), run: ++run });
    options.onReset?.();
    setStatus('reset: a new model with fresh weights');
    showButtons();
    showProgress();
  }
  startBtn.addEventListener('click', () => (running ? pause() : start()));
  resetBtn.addEventListener('click', reset);

  function request(name, payload, transfer) {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      post({ type: 'request', id, name, payload }, transfer);
    });
  }

  // Tests reach the demo's requests (e.g. the digits' full evaluation) through the page.
  state.request = request;
  return { request, reset, start, pause, setStatus, get running() { return running; } };
}

/**
 * A wasm / webgpu choice before the status line (#backend-choice, made here): changing it reloads
 * the page with ?backend=…; webgpu is greyed out, with the reason, where navigator.gpu is missing.
 */
function backendSelector(current) {
  const select = document.createElement('select');
  select.id = 'backend-choice';
  select.title = 'compute backend';
  for (const name of ['wasm', 'webgpu']) {
    const opt = document.createElement('option');
    opt.value = name;
    opt.textContent = name;
    opt.selected = name === current;
    if (name === 'webgpu' && !navigator.gpu) {
      opt.disabled = true;
      opt.textContent = 'webgpu (unavailable)';
      select.title = window.isSecureContext
        ? 'WebGPU is not available in this browser (navigator.gpu is missing)'
        : 'WebGPU needs a secure context (https or localhost)';
    }
    select.append(opt);
  }
  select.addEventListener('change', () => {
    const q = new URLSearchParams(location.search);
    if (select.value === 'wasm') q.delete('backend');
    else q.set('backend', select.value);
    location.search = q.toString();
  });
  const label = document.createElement('label');
  label.className = 'backend-choice';
  label.append('backend ', select);
  document.getElementById('backend').before(label);
}

/** Whether this browser runs module workers (it reads the `type` option only if it knows it). */
function moduleWorkers() {
  let known = false;
  try {
    const url = URL.createObjectURL(new Blob([''], { type: 'text/javascript' }));
    new Worker(url, {
      get type() {
        known = true;
        return 'module';
      },
    }).terminate();
    URL.revokeObjectURL(url);
  } catch {
    known = false;
  }
  return known;
}
